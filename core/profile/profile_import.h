#pragma once
// One entry point for every profile a user can bring: detects the format and maps the
// runtime's names onto the model's IR nodes.
//   - ONNX Runtime profile JSON (a Chrome-trace array, or {"traceEvents": [...]})
//   - Ascend msprof op_summary / torch_npu kernel_details CSV, or a PROF_* / *_ascend_pt folder
//   - a Netron attachment ({"signature": "netron:attachment", "metrics": [...]})
//   - msadvisor's own `profile --json` output (re-matched against this model)
// Detection looks at the content, not only the extension.
#include <filesystem>
#include <string>

#include "model/graph.h"
#include "profile/profile_data.h"
#include "util/error.h"
#include "util/progress.h"

namespace msa {

enum class ProfileFormat { Unknown, OrtJson, MsprofCsv, MsprofDir, NetronAttachment, MsadvisorJson };

const char* profileFormatName(ProfileFormat f);
// The format of `path` from its content (a folder: msprof), or an error saying what it is not.
Result<ProfileFormat> detectProfileFormat(const std::filesystem::path& path);

Result<ProfileData> importProfile(const std::filesystem::path& path, const Model& model,
                                  const Progress& progress = Progress::none());

}  // namespace msa
