#pragma once
// Two models timed in plain ONNX Runtime sessions, written here against the ONNX Runtime C++ API
// and nothing of msadvisor's measurement engine (profile/): the reference a speedup claim is
// checked against. Both sessions run as deployed (ORT_ENABLE_ALL) on the same inputs, in blocks
// taken in turn — each block an untimed run that refills the caches, then timed runs back to back
// for at least `blockMs` — and the medians of the blocks' mean run times are compared. With one
// intra-op thread a run is timed by the calling thread's CPU time (the runtime computes on it;
// time other processes held the core is left out), otherwise by wall time.
#include <string>
#include <vector>

#include "model/tensor.h"
#include "util/error.h"

namespace msa::bench {

struct PlainComparison {
  double originalMs = 0, optimizedMs = 0;  // medians over the blocks of the mean time of a run
  int blocks = 0;
  double maxAbsDiff = 0;  // largest |optimized − original| over the float outputs
  double scale = 0;       // largest |original| there
  double speedup() const { return optimizedMs > 0 ? originalMs / optimizedMs : 0; }
};

// `original` and `optimized` are serialized models; `inputs` by graph-input name.
Result<PlainComparison> comparePlain(const std::string& original, const std::string& optimized,
                                     const std::vector<Tensor>& inputs, int threads, int turns, double blockMs = 100);

}  // namespace msa::bench
