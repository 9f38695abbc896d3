// Kernel cost from profile rows: one formula per CANN op family, registered by op type.
// docs/cost-model.md ("Kernels from profile rows") states every formula and its source.
#include "cost/kernel_cost.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>

#include "cost/cost_context.h"

namespace msa {

namespace {

using Fn = std::function<KernelCost(const KernelSignature&)>;

int64_t roundUp(int64_t v, int64_t m) { return m <= 0 ? v : (v + m - 1) / m * m; }

double product(const std::vector<int64_t>& d) {
  double p = 1;
  for (int64_t x : d) p *= static_cast<double>(std::max<int64_t>(0, x));
  return p;
}

std::string baseFormat(std::string f) {
  if (auto c = f.find(':'); c != std::string::npos) f.resize(c);  // "NC1HWC0:1"
  if (f.starts_with("FORMAT_")) f = f.substr(7);
  return f;
}

// The C0 of a 5HD tensor listed with its origin 4D shape: 32 bytes of channels.
int64_t c0For(DType t) { return std::max<int64_t>(1, 32 / std::max(1, dtypeSize(t) == 0 ? 2 : dtypeSize(t))); }

// Elements as the device stores the tensor: origin shapes in padded formats are padded.
double storedElements(const KernelTensor& t) {
  if (!t.present) return 0;
  const auto& d = t.dims;
  if (t.format == "NC1HWC0" && d.size() == 4)
    return static_cast<double>(d[0]) * static_cast<double>(roundUp(d[1], c0For(t.type))) * static_cast<double>(d[2]) *
           static_cast<double>(d[3]);
  if (t.format == "FRACTAL_NZ" && d.size() >= 2 && !(d.size() >= 4 && d[d.size() - 2] == 16)) {
    double p = 1;
    for (size_t i = 0; i + 2 < d.size(); ++i) p *= static_cast<double>(d[i]);
    return p * static_cast<double>(roundUp(d[d.size() - 2], 16)) * static_cast<double>(roundUp(d.back(), c0For(t.type)));
  }
  return product(d);
}

double totalBytes(const std::vector<KernelTensor>& ts) {
  double b = 0;
  for (const auto& t : ts) b += t.bytes();
  return b;
}

const KernelTensor* firstPresent(const std::vector<KernelTensor>& ts) {
  for (const auto& t : ts)
    if (t.present) return &t;
  return nullptr;
}

DType firstFloat(const std::vector<KernelTensor>& ts, DType fallback) {
  for (const auto& t : ts)
    if (t.present && isFloating(t.type)) return t.type;
  return fallback;
}

KernelCost unknown(std::string family, std::string reason) {
  KernelCost k;
  k.family = std::move(family);
  k.cost.known = false;
  k.cost.reason = std::move(reason);
  return k;
}

KernelCost withBytes(const KernelSignature& s, std::string family, ComputeUnit unit) {
  KernelCost k;
  k.family = std::move(family);
  k.cost.unit = unit;
  k.cost.known = true;
  k.cost.bytesRead = totalBytes(s.inputs);
  k.cost.bytesWritten = totalBytes(s.outputs);
  const DType t = firstFloat(s.inputs, firstFloat(s.outputs, DType::Undefined));
  const KernelTensor* any = firstPresent(s.outputs) ? firstPresent(s.outputs) : firstPresent(s.inputs);
  k.cost.computeType = t != DType::Undefined ? t : any ? any->type : DType::Undefined;
  return k;
}

double outputElements(const KernelSignature& s) {
  double e = 0;
  for (const auto& t : s.outputs) e += t.elements();
  if (e == 0)
    for (const auto& t : s.inputs) e = std::max(e, t.elements());
  return e;
}

// ---- matrix products ----------------------------------------------------------------------

// A matrix operand as [batch…, rows, cols] in logical (ND) terms: an NZ operand listed in its
// fractal layout (…, cols1, rows1, 16, c0) is folded back.
std::vector<int64_t> logicalMatrix(const KernelTensor& t) {
  const auto& d = t.dims;
  if (t.format == "FRACTAL_NZ" && d.size() >= 4 && d[d.size() - 2] == 16) {
    std::vector<int64_t> out(d.begin(), d.end() - 4);
    const size_t n = d.size();
    out.push_back(d[n - 3] * d[n - 2]);  // rows = rows1 x 16
    out.push_back(d[n - 4] * d[n - 1]);  // cols = cols1 x c0
    return out;
  }
  return d;
}

// M, N from the output; K from whichever operand dim is not M (A) or N (B). When the operands
// disagree (a profile whose shapes were edited, or a layout we cannot see), the smaller K is
// taken: a roofline must not price work the kernel may not have done.
KernelCost matmulCost(const KernelSignature& s, std::string family = "matmul") {
  std::vector<const KernelTensor*> ops;
  for (const auto& t : s.inputs)
    if (t.present && t.dims.size() >= 2) ops.push_back(&t);
  const KernelTensor* y = nullptr;
  for (const auto& t : s.outputs)
    if (t.present && t.dims.size() >= 2) {
      y = &t;
      break;
    }
  if (ops.size() < 2 || !y) return unknown(family, "no shapes recorded for the operands and the output");
  const auto a = logicalMatrix(*ops[0]), b = logicalMatrix(*ops[1]), c = logicalMatrix(*y);
  const int64_t m = c[c.size() - 2], n = c.back();
  const int64_t a0 = a[a.size() - 2], a1 = a.back(), b0 = b[b.size() - 2], b1 = b.back();
  int64_t ka = a1 == m && a0 != m ? a0 : a0 == m ? a1 : a1 == m ? a0 : -1;
  int64_t kb = b0 == n && b1 != n ? b1 : b1 == n ? b0 : b0 == n ? b1 : -1;
  KernelCost k;
  if (ka < 0 && kb < 0) return unknown(family, "the operand shapes do not contain the output's M and N");
  int64_t kk = ka < 0 ? kb : kb < 0 ? ka : std::min(ka, kb);
  if (ka > 0 && kb > 0 && ka != kb)
    k.note = "K is " + std::to_string(ka) + " in the first operand and " + std::to_string(kb) + " in the second: " +
             std::to_string(kk) + " taken";
  double batch = 1;
  for (size_t i = 0; i + 2 < c.size(); ++i) batch *= static_cast<double>(c[i]);
  const DType t = ops[0]->type != DType::Undefined ? ops[0]->type : y->type;
  k.family = std::move(family);
  k.cost.known = true;
  k.cost.unit = ComputeUnit::Cube;
  k.cost.computeType = t;
  k.batch = static_cast<int64_t>(batch);
  k.m = m, k.n = n, k.k = kk;
  k.paddedM = roundUp(m, 16), k.paddedN = roundUp(n, 16), k.paddedK = roundUp(kk, cubeKBlock(t));
  const double macs = batch * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(kk);
  k.logicalFlops = 2 * macs;
  k.cost.macs = batch * static_cast<double>(k.paddedM) * static_cast<double>(k.paddedN) * static_cast<double>(k.paddedK);
  k.cost.flops = 2 * k.cost.macs;
  // Bytes as stored, unless the operands disagree: then the operands at the K taken.
  k.cost.bytesRead = totalBytes(s.inputs);
  k.cost.bytesWritten = totalBytes(s.outputs);
  if (!k.note.empty()) {
    const double extra = ops[0]->bytes() + ops[1]->bytes();
    const double fixed = batch * static_cast<double>(kk) * (static_cast<double>(m) * dtypeSize(ops[0]->type) +
                                                            static_cast<double>(n) * dtypeSize(ops[1]->type));
    k.cost.bytesRead = std::max(0.0, k.cost.bytesRead - extra + fixed);
  }
  return k;
}

// GroupedMatmul: x [M, K] (all groups' rows), weight [E, K, N] or [E, N, K], y [M, N]: each row
// goes through one expert, every expert's weight is read.
KernelCost groupedMatmulCost(const KernelSignature& s) {
  const KernelTensor* x = s.inputs.size() > 0 && s.inputs[0].present ? &s.inputs[0] : nullptr;
  const KernelTensor* w = s.inputs.size() > 1 && s.inputs[1].present ? &s.inputs[1] : nullptr;
  const KernelTensor* y = firstPresent(s.outputs);
  if (!x || !w || !y || x->dims.size() < 2 || w->dims.size() < 2 || y->dims.size() < 2)
    return matmulCost(s, "matmul");
  const int64_t m = y->dims[y->dims.size() - 2], n = y->dims.back(), kx = x->dims.back();
  KernelCost k = withBytes(s, "matmul", ComputeUnit::Cube);
  k.cost.computeType = x->type;
  k.batch = 1, k.m = m, k.n = n, k.k = kx;
  k.paddedM = roundUp(m, 16), k.paddedN = roundUp(n, 16), k.paddedK = roundUp(kx, cubeKBlock(x->type));
  k.logicalFlops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(kx);
  k.cost.macs = static_cast<double>(k.paddedM) * static_cast<double>(k.paddedN) * static_cast<double>(k.paddedK);
  k.cost.flops = 2 * k.cost.macs;
  return k;
}

// ---- convolutions -------------------------------------------------------------------------

struct ConvDims {
  double n = 0, ho = 0, wo = 0;  // output batch and spatial size (M = n ho wo)
  int64_t cout = 0, cin = 0;     // padded channel counts as stored
  double khkw = 0;               // kernel window
  int64_t coutLogical = 0;       // from a bias, when there is one
};

// x: NC1HWC0 [N, C1, H, W, C0] or NCHW; w: FRACTAL_Z [C1 KH KW, Cout1, 16, C0] or OIHW;
// y: NC1HWC0 [N, Cout1, Ho, Wo, C0] or NCHW.
std::optional<ConvDims> convDims(const KernelTensor& x, const KernelTensor& w, const KernelTensor& y) {
  ConvDims d;
  auto channels = [](const KernelTensor& t) -> int64_t {
    if (t.dims.size() == 5) return t.dims[1] * t.dims[4];
    if (t.dims.size() == 4) return t.format == "NHWC" ? t.dims[3] : t.dims[1];
    return 0;
  };
  auto spatial = [](const KernelTensor& t, size_t i) -> double {
    if (t.dims.size() == 5) return static_cast<double>(t.dims[2 + i]);
    if (t.dims.size() == 4) return static_cast<double>(t.format == "NHWC" ? t.dims[1 + i] : t.dims[2 + i]);
    return 0;
  };
  if (y.dims.size() < 4 || x.dims.size() < 4) return std::nullopt;
  d.n = static_cast<double>(y.dims[0]);
  d.ho = spatial(y, 0), d.wo = spatial(y, 1);
  d.cout = channels(y), d.cin = channels(x);
  if (w.format == "FRACTAL_Z" && w.dims.size() == 4 && x.dims.size() == 5) {
    const int64_t c1 = x.dims[1];
    if (c1 <= 0 || w.dims[0] % c1 != 0) return std::nullopt;
    d.khkw = static_cast<double>(w.dims[0] / c1);
  } else if (w.dims.size() == 4) {
    d.khkw = static_cast<double>(w.dims[2]) * static_cast<double>(w.dims[3]);
    if (w.dims[1] > 0 && d.cin > w.dims[1]) d.cin = w.dims[1];  // grouped: Cin per group
  } else {
    return std::nullopt;
  }
  if (d.n <= 0 || d.ho <= 0 || d.wo <= 0 || d.cout <= 0 || d.cin <= 0 || d.khkw <= 0) return std::nullopt;
  return d;
}

KernelCost convFrom(const KernelSignature& s, const ConvDims& d, DType t, const KernelTensor* bias) {
  KernelCost k = withBytes(s, "conv", ComputeUnit::Cube);
  k.cost.computeType = t;
  const double mRows = d.n * d.ho * d.wo;
  k.batch = 1;
  k.m = static_cast<int64_t>(mRows);
  k.n = bias && bias->dims.size() == 1 && bias->dims[0] > 0 && bias->dims[0] <= d.cout ? bias->dims[0] : d.cout;
  k.k = static_cast<int64_t>(static_cast<double>(d.cin) * d.khkw);
  k.paddedM = roundUp(k.m, 16);
  k.paddedN = roundUp(d.cout, 16);
  k.paddedK = static_cast<int64_t>(static_cast<double>(roundUp(d.cin, cubeKBlock(t))) * d.khkw);
  k.logicalFlops = 2.0 * static_cast<double>(k.m) * static_cast<double>(k.n) * static_cast<double>(k.k);
  k.cost.macs = static_cast<double>(k.paddedM) * static_cast<double>(k.paddedN) * static_cast<double>(k.paddedK);
  k.cost.flops = 2 * k.cost.macs;
  return k;
}

const KernelTensor* slot(const std::vector<KernelTensor>& ts, size_t i) {
  return i < ts.size() && ts[i].present ? &ts[i] : nullptr;
}

// Conv2D / Conv3D-like forward: (x, filter, bias?) -> y.
KernelCost convForward(const KernelSignature& s) {
  const KernelTensor *x = slot(s.inputs, 0), *w = slot(s.inputs, 1), *y = firstPresent(s.outputs);
  if (!x || !w || !y) return unknown("conv", "no shapes recorded for the input, filter and output");
  auto d = convDims(*x, *w, *y);
  if (!d) return unknown("conv", "the input, filter and output shapes do not fit a 2-D convolution");
  return convFrom(s, *d, x->type, slot(s.inputs, 2));
}

// Conv2DBackpropInput: (input_size, filter, out_backprop) -> dx. The work of the forward pass
// with the roles of x and y swapped.
KernelCost convBackpropInput(const KernelSignature& s) {
  const KernelTensor *w = slot(s.inputs, 1), *dy = slot(s.inputs, 2), *dx = firstPresent(s.outputs);
  if (!w || !dy || !dx) return unknown("conv", "no shapes recorded for the filter, gradient and output");
  auto d = convDims(*dx, *w, *dy);
  if (!d) return unknown("conv", "the filter and gradient shapes do not fit a 2-D convolution");
  return convFrom(s, *d, dy->type, nullptr);
}

// Conv2DBackpropFilter: (x, filter_size, out_backprop) -> dw.
KernelCost convBackpropFilter(const KernelSignature& s) {
  const KernelTensor *x = slot(s.inputs, 0), *dy = slot(s.inputs, 2), *dw = firstPresent(s.outputs);
  if (!x || !dy || !dw) return unknown("conv", "no shapes recorded for the input, gradient and filter");
  auto d = convDims(*x, *dw, *dy);
  if (!d) return unknown("conv", "the input, gradient and filter shapes do not fit a 2-D convolution");
  return convFrom(s, *d, x->type, nullptr);
}

// ---- attention ----------------------------------------------------------------------------

// FlashAttention skips whole blocks of the score matrix that its sparse mode masks out, and
// computes a block the mask cuts in full. The basic block is 128 query rows x 128 keys
// (CANN's flash_attention_score tiling: s1BasicBlock = s2BasicBlock = min(128, S) in the
// templates that split S2), so a causal mask costs a little more than half.
constexpr int64_t kAttentionBlock = 128;

// The share of the Sq x Skv score matrix a causal kernel computes, block by block: the query
// block's last row sees keys [0, row + 1 + shift), rounded up to whole key blocks. shift = 0 is
// the top-left causal mask (sparse_mode 2), Skv - Sq the bottom-right one (sparse_mode 3).
double causalShare(int64_t sq, int64_t skv, int64_t shift) {
  if (sq <= 0 || skv <= 0) return 1;
  double work = 0;
  for (int64_t r0 = 0; r0 < sq; r0 += kAttentionBlock) {
    const int64_t rows = std::min(kAttentionBlock, sq - r0);
    const int64_t seen = std::clamp<int64_t>(r0 + rows + shift, 0, skv);
    work += static_cast<double>(rows) * static_cast<double>(std::min(skv, roundUp(seen, kAttentionBlock)));
  }
  return work / (static_cast<double>(sq) * static_cast<double>(skv));
}

// What the mask and bias inputs say about the work (aclnnFlashAttentionScore, sparseMode 0-8;
// the row records the tensors, not sparse_mode or pre/next_tokens). A roofline must not price
// work the kernel may have skipped, so a mask that can be causal is priced causal:
//  - a BOOL/UINT8 mask of 2048 x 2048 on a sequence that is not 2048 is the compressed mask of
//    the causal and band modes (2, 3, 4: "attenMask must be 2048 x 2048"); band is not told
//    apart and is priced as causal;
//  - a BOOL/UINT8 mask [.., Sq, Skv] (modes 0, 1): the kernel skips the blocks pre/next_tokens
//    exclude, causal at most;
//  - a floating [1, 1, Sq, Skv] tensor (an additive mask passed as the position bias): causal at
//    most, as a boolean one;
//  - a per-head floating bias [B, N, Sq, Skv] or [.., 1024, Skv] (ALiBi): every block computed.
struct AttentionMask {
  std::string kind = "none";  // "none", "compressed causal", "causal", "additive", "bias"
  double share = 1;           // of the Sq x Skv scores computed
  int64_t skv = 0;            // Skv when the mask says it
};

AttentionMask attentionMask(const KernelSignature& s, int64_t sq, int64_t skv) {
  AttentionMask m;
  const double causal = std::min(causalShare(sq, skv, 0), causalShare(sq, skv, skv - sq));
  for (size_t i = 3; i < s.inputs.size(); ++i) {
    const KernelTensor& t = s.inputs[i];
    if (!t.present || t.dims.size() < 2) continue;
    const int64_t a = t.dims[t.dims.size() - 2], b = t.dims.back();
    const bool boolean = t.type == DType::Bool || t.type == DType::UInt8;
    if (boolean && a == 2048 && b == 2048 && !(sq == 2048 && (skv == 2048 || skv <= 0))) {
      m.kind = "compressed causal";
      m.share = causal;
      return m;
    }
    if (a != sq) continue;
    if (boolean) {
      m.kind = "causal", m.skv = b;
      m.share = std::min(causalShare(sq, b, 0), causalShare(sq, b, b - sq));
      return m;
    }
    if (isFloating(t.type) && t.dims.size() == 4) {
      const bool perHead = t.dims[1] > 1;
      m.kind = perHead ? "bias" : "additive", m.skv = b;
      m.share = perHead ? 1.0 : std::min(causalShare(sq, b, 0), causalShare(sq, b, b - sq));
      if (!perHead) return m;
    }
  }
  return m;
}

// FlashAttentionScore(Grad) and the inference variants: 2 matrix products (Q K^T, P V) of
// B N Sq Skv D multiply-adds each forward; the gradient recomputes Q K^T and adds dV, dP, dQ,
// dK (5); times the share of the score blocks the mask leaves (attentionMask). The softmax
// statistics [B, N, Sq, 8] say B, N (the query's heads) and Sq; D = |Q| / (B N Sq); Skv is K's
// dim at Q's sequence axis. With grouped-query attention K and V have fewer heads (|K| / (B Skv
// D)): every query head still computes, K and V are read once.
KernelCost attentionCost(const KernelSignature& s, double matmuls) {
  const KernelTensor *q = slot(s.inputs, 0), *kk = slot(s.inputs, 1);
  if (!q || !kk || q->dims.size() < 3) return unknown("attention", "no shapes recorded for the query and key");
  KernelCost k = withBytes(s, "attention", ComputeUnit::Cube);
  k.cost.computeType = q->type;
  const double qElems = product(q->dims);
  // Batch, heads, Sq from a softmax statistics tensor [B, N, Sq, 8] (forward output, grad input).
  int64_t b = 0, heads = 0, sq = 0;
  for (const auto* list : {&s.outputs, &s.inputs})
    for (const auto& t : *list)
      if (t.present && t.dims.size() == 4 && t.dims[3] == 8 && t.type == DType::Float && b == 0) {
        b = t.dims[0], heads = t.dims[1], sq = t.dims[2];
      }
  // The query's sequence axis: Sq when known, else by layout (BSH/BSND: 1, SBH: 0, BNSD: 2).
  const auto& qd = q->dims;
  size_t sAxis = qd.size() == 4 ? (qd[1] < qd[2] ? 2 : 1) : (qd[0] <= qd[1] ? 1 : 0);
  if (sq > 0)
    for (size_t i = 0; i < qd.size(); ++i)
      if (qd[i] == sq && !(qd.size() == 3 && i == 2)) {
        sAxis = i;
        break;
      }
  if (sq == 0) sq = qd[sAxis];
  int64_t skv = sAxis < kk->dims.size() ? kk->dims[sAxis] : 0;
  const AttentionMask mask = attentionMask(s, sq, skv);
  if (skv <= 0) skv = mask.skv;
  if (sq <= 0 || skv <= 0) return unknown("attention", "the query and key shapes do not say the sequence lengths");
  if (b > 0 && heads > 0) {
    k.heads = heads;
    k.headDim = static_cast<int64_t>(qElems / (static_cast<double>(b) * static_cast<double>(heads) * static_cast<double>(sq)));
    if (k.headDim > 0)
      k.kvHeads = static_cast<int64_t>(product(kk->dims) /
                                       (static_cast<double>(b) * static_cast<double>(skv) * static_cast<double>(k.headDim)));
  }
  k.batch = b, k.seqQ = sq, k.seqKv = skv;
  k.mask = mask.kind;
  k.maskShare = mask.share;
  if (mask.kind != "none") k.note = "attention mask: " + mask.kind;
  const double macs = matmuls * qElems * static_cast<double>(skv) * mask.share;
  k.logicalFlops = 2 * macs;
  k.cost.macs = macs;
  k.cost.flops = 2 * macs;
  return k;
}

// ---- vector and data families -------------------------------------------------------------

KernelCost elementwise(const KernelSignature& s, double perElement) {
  KernelCost k = withBytes(s, "elementwise", ComputeUnit::Vector);
  k.logicalFlops = k.cost.flops = perElement * outputElements(s);
  return k;
}

KernelCost reduction(const KernelSignature& s, double perElement, std::string family) {
  KernelCost k = withBytes(s, std::move(family), ComputeUnit::Vector);
  const KernelTensor* x = firstPresent(s.inputs);
  k.logicalFlops = k.cost.flops = perElement * (x ? x->elements() : 0);
  return k;
}

KernelCost dataMovement(const KernelSignature& s) { return withBytes(s, "data", ComputeUnit::Memory); }

// Output written, nothing read (fills, memset, masks drawn on the device).
KernelCost fill(const KernelSignature& s) {
  KernelCost k = withBytes(s, "fill", ComputeUnit::Memory);
  k.cost.bytesRead = 0;
  if (k.cost.bytesWritten == 0) return unknown("fill", "no output shape recorded");
  return k;
}

// Gather / Embedding: the rows gathered (the output's size) and the indices are read, not the
// whole table.
KernelCost gather(const KernelSignature& s) {
  KernelCost k = withBytes(s, "gather", ComputeUnit::Memory);
  const KernelTensor* y = firstPresent(s.outputs);
  if (!y) return unknown("gather", "no output shape recorded");
  double read = y->bytes();
  for (size_t i = 1; i < s.inputs.size(); ++i)
    if (s.inputs[i].present && isInteger(s.inputs[i].type)) read += s.inputs[i].bytes();
  k.cost.bytesRead = read;
  return k;
}

// Scatter / IndexPut / EmbeddingDenseGrad: the updates and indices are read, the updated rows
// written (EmbeddingDenseGrad writes the whole gradient table).
KernelCost scatter(const KernelSignature& s) {
  KernelCost k = withBytes(s, "gather", ComputeUnit::Memory);
  double read = 0, updates = 0;
  for (size_t i = 0; i < s.inputs.size(); ++i) {
    if (!s.inputs[i].present) continue;
    if (i == 0 && s.opType != "EmbeddingDenseGrad") continue;  // the table updated in place
    read += s.inputs[i].bytes();
    if (!isInteger(s.inputs[i].type)) updates += s.inputs[i].bytes();
  }
  k.cost.bytesRead = read;
  if (s.opType != "EmbeddingDenseGrad") k.cost.bytesWritten = updates;
  return k;
}

KernelCost communication(const KernelSignature&) {
  return unknown("communication", "communication: priced by the link, not the roofline");
}

constexpr double T = cost::kTranscendental;

const std::map<std::string, Fn, std::less<>>& registry() {
  static const std::map<std::string, Fn, std::less<>> r = [] {
    std::map<std::string, Fn, std::less<>> m;
    // MC2 kernels (a matmul fused with its collective) are priced by their matmul.
    for (const char* op : {"MatMul", "MatMulV2", "MatMulV3", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3",
                           "FullyConnection", "QuantBatchMatmulV3", "WeightQuantBatchMatmulV2", "MatMulCompress",
                           "MatmulAllReduce", "AllGatherMatmul", "MatmulReduceScatter"})
      m[op] = [](const KernelSignature& s) { return matmulCost(s); };
    for (const char* op : {"GroupedMatmul", "GroupedMatmulV2", "GroupedMatmulV3", "GroupedMatmulV4"}) m[op] = groupedMatmulCost;
    for (const char* op : {"Conv2D", "Conv2DV2", "DepthwiseConv2D", "Conv2DCompress"}) m[op] = convForward;
    for (const char* op : {"Conv2DBackpropInput", "Conv2DBackpropInputD", "Conv2DTranspose", "Conv2DTransposeD",
                           "DepthwiseConv2DBackpropInput", "Deconvolution"})
      m[op] = convBackpropInput;
    for (const char* op : {"Conv2DBackpropFilter", "Conv2DBackpropFilterD", "DepthwiseConv2DBackpropFilter"})
      m[op] = convBackpropFilter;
    for (const char* op : {"FlashAttentionScore", "FusedInferAttentionScore", "PromptFlashAttention",
                           "IncreFlashAttention", "FlashAttention"})
      m[op] = [](const KernelSignature& s) { return attentionCost(s, 2); };
    m["FlashAttentionScoreGrad"] = [](const KernelSignature& s) { return attentionCost(s, 5); };
    // Elementwise: operations per output element, as the graph cost model counts them
    // (cost_elementwise.cpp).
    const std::pair<const char*, double> unary[] = {
        {"Add", 1}, {"Adds", 1}, {"AddV2", 1}, {"Sub", 1}, {"Subs", 1}, {"Mul", 1}, {"Muls", 1}, {"RealDiv", 1},
        {"Div", 1}, {"Divs", 1}, {"DivNoNan", 2}, {"Maximum", 1}, {"Minimum", 1}, {"Neg", 1}, {"Abs", 1},
        {"Square", 1}, {"Sqrt", 1}, {"Rsqrt", 1}, {"Reciprocal", 1}, {"Relu", 1}, {"ReluV2", 1}, {"Relu6", 2},
        {"ReluGrad", 1}, {"ReluGradV2", 1}, {"Threshold", 2}, {"ThresholdGradV2D", 2}, {"LeakyRelu", 2},
        {"LeakyReluGrad", 2}, {"Cast", 1}, {"Equal", 1}, {"NotEqual", 1}, {"Greater", 1}, {"GreaterEqual", 1},
        {"Less", 1}, {"LessEqual", 1}, {"LogicalAnd", 1}, {"LogicalOr", 1}, {"LogicalNot", 1}, {"Select", 1},
        {"SelectV2", 1}, {"Where", 1}, {"MaskedFill", 1}, {"Axpy", 2}, {"AxpyV2", 2}, {"FusedMulAdd", 2},
        {"AddN", 1}, {"ClipByValue", 2}, {"ClipByValueV2", 2}, {"Floor", 1}, {"Ceil", 1}, {"Round", 1},
        {"Sign", 1}, {"Exp", T}, {"Log", T}, {"Log1p", T + 1}, {"Expm1", T + 1}, {"Tanh", T}, {"Erf", T},
        {"Sin", T}, {"Cos", T}, {"Pow", 2 * T + 1}, {"Sigmoid", T + 2}, {"SigmoidGrad", 3}, {"TanhGrad", 3},
        {"Gelu", T + 4}, {"GeluV2", T + 4}, {"FastGelu", T + 7}, {"FastGeluV2", T + 7}, {"GeluGrad", T + 8},
        {"FastGeluGrad", T + 8}, {"Swish", T + 3}, {"SiLU", T + 3}, {"Silu", T + 3}, {"SwishGrad", T + 6},
        {"SiluGrad", T + 6}, {"Mish", 3 * T + 2}, {"Softplus", 2 * T + 1}, {"Elu", T + 3}, {"HardSwish", 5},
        {"HardSigmoid", 4}, {"DropOutDoMask", 2}, {"DropOutDoMaskV3", 2}, {"DropOutDoMaskV3D", 2},
        {"ForeachAddList", 1}, {"ForeachAddScalar", 1}, {"ForeachAddScalarList", 1}, {"ForeachMulScalar", 1},
        {"ForeachMulList", 1}, {"ForeachMulScalarList", 1}, {"ForeachSubList", 1}, {"ForeachDivScalar", 1},
        {"ForeachAddcmulScalar", 2}, {"ForeachAddcdivScalar", 2}, {"ForeachSqrt", 1}, {"ForeachNorm", 2},
        {"ApplyAdamW", 12}, {"ApplyAdamWV2", 12}, {"ApplyAdam", 10}, {"SwiGlu", T + 4}, {"SwiGluGrad", T + 8},
        {"RotaryMul", 3}, {"RotaryMulGrad", 3}, {"ApplyRotaryPosEmb", 3},
        {"RotaryPositionEmbedding", 3}, {"RotaryPositionEmbeddingGrad", 3}, {"Pows", 2 * T + 1},
        {"GeGlu", T + 4}, {"GeGluV2", T + 4}, {"AscendQuant", 3}, {"AscendQuantV2", 3}, {"AscendDequant", 2},
        {"DynamicQuant", 5}, {"MoeFinalizeRouting", 2}, {"MoeFinalizeRoutingV2", 2}, {"NLLLoss", 1}, {"NLLLossGrad", 1},
        {"IsFinite", 1}, {"IsNan", 1}, {"Addcmul", 2}, {"Addcdiv", 2}, {"Lerp", 2}};
    for (const auto& [op, w] : unary) {
      const double weight = w;
      m[op] = [weight](const KernelSignature& s) { return elementwise(s, weight); };
    }
    // Reductions and normalisations: operations per input element.
    const std::pair<const char*, double> reduce[] = {
        {"ReduceSum", 1}, {"ReduceSumD", 1}, {"ReduceMean", 1}, {"ReduceMeanD", 1}, {"ReduceMax", 1},
        {"ReduceMaxD", 1}, {"ReduceMin", 1}, {"ReduceMinD", 1}, {"ReduceProd", 1}, {"ReduceAll", 1},
        {"ReduceAny", 1}, {"ArgMaxV2", 1}, {"ArgMaxD", 1}, {"ArgMin", 1}, {"ArgMinD", 1}, {"ArgMaxWithValue", 1},
        {"Cumsum", 1}, {"CumsumD", 1}, {"TopK", 2}, {"TopKV2", 2}, {"TopKD", 2}, {"Sort", 4}, {"BiasAddGrad", 1},
        {"LpNormV2", 2}, {"SquareSumV1", 2}, {"SquareSumAll", 2}, {"NonZero", 1}, {"MaskedSelect", 1},
        {"MoeGatingTopKSoftmax", T + 6}};
    for (const auto& [op, w] : reduce) {
      const double weight = w;
      m[op] = [weight](const KernelSignature& s) { return reduction(s, weight, "reduction"); };
    }
    // Softmax: max, subtract, exp, sum, divide; the gradient: multiply, sum, subtract, multiply.
    const std::pair<const char*, double> softmax[] = {{"SoftmaxV2", T + 4}, {"LogSoftmaxV2", 2 * T + 4},
                                                      {"SoftmaxGrad", 4},   {"LogSoftmaxGrad", T + 3},
                                                      {"SoftmaxCrossEntropyWithLogits", T + 6},
                                                      {"ScaledMaskedSoftmax", T + 6}, {"ScaledMaskedSoftmaxGrad", 5}};
    for (const auto& [op, w] : softmax) {
      const double weight = w;
      m[op] = [weight](const KernelSignature& s) { return reduction(s, weight, "softmax"); };
    }
    // Normalisations: mean and variance passes, normalise, scale and shift.
    const std::pair<const char*, double> norm[] = {
        {"LayerNorm", 8}, {"LayerNormV3", 8}, {"LayerNormV4", 8}, {"RmsNorm", 5}, {"AddRmsNorm", 6},
        {"AddLayerNorm", 9}, {"LayerNormGrad", 12}, {"LayerNormGradV3", 12}, {"LayerNormXBackpropV3", 10},
        {"LayerNormBetaGammaBackpropV2", 4}, {"RmsNormGrad", 9}, {"BNTrainingReduce", 2}, {"BNTrainingUpdate", 6},
        {"BNTrainingUpdateGrad", 4}, {"BNTrainingReduceGrad", 4}, {"BNInfer", 2}, {"BatchNorm", 6},
        {"BatchNormV3", 6}, {"GroupNorm", 8}, {"GroupNormSilu", T + 11}, {"GroupNormGrad", 12},
        {"InstanceNorm", 8}, {"L2Normalize", 4}};
    for (const auto& [op, w] : norm) {
      const double weight = w;
      m[op] = [weight](const KernelSignature& s) { return reduction(s, weight, "norm"); };
    }
    // Pooling: one comparison or addition per input element read.
    for (const char* op : {"MaxPool", "MaxPoolV3", "MaxPoolWithArgmaxV1", "MaxPoolWithArgmaxV2", "MaxPoolGradWithArgmaxV1",
                           "MaxPoolGradWithArgmaxV2", "MaxPoolGrad", "AvgPool", "AvgPoolV2", "AvgPoolGrad", "AvgPoolV2Grad",
                           "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveAvgPool3dGrad", "AdaptiveMaxPool2d",
                           "MaxPool3D", "AvgPool3D", "AvgPool3DGrad", "MaxPool3DGrad"})
      m[op] = [](const KernelSignature& s) { return reduction(s, 1, "pool"); };
    // Data movement: every byte read and written once.
    for (const char* op : {"TransData", "TransDataRNN", "Transpose", "TransposeD", "ConfusionTransposeD", "Concat",
                           "ConcatD", "ConcatV2", "ConcatV2D", "Pack", "Unpack", "Split", "SplitD", "SplitV", "SplitVD",
                           "StridedSlice", "StridedSliceD", "StridedSliceV2", "StridedSliceV3", "StridedSliceGrad",
                           "StridedSliceAssignV2", "Slice", "SliceD", "TensorMove", "Identity", "ViewCopy", "AsStrided",
                           "BroadcastTo", "BroadcastToD", "Tile", "TileD", "Expand", "ExpandD", "Pad", "PadD", "PadV3",
                           "PadV3D", "PadV3Grad", "Reshape", "Flatten", "Squeeze", "Unsqueeze", "ReverseV2",
                           "MemcpyAsync", "DepthToSpace", "SpaceToDepth", "Im2col", "Col2im", "ReflectionPad2d",
                           "Tril", "Triu", "Repeat", "RepeatInterleave", "InplaceCopy"})
      m[op] = dataMovement;
    for (const char* op : {"GatherV2", "GatherV2D", "Gather", "GatherElements", "GatherNd", "Embedding", "IndexSelect",
                           "EmbeddingBag", "IndexByTensor", "Index", "MoeInitRouting", "MoeInitRoutingV2",
                           "MoeTokenPermute", "MoeTokenUnpermute"})
      m[op] = gather;
    for (const char* op : {"ScatterNd", "ScatterNdUpdate", "ScatterUpdate", "ScatterElements", "ScatterAdd",
                           "IndexPut", "IndexPutV2", "EmbeddingDenseGrad", "UnsortedSegmentSum", "InplaceIndexAdd"})
      m[op] = scatter;
    for (const char* op : {"ZerosLike", "OnesLike", "Fill", "Fills", "FillV2", "FillD", "MemSet", "Zeros", "Ones",
                           "Range", "DSAGenBitMask", "DSARandomUniform", "DSARandomNormal", "StatelessDropOutGenMask",
                           "DropOutGenMaskV3", "StatelessRandomUniformV2", "OneHot", "OneHotD", "Arange", "LinSpace"})
      m[op] = fill;
    for (const char* op : {"hcom_allReduce", "hcom_allGather", "hcom_reduceScatter", "hcom_broadcast", "hcom_send",
                           "hcom_receive", "hcom_alltoallv", "hcom_alltoall", "HcomAllReduce", "HcomAllGather",
                           "HcomReduceScatter", "HcomBroadcast", "HcomSend", "HcomReceive", "HcomAllToAllV"})
      m[op] = communication;
    return m;
  }();
  return r;
}

std::optional<std::vector<int64_t>> parseDims(std::string_view s) {
  std::string t(s);
  std::erase(t, '[');
  std::erase(t, ']');
  std::erase(t, ' ');
  std::vector<int64_t> out;
  if (t.empty()) return out;
  size_t b = 0;
  while (b <= t.size()) {
    size_t e = t.find(',', b);
    if (e == std::string::npos) e = t.size();
    int64_t v = 0;
    auto [p, ec] = std::from_chars(t.data() + b, t.data() + e, v);
    // Negative dims and dims beyond any real tensor (2^40) are no shape: arithmetic on them would overflow.
    if (ec != std::errc() || p != t.data() + e || v < 0 || v > (int64_t{1} << 40)) return std::nullopt;
    out.push_back(v);
    b = e + 1;
    if (e == t.size()) break;
  }
  return out;
}

std::vector<KernelTensor> tensors(const std::vector<std::string>& shapes, const std::vector<std::string>& dtypes,
                                  const std::vector<std::string>& formats) {
  std::vector<KernelTensor> out;
  const size_t n = std::max(shapes.size(), dtypes.size());
  for (size_t i = 0; i < n; ++i) {
    KernelTensor t;
    if (i < dtypes.size()) {
      std::string d = dtypes[i];
      if (d == "hf32") d = "float";
      if (auto v = dtypeFromName(d)) t.type = *v;
    }
    if (i < formats.size()) t.format = baseFormat(formats[i]);
    const std::string shape = i < shapes.size() ? shapes[i] : std::string();
    if (shape.empty() || shape == "[]") {
      // An empty slot with a dtype is a scalar (msprof leaves scalars' shapes empty);
      // without a dtype it is an absent optional input.
      t.present = i < dtypes.size() && t.type != DType::Undefined && shape.empty() ? true : shape == "[]";
    } else if (auto d = parseDims(shape)) {
      t.dims = std::move(*d);
      t.present = true;
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

double KernelTensor::elements() const { return present ? storedElements(*this) : 0; }

double KernelTensor::bytes() const {
  const int size = dtypeSize(type);
  return elements() * (size > 0 ? size : 1);
}

bool KernelSignature::hasShapes() const {
  for (const auto* list : {&inputs, &outputs})
    for (const auto& t : *list)
      if (t.present && !t.dims.empty()) return true;
  return false;
}

KernelSignature parseKernelSignature(std::string_view opType, const std::vector<std::string>& inputShapes,
                                     const std::vector<std::string>& inputDtypes,
                                     const std::vector<std::string>& inputFormats,
                                     const std::vector<std::string>& outputShapes,
                                     const std::vector<std::string>& outputDtypes,
                                     const std::vector<std::string>& outputFormats) {
  KernelSignature s;
  s.opType = std::string(opType);
  s.inputs = tensors(inputShapes, inputDtypes, inputFormats);
  s.outputs = tensors(outputShapes, outputDtypes, outputFormats);
  return s;
}

int64_t cubeKBlock(DType t) {
  const int size = dtypeSize(t);
  return size > 0 ? std::max<int64_t>(1, 32 / size) : 16;
}

double cubeMacsPerCycle(DType t, int hf32) {
  const double fractal = 16.0 * 16.0 * static_cast<double>(cubeKBlock(t));
  return t == DType::Float && hf32 == 0 ? fractal / 2 : fractal;
}

double vectorLanes(DType t) {
  const int size = dtypeSize(t);
  return 256.0 / static_cast<double>(size > 0 ? size : 2);
}

double KernelCounters::cubeMacs(DType t) const {
  return cubeCycles >= 0 && macRatio >= 0 ? cubeCycles * macRatio * cubeMacsPerCycle(t, hf32) : -1;
}

double KernelCounters::vectorOps(DType t) const {
  return vectorCycles >= 0 && vecRatio >= 0 ? vectorCycles * vecRatio * vectorLanes(t) : -1;
}

KernelCost withExecutedWork(KernelCost k, const KernelCounters& c) {
  if (!k.cost.known) return k;
  if (k.cost.unit == ComputeUnit::Cube) {
    if (const double macs = c.cubeMacs(k.cost.computeType); macs > 0) {
      k.cost.macs = macs;
      k.cost.flops = 2 * macs;
    }
  } else if (k.cost.unit == ComputeUnit::Vector) {
    if (const double ops = c.vectorOps(k.cost.computeType); ops > 0) k.cost.flops = ops;
  }
  return k;
}

KernelCost kernelCost(const KernelSignature& s) {
  std::string_view type = s.opType;
  auto it = registry().find(type);
  if (it == registry().end()) {
    // Communication kernels are named by their collective: hcom_allReduce__586_0_1.
    if (type.starts_with("hcom_") || type.starts_with("Hcom")) return communication(s);
    return unknown("", "no cost formula for " + std::string(type.empty() ? "an unnamed op type" : type));
  }
  KernelCost k = it->second(s);
  k.opType = s.opType;
  if (!s.hasShapes() && k.family != "communication" && !(k.cost.known && k.cost.bytes() > 0))
    return unknown(k.family, "no shapes recorded");  // scalars only are still priced (a few bytes)
  return k;
}

std::vector<std::string> kernelCostOpTypes() {
  std::vector<std::string> out;
  for (const auto& [k, v] : registry()) out.push_back(k);
  return out;
}

bool hasKernelCostFormula(std::string_view opType) { return registry().count(opType) > 0; }

KernelRoofline kernelRoofline(const OpCost& cost, const DeviceProfile& d) {
  KernelRoofline r;
  r.floorSeconds = d.taskFloor.value;
  if (!cost.known) {
    r.seconds = r.floorSeconds;
    return r;
  }
  if (cost.flops > 0 && cost.unit != ComputeUnit::Memory)
    if (auto p = d.peak(cost.unit, cost.computeType); p && *p > 0) {
      r.peak = *p;
      r.computeSeconds = cost.flops / *p;
    }
  const double bytes = cost.bytes(), hbm = d.memoryBandwidth.value;
  r.hbmSeconds = hbm > 0 ? bytes / hbm : 0;
  r.memorySeconds = d.memorySeconds(bytes);
  r.seconds = std::max({r.computeSeconds, r.memorySeconds, r.floorSeconds});
  r.bound = r.seconds <= 0                          ? Bound::Unknown
            : r.floorSeconds >= r.seconds           ? Bound::Overhead
            : r.computeSeconds >= r.memorySeconds   ? Bound::Compute
                                                    : Bound::Memory;
  return r;
}

}  // namespace msa
