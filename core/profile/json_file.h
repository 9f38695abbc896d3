#pragma once
// Reads JSON files for the importers, within the read limits (util/read_limits.h): streamed from
// the file (gzip inflated on the way), never a copy of the whole text, and with a callback that
// drops each big array's elements once converted, never the whole tree. An error names the file
// (unreadable, a limit hit, or malformed with the parser's position).
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "util/error.h"

namespace msa {

// Thrown from a `keep` callback to stop at the first error: readJsonFile returns `error`.
struct StopReading {
  Error error;
};

// The document, or what `keep` leaves of it (nlohmann's parser callback: false drops the value).
Result<nlohmann::json> readJsonFile(const std::filesystem::path& file,
                                    const nlohmann::json::parser_callback_t& keep = nullptr);

// What a file is, read without building its tree (the importers claim files by it): an object
// or an array, the top-level keys with the type of their values, and the string "signature".
struct JsonOutline {
  bool valid = false;  // the whole file is JSON
  std::optional<Error> error;  // why it could not be read to the end (a read limit, not a file, …)
  bool object = false, array = false;
  std::map<std::string, nlohmann::json::value_t> keys;
  std::string signature;
  bool has(const std::string& key, nlohmann::json::value_t type) const {
    auto it = keys.find(key);
    return it != keys.end() && it->second == type;
  }
};
JsonOutline outlineJsonFile(const std::filesystem::path& file);

// object[key] when it is a string (a number), else `fallback`: json::value() throws when the key
// holds another type, and a profile is untrusted input (fuzz_profile_attachment: std::terminate).
std::string stringAt(const nlohmann::json& object, const char* key, std::string fallback = {});
double numberAt(const nlohmann::json& object, const char* key, double fallback);

}  // namespace msa
