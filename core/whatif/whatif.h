#pragma once
// What if…: the speedups ONNX Runtime does not take by itself, built, checked for accuracy and
// measured against the original as deployed (docs/whatif.md). One entry point, runWhatIf, for
// the CLI (`what-if`), Python (`ModelAdvisor.what_if()`) and the GUI's "What if…" dock:
//  - int8 dynamic quantization of MatMul/Gemm weights, per channel and per tensor;
//  - int8 static QDQ of Conv/MatMul/Gemm (per-channel weights, activation ranges calibrated on the
//    inputs by minmax, percentile and entropy: the variant keeps the most accurate);
//  - mixed precision: the layers whose quantization adds the most error kept in float until the
//    accuracy bound holds;
//  - runtime settings: intra-op threads 1…cores, spinning off, parallel execution;
//  - batch sizes for the throughput goal (items/s and latency per batch);
//  - bfloat16 compute where the CPU has AVX512-BF16/AMX (reported even when the runtime cannot run it).
// On an Ascend device profile the variants are estimated with the cost model (whatif/ascend_whatif.h).
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "model/graph.h"
#include "profile/model_inputs.h"
#include "profile/profile_data.h"
#include "util/error.h"
#include "util/progress.h"
#include "whatif/accuracy.h"
#include "whatif/variant_timing.h"

namespace msa {

enum class VariantKind { Int8Dynamic, Int8Static, Int8Mixed, RuntimeSettings, Batch, Bf16, Fp16, Int8Amct, ImplMode };
std::string_view variantKindName(VariantKind k);  // "int8_dynamic", "int8_static", "int8_mixed", "runtime_settings",
                                                   // "batch", "bf16", "fp16", "int8_amct", "impl_mode"

// One layer's share of a variant, for the graph: time saved and (quantized layers) accuracy cost.
struct LayerEffect {
  std::string node;
  double savedMs = 0;        // predicted: its time in the original minus its time in the variant
  double accuracyCost = -1;  // relative squared error this layer alone adds when quantized; -1 unknown
  bool int8 = false;         // computed in int8 in this variant
};

// A calibration method tried for a static variant, with its accuracy.
struct CalibrationTrial {
  std::string method;  // "minmax", "percentile", "entropy"
  Accuracy accuracy;
  bool within = false;
};

struct Variant {
  std::string name;  // "int8_dynamic", "int8_dynamic_per_tensor", "int8_static", "int8_mixed", "threads_1", "spinning_off",
                     // "parallel_execution", "batch_8", "bf16"…
  VariantKind kind = VariantKind::RuntimeSettings;
  Model model;              // what runs (the original itself for runtime settings)
  bool modelChanged = false;  // false: the original model with other session settings
  VariantSettings settings;
  int batch = 1;
  // Measured (as deployed, in turns with the original): per run; for a batch, per batch.
  bool measured = false;
  Stats latency;
  double speedup = 0;        // original latency / variant latency; for a batch, items/s over the original's
  double itemsPerSecond = 0;
  std::string error;         // why it was not measured (the runtime cannot load it: bf16 on ONNX Runtime's CPU provider)
  // Predicted before measuring.
  double predictedSpeedup = 0;
  std::string predictionMethod;
  double optimumMs = 0;      // the roofline at this variant's precision (per run)
  // Accuracy against the original on the same inputs.
  std::optional<Accuracy> accuracy;
  Verdict verdict;
  bool withinBound = false;
  // Quantization: the layers in int8 and in float, how activations were calibrated.
  std::vector<std::string> int8Layers, floatLayers;
  std::string calibrationMethod;
  std::vector<CalibrationTrial> calibrationTrials;
  std::vector<LayerEffect> layers;
  bool estimated = false;    // priced with the cost model, not measured (Ascend)
  std::string option;        // how to enable it where that is an option: "--precision_mode=force_fp16"
  std::vector<std::string> notes;  // text keys (whatif.note.*) of what the reader should know
  std::string fingerprint;   // of the serialized model that was measured (and is exported)
};

struct WhatIfRequest {
  std::string device = "cpu";      // "cpu" measures here; an Ascend profile id or JSON estimates
  std::filesystem::path inputsDir;  // the user's inputs (.npy/.pb/.npz, subfolders): calibration and accuracy
  InputOptions inputs;              // symbolic dims, seed of random inputs
  AccuracyBound bound;
  enum class Goal { Latency, Throughput };
  Goal goal = Goal::Latency;
  int randomSamples = 8;            // random inputs: calibration samples, and as many others for accuracy
  std::vector<int> batches{2, 4, 8, 16};
  // Build only these variants (names or kinds; what they need is built too); empty: every one that applies.
  std::set<std::string, std::less<>> only;
  TimingOptions timing;
  bool preprocess = true;           // fold BatchNormalization and constant weights first (optimize passes)
};

struct WhatIfResult {
  std::string model;    // path
  std::string device;   // "cpu" or the device profile's id
  std::string runtime;  // "onnxruntime 1.21.1"
  bool estimated = false;
  Stats baseline;       // the original as deployed, ms per run
  int threads = 0;
  std::vector<InputPlan> inputs;
  std::string inputsSource;  // the folder, or "random"
  bool randomInputs = true;
  int calibrationSamples = 0, evaluationSamples = 0;
  AccuracyBound bound;
  WhatIfRequest::Goal goal = WhatIfRequest::Goal::Latency;
  std::vector<Variant> variants;
  std::string best;  // the fastest variant within the bound, for the goal; empty when none is faster
  Measurement measurement;  // how the original was timed (the engine's, profile/measurement.h)
  double fp32Gflops = 0, int8Gops = 0, bandwidthGBs = 0;  // the host's calibrated rates
  double optimumMs = 0;                                   // the original's, float32
  double predictionMedianError = -1;  // median |predicted / measured - 1| over the measured variants
  std::vector<std::string> notes;     // text keys (whatif.note.*)
  std::string batchHandling;          // text key: how the batch dim was treated (whatif.batch.*)
};

Result<WhatIfResult> runWhatIf(const Model& model, const WhatIfRequest& request, const Progress& progress = Progress::none());

// The variant named `name` of a result (nullptr when absent).
const Variant* findVariant(const WhatIfResult& r, std::string_view name);

// What an application sets to run `v` as it was measured: the session options and the batch.
nlohmann::json sessionSettingsJson(const Variant& v);

// FNV-1a of the serialized model, as hex: the same variant built twice gives the same fingerprint.
std::string modelFingerprint(const Model& m);

}  // namespace msa
