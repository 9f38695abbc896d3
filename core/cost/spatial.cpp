#include "cost/spatial.h"

namespace msa::cost {

std::optional<WindowAttrs> windowAttrs(const Node& n, size_t rank, const Dims& kernelFromWeight) {
  WindowAttrs a;
  a.kernel = n.attrInts("kernel_shape");
  if (a.kernel.empty()) a.kernel = kernelFromWeight;
  a.strides = n.attrInts("strides");
  a.dilations = n.attrInts("dilations");
  a.pads = n.attrInts("pads");
  a.autoPad = n.attrString("auto_pad", "NOTSET");
  a.ceilMode = n.attrInt("ceil_mode", 0) != 0;
  if (a.strides.empty()) a.strides.assign(rank, 1);
  if (a.dilations.empty()) a.dilations.assign(rank, 1);
  if (a.pads.empty()) a.pads.assign(2 * rank, 0);
  if (a.kernel.size() != rank || a.strides.size() != rank || a.dilations.size() != rank || a.pads.size() != 2 * rank)
    return std::nullopt;
  for (size_t i = 0; i < rank; ++i)
    if (a.strides[i] <= 0 || a.dilations[i] <= 0 || a.kernel[i] <= 0) return std::nullopt;
  return a;
}

int64_t windowOutput(int64_t in, const WindowAttrs& a, size_t i) {
  const int64_t s = a.strides[i];
  const int64_t effK = (a.kernel[i] - 1) * a.dilations[i] + 1;
  if (a.autoPad == "SAME_UPPER" || a.autoPad == "SAME_LOWER") return (in + s - 1) / s;
  if (a.autoPad == "VALID") return in < effK ? 0 : (in - effK) / s + 1;
  const int64_t span = in + a.pads[i] + a.pads[i + a.kernel.size()] - effK;
  if (span < 0) return 0;
  int64_t out = (a.ceilMode ? (span + s - 1) / s : span / s) + 1;
  // ceil_mode: the last window must start inside the input or its left padding.
  if (a.ceilMode && (out - 1) * s >= in + a.pads[i]) --out;
  return out;
}

std::optional<Dims> convOutputDims(const Node& n, const Dims& x, const Dims& w) {
  const size_t rank = x.size() - 2;
  auto a = windowAttrs(n, rank, Dims(w.begin() + 2, w.end()));
  if (!a) return std::nullopt;
  Dims y{x[0], w[0]};
  for (size_t i = 0; i < rank; ++i) y.push_back(windowOutput(x[i + 2], *a, i));
  return y;
}

std::optional<Dims> convTransposeOutputDims(const Node& n, const Dims& x, const Dims& w) {
  const size_t rank = x.size() - 2;
  auto a = windowAttrs(n, rank, Dims(w.begin() + 2, w.end()));
  if (!a) return std::nullopt;
  const int64_t group = n.attrInt("group", 1);
  Dims y{x[0], w[1] * group};
  Dims outShape = n.attrInts("output_shape");
  Dims outPad = n.attrInts("output_padding");
  if (outPad.empty()) outPad.assign(rank, 0);
  if (outPad.size() != rank) return std::nullopt;
  if (!outShape.empty()) {
    // output_shape may or may not include the batch and channel axes.
    if (outShape.size() == rank + 2) outShape.erase(outShape.begin(), outShape.begin() + 2);
    if (outShape.size() != rank) return std::nullopt;
    y.insert(y.end(), outShape.begin(), outShape.end());
    return y;
  }
  for (size_t i = 0; i < rank; ++i) {
    const int64_t effK = (a->kernel[i] - 1) * a->dilations[i] + 1;
    if (a->autoPad == "SAME_UPPER" || a->autoPad == "SAME_LOWER") {
      y.push_back(x[i + 2] * a->strides[i]);
    } else {
      y.push_back(a->strides[i] * (x[i + 2] - 1) + outPad[i] + effK - a->pads[i] - a->pads[i + rank]);
    }
  }
  return y;
}

std::optional<Dims> poolOutputDims(const Node& n, const Dims& x) {
  if (x.size() < 3) return std::nullopt;
  const size_t rank = x.size() - 2;
  auto a = windowAttrs(n, rank);
  if (!a) return std::nullopt;
  Dims y{x[0], x[1]};
  for (size_t i = 0; i < rank; ++i) y.push_back(windowOutput(x[i + 2], *a, i));
  return y;
}

}  // namespace msa::cost
