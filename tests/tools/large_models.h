#pragma once
// Large language models written as ONNX files the way torch.onnx.export writes them, for tests
// and benchmarks at scale: Llama-like decoders (RMSNorm, rotary embeddings, grouped-query
// attention, SwiGLU), BERT-like encoders (decomposed LayerNorm and GELU, MatMul + bias) and
// GPT-2-style decoders (opset 17 LayerNormalization, packed QKV + Split, causal Where mask, tanh
// GELU), with N layers and weights inline or as external data. External weights left at zero are a sparse
// file (ftruncate, no byte written) where the filesystem allows: an 8 GB model costs no disk.
//
// The file is written through ONNX's own protobuf classes, not through msadvisor's exporter, so
// importing it tests the importer against an independent writer. Every value's shape is known
// here (for the reference binding of the symbolic dims), so tests can check shape inference.
//
//   auto spec = tools::llamaFor({.nodes = 50000, .weightBytes = int64_t(1) << 30});
//   auto out = tools::writeLlama(spec, {.storage = tools::Storage::External}, "llama.onnx");
//   // out->nodes, out->expectedShapes, out->layerScopes …
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "util/error.h"

namespace msa::tools {

enum class Storage { Inline, External };
enum class Fill { Zeros, Random };  // zeros + external = a sparse data file

struct WriteOptions {
  Storage storage = Storage::External;
  Fill fill = Fill::Zeros;
  bool float16 = false;         // weights and compute in float16 (as exported with .half())
  bool dynamicShapes = true;    // inputs [batch, sequence] symbolic, reshapes from Shape arithmetic
  bool writeValueInfo = false;  // declare every intermediate shape in the file (some exporters do)
  int64_t batch = 1;            // the reference binding of the symbolic dims (or the static dims)
  int64_t sequence = 128;
  uint64_t seed = 1234;
  int64_t externalMinBytes = 1024;  // smaller weights stay inline, as onnx.save does
};

struct LlamaSpec {
  int layers = 2;
  int hidden = 256;
  int heads = 8;
  int kvHeads = 2;  // grouped-query attention when < heads
  int ffn = 688;    // SwiGLU width
  int vocab = 32000;
  int maxPositions = 2048;
};

struct BertSpec {
  int layers = 2;
  int hidden = 256;
  int heads = 4;
  int ffn = 1024;
  int vocab = 30522;
  int maxPositions = 512;
};

// GPT-2 as nanoGPT / Hugging Face write it: pre-norm blocks, c_attn [hidden, 3·hidden] split into
// q, k, v, the causal mask a tril buffer sliced to the sequence (Where(mask == 0, −inf, scores)).
struct GptSpec {
  enum class Gelu {
    Pow,   // 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), x³ as Pow: nanoGPT's NewGELU, HF gelu_new
    Fast,  // 0.5·x·(1 + tanh(x·0.7978845608·(1 + 0.044715·x·x))): HF FastGELUActivation (6 Mul, 2 Add, Tanh)
  };
  int layers = 2;
  int hidden = 256;
  int heads = 4;
  int ffn = 1024;
  int vocab = 2048;
  int maxPositions = 128;
  Gelu gelu = Gelu::Fast;
};

struct SizeTarget {
  int64_t nodes = 1000;     // at least this many nodes (whole layers)
  int64_t weightBytes = 0;  // about this many bytes of weights; 0 = small layers (hidden 64)
};

// The spec with whole layers reaching `nodes` and the hidden size, in steps of 64, whose weights
// come closest to `weightBytes` (head size 64 from 512 wide, 32 or 16 below; GQA groups of 4).
// Node counts depend on the options (static shapes need no shape arithmetic).
LlamaSpec llamaFor(const SizeTarget& target, const WriteOptions& options = {});
BertSpec bertFor(const SizeTarget& target, const WriteOptions& options = {});

// The spec with another hidden size and the heads and FFN width that go with it.
LlamaSpec withHidden(LlamaSpec spec, int64_t hidden);
BertSpec withHidden(BertSpec spec, int64_t hidden);

int64_t llamaNodeCount(const LlamaSpec& spec, const WriteOptions& options = {});
int64_t bertNodeCount(const BertSpec& spec, const WriteOptions& options = {});
int64_t llamaWeightBytes(const LlamaSpec& spec, bool float16);
int64_t bertWeightBytes(const BertSpec& spec, bool float16);

struct Written {
  std::filesystem::path model;  // the .onnx file
  std::filesystem::path data;   // the external data file (empty when inline)
  int64_t nodes = 0;
  int64_t initializers = 0;
  int64_t weightBytes = 0;  // bytes of every initializer
  int64_t modelFileBytes = 0;
  int64_t dataFileBytes = 0;       // apparent size
  int64_t dataAllocatedBytes = 0;  // blocks on disk (far below the size when sparse)
  int layers = 0;
  int nodesPerLayer = 0;
  // The scope of layer i ("/model/layers.3", "/encoder/layer.3"), as in the node names.
  std::vector<std::string> layerScopes;
  // Every value's shape for the reference binding (batch, sequence) and its ONNX element type.
  std::map<std::string, std::vector<int64_t>> expectedShapes;
  std::map<std::string, int> expectedTypes;
  std::vector<std::string> symbolicDims;  // {"batch", "sequence"} unless static
  bool dry = false;                       // counted only, nothing written (node counts)
};

Result<Written> writeLlama(const LlamaSpec& spec, const WriteOptions& options, const std::filesystem::path& out);
Result<Written> writeBert(const BertSpec& spec, const WriteOptions& options, const std::filesystem::path& out);
Result<Written> writeGpt(const GptSpec& spec, const WriteOptions& options, const std::filesystem::path& out);

}  // namespace msa::tools
