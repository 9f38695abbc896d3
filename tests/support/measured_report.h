#pragma once
// A report from a real measurement, for UI tests that need measured times.
#include <QtGlobal>

#include "advisor/advisor.h"
#include "cost/device_profile.h"
#include "profile/ort_profiler.h"

namespace msa::test {

// The model measured with ONNX Runtime on the CPU (few iterations, one thread), with its
// optimizations disabled and all, analysed on cpu-host.
inline Report measuredReport(const Model& m) {
  CpuProfileOptions o;
  o.iterations = 3;
  o.warmup = 1;
  o.threads = 1;
  auto disabled = profileOnCpu(m, o);
  if (!disabled) qFatal("%s", disabled.error().describe().c_str());
  o.optimization = GraphOptimization::All;
  auto all = profileOnCpu(m, o);
  if (!all) qFatal("%s", all.error().describe().c_str());
  AnalysisInputs in;
  in.profile = &*disabled;
  in.runtimeProfile = &*all;
  auto r = analyze(m, *loadDevice("cpu-host"), in, {});
  if (!r) qFatal("%s", r.error().describe().c_str());
  return std::move(*r);
}

}  // namespace msa::test
