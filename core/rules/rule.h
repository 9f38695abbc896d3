#pragma once
// The knowledge base: rule families (one file each in core/rules) read an AnalysisContext and
// append Findings. Families are listed in registry.cpp; there is no central switch on rule ids.
#include <functional>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "model/graph_index.h"
#include "rules/finding.h"
#include "util/progress.h"

namespace msa {

struct GraphCost;
struct OpCost;
struct DeviceProfile;
struct ProfileData;
struct GeFusion;

// Training is no user's choice: a profile whose run has backward or optimizer work is ranked as
// the training step it is (advisor/profile_analysis.cpp).
enum class Goal { Latency, Throughput, Training };
enum class Scenario { Edge, Datacenter };

struct AnalysisContext {
  const Model* model = nullptr;
  const Graph* graph = nullptr;  // model->graph
  const GraphIndex* index = nullptr;
  const GraphCost* cost = nullptr;      // per-node FLOPs/bytes, aligned with graph->nodes
  const DeviceProfile* device = nullptr;
  // Measured with the runtime's graph optimizations disabled: one entry per IR node. May be null.
  const ProfileData* profile = nullptr;
  // Measured with the runtime's own optimizations (ORT `all`), or an imported device profile
  // (msprof): shows runtime fusions and inserted layout conversions. May be null.
  const ProfileData* runtimeProfile = nullptr;

  // On an Ascend device: what ATC's graph engine fuses (rules/ge_fusion.h); estimatedMs then
  // prices the compiled kernels. Null elsewhere.
  const GeFusion* geFusion = nullptr;

  std::vector<double> estimatedMs;  // roofline time per node (incl. launch overhead)
  // Roofline time (ms, incl. one launch) of a hypothetical node with this cost on the device:
  // how rules price a fused or rewritten group.
  std::function<double(const OpCost&)> rooflineMs;
  std::vector<double> measuredMs;   // per node from `profile`; -1 where not measured; empty without
  double latencyMs = 0;             // end-to-end: measured median, or the sum of estimates
  bool measured = false;
  Goal goal = Goal::Latency;
  Scenario scenario = Scenario::Edge;
  const Progress* progress = nullptr;

  // The best time we have for node i: measured when available, else the roofline estimate.
  double timeMs(size_t i) const {
    if (i < measuredMs.size() && measuredMs[i] >= 0) return measuredMs[i];
    return i < estimatedMs.size() ? estimatedMs[i] : 0.0;
  }
  bool isMeasured(size_t i) const { return i < measuredMs.size() && measuredMs[i] >= 0; }
  const Node& node(size_t i) const { return graph->nodes[i]; }
};

class Rule {
 public:
  virtual ~Rule() = default;
  virtual std::string_view family() const = 0;  // "fusion", "format", …
  virtual void run(const AnalysisContext& ctx, std::vector<Finding>& out) const = 0;
};

// Every built-in rule family, in a fixed order.
std::span<const std::unique_ptr<Rule>> builtinRules();

// Runs every rule (or those of the listed families), each finding id made unique.
std::vector<Finding> runRules(const AnalysisContext& ctx, std::span<const std::string_view> families = {});

}  // namespace msa
