#pragma once
// Field-by-field comparison of two IR models, for round-trip tests: nodes, attributes (with
// subgraphs), initializer bytes, value types, opsets, metadata and the verbatim-kept fields.
#include <string>

#include "model/graph.h"

namespace msa::test {

// Empty when equal; otherwise where the first difference is ("graph/node '/conv1/Conv'/attr
// 'pads': ints differ").
std::string firstDifference(const Model& a, const Model& b);
std::string firstDifference(const Graph& a, const Graph& b, const std::string& where = "graph");

}  // namespace msa::test
