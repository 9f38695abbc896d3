#pragma once
// Owns everything an AnalysisContext points to: the model (with inferred shapes), its index,
// costs, the device, roofline estimates and the measured time per node. Built once per analysis;
// rules only read it.
#include <memory>

#include "advisor/advisor.h"
#include "cost/device_profile.h"
#include "cost/op_cost.h"
#include "cost/roofline.h"
#include "model/graph_index.h"
#include "rules/ge_fusion.h"
#include "rules/rule.h"

namespace msa {

class AnalysisState {
 public:
  // `model` should already carry inferred shapes (inferShapes). Profiles are copied.
  static std::unique_ptr<AnalysisState> create(const Model& model, const DeviceProfile& device,
                                               const AnalysisInputs& inputs, Goal goal, Scenario scenario);
  // The same without a copy of the model, which must outlive the state (analyze() keeps one
  // graph in memory, not two).
  static std::unique_ptr<AnalysisState> borrow(const Model& model, const DeviceProfile& device,
                                               const AnalysisInputs& inputs, Goal goal, Scenario scenario);

  const AnalysisContext& context() const { return m_ctx; }
  const Model& model() const { return *m_modelRef; }
  const GraphCost& cost() const { return m_cost; }
  // On an Ascend device, the roofline of the kernels ATC compiles (graph-engine fusions applied);
  // elsewhere the graph as written.
  const RooflineEstimate& roofline() const { return m_roofline; }
  const GeFusion& geFusion() const { return m_geFusion; }
  const DeviceProfile& device() const { return m_device; }
  // Rules report progress and check for cancel through the context.
  void setProgress(const Progress* progress) { m_ctx.progress = progress; }

 private:
  AnalysisState() = default;
  static std::unique_ptr<AnalysisState> build(std::unique_ptr<AnalysisState> s, const DeviceProfile& device,
                                              const AnalysisInputs& inputs, Goal goal, Scenario scenario);
  Model m_model;  // a copy, unless borrowed
  const Model* m_modelRef = &m_model;
  DeviceProfile m_device;
  std::unique_ptr<GraphIndex> m_index;
  GraphCost m_cost;
  RooflineEstimate m_roofline;
  GeFusion m_geFusion;
  std::optional<ProfileData> m_profile, m_runtimeProfile;
  AnalysisContext m_ctx;
};

}  // namespace msa
