#pragma once
// Small, careful graph edits shared by the optimizer passes. They keep graph outputs' names
// stable (callers and the verifier look outputs up by name) and reach into subgraphs, which may
// read any value of the enclosing graph by name.
#include <string>
#include <string_view>

#include "model/graph.h"

namespace msa {

// Renames every use of value `from` to `to`: node inputs here and in nested subgraphs.
void replaceAllUses(Graph& g, std::string_view from, std::string_view to);

// Removes node `id`, wiring its output `outputIdx` to its input `inputIdx` (for nodes that pass
// a value through: Identity, Dropout, a no-op Reshape/Cast, a cancelled Transpose pair's
// second node). When the output is a graph output the upstream value is renamed instead, if it
// is safe; returns false (and changes nothing) when it is not.
bool bypassNode(Graph& g, NodeId id, size_t inputIdx = 0, size_t outputIdx = 0);

// Removes nodes whose outputs nobody uses (transitively), initializers nobody reads and
// value_info of values that no longer exist. Returns the number of nodes removed.
size_t removeDeadCode(Graph& g);

// True when any node (here or in a subgraph) reads `value`, or it is a graph output.
bool isUsed(const Graph& g, std::string_view value);

// Adds an initializer with a fresh name derived from `base`; returns the name used.
std::string addInitializer(Graph& g, Tensor t, std::string_view base);

}  // namespace msa
