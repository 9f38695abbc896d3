#pragma once
// How far a variant's outputs are from the original's on the same inputs, and whether that is
// within the user's bound (docs/whatif.md, "The accuracy bound"). Every output is compared as a
// whole tensor per sample: cosine similarity, the largest |Δ| relative to the reference's range,
// and by what the output looks like — top-1/top-5 agreement for classifier-like outputs
// ([batch, classes]), the largest box and score change for detection-like ones ([batch, boxes,
// 4 + 1 + classes] with objectness in [0, 1], as YOLO heads write them).
#include <string>
#include <string_view>
#include <vector>

#include "model/data_value.h"
#include "util/error.h"

namespace msa {

// A variant is within the bound when every output's cosine is at least `cosine`, the top-1
// agreement over every classifier-like row is at least `top1`, and (when set) every output's
// max |Δ| / range is at most `maxRelToRange`.
struct AccuracyBound {
  double cosine = 0.999;
  double top1 = 0.99;
  double maxRelToRange = -1;  // < 0: not part of the bound
};

// "cosine=0.999,top1=0.99,max_rel=0.05" (any subset, any order); a usage error names the term.
Result<AccuracyBound> parseBound(std::string_view text);
std::string boundText(const AccuracyBound& b);  // the same form, for reports

enum class OutputKind { Tensor, Classifier, Detection };
std::string_view outputKindName(OutputKind k);  // "tensor", "classifier", "detection"

struct OutputAccuracy {
  std::string name;
  OutputKind kind = OutputKind::Tensor;
  double cosine = 1;          // the smallest over samples
  double maxRelToRange = 0;   // max |Δ| / (max - min of the reference), the largest over samples
  double maxAbs = 0;
  double top1 = -1, top5 = -1;  // classifier-like: share of rows (samples × batch) that agree; -1 otherwise
  int rows = 0;
  // Detection-like: the largest change of a box coordinate and of a score (objectness or class)
  // over the boxes the reference is confident about (objectness ≥ 0.25, else its 100 best).
  double boxMaxDelta = -1, scoreMaxDelta = -1;
  bool finite = true;  // the candidate has no NaN or infinity where the reference is finite
};

struct Accuracy {
  std::vector<OutputAccuracy> outputs;
  int samples = 0;
  // Over every output: the smallest cosine, the largest max |Δ| / range, the classifier rows'
  // agreement (-1 when no output is classifier-like), the largest box / score change (-1: none).
  double cosine = 1, maxRelToRange = 0, top1 = -1, top5 = -1, boxMaxDelta = -1, scoreMaxDelta = -1;
  bool finite = true;
};

// `reference[s]` and `candidate[s]` are the outputs of sample s, aligned by position (the same
// output names in the same order). Non-float outputs (indices, masks) count as equal or not.
Result<Accuracy> compareOutputs(const std::vector<std::vector<DataValue>>& reference,
                                const std::vector<std::vector<DataValue>>& candidate);

struct Verdict {
  bool within = false;
  // The first term that failed ("cosine", "top1", "max_rel", "not_finite"; empty when within),
  // with the measured value and the bound's limit: rendered at the edges (whatif.bound_failed.*).
  std::string failedTerm;
  double value = 0, limit = 0;
};
Verdict judge(const Accuracy& a, const AccuracyBound& bound);

}  // namespace msa
