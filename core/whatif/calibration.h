#pragma once
// Activation ranges for static quantization, calibrated on sample inputs: the float model runs
// every sample with the tensors to quantize exposed as outputs; each tensor's range comes from
// its values by one of three methods (docs/whatif.md, "Calibration"):
//  - minmax: the smallest and largest value seen (ONNX Runtime's default);
//  - percentile: the 0.001st and 99.999th percentiles, so that rare outliers do not stretch the
//    step of every other value;
//  - entropy: the clipping threshold whose 128-level (255 for non-negative tensors) quantized
//    histogram is closest to the real one in Kullback-Leibler divergence (TensorRT's method).
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "model/data_value.h"
#include "model/graph.h"
#include "util/error.h"
#include "util/progress.h"

namespace msa {

enum class CalibrationMethod { MinMax, Percentile, Entropy };
std::string_view calibrationMethodName(CalibrationMethod m);  // "minmax", "percentile", "entropy"
inline constexpr CalibrationMethod kCalibrationMethods[] = {CalibrationMethod::MinMax, CalibrationMethod::Percentile,
                                                            CalibrationMethod::Entropy};

struct TensorStatistics {
  double min = 0, max = 0;
  std::vector<double> signedHistogram;  // kHistogramBins over [min, max]
  std::vector<double> absHistogram;     // kHistogramBins over [0, max |x|]
  double count = 0;
};
inline constexpr int kHistogramBins = 2048;

struct Range {
  double lo = 0, hi = 0;
};

// Two passes over the samples (min/max, then the histograms). Runs with ONNX Runtime's basic
// optimizations, which keep every exposed tensor. Every name must be a float tensor of the graph.
Result<std::map<std::string, TensorStatistics>> collectStatistics(const Model& model, const std::vector<std::string>& tensors,
                                                                  const std::vector<std::vector<DataValue>>& samples,
                                                                  const Progress& progress = Progress::none());

Range calibratedRange(const TensorStatistics& s, CalibrationMethod method);
std::map<std::string, Range> calibratedRanges(const std::map<std::string, TensorStatistics>& stats, CalibrationMethod method);

// `model` with `tensors` added as graph outputs (typed from the graph where it knows them), for
// runs that read intermediate values.
Model withOutputs(const Model& model, const std::vector<std::string>& tensors);

}  // namespace msa
