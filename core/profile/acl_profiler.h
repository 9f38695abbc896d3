#pragma once
// Ascend NPU profiling through AscendCL (ACL): ONNX -> .om with ATC, then load, execute and
// read per-op durations from the profiling subscription API (aclprofModelSubscribe), mapped onto
// the IR like an msprof import (profile/ascend_ops.h).
//
// Compiled for real only when CMake finds CANN (MSA_HAVE_ACL, ASCEND_TOOLKIT_HOME). Otherwise
// aclBackendAvailable() is false and profileWithAcl() returns a Device error that says so.
// Status: this code has been compiled against a declaration-only copy of the documented API
// (tests/acl_decl); it has NOT been run on Ascend hardware.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "model/graph.h"
#include "profile/profile_data.h"
#include "util/error.h"
#include "util/progress.h"

namespace msa {

struct AclProfileOptions {
  int deviceId = 0;
  int warmup = 5;
  int iterations = 50;
  std::string socVersion;        // for ATC; empty: the device's own (aclrtGetSocName)
  std::filesystem::path om;      // an existing offline model: skip ATC
  std::filesystem::path onnx;    // the model file for ATC; empty: model.path
  std::filesystem::path workDir; // ATC output; empty: a temporary folder, removed afterwards
  std::vector<std::string> atcArgs;                   // extra ATC arguments
  std::map<std::string, int64_t, std::less<>> dims;   // symbolic input dims for ATC
  unsigned seed = 1;             // random inputs
};

// True when this build links AscendCL.
bool aclBackendAvailable();
// The sentence the CLI and the UI show when it is not.
const char* aclUnavailableMessage();

Result<ProfileData> profileWithAcl(const Model& model, const AclProfileOptions& options,
                                   const Progress& progress = Progress::none());

}  // namespace msa
