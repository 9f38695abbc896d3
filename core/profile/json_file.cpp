#include "profile/json_file.h"

#include <fstream>

namespace msa {

Result<nlohmann::json> readJsonFile(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return Error::model("cannot open the file", file.string());
  try {
    return nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    return Error::model(std::string("malformed JSON: ") + e.what(), file.string());
  }
}

std::string stringAt(const nlohmann::json& object, const char* key, std::string fallback) {
  if (!object.is_object()) return fallback;
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

double numberAt(const nlohmann::json& object, const char* key, double fallback) {
  if (!object.is_object()) return fallback;
  auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : fallback;
}

}  // namespace msa
