#pragma once
// ONNX Runtime's profiling output: a Chrome-trace JSON array of events. Per run ("model_run")
// every executed node appears as "<node name>_kernel_time" with args op_name, provider,
// input_type_shape and output_type_shape. This reads any ORT version's trace (older ones lack
// provider and shapes) into per-node statistics; mapping runtime nodes to IR nodes is separate
// (node_mapping.h).
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "profile/profile_data.h"
#include "util/error.h"

namespace msa {

struct OrtKernelEvent {
  std::string node;  // the runtime's node name (the event name without "_kernel_time")
  std::string opType;
  std::string provider;
  double tsUs = 0, durUs = 0;
  int run = -1;  // index into OrtTrace::runs; -1 when it lies in none
  std::vector<std::string> inputShapes, outputShapes, inputDtypes, outputDtypes;
  std::string parent;  // the If/Loop/Scan event whose span holds this one, when nested
  size_t eventIndex = 0;  // position in the file's event list, for messages
};

struct OrtRun {
  double tsUs = 0, durUs = 0;
};

struct OrtTrace {
  std::vector<OrtRun> runs;  // "model_run" events in time order
  std::vector<OrtKernelEvent> kernels;  // in time order
  bool runsInferred = false;  // no model_run events: runs were cut by node repetition
};

// Parses the text of a trace. Malformed input gives an error naming the event index.
Result<OrtTrace> parseOrtTrace(std::string_view text, const std::string& label = "trace");
Result<OrtTrace> loadOrtTrace(const std::filesystem::path& file);

// Per-node statistics over runs [skipRuns, end): one NodeProfile per runtime node, in the order
// of first execution; latency from the model_run spans (these include profiling overhead).
// Nothing is mapped to IR nodes here. Errors when no run is left after skipping.
Result<ProfileData> profileFromTrace(const OrtTrace& trace, int skipRuns, const std::string& label = "trace");

}  // namespace msa
