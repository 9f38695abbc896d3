#include "model/op_schema.h"

#include <string>

#include <onnx/defs/schema.h>

namespace msa {

OpSchemaVersion opSchemaVersion(std::string_view op, std::string_view domain, int64_t opset) {
  std::string d(domain == "ai.onnx" ? std::string_view() : domain);
  const auto* s = onnx::OpSchemaRegistry::Schema(std::string(op), static_cast<int>(opset), d);
  if (!s) return {};
  return {s->SinceVersion(), s->Deprecated()};
}

int64_t maxKnownOpset() {
  const auto& map = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto it = map.find("");
  return it == map.end() ? 0 : it->second.second;
}

}  // namespace msa
