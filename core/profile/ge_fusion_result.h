#pragma once
// ATC's fusion_result.json: how often each graph-fusion and UB-fusion pass of CANN's graph engine
// matched and took effect while a model was compiled (atc --export_compile_stat, on by default;
// written to the working directory, or $ASCEND_WORK_PATH/FE/<pid>/). Two layouts are read:
//   - one object keyed "session_and_graph_id_<session>_<graph>", each holding "graph_fusion" and
//     "ub_fusion" objects of {<pass>: {"match_times", "effect_times"[, "repository_hit_times"]}}
//     (the counts are written as decimal strings);
//   - the older one: a sequence of objects, one per graph, each with "session_and_graph_id":
//     "<session>_<graph>" beside its "graph_fusion" and "ub_fusion".
// docs/ascend-fusion.md cites the format's sources.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.h"

namespace msa {

struct GeFusionResult {
  struct Pass {
    std::string name;
    bool ub = false;          // listed under "ub_fusion" (else "graph_fusion")
    long matchTimes = 0;      // summed over every graph of the file
    long effectTimes = 0;
    long repositoryHits = -1; // UB fusion only; -1 when absent
  };
  std::filesystem::path path;
  std::vector<std::string> graphs;  // "<session>_<graph>", in file order
  std::vector<Pass> passes;         // sorted by kind, then name

  // The pass of that name (graph fusion or UB fusion); null when the file does not list it.
  const Pass* find(std::string_view name) const;
};

// Errors name the file and the entry ("session_and_graph_id_0_0 / ub_fusion / X: effect_times …").
Result<GeFusionResult> parseGeFusionResult(std::string_view text, const std::string& label);
Result<GeFusionResult> readGeFusionResult(const std::filesystem::path& file);

// A fusion_result.json beside an msprof/torch_npu profile: in the profile's folder (or the
// folder of a profile file) and up to three folders above it, the nearest first.
std::optional<std::filesystem::path> findGeFusionResultNear(const std::filesystem::path& profile);

}  // namespace msa
