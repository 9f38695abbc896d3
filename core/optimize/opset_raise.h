#pragma once
// Raising a model's default-domain opset, for a pass that needs a newer operator
// (LayerNormalization: 17). Every node, subgraphs included, must mean the same at the new opset:
// ops whose definition changed only by new types, or by new optional attributes/inputs whose
// defaults keep the old behaviour, stay as they are; ops whose attributes became inputs
// (Squeeze, Unsqueeze, ReduceSum, Split, Clip, Pad, Slice, TopK, Dropout) are converted; any
// other change refuses the raise, naming the node. Checked against ONNX 1.12's registry, so the
// target is at most 17.
#include <cstdint>
#include <string>
#include <vector>

#include "model/graph.h"
#include "util/error.h"

namespace msa {

struct OpsetRaise {
  int64_t from = 0, to = 0;
  std::vector<std::string> converted;  // "Squeeze 'x/Squeeze': axes attribute → input"
  std::string note() const;            // "opset raised from 14 to 17"
};

// Checks every node first and changes nothing when one refuses. A model already at `target` or
// above is left alone (from == to). Also raises the IR version to what the opset requires.
Result<OpsetRaise> raiseOpset(Model& model, int64_t target);

}  // namespace msa
