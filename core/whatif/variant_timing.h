#pragma once
// Timing the variants beside the original as deployed: the measurement engine's timeConfigs
// (profile/latency.h) over the variants that load and run, so that a what-if's figures are the
// analysis headline's and Verify's, and its speedups ratios measured in one run. A variant the
// runtime cannot load or run is reported with its error; the original must run.
#include <span>
#include <string>
#include <vector>

#include "model/data_value.h"
#include "model/graph.h"
#include "profile/latency.h"
#include "profile/profile_data.h"
#include "util/error.h"
#include "util/progress.h"

namespace msa {

// How a variant's session runs: the engine's settings (as deployed: the graph optimizer on).
using VariantSettings = SessionSettings;

struct TimedVariant {
  const Model* model = nullptr;
  std::span<const DataValue> inputs;
  VariantSettings settings;
};

struct TimingOptions {
  int iterations = 30;         // timed runs per configuration, at least
  int warmup = 2;              // untimed runs after each session is created
  double budgetSeconds = 40;   // stop adding rounds here (after three at least)
};

struct VariantTiming {
  Stats stats;        // ms per run
  std::string error;  // the runtime could not load or run it (then no stats)
};

struct TimingReport {
  std::vector<VariantTiming> timings;  // aligned with the variants
  // The `measurement` of the contract: the original's, as the engine measured it.
  Measurement measurement;
};

// The first variant is the reference (the original as deployed): it must load and run.
Result<TimingReport> timeVariants(std::span<const TimedVariant> variants, const TimingOptions& options,
                                  const Progress& progress = Progress::none());

}  // namespace msa
