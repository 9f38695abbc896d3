#pragma once
// Realistic large graphs built with the IR, for benchmarks and UI tests: a BERT-style encoder as
// the PyTorch ONNX exporter writes it (scoped names, decomposed LayerNorm and GELU, the shape
// arithmetic around every head split), with shapes on every value.
#include "model/graph.h"

namespace msa::bench {

struct TransformerSpec {
  int layers = 12;
  int seq = 128, hidden = 768, heads = 12, ffn = 3072;
};

// Node count of transformer(spec): 25 + 67 per layer.
int transformerNodeCount(const TransformerSpec& spec);
// The smallest spec (default dims) with at least `nodes` nodes.
TransformerSpec transformerWithNodes(int nodes);
Model transformer(const TransformerSpec& spec);

}  // namespace msa::bench
