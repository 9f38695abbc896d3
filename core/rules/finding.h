#pragma once
// A finding is data: which rule fired where, what it costs, what to do. Text is rendered at the
// edges (CLI, report, UI) from the rule's catalog entry and `params`, in English or Chinese.
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace msa {

// A finding's category: an id a rule family declares in its resources/rules/<family>.json
// ("_family" → "categories"), which also gives the category's title, colour and dock
// (rules/family_registry.h): nothing else in the code knows them. The built-in ids have constants;
// Host is the training process's side of a step (data loading, framework overhead, a device
// waiting for launches). A family described from data alone names its own (Category::named).
class Category {
 public:
  constexpr Category() : m_id("fusion") {}
  static const Category Fusion, Format, Kernel, Alignment, SmallOps, Precision, Graph, Host;
  // The category of that id; ids are interned, so a Category is a cheap value.
  static Category named(std::string_view id);
  constexpr std::string_view id() const { return m_id; }
  friend constexpr bool operator==(Category a, Category b) { return a.m_id == b.m_id; }
  friend constexpr bool operator<(Category a, Category b) { return a.m_id < b.m_id; }

 private:
  constexpr explicit Category(std::string_view id) : m_id(id) {}
  std::string_view m_id;  // a literal or an interned string: never dangles
};
inline constexpr Category Category::Fusion{"fusion"};
inline constexpr Category Category::Format{"format"};
inline constexpr Category Category::Kernel{"kernel"};
inline constexpr Category Category::Alignment{"alignment"};
inline constexpr Category Category::SmallOps{"small_ops"};
inline constexpr Category Category::Precision{"precision"};
inline constexpr Category Category::Graph{"graph"};
inline constexpr Category Category::Host{"host"};

enum class Priority { P0, P1, P2 };

inline constexpr std::string_view kWholeRunBudget = "run";  // Finding::budgets  // must fix, strongly advised, advised
enum class ImpactSource { Measured, Estimated, Both };

std::string_view categoryName(Category c);  // its id: "fusion", "format", "kernel", …, "host"
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
  // The named shares of the run its saving is drawn from ("kernel:<entry>", "idle",
  // "data_loading", "op:<name>", …: advisor/ranking.h); empty: its runtime-only nodes, then its
  // nodes; kWholeRunBudget alone: the run as a whole (a slow rank), bounded only by the run.
  std::vector<std::string> budgets;
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
  // The leading nodes the automatic fix rewrites when it does only part of the finding (a
  // Conv→BatchNormalization→activation's fold touches the first two); 0: all of them.
  size_t fixSpan = 0;
  // Who already does what the automatic fix does, when the finding itself is left for the user
  // (ONNX Runtime folds the BatchNormalization but runs the activation apart): the fix changes
  // the exported model, not the deployed run, and is not counted as a saving of that run.
  std::string fixDoneBy;
  // The runtime whose graph was read and that runs this finding's nodes as separate kernels
  // ("onnxruntime"): "not applied by ONNX Runtime at load", said where the finding is shown.
  std::string notAppliedBy;

  bool hasFix() const { return !fixPass.empty() && legal; }
};

}  // namespace msa
