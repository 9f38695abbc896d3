#pragma once
// What ONNX 1.12's operator registry says about operator versions, for the parts that reason
// about them (raising a model's opset). ONNX 1.12 knows the default domain up to opset 17.
#include <cstdint>
#include <string_view>

namespace msa {

struct OpSchemaVersion {
  int64_t since = 0;        // the opset that introduced the definition in force; 0: unknown op
  bool deprecated = false;  // the definition in force is a deprecation notice
};

// The definition of `op` (domain "" or "ai.onnx" for the default) in force at `opset`.
OpSchemaVersion opSchemaVersion(std::string_view op, std::string_view domain, int64_t opset);
// The highest default-domain opset the registry knows.
int64_t maxKnownOpset();

}  // namespace msa
