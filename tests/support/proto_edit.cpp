#include "proto_edit.h"

#include <climits>

namespace msa::test {

std::string editModel(std::string_view modelBytes, const std::function<void(onnx::ModelProto&)>& edit) {
  onnx::ModelProto mp;
  if (modelBytes.size() > static_cast<size_t>(INT_MAX) ||
      !mp.ParseFromArray(modelBytes.data(), static_cast<int>(modelBytes.size())))
    return {};
  edit(mp);
  std::string out;
  mp.SerializeToString(&out);
  return out;
}

void makeExternal(onnx::ModelProto& model, const std::string& name, const std::vector<int64_t>& dims,
                  const std::vector<std::pair<std::string, std::string>>& record) {
  for (auto& t : *model.mutable_graph()->mutable_initializer()) {
    if (t.name() != name) continue;
    t.clear_raw_data();
    t.clear_float_data();
    t.clear_dims();
    for (int64_t d : dims) t.add_dims(d);
    t.set_data_location(onnx::TensorProto::EXTERNAL);
    t.clear_external_data();
    for (const auto& [k, v] : record) {
      auto* e = t.add_external_data();
      e->set_key(k);
      e->set_value(v);
    }
  }
}

}  // namespace msa::test
