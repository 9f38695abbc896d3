#pragma once
// Reads a whole JSON file for the importers: an error names the file (unreadable, or malformed
// with the parser's position).
#include <filesystem>

#include <nlohmann/json.hpp>

#include "util/error.h"

namespace msa {

Result<nlohmann::json> readJsonFile(const std::filesystem::path& file);

}  // namespace msa
