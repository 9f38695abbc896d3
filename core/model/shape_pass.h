#pragma once
// Shape inference in one pass over the IR, for the graphs large models are: topologically
// sorted, without subgraphs, sparse initializers or model-local functions. Each node gets its
// output types from ONNX's own inference function for its op, called through a lean context
// over the IR (no protobuf copy of the graph, no per-node name maps), and they are named and
// merged as ONNX's whole-graph inference names and merges them; ONNX's data propagation
// follows, and the shape arithmetic it does not follow (shape_values.h) is evaluated at the
// node, so the next node sees the value at once. Whole-graph inference needed a whole pass per
// dependent step of such arithmetic (one per layer of a language model).
//
// Internal to shape inference (shape_inference.cpp chooses the path and isolates it).
#include <string>
#include <vector>

#include "model/graph.h"

namespace onnx {
class NodeProto;
}

namespace msa {

// Whether inferOnePass may handle the model (it also needs the nodes in execution order); the
// rest goes to ONNX's whole-graph inference.
bool onePassApplies(const Model& model);

// Infers into model.graph: inferred values appended to valueInfo, declared ones refined where
// inference knows more, untyped graph outputs typed. Problems go to `warnings`, by node.
// False, with nothing done, when the nodes are not in execution order. `keepMemory`: never free
// what the pass built (a child process about to exit).
bool inferOnePass(Model& model, bool dataPropagation, std::vector<std::string>& warnings, bool keepMemory = false);

// Whether `a` knows more of a shape than `b` (more known dims): how both inference paths merge
// an inferred type into a declared one.
bool moreKnown(const TypeInfo& a, const TypeInfo& b);

// Attribute values that make libonnx 1.12's inference functions divide by zero or worse (a
// crash, not an error): why, or empty when the node is safe to hand over.
std::string onnxCrashRisk(const onnx::NodeProto& n);

}  // namespace msa
