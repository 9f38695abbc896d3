#pragma once
// Reads a whole JSON file for the importers: an error names the file (unreadable, or malformed
// with the parser's position).
#include <filesystem>

#include <nlohmann/json.hpp>

#include "util/error.h"

namespace msa {

Result<nlohmann::json> readJsonFile(const std::filesystem::path& file);

// object[key] when it is a string (a number), else `fallback`: json::value() throws when the key
// holds another type, and a profile is untrusted input (fuzz_profile_attachment: std::terminate).
std::string stringAt(const nlohmann::json& object, const char* key, std::string fallback = {});
double numberAt(const nlohmann::json& object, const char* key, double fallback);

}  // namespace msa
