#pragma once
// What the pass tests check after every rewrite: the graph is still well formed (no dangling
// values, unique names, execution order, graph outputs kept), ONNX's checker accepts the exported
// model, and ONNX Runtime computes the same outputs as before on the same seeded inputs.
#include <map>
#include <string>
#include <vector>

#include "model/graph.h"
#include "profile/model_inputs.h"
#include "profile/value_compare.h"
#include "util/error.h"

namespace msa::test {

// "" when the top-level graph is well formed, otherwise what is wrong (naming the value/node).
std::string graphProblem(const Model& model);

// onnx::checker::check_model plus strict shape inference on the exported model. Weights above
// 1 MiB are exported as typed inputs (the checker needs their type, not their bytes).
Status onnxCheck(const Model& model);

// The model's outputs from ONNX Runtime (graph optimizations disabled) for `inputs`.
Result<std::vector<DataValue>> runOutputs(const Model& model, const std::vector<Tensor>& inputs);

struct OutputsCompared {
  bool equal = true;
  double maxAbsError = 0, maxRelError = 0;
  std::string message;  // the first mismatch, by output name
};
// Compares outputs by position (the rewritten model keeps its outputs' names and order).
OutputsCompared compareOutputs(const std::vector<DataValue>& actual, const std::vector<DataValue>& expected,
                               const Tolerance& tol);

// Runs `original` and `rewritten` on the same seeded inputs and compares their outputs.
Result<OutputsCompared> compareModels(const Model& original, const Model& rewritten, const Tolerance& tol,
                                      const InputOptions& inputs = {});

std::map<std::string, int> opHistogram(const Graph& g);
int countOp(const Graph& g, const std::string& op);
inline int countOp(const Model& m, const std::string& op) { return countOp(m.graph, op); }

}  // namespace msa::test
