#pragma once
// A finding is data: which rule fired where, what it costs, what to do. Text is rendered at the
// edges (CLI, report, UI) from the rule's catalog entry and `params`, in English or Chinese.
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace msa {

// Host: the training process's side of a step (data loading, framework overhead, a device
// waiting for launches) — the training family's findings about a trace, not a graph.
enum class Category { Fusion, Format, Kernel, Alignment, SmallOps, Precision, Graph, Host };
enum class Priority { P0, P1, P2 };  // must fix, strongly advised, advised
enum class ImpactSource { Measured, Estimated, Both };

std::string_view categoryName(Category c);  // "fusion", "format", "kernel", …, "host"
std::string_view priorityName(Priority p);  // "P0"…
std::string_view impactSourceName(ImpactSource s);

struct Impact {
  double ms = 0;         // time saved when fixed (after overlap accounting in the advisor)
  double rawMs = 0;      // the rule's own estimate, before overlap accounting
  double currentMs = 0;  // time of the affected part now
  double fixedMs = 0;    // estimated time of that part once fixed
  ImpactSource source = ImpactSource::Estimated;
  std::string method;    // how it was computed, e.g. "members measured vs fused roofline"
};

struct Finding {
  std::string id;    // stable and unique in a report: "<rule>@<anchor node>"
  std::string rule;  // "fusion.conv_bn_act"
  Category category = Category::Fusion;
  std::vector<std::string> nodes;         // IR node names; the first is the anchor
  std::vector<std::string> runtimeNodes;  // runtime-only nodes involved (NCHWc reorders, TransData)
  Impact impact;
  double speedupLocal = 1.0;   // currentMs / fixedMs: the fixed part alone
  double speedupGlobal = 0.0;  // share of the whole run saved: impact.ms / latency
  Priority priority = Priority::P2;
  bool legal = true;                  // false: reported, but the rewrite is not allowed
  std::vector<std::string> blockers;  // why not legal, as catalog keys ("multi_consumer:<value>")
  std::string fixPass;                // optimizer pass id that fixes it; empty: advice only
  bool safeFix = false;               // the fix is applied by "Apply all safe"
  std::map<std::string, std::string> params;  // values for the text templates
  // Who already applies this fix when the model is deployed, so the user need not: "" (left for
  // the user), "onnxruntime" (ONNX Runtime's graph optimizer at session load), "ascend-ge"
  // (CANN's graph engine when ATC compiles). Such findings stay in the report, labelled, but
  // never fill the TOP list, and their time is not counted as still to gain.
  std::string appliedBy;

  bool hasFix() const { return !fixPass.empty() && legal; }
};

}  // namespace msa
