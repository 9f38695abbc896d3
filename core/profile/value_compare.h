#pragma once
// Comparing runtime outputs with references (the backend suite, the optimizer's verification):
// |actual - expected| <= atol + rtol * |expected| per element, as ONNX's backend tests do;
// NaN matches NaN, infinities must match exactly; integers, bools and strings must be equal.
// With Tolerance::bothExceeded (Polygraphy's semantics, the optimizer's verification) an element
// fails only where |actual - expected| > atol and |actual - expected| / |expected| > rtol.
#include <string>

#include "model/data_value.h"

namespace msa {

struct Tolerance {
  double rtol = 1e-3;
  double atol = 1e-7;
  bool bothExceeded = false;
  // Also relative to the output's magnitude: a float tensor fails when max |a - e| exceeds this
  // share of max |e| (0: not checked). Element tolerances alone pass anything far below atol: an
  // untrained MobileNetV3's outputs are at most 9.5e-10, and any rewrite matched them at 1e-5.
  double relToMagnitude = 0;
  // atol is relative to the tensor's scale: atol × max(1, largest |expected|). The rounding of a
  // rewritten float32 sum grows with the magnitude of its terms, not of its result, so elements
  // that cancel to near zero carry absolute errors of the order of eps × the tensor's scale
  // (docs/optimizer.md, "Verification").
  bool scaleAtol = false;
};

struct Comparison {
  bool equal = true;
  double maxAbsError = 0;  // over finite elements
  double maxRelError = 0;  // |a - e| / |e| over finite elements with e != 0
  // Float tensors, over finite elements: the largest |e|, max |a - e| / max |e| (infinite when
  // e is all zero and a is not), the cosine of the angle between a and e (1 when both are zero;
  // NaN when only one is), and for classifier-like outputs ([batch, classes], classes ≥ 2) the
  // share of rows whose top-1 class agrees (-1: not classifier-like).
  double maxAbsExpected = 0;
  double maxErrorToMagnitude = 0;
  double cosine = 1;
  double top1Agreement = -1;
  // Why the expected values cannot tell a right result from a wrong one ("" when they can):
  // "all_zero", "tiny" (every |e| within atol: the absolute tolerance alone passes anything),
  // "constant" (every element the same), "not_finite" (NaN or infinity in them).
  std::string degenerate;
  // The worst element's error as a share of what its tolerance allows: at most 1 within
  // tolerance (with bothExceeded, the smaller of |a - e| / atol and |a - e| / (rtol·|e|)).
  double worstToleranceRatio = 0;
  size_t mismatches = 0;
  std::string firstMismatch;  // "sequence[1] element 42: 0.5 vs 0.25", "shape [2,3] vs [3,2]"
};

Comparison compareValues(const DataValue& actual, const DataValue& expected, const Tolerance& tol = {});

}  // namespace msa
