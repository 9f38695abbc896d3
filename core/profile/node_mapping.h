#pragma once
// Which IR nodes did each runtime node's work? With graph optimization disabled the runtime runs
// the IR's nodes under their own names. With optimization on it fuses (Conv+BN+Relu -> FusedConv,
// MatMul+Add -> Gemm), renames (NCHWc "<tensor>_nchwc") and inserts nodes (ReorderInput/Output,
// the Reshapes around a Gemm). Tensor names survive fusion, so a runtime node is traced back
// through the graph the runtime dumped: it covers the IR nodes between the tensors it reads and
// the tensors it writes. See docs/architecture.md (profiling) for the rules.
#include "model/graph.h"
#include "profile/profile_data.h"

namespace msa {

// Fills irNodes, inserted, neighbours, kernel (provider:domain for non-ONNX domains), unmatched
// and irNodesNotRun of `profile`. `optimized` is the graph the runtime ran (nullptr: map by name).
void mapToIr(ProfileData& profile, const Model& original, const Model* optimized);

}  // namespace msa
