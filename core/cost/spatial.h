#pragma once
// Output sizes of sliding-window ops (Conv, ConvTranspose, pools) from their attributes, for
// when shape inference left an output unknown. Internal to cost/.
#include <optional>

#include "cost/cost_context.h"

namespace msa::cost {

struct WindowAttrs {
  Dims kernel, strides, dilations, pads;  // pads: begins then ends, as in ONNX
  std::string autoPad = "NOTSET";
  bool ceilMode = false;
};

// Reads kernel_shape (or the given kernel), strides, dilations, pads, auto_pad, ceil_mode with
// ONNX defaults for `spatialRank` axes; nullopt when an attribute has the wrong length.
std::optional<WindowAttrs> windowAttrs(const Node& n, size_t spatialRank, const Dims& kernelFromWeight = {});

// Output length of one axis of a sliding window.
int64_t windowOutput(int64_t in, const WindowAttrs& a, size_t axis);

std::optional<Dims> convOutputDims(const Node& n, const Dims& x, const Dims& w);
std::optional<Dims> convTransposeOutputDims(const Node& n, const Dims& x, const Dims& w);
std::optional<Dims> poolOutputDims(const Node& n, const Dims& x);

}  // namespace msa::cost
