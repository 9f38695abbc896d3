#include "profile/json_file.h"

#include "util/input_file.h"

namespace msa {

using nlohmann::json;

Result<json> readJsonFile(const std::filesystem::path& file, const json::parser_callback_t& keep) {
  auto in = InputStream::open(file);
  if (!in) return in.error();
  try {
    return json::parse((*in)->stream(), keep);
  } catch (StopReading& stop) {
    return std::move(stop.error);
  } catch (const json::exception& e) {
    // A limit hit or corrupt compressed data ends the text early: that is what to say.
    if ((*in)->error()) return *(*in)->error();
    return Error::model(std::string("malformed JSON: ") + e.what(), file.string());
  }
}

namespace {

// Top-level facts only; values below are skipped as the parser goes (no tree).
class OutlineSax : public nlohmann::json_sax<json> {
 public:
  explicit OutlineSax(JsonOutline& o) : m_o(o) {}
  bool null() override { return scalar(json::value_t::null); }
  bool boolean(bool) override { return scalar(json::value_t::boolean); }
  bool number_integer(number_integer_t) override { return scalar(json::value_t::number_integer); }
  bool number_unsigned(number_unsigned_t) override { return scalar(json::value_t::number_unsigned); }
  bool number_float(number_float_t, const string_t&) override { return scalar(json::value_t::number_float); }
  bool string(string_t& s) override {
    if (m_depth == 1 && m_key == "signature") m_o.signature = s;
    return scalar(json::value_t::string);
  }
  bool binary(binary_t&) override { return scalar(json::value_t::binary); }
  bool start_object(std::size_t) override { return open(json::value_t::object); }
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(json::value_t::array); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    if (m_depth == 1) m_key = k;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  bool scalar(json::value_t t) {
    if (m_depth == 1 && m_o.object) m_o.keys[m_key] = t;
    return true;
  }
  bool open(json::value_t t) {
    if (m_depth == 0) {
      m_o.object = t == json::value_t::object;
      m_o.array = t == json::value_t::array;
    } else if (m_depth == 1 && m_o.object) {
      m_o.keys[m_key] = t;
    }
    ++m_depth;
    return true;
  }
  bool close() {
    --m_depth;
    return true;
  }
  JsonOutline& m_o;
  int m_depth = 0;
  std::string m_key;
};

}  // namespace

JsonOutline outlineJsonFile(const std::filesystem::path& file) {
  JsonOutline o;
  auto in = InputStream::open(file);
  if (!in) {
    o.error = in.error();
    return o;
  }
  OutlineSax sax(o);
  try {
    o.valid = json::sax_parse((*in)->stream(), &sax) && !(*in)->error();
  } catch (const json::exception&) {
    o.valid = false;
  }
  if ((*in)->error()) o.error = *(*in)->error();
  return o;
}

std::string stringAt(const json& object, const char* key, std::string fallback) {
  if (!object.is_object()) return fallback;
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : fallback;
}

double numberAt(const json& object, const char* key, double fallback) {
  if (!object.is_object()) return fallback;
  auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : fallback;
}

}  // namespace msa
