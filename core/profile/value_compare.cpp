#include "profile/value_compare.h"

#include <cmath>
#include <cstring>
#include <sstream>

namespace msa {
namespace {

std::string num(double v) {
  std::ostringstream s;
  s.precision(9);
  s << v;
  return s.str();
}

void mismatch(Comparison& c, const std::string& what) {
  if (c.equal) c.firstMismatch = what;
  c.equal = false;
  ++c.mismatches;
}

// Element values as doubles for every numeric type (complex: real and imaginary interleaved).
std::vector<double> asDoubles(const Tensor& t) {
  if (t.dtype == DType::Complex64 || t.dtype == DType::Complex128) {
    std::vector<double> out;
    std::string_view b = t.raw();
    const size_t w = t.dtype == DType::Complex64 ? 4 : 8;
    for (size_t i = 0; i + w <= b.size(); i += w) {
      if (w == 4) {
        float f;
        std::memcpy(&f, b.data() + i, 4);
        out.push_back(f);
      } else {
        double d;
        std::memcpy(&d, b.data() + i, 8);
        out.push_back(d);
      }
    }
    return out;
  }
  return t.toDouble();
}

void compareTensors(const Tensor& a, const Tensor& e, const Tolerance& tol, const std::string& where, Comparison& c) {
  if (a.dtype != e.dtype) {
    mismatch(c, where + "dtype " + std::string(dtypeName(a.dtype)) + " vs " + std::string(dtypeName(e.dtype)));
    return;
  }
  if (a.dims != e.dims) {
    mismatch(c, where + "shape " + Shape::of(a.dims).str() + " vs " + Shape::of(e.dims).str());
    return;
  }
  if (a.dtype == DType::String) {
    for (size_t i = 0; i < std::min(a.strings.size(), e.strings.size()); ++i)
      if (a.strings[i] != e.strings[i]) mismatch(c, where + "element " + std::to_string(i) + ": '" + a.strings[i] + "' vs '" + e.strings[i] + "'");
    if (a.strings.size() != e.strings.size()) mismatch(c, where + "string count differs");
    return;
  }
  if (isInteger(a.dtype) || a.dtype == DType::Bool) {
    if (a.raw() != e.raw()) {
      auto av = a.toInt64(), ev = e.toInt64();
      for (size_t i = 0; i < std::min(av.size(), ev.size()); ++i)
        if (av[i] != ev[i]) mismatch(c, where + "element " + std::to_string(i) + ": " + std::to_string(av[i]) + " vs " + std::to_string(ev[i]));
      if (av.size() != ev.size() || (av.empty() && a.raw() != e.raw())) mismatch(c, where + "bytes differ");
    }
    return;
  }
  auto av = asDoubles(a), ev = asDoubles(e);
  if (av.size() != ev.size()) {
    mismatch(c, where + "element count " + std::to_string(av.size()) + " vs " + std::to_string(ev.size()));
    return;
  }
  double atol = tol.atol;
  if (tol.scaleAtol) {
    double scale = 1;
    for (double y : ev)
      if (std::isfinite(y)) scale = std::max(scale, std::fabs(y));
    atol *= scale;
  }
  // d / limit, where a zero limit allows nothing.
  auto ratio = [](double d, double limit) { return limit > 0 ? d / limit : (d > 0 ? HUGE_VAL : 0.0); };
  for (size_t i = 0; i < av.size(); ++i) {
    const double x = av[i], y = ev[i];
    if (std::isnan(x) || std::isnan(y)) {
      if (std::isnan(x) != std::isnan(y)) mismatch(c, where + "element " + std::to_string(i) + ": " + num(x) + " vs " + num(y));
      continue;
    }
    if (std::isinf(x) || std::isinf(y)) {
      if (x != y) mismatch(c, where + "element " + std::to_string(i) + ": " + num(x) + " vs " + num(y));
      continue;
    }
    const double d = std::fabs(x - y);
    c.maxAbsError = std::max(c.maxAbsError, d);
    if (y != 0) c.maxRelError = std::max(c.maxRelError, d / std::fabs(y));
    const double share = tol.bothExceeded ? std::min(ratio(d, atol), ratio(d, tol.rtol * std::fabs(y)))
                                          : ratio(d, atol + tol.rtol * std::fabs(y));
    c.worstToleranceRatio = std::max(c.worstToleranceRatio, share);
    const bool beyond = tol.bothExceeded ? d > atol && d > tol.rtol * std::fabs(y) : d > atol + tol.rtol * std::fabs(y);
    if (beyond)
      mismatch(c, where + "element " + std::to_string(i) + ": " + num(x) + " vs " + num(y));
  }
}

void compare(const DataValue& a, const DataValue& e, const Tolerance& tol, const std::string& where, Comparison& c) {
  if (a.kind != e.kind) {
    mismatch(c, where + "kind " + a.describe() + " vs " + e.describe());
    return;
  }
  switch (a.kind) {
    case DataValue::Kind::Tensor: compareTensors(a.tensor, e.tensor, tol, where, c); return;
    case DataValue::Kind::Optional:
    case DataValue::Kind::Sequence:
      if (a.elements.size() != e.elements.size()) {
        mismatch(c, where + a.describe() + " vs " + e.describe());
        return;
      }
      for (size_t i = 0; i < a.elements.size(); ++i)
        compare(a.elements[i], e.elements[i], tol, where + (a.kind == DataValue::Kind::Sequence ? "[" + std::to_string(i) + "] " : "value "), c);
      return;
  }
}

}  // namespace

Comparison compareValues(const DataValue& actual, const DataValue& expected, const Tolerance& tol) {
  Comparison c;
  compare(actual, expected, tol, "", c);
  return c;
}

}  // namespace msa
