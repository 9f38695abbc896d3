#pragma once
// What msadvisor refuses in a model before any runtime sees it: the structure ONNX requires
// (single assignment, no cycles, every input and output defined, imported domains) and shapes
// no device could hold. loadModel runs it, so the CLI, the GUI and the Python package refuse the
// same files with the same sentence, naming the file and the node.
#include <filesystem>
#include <optional>
#include <string>

#include "model/graph.h"
#include "util/error.h"

namespace msa {

struct ModelLimits {
  static constexpr int kMaxSubgraphDepth = 16;            // If/Loop/Scan bodies inside each other
  static constexpr int64_t kMaxElements = int64_t(1) << 50;  // per declared tensor shape
};

// The first problem found, as Error::model(message, label, node); Ok for a model msadvisor takes.
Status checkModel(const Model& model, const std::string& label);

// loadModel without checkModel, for a graph the runtime itself wrote and that is read only for
// its node mapping, never run or shown: ONNX Runtime's optimized model repeats initializers
// inside If bodies, which the check would refuse.
Result<Model> loadRuntimeWrittenModel(const std::filesystem::path& path);

// What the runtime in this build (ONNX Runtime 1.21, CPU) executes. nullopt when it can run the
// model's opsets and domains; otherwise one sentence saying why not and that estimation (which
// needs no runtime) still works.
std::optional<std::string> runtimeCannotRun(const Model& model);

// Newest default-domain and ai.onnx.ml opsets ONNX Runtime 1.21 implements.
inline constexpr int64_t kRuntimeMaxOpset = 22;
inline constexpr int64_t kRuntimeMaxMlOpset = 5;

}  // namespace msa
