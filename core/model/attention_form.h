#pragma once
// Self-attention exactly as ONNX Runtime's com.microsoft Attention kernel computes it, proven on a
// graph (static shapes): the Q, K and V projections of one input (one packed MatMul and a
// Split/Slice, or three MatMuls, each with or without a bias), the head split, MatMul(Q, Kᵀ),
// the scale (anywhere on Q, K or the scores), the masks, Softmax over the keys, MatMul with V and
// the merge of the heads back into [batch, sequence, hidden].
//
// The head layout is proven by what the data-movement operators do (model/index_map.h): every
// element of Q, Kᵀ and V is traced back to a row and a column of its projection, each row to a
// token of the input and each column to the Attention column h·d+k it becomes — so a packed
// [q|k|v], torch's seq-first export or a per-head interleaving all reduce to one gather of the
// weight columns. Masks:
//  - causal: a constant Where condition or additive mask that hides exactly the keys after the
//    query (unidirectional = 1);
//  - key padding: Where on a boolean [batch, keys] value broadcast over heads and queries, directly
//    or as an additive Where(·, fill, 0) (mask_index, 1 = attend, mask_filter_value = the fill);
//  - any other additive mask: attention_bias, read as [batch|1, heads|1, queries, keys].
// A mask hides a score exactly when its fill is -inf or at most -10⁴: float32's exp underflows to 0
// about 104 below the row's maximum, for the fill as for score + fill. A query whose keys are all
// hidden is the exception (NaN or a uniform row in the graph, the kernel adding its own causal
// -10000): so a padding mask must hide with -inf, and a causal mask comes alone.
#include <optional>
#include <string>
#include <vector>

#include "model/graph_index.h"
#include "model/index_map.h"

namespace msa {

struct AttentionProjection {
  std::string weight;            // constant [Cin, N], or the [N, Cin] constant a Transpose reads
  bool weightTransposed = false;
  std::string bias;              // constant with N elements; empty: none
  std::vector<int64_t> columns;  // per Attention column h·d+k: the projection's column
};

struct AttentionForm {
  std::vector<size_t> members;  // the nodes it replaces, in graph order
  std::string input;            // [batch, sequence, inputHidden], read by the projections (rows moved)
  int64_t batch = 0, sequence = 0, heads = 0, headSize = 0, inputHidden = 0;
  AttentionProjection q, k, v;
  double scale = 0;  // of the scores, whatever the graph wrote (1/√d or its own)
  bool causal = false;
  std::string padding;             // bool [batch, keys]: a key is hidden where it equals paddingMasks
  bool paddingMasks = true;
  double maskFill = 0;             // what a hidden score becomes (-inf or <= -1e4); 0: no padding mask
  std::string additive;            // added to the scaled scores; empty: none
  std::vector<int64_t> additiveView;  // its dims read as [b, h, s, keys] (a Reshape when they differ)
  std::vector<int64_t> additiveDims;  // [b, h, queries, keys] it is expanded to for attention_bias
  double additiveScale = 1;           // factor applied to it after it was added (then before)
  std::string output;                 // the value the Attention's output stands for
  std::vector<int64_t> outputDims;
  bool outputSequenceFirst = false;  // output is the [sequence, batch, hidden] layout, reshaped
  std::vector<size_t> shapeReaders;  // Shape/Size nodes reading a replaced value (static: constants)
  std::vector<std::string> blockers;
};

struct AttentionAnalysis {
  std::optional<AttentionForm> form;
  std::string declined;  // why not, when no form: "<condition>: <detail>"
};

// The attention whose Softmax is node `softmax`, in a model of default-domain `opset` (Softmax's
// default axis is 1 before opset 13). Maps larger than `maxElements` are not built.
AttentionAnalysis analyzeAttention(const KnownOperands& known, size_t softmax, int64_t opset,
                                   size_t maxElements = size_t(1) << 24);

}  // namespace msa
