#pragma once
// The training rule family: findings about a training trace (not an ONNX graph). Rule ids and
// texts are in resources/rules/training.json; docs/rules.md describes each rule, its threshold
// and how its impact is computed. Every impact is per step (the median step).
#include <map>
#include <string>
#include <vector>

#include "rules/finding.h"
#include "profile/trace_analysis.h"

namespace msa {
struct CommRecord;
}

namespace msa::training {

struct RuleThresholds {
  double dataLoadingShare = 0.01;  // report data-loading stalls from 1 % of the step (the P1 line)
  // msprof-analyze's fusible-operator checker calls a run host-bound when gaps exceed 40 %.
  double hostIdleShare = 0.40;
  // Launch-bound: most work items are short and they (with the gaps before them) cost ≥ 10 %.
  double shortItemsShare = 0.50;
  double shortTimeShare = 0.10;
  // msprof-analyze's AI CPU checker: AI_CPU tasks longer than 20 µs.
  double aicpuMinUs = 20;
  double ampMinShare = 0.01;       // fp32 matmul/conv time worth reporting
  double ampSpeedup = 2.0;         // bf16/fp16 vs fp32 on the matrix units (see docs/rules.md)
  int maxFusionCandidates = 10;
  // Collective communication the step waits for (not overlapped by compute), and H2D/D2H
  // copies likewise: reported from 1 % of the step (the P1 line).
  double commExposedShare = 0.01;
  double copyExposedShare = 0.01;
  // Gradient checkpointing: a module is a candidate when checkpointing it frees at least this
  // share of the step's saved activations (and 1 MiB), and that share is at least
  // `checkpointMinRatio` times the share of the step its forward pass (the recompute) takes.
  double checkpointMinShare = 0.10;
  double checkpointMinBytes = 1 << 20;
  double checkpointMinRatio = 2.0;
  int maxCheckpointCandidates = 5;
  // Checkpointing trades time for memory, so it is proposed only when memory is short: the
  // step's peak (at least its saved activations) reaches `memoryNearShare` of the limit — the
  // user's stated budget, else the device's capacity. No limit known: no candidate.
  double memoryLimitBytes = 0;
  bool memoryLimitIsBudget = false;  // the user's budget (else the device's capacity)
  std::string memoryDevice;          // what the capacity is of ("cuda:0", "cpu"), for the text
  double memoryPeakBytes = 0;        // 0: unknown
  double memoryNearShare = 0.9;
  // A per-parameter optimizer loop: at least this many work items per step inside
  // Optimizer.step#…, spanning at least this share of the step.
  double fusedOptimizerMinItems = 16;
  double fusedOptimizerMinShare = 0.01;
};

// The per-step budgets findings claim from (advisor/ranking.h).
std::map<std::string, double> trainingBudgets(const TrainingTrace& trace, const TrainingProfile& profile);

// `comm`: the rank's communication record (profile/communication.h), when torch_npu wrote one:
// communication is then told apart by what it is for (training_communication.cpp).
std::vector<Finding> runTrainingRules(const TrainingTrace& trace, const TrainingProfile& profile,
                                      const RuleThresholds& thresholds = {}, const CommRecord* comm = nullptr);

// training.fused_operator and training.host_sync (training_fusion.cpp); runTrainingRules calls it.
void fusionAndSyncRules(const TrainingTrace& trace, const TrainingProfile& profile, const RuleThresholds& thresholds,
                        std::vector<Finding>& out);

// The catalogue's fused operators (resources/training/fused_operators.json) whose kernel sequence
// occurs in `opTypes` (consecutive Ascend kernel types), for `device` ("npu", "cuda"): their names.
std::vector<std::string> fusedOperatorsIn(const std::vector<std::string>& opTypes, const std::string& device);

// Matrix-multiply and convolution operators (aten names and Ascend op types) AMP runs in bf16/fp16.
bool isMatmulOrConv(std::string_view name);

}  // namespace msa::training
