#pragma once
// Maps the op names a runtime reports back to IR nodes. The Ascend graph compiler (ATC/GE)
// keeps ONNX node names, so a plain node matches exactly; its other conventions are:
//  - a UB-fused kernel is named by concatenating its members' names ("/conv1/Conv" +
//    "/relu/Relu" -> "/conv1/Conv/relu/Relu"), or "<first member>_ub_fusion" when that
//    would be too long; fusion_op_*.csv lists the members explicitly ("Original Ops");
//  - layout and precision conversions it inserts are named "trans_<Type>_<n>"
//    ("trans_TransData_3", "trans_Cast_0"): they belong to no ONNX node; so does any op of
//    type TransData, which ONNX does not have.
// Anything else is reported as unmatched by the caller, never dropped.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "model/graph.h"
#include "model/graph_index.h"

namespace msa {

struct NodeProfile;

enum class MatchKind {
  None,         // no IR node found
  Exact,        // the runtime name is an IR node name
  FusionList,   // a fusion list (fusion_op csv "Original Ops") named the members
  Concatenated, // the name is a concatenation of IR node names (GE UB fusion)
  FusedPrefix,  // "<ir node>_ub_fusion": only the first member is known
  Scoped,       // "<ir node><sep><suffix>": a compiler-derived name of one IR node
  Inserted,     // "trans_<Type>_<n>": a conversion the compiler inserted
};

struct NameMatch {
  MatchKind kind = MatchKind::None;
  std::vector<std::string> irNodes;  // in execution order when known
  // Concatenated names only: IR nodes on the paths between the named members that the name
  // leaves out (a BatchNormalization folded into the Conv before the UB fusion). They belong
  // to this kernel unless another entry names them.
  std::vector<std::string> implied;
};

class IrNameMatcher {
 public:
  // Only top-level graph nodes are candidates (runtimes inline subgraphs under other names).
  // The graph must outlive the matcher and stay unchanged.
  explicit IrNameMatcher(const Graph& graph);

  // `fusions` maps a fused kernel's name to its original op names (fusion_op csv).
  NameMatch match(std::string_view runtimeName, std::string_view opType = {},
                  const std::map<std::string, std::vector<std::string>>* fusions = nullptr) const;
  bool has(std::string_view irName) const { return m_names.count(irName) != 0; }

  // For inserted entries in execution order: fills producerIrNode/consumerIrNode from the
  // nearest matched neighbours, keeping only what the graph's edges support (see .cpp).
  void assignNeighbours(std::vector<NodeProfile>& executionOrder) const;

  static bool looksInserted(std::string_view runtimeName);

 private:
  std::vector<std::string> decompose(std::string_view name, std::vector<std::string>* implied) const;
  bool feeds(const std::string& producer, const std::string& consumer) const;
  // Nodes strictly between `from` and `to` on a shortest path of at most `maxHops` edges;
  // nullopt when `to` is not reachable that way.
  std::optional<std::vector<std::string>> pathBetween(const std::string& from, const std::string& to,
                                                      int maxHops) const;

  const Graph* m_graph;
  GraphIndex m_index;
  std::unordered_set<std::string_view> m_names;  // views into the graph's node names
  std::vector<size_t> m_nameLengths;  // distinct lengths of IR node names, descending
};

const char* matchKindName(MatchKind k);

}  // namespace msa
