#include "whatif/quant_params.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace msa {

std::vector<float> floatValues(const Tensor& t) {
  if (t.dtype == DType::Float) {
    std::vector<float> v(static_cast<size_t>(std::max<int64_t>(0, t.numElements())));
    const std::string_view b = t.raw();
    if (b.size() >= v.size() * sizeof(float)) std::memcpy(v.data(), b.data(), v.size() * sizeof(float));
    else v.clear();
    return v;
  }
  if (!isFloating(t.dtype)) return {};
  const std::vector<double> d = t.toDouble();
  return std::vector<float>(d.begin(), d.end());
}

ActivationQuant activationQuant(double lo, double hi) {
  lo = std::min(lo, 0.0);
  hi = std::max(hi, 0.0);
  ActivationQuant q;
  if (!(hi - lo > 0) || !std::isfinite(hi - lo)) return q;
  q.scale = static_cast<float>((hi - lo) / 255.0);
  const double zp = std::nearbyint(-lo / q.scale);
  q.zeroPoint = static_cast<uint8_t>(std::clamp(zp, 0.0, 255.0));
  return q;
}

WeightQuant quantizeWeight(const Tensor& w, int axis, const std::string& base) {
  WeightQuant out;
  const std::vector<float> v = floatValues(w);
  const auto rank = static_cast<int>(w.dims.size());
  if (axis >= rank) axis = -1;
  out.axis = axis;
  // Elements per channel slice: the channel axis splits the tensor into outer × channels × inner.
  size_t channels = 1, inner = 1, outer = 1;
  if (axis >= 0) {
    channels = static_cast<size_t>(w.dims[static_cast<size_t>(axis)]);
    for (int d = axis + 1; d < rank; ++d) inner *= static_cast<size_t>(w.dims[static_cast<size_t>(d)]);
    for (int d = 0; d < axis; ++d) outer *= static_cast<size_t>(w.dims[static_cast<size_t>(d)]);
  } else {
    inner = v.size();
  }
  auto channelOf = [&](size_t i) { return axis < 0 ? size_t{0} : (i / inner) % channels; };
  std::vector<float> maxAbs(channels, 0.0f);
  for (size_t i = 0; i < v.size(); ++i) maxAbs[channelOf(i)] = std::max(maxAbs[channelOf(i)], std::fabs(v[i]));
  out.scaleValues.resize(channels);
  for (size_t c = 0; c < channels; ++c) out.scaleValues[c] = maxAbs[c] > 0 ? maxAbs[c] / 127.0f : 1.0f;
  std::vector<int8_t> q(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    const double x = std::nearbyint(static_cast<double>(v[i]) / out.scaleValues[channelOf(i)]);
    q[i] = static_cast<int8_t>(std::clamp(x, -127.0, 127.0));
  }
  (void)outer;
  out.values = Tensor::fromValues(base + "_quantized", DType::Int8, w.dims, q);
  const std::vector<int64_t> sdims = axis < 0 ? std::vector<int64_t>{} : std::vector<int64_t>{static_cast<int64_t>(channels)};
  out.scales = Tensor::fromValues(base + "_scale", DType::Float, sdims, out.scaleValues);
  out.zeroPoints = Tensor::fromValues(base + "_zero_point", DType::Int8, sdims, std::vector<int8_t>(channels, 0));
  return out;
}

Tensor quantizeBias(const Tensor& b, double inputScale, const std::vector<float>& weightScales, const std::string& name) {
  const std::vector<float> v = floatValues(b);
  std::vector<int32_t> q(v.size());
  constexpr double lo = std::numeric_limits<int32_t>::min(), hi = std::numeric_limits<int32_t>::max();
  for (size_t i = 0; i < v.size(); ++i) {
    const double s = inputScale * weightScales[weightScales.size() == 1 ? 0 : i];
    q[i] = static_cast<int32_t>(std::clamp(s > 0 ? std::nearbyint(v[i] / s) : 0.0, lo, hi));
  }
  return Tensor::fromValues(name, DType::Int32, b.dims, q);
}

Tensor biasScales(size_t channels, double inputScale, const std::vector<float>& weightScales, const std::string& name) {
  std::vector<float> s(channels);
  for (size_t i = 0; i < channels; ++i)
    s[i] = static_cast<float>(inputScale * weightScales[weightScales.size() == 1 ? 0 : i]);
  return Tensor::fromValues(name, DType::Float, {static_cast<int64_t>(channels)}, s);
}

Tensor scalarFloat(const std::string& name, float v) { return Tensor::fromValues(name, DType::Float, {}, std::vector<float>{v}); }

Tensor scalarUint8(const std::string& name, uint8_t v) {
  return Tensor::fromValues(name, DType::UInt8, {}, std::vector<uint8_t>{v});
}

}  // namespace msa
