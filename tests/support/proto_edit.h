#pragma once
// Rewrites serialized model bytes through ONNX's protobuf classes, for the tests that need what
// the IR cannot express: malformed files (corruption, fuzz seeds) and hand-written external data
// records. Test-only; product code goes through core/model.
#include <functional>
#include <string>
#include <string_view>

#include <onnx/onnx_pb.h>

namespace msa::test {

// Parses, calls `edit`, serializes. Returns an empty string when the bytes do not parse.
std::string editModel(std::string_view modelBytes, const std::function<void(onnx::ModelProto&)>& edit);

// Makes initializer `name` external: its data cleared, dims set, and the external_data record
// given as key/value pairs (location, offset, length... written verbatim, in order).
void makeExternal(onnx::ModelProto& model, const std::string& name, const std::vector<int64_t>& dims,
                  const std::vector<std::pair<std::string, std::string>>& record);

}  // namespace msa::test
