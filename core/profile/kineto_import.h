#pragma once
// A PyTorch profiler (Kineto) Chrome trace as a profile, gzip-compressed or not, read by the
// training trace reader (training/training_trace.h): one entry per device kernel name (per
// host operator on a CPU-only trace), its time per profiler step (ProfilerStep#N, else the
// whole trace), the step time as the latency. Kernels do not name ONNX nodes: with a model,
// every entry is unmatched.
#include <filesystem>

#include "model/graph.h"
#include "profile/profile_data.h"
#include "util/error.h"
#include "util/progress.h"

namespace msa {

Result<ProfileData> importKineto(const std::filesystem::path& file, const Model* model,
                                 const Progress& progress = Progress::none());

}  // namespace msa
