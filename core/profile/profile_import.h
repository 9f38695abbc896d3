#pragma once
// Every profile a user can bring, behind one registry of importers. Each importer claims a
// path from its content (the first 64 KiB of a file, or a folder's layout), never from the
// extension alone, and reads it into a ProfileData that says which importer read it and what
// it can tell (ProfileData::importer, ::caps). In claiming order:
//   - msadvisor: our own `profile --json` output (re-matched against the model);
//   - netron: a Netron attachment ({"signature": "netron:attachment", "metrics": […]});
//   - tensorrt: `trtexec --exportProfile` ([{"count": N}, {"name", "timeMs", "averageMs",
//     "percentage"[, "medianMs"]}, …]; profile/trt_import.h);
//   - ascend: msprof / torch_npu output, any generation, a file or a folder
//     (profile/msprof_import.h);
//   - kineto: PyTorch profiler Chrome traces, gzip-compressed or not (profile/kineto_import.h);
//   - onnxruntime: ONNX Runtime profile JSON (a Chrome-trace array of "Node"/"Session" events,
//     or {"traceEvents": […]}).
// With a model the entries are matched onto its IR (what matches nothing is `unmatched`);
// without one (nullptr) the profile is read as it is: the profile-only analysis.
//
// Live backends (measuring a model here) are a second registry, profilerBackends(): the CPU
// through ONNX Runtime and the Ascend ACL backend, each saying whether it can run here.
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

#include "model/graph.h"
#include "profile/profile_data.h"
#include "util/error.h"
#include "util/progress.h"

namespace msa {

struct ProfileImporter {
  std::string_view id;           // "ascend", "onnxruntime", "tensorrt", "kineto", "netron", "msadvisor"
  std::string_view description;  // what it reads, for help texts and errors
  // Claims `path`: `head` holds the first 64 KiB of a file (empty for a folder).
  bool (*canRead)(const std::filesystem::path& path, std::string_view head);
  // Reads it; `model` may be null (no IR matching).
  Result<ProfileData> (*read)(const std::filesystem::path& path, const Model* model, const Progress& progress);
  // The file names a file dialog offers for it ("*.csv *.json"); a folder is claimed by canRead.
  std::string_view filePatterns = {};
};

std::span<const ProfileImporter> profileImporters();

// The importer that claims `path`, or an error naming the file and what it is not.
Result<const ProfileImporter*> findProfileImporter(const std::filesystem::path& path);

// A path a device or a framework wrote (a profiler folder, a trace, a kernel table), not a model:
// an importer claims it and it is no .onnx file.
bool isProfilePath(const std::filesystem::path& path);

Result<ProfileData> importProfile(const std::filesystem::path& path, const Model* model,
                                  const Progress& progress = Progress::none());
inline Result<ProfileData> importProfile(const std::filesystem::path& path, const Model& model,
                                         const Progress& progress = Progress::none()) {
  return importProfile(path, &model, progress);
}

// A live profiler: measures a model on this machine.
struct ProfilerBackend {
  std::string_view id;           // "cpu", "acl"
  std::string_view description;
  ProfileCapabilities caps;      // what its profiles tell
  // "" when it can run here, else why not ("this build has no CANN").
  std::string (*unavailable)();
};

std::span<const ProfilerBackend> profilerBackends();
const ProfilerBackend* findProfilerBackend(std::string_view id);

}  // namespace msa
