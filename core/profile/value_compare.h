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
};

struct Comparison {
  bool equal = true;
  double maxAbsError = 0;  // over finite elements
  double maxRelError = 0;  // |a - e| / |e| over finite elements with e != 0
  size_t mismatches = 0;
  std::string firstMismatch;  // "sequence[1] element 42: 0.5 vs 0.25", "shape [2,3] vs [3,2]"
};

Comparison compareValues(const DataValue& actual, const DataValue& expected, const Tolerance& tol = {});

}  // namespace msa
