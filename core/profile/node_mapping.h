#pragma once
// Which IR nodes did each runtime node's work? With graph optimization disabled the runtime runs
// the IR's nodes under their own names. With optimization on it fuses (Conv+BN+Relu -> FusedConv,
// MatMul+Add -> Gemm), renames (NCHWc "<tensor>_nchwc") and inserts nodes (ReorderInput/Output,
// the Reshapes around a Gemm). Tensor names survive fusion, so a runtime node is traced back
// through the graph the runtime dumped: it covers the IR nodes between the tensors it reads and
// the tensors it writes. See docs/architecture.md (profiling) for the rules.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "model/graph.h"
#include "profile/profile_data.h"

namespace msa {

// Fills irNodes, inserted, neighbours, kernel (provider:domain for non-ONNX domains), unmatched
// and irNodesNotRun of `profile`. `optimized` is the graph the runtime ran (nullptr: map by name).
void mapToIr(ProfileData& profile, const Model& original, const Model* optimized);

// The runtime writes the names it was given into its profile as they are (a TAB or a quote in a
// node name makes its JSON unreadable) and builds the names of the nodes it makes from them. So
// the model a runtime profiles has every node renamed "__msa<k>__" (k: the node's position in
// a walk of the graph and its subgraphs), and the names in what it wrote are turned back here:
// the mapping never depends on the runtime echoing a name it was given.
class RuntimeNames {
 public:
  explicit RuntimeNames(const Model& model);
  // The model with its nodes renamed, to give the runtime.
  const Model& model() const { return m_model; }
  // `name` with every "__msa<k>__" in it replaced by the model's own name of node k.
  std::string original(std::string_view name) const { return replaced(name, false); }
  // Every name of `profile` (entries, IR nodes, neighbours, parents, unmatched, not run) back to
  // the model's.
  void restore(ProfileData& profile) const;
  // The runtime's profile `from` written to `to` with the model's names, escaped as JSON strings
  // (the runtime's own copy would hold them raw), line by line.
  Status restoreTraceFile(const std::filesystem::path& from, const std::filesystem::path& to) const;

 private:
  std::string replaced(std::string_view name, bool jsonEscaped) const;
  Model m_model;
  std::vector<std::string> m_names;  // k -> the model's name
};

}  // namespace msa
