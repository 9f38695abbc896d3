#include "whatif/calibration.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "model/graph_index.h"
#include "profile/ort_session.h"

namespace msa {
namespace {

// One run of every sample; `each(name, values)` sees every exposed tensor's float values.
template <typename F>
Status runSamples(const OrtSession& session, const std::vector<std::string>& tensors,
                  const std::vector<std::vector<DataValue>>& samples, const Progress& progress, double from, double to,
                  F&& each) {
  for (size_t s = 0; s < samples.size(); ++s) {
    if (progress.cancelled()) return Error::cancelled();
    auto out = session.run(samples[s], tensors);
    if (!out) return out.error();
    for (size_t k = 0; k < tensors.size(); ++k) {
      const Tensor& t = (*out)[k].tensor;
      if (t.dtype != DType::Float) return Error::model("calibration: '" + tensors[k] + "' is not a float32 tensor");
      const auto* v = reinterpret_cast<const float*>(t.raw().data());
      each(tensors[k], v, static_cast<size_t>(t.numElements()));
    }
    progress.report("calibrating", from + (to - from) * static_cast<double>(s + 1) / static_cast<double>(samples.size()));
  }
  return Ok{};
}

// The value below which `share` of the histogram's mass lies.
double quantile(const std::vector<double>& hist, double lo, double hi, double share) {
  double total = 0;
  for (double h : hist) total += h;
  if (!(total > 0)) return hi;
  const double width = (hi - lo) / static_cast<double>(hist.size());
  double acc = 0;
  for (size_t i = 0; i < hist.size(); ++i) {
    acc += hist[i];
    if (acc >= share * total) return lo + width * static_cast<double>(i + 1);
  }
  return hi;
}

// TensorRT's entropy calibration on the histogram of |x|: the threshold (a bin edge from `levels`
// bins up) whose distribution, clipped and quantized to `levels` levels, loses the least
// information (Kullback-Leibler divergence).
double entropyThreshold(const std::vector<double>& hist, double maxAbs, int levels) {
  const int n = static_cast<int>(hist.size());
  if (!(maxAbs > 0) || n <= levels) return maxAbs;
  const double width = maxAbs / n;
  // Thresholds that clip more than 1 % of the values are not candidates: when every value lies
  // far from 0 (a tensor in [1, 6]), a threshold below them all folds the whole histogram into
  // its edge bin, which the divergence then scores as perfect.
  double total = 0;
  for (double h : hist) total += h;
  double below = 0;
  for (int b = 0; b < levels; ++b) below += hist[static_cast<size_t>(b)];
  int first = levels;
  for (; first < n && below < 0.99 * total; ++first) below += hist[static_cast<size_t>(first)];
  double bestKl = INFINITY;
  int best = n;
  std::vector<double> p, q;
  for (int i = first; i <= n; i += 16) {
    p.assign(hist.begin(), hist.begin() + i);
    for (int k = i; k < n; ++k) p[static_cast<size_t>(i - 1)] += hist[static_cast<size_t>(k)];  // outliers clip to the edge
    // Q: P's first i bins merged into `levels` levels, each spread evenly over its nonzero bins.
    q.assign(static_cast<size_t>(i), 0.0);
    const double perLevel = static_cast<double>(i) / levels;
    for (int l = 0; l < levels; ++l) {
      const int b0 = static_cast<int>(std::floor(l * perLevel)), b1 = std::min(i, static_cast<int>(std::floor((l + 1) * perLevel)));
      double sum = 0;
      int nonzero = 0;
      for (int b = b0; b < b1; ++b) {
        sum += hist[static_cast<size_t>(b)];
        nonzero += hist[static_cast<size_t>(b)] > 0;
      }
      for (int b = b0; b < b1; ++b)
        if (hist[static_cast<size_t>(b)] > 0) q[static_cast<size_t>(b)] = sum / nonzero;
    }
    double ps = 0, qs = 0;
    for (int b = 0; b < i; ++b) {
      ps += p[static_cast<size_t>(b)];
      qs += q[static_cast<size_t>(b)];
    }
    if (!(ps > 0) || !(qs > 0)) continue;
    double kl = 0;
    for (int b = 0; b < i; ++b) {
      const double pb = p[static_cast<size_t>(b)] / ps, qb = q[static_cast<size_t>(b)] / qs;
      if (pb > 0) kl += qb > 0 ? pb * std::log(pb / qb) : pb * 30.0;  // mass Q cannot represent: heavily penalised
    }
    if (kl < bestKl) {
      bestKl = kl;
      best = i;
    }
  }
  return width * best;
}

}  // namespace

std::string_view calibrationMethodName(CalibrationMethod m) {
  switch (m) {
    case CalibrationMethod::Percentile: return "percentile";
    case CalibrationMethod::Entropy: return "entropy";
    case CalibrationMethod::MinMax: break;
  }
  return "minmax";
}

Model withOutputs(const Model& model, const std::vector<std::string>& tensors) {
  Model m = model;
  GraphIndex idx(model.graph);
  std::set<std::string, std::less<>> present;
  for (const auto& o : m.graph.outputs) present.insert(o.name);
  for (const auto& t : tensors) {
    if (present.count(t)) continue;
    ValueInfo v;
    v.name = t;
    const TypeInfo* type = idx.type(t);
    v.type = type && type->isTensor() ? *type : TypeInfo::tensor(DType::Float, Shape{});
    if (!(type && type->isTensor())) v.type.shape.reset();
    m.graph.outputs.push_back(std::move(v));
    present.insert(t);
  }
  return m;
}

Result<std::map<std::string, TensorStatistics>> collectStatistics(const Model& model, const std::vector<std::string>& tensors,
                                                                  const std::vector<std::vector<DataValue>>& samples,
                                                                  const Progress& progress) {
  std::map<std::string, TensorStatistics> stats;
  if (tensors.empty()) return stats;
  if (samples.empty()) return Error::usage("calibration needs at least one sample");
  RuntimeOptions ro;
  ro.optimization = GraphOptimization::Basic;
  auto session = OrtSession::create(withOutputs(model, tensors), ro);
  if (!session) return session.error();
  for (const auto& t : tensors) {
    TensorStatistics& s = stats[t];
    s.min = INFINITY;
    s.max = -INFINITY;
  }
  auto minmax = runSamples(*session, tensors, samples, progress, 0.0, 0.5, [&](const std::string& name, const float* v, size_t n) {
    TensorStatistics& s = stats[name];
    for (size_t i = 0; i < n; ++i)
      if (std::isfinite(v[i])) {
        s.min = std::min(s.min, static_cast<double>(v[i]));
        s.max = std::max(s.max, static_cast<double>(v[i]));
      }
  });
  if (!minmax) return minmax.error();
  for (auto& [name, s] : stats) {
    if (!std::isfinite(s.min)) s.min = s.max = 0;  // never finite: quantized over [0, 0]
    s.signedHistogram.assign(kHistogramBins, 0.0);
    s.absHistogram.assign(kHistogramBins, 0.0);
  }
  auto hist = runSamples(*session, tensors, samples, progress, 0.5, 1.0, [&](const std::string& name, const float* v, size_t n) {
    TensorStatistics& s = stats[name];
    const double width = (s.max - s.min) / kHistogramBins;
    const double maxAbs = std::max(std::fabs(s.min), std::fabs(s.max)), absWidth = maxAbs / kHistogramBins;
    for (size_t i = 0; i < n; ++i) {
      if (!std::isfinite(v[i])) continue;
      const double x = v[i];
      const auto b = width > 0 ? std::min<long>(kHistogramBins - 1, static_cast<long>((x - s.min) / width)) : 0L;
      const auto a = absWidth > 0 ? std::min<long>(kHistogramBins - 1, static_cast<long>(std::fabs(x) / absWidth)) : 0L;
      s.signedHistogram[static_cast<size_t>(std::max(0L, b))] += 1;
      s.absHistogram[static_cast<size_t>(std::max(0L, a))] += 1;
      s.count += 1;
    }
  });
  if (!hist) return hist.error();
  return stats;
}

Range calibratedRange(const TensorStatistics& s, CalibrationMethod method) {
  switch (method) {
    case CalibrationMethod::MinMax: return {s.min, s.max};
    case CalibrationMethod::Percentile: {
      // 99.999th percentile on each side, as ONNX Runtime's percentile calibrator defaults to.
      const double lo = s.min >= 0 ? s.min : quantile(s.signedHistogram, s.min, s.max, 1e-5);
      const double hi = quantile(s.signedHistogram, s.min, s.max, 1.0 - 1e-5);
      return {lo, hi};
    }
    case CalibrationMethod::Entropy: {
      const double maxAbs = std::max(std::fabs(s.min), std::fabs(s.max));
      const double t = entropyThreshold(s.absHistogram, maxAbs, s.min >= 0 ? 255 : 128);
      return {std::max(s.min, -t), std::min(s.max, t)};
    }
  }
  return {s.min, s.max};
}

std::map<std::string, Range> calibratedRanges(const std::map<std::string, TensorStatistics>& stats, CalibrationMethod method) {
  std::map<std::string, Range> out;
  for (const auto& [name, s] : stats) out[name] = calibratedRange(s, method);
  return out;
}

}  // namespace msa
