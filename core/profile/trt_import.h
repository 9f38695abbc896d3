#pragma once
// TensorRT's per-layer profile, as `trtexec --exportProfile=FILE` writes it: a JSON array whose
// first element may be {"count": N} (the inferences profiled) followed by one object per layer
// {"name", "timeMs" (total over the N runs), "averageMs", "percentage"} and, in newer versions,
// "medianMs". A layer that fuses several network layers is named "a + b + c"; reformatters
// TensorRT inserts ("… input reformatter 0", "Reformatting CopyNode for …") belong to no layer
// of the model. Entries keep the file's order; the latency is the sum of the layers' averages.
#include <filesystem>
#include <string_view>

#include "model/graph.h"
#include "profile/profile_data.h"
#include "util/error.h"

namespace msa {

bool trtCanRead(const std::filesystem::path& path, std::string_view head);
// `model` may be null: nothing is matched.
Result<ProfileData> importTensorRt(const std::filesystem::path& file, const Model* model);

}  // namespace msa
