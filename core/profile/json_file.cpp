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

}  // namespace msa
