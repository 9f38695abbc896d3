#include "profile/value_compare.h"

#include <algorithm>
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

double maxAbsFinite(const std::vector<double>& v) {
  double m = 0;
  for (double x : v)
    if (std::isfinite(x)) m = std::max(m, std::fabs(x));
  return m;
}

// Cosine, top-1 agreement and whether the expected values can tell anything apart, for one float
// tensor (docs/optimizer.md, "Verification"); folded into `c` over the tensors of a value.
void magnitudes(const std::vector<double>& av, const std::vector<double>& ev, const Tolerance& tol,
                const std::vector<int64_t>& dims, Comparison& c) {
  double dot = 0, na = 0, ne = 0, lo = HUGE_VAL, hi = -HUGE_VAL;
  bool finite = true;
  for (size_t i = 0; i < av.size(); ++i) {
    const double x = av[i], y = ev[i];
    if (!std::isfinite(y)) finite = false;
    if (!std::isfinite(x) || !std::isfinite(y)) continue;
    dot += x * y;
    na += x * x;
    ne += y * y;
    lo = std::min(lo, y);
    hi = std::max(hi, y);
  }
  const double cosine = na == 0 && ne == 0 ? 1.0 : na == 0 || ne == 0 ? std::nan("") : dot / std::sqrt(na * ne);
  c.cosine = std::isnan(cosine) || std::isnan(c.cosine) ? std::nan("") : std::min(c.cosine, cosine);
  const double maxExpected = maxAbsFinite(ev);
  c.maxAbsExpected = std::max(c.maxAbsExpected, maxExpected);
  if (c.degenerate.empty()) {
    if (!finite) c.degenerate = "not_finite";
    else if (ev.empty()) c.degenerate = "";
    else if (maxExpected == 0) c.degenerate = "all_zero";
    else if (ev.size() > 1 && hi == lo) c.degenerate = "constant";
    else if (maxExpected <= tol.atol) c.degenerate = "tiny";
  }
  // [batch, classes]: the share of rows whose largest element is the same class.
  if (dims.size() == 2 && dims[1] >= 2 && dims[0] >= 1 && static_cast<size_t>(dims[0] * dims[1]) == av.size()) {
    const auto rows = static_cast<size_t>(dims[0]), classes = static_cast<size_t>(dims[1]);
    size_t same = 0;
    for (size_t r = 0; r < rows; ++r) {
      const auto first = static_cast<std::ptrdiff_t>(r * classes), last = first + static_cast<std::ptrdiff_t>(classes);
      same += std::max_element(av.begin() + first, av.begin() + last) - av.begin() ==
              std::max_element(ev.begin() + first, ev.begin() + last) - ev.begin();
    }
    const double agreement = static_cast<double>(same) / static_cast<double>(rows);
    c.top1Agreement = c.top1Agreement < 0 ? agreement : std::min(c.top1Agreement, agreement);
  }
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
  const double before = c.maxAbsError;
  c.maxAbsError = 0;  // this tensor's, for the magnitude check below
  magnitudes(av, ev, tol, a.dims, c);
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
  // Relative to the output's magnitude: far below atol, elements pass one by one whatever they hold.
  const double maxExpected = maxAbsFinite(ev);
  const double toMagnitude = maxExpected > 0 ? c.maxAbsError / maxExpected : c.maxAbsError > 0 ? HUGE_VAL : 0.0;
  c.maxErrorToMagnitude = std::max(c.maxErrorToMagnitude, toMagnitude);
  if (tol.relToMagnitude > 0) c.worstToleranceRatio = std::max(c.worstToleranceRatio, toMagnitude / tol.relToMagnitude);
  if (tol.relToMagnitude > 0 && toMagnitude > tol.relToMagnitude)
    mismatch(c, where + "max |difference| " + num(c.maxAbsError) + " is " + num(toMagnitude) + " of the largest |expected| " +
                    num(maxExpected));
  c.maxAbsError = std::max(before, c.maxAbsError);
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
