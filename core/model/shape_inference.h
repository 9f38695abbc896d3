#pragma once
// Shapes: the file's value_info, then ONNX shape inference, after binding the symbolic input
// dims the user gave (--dim batch=1). What stays unknown stays unknown: the profiler fills it.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "model/graph.h"
#include "util/error.h"

namespace msa {

struct ShapeOptions {
  std::map<std::string, int64_t, std::less<>> dims;  // symbolic dim name (or "input:axis") -> value
  bool dataPropagation = true;  // resolve Shape->Gather->Concat->Reshape arithmetic
  // Run libonnx in a forked child: it crashes (not throws) on some malformed graphs.
  bool isolate = true;
  // One pass over the IR where the graph allows it (shape_pass.h); false: ONNX's whole-graph
  // inference and folding rounds for every graph (what the one pass is compared against).
  bool onePass = true;
};

struct ShapeReport {
  std::vector<std::string> unboundDims;  // symbolic dims of the inputs still unbound
  std::vector<std::string> warnings;     // inference problems, by node where known
};

// Parses "name=value" (value > 0) into options.dims; returns a usage error otherwise.
Status parseDimBinding(const std::string& text, ShapeOptions& options);

Result<ShapeReport> inferShapes(Model& model, const ShapeOptions& options = {});

}  // namespace msa
