#pragma once
// Two device runs side by side (two profiles, or two jobs, each analysed as `analyze --profile`
// analyses it): the step and its phases, the time per kernel type, the ranks, and the per-kernel
// deltas of report/compare.h. `msadvisor-cli compare RUN_A RUN_B` and File ▸ Compare With on an
// open profile show it; msprof-analyze's compare_tools answers the same question (what changed
// between two runs of a job, and where).
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "report/compare.h"
#include "rules/texts.h"  // Lang

namespace msa {

struct Report;

// One figure in both runs (ms per step; counts per step where the figure counts kernels).
struct RunDelta {
  std::string key;  // a phase id ("computing", …), a kernel type, "rank <N>"
  double aMs = 0, bMs = 0;
  double countA = 0, countB = 0;  // kernel types: launches per step
  bool inA = false, inB = false;
  double deltaMs() const { return bMs - aMs; }
};

struct RunSide {
  std::string label, device, deviceName, stepSource;
  std::string deviceNameZh;  // empty: the device has no Chinese name (deviceName then)
  const std::string& deviceNameIn(Lang lang) const { return lang == Lang::Zh && !deviceNameZh.empty() ? deviceNameZh : deviceName; }
  double stepMs = 0;
  int ranks = 1;
};

struct RunComparison {
  RunSide a, b;
  double threshold = 0.10;  // relative change counted as slower or faster
  // The step's phases, in the step record's order where either run has one ("computing",
  // "communication_not_overlapped", "overlapped", "free"), else the timeline's ("compute",
  // "collective_exposed", "p2p_exposed", "data_loading", "idle"); both sets when the runs differ.
  std::vector<RunDelta> phases;
  std::vector<RunDelta> kernelTypes;  // by |delta| descending
  // Per rank of a job, or the rank a single rank of a job is (key "rank <N>"): its step, compute
  // and idle.
  struct Rank {
    int rank = -1, stage = -1;
    RunDelta step, compute, idle;
  };
  std::vector<Rank> ranks;
  TimingComparison kernels;  // per kernel (name), as two analyses are compared
};

// Both reports are profile analyses (advisor/profile_analysis.h). `threshold` as compareTimings'.
RunComparison compareRuns(const Report& a, const Report& b, const std::string& labelA, const std::string& labelB,
                          double threshold = 0.10);

// Whether a figure of both runs changed beyond noise: by more than `threshold` of A's figure
// and more than 10 µs.
bool beyondNoise(const RunDelta& d, double threshold);

// The `msadvisor-cli compare --json` document of two runs.
nlohmann::json toJson(const RunComparison& c);

}  // namespace msa
