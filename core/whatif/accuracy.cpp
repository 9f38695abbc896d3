#include "whatif/accuracy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <sstream>

namespace msa {
namespace {

// Float outputs as doubles; empty for other element types.
std::vector<double> floats(const DataValue& v) {
  if (v.kind != DataValue::Kind::Tensor || !isFloating(v.tensor.dtype)) return {};
  return v.tensor.toDouble();
}

bool allFinite(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

// [batch, classes] with at least two classes (a [batch, classes, 1, 1] head counts too).
bool classifierLike(const std::vector<int64_t>& dims) {
  if (dims.size() == 2) return dims[1] >= 2;
  if (dims.size() == 4) return dims[1] >= 2 && dims[2] == 1 && dims[3] == 1;
  return false;
}

// [batch, boxes, 4 + 1 + classes]: more boxes than columns, and every objectness in [0, 1].
bool detectionLike(const std::vector<int64_t>& dims, const std::vector<double>& ref) {
  if (dims.size() != 3 || dims[2] < 6 || dims[2] > 1024 || dims[1] <= dims[2]) return false;
  const size_t cols = static_cast<size_t>(dims[2]);
  for (size_t i = 4; i < ref.size(); i += cols)
    if (!(ref[i] >= 0 && ref[i] <= 1)) return false;
  return true;
}

// Indices of the k largest values of row [begin, begin + n).
std::vector<size_t> topK(const std::vector<double>& v, size_t begin, size_t n, size_t k) {
  std::vector<size_t> idx(n);
  std::iota(idx.begin(), idx.end(), size_t{0});
  k = std::min(k, n);
  std::partial_sort(idx.begin(), idx.begin() + static_cast<long>(k), idx.end(),
                    [&](size_t a, size_t b) { return v[begin + a] > v[begin + b]; });
  idx.resize(k);
  return idx;
}

void compareDetection(const std::vector<double>& ref, const std::vector<double>& got, size_t cols, OutputAccuracy& o) {
  const size_t rows = ref.size() / cols;
  std::vector<size_t> confident;
  for (size_t r = 0; r < rows; ++r)
    if (ref[r * cols + 4] >= 0.25) confident.push_back(r);
  if (confident.empty()) {  // random inputs: the boxes the reference is most sure of
    std::vector<double> objectness(rows);
    for (size_t r = 0; r < rows; ++r) objectness[r] = ref[r * cols + 4];
    confident = topK(objectness, 0, rows, 100);
  }
  double box = 0, score = 0;
  for (size_t r : confident) {
    for (size_t c = 0; c < 4; ++c) box = std::max(box, std::fabs(ref[r * cols + c] - got[r * cols + c]));
    for (size_t c = 4; c < cols; ++c) score = std::max(score, std::fabs(ref[r * cols + c] - got[r * cols + c]));
  }
  o.boxMaxDelta = std::max(o.boxMaxDelta, box);
  o.scoreMaxDelta = std::max(o.scoreMaxDelta, score);
}

}  // namespace

std::string_view outputKindName(OutputKind k) {
  switch (k) {
    case OutputKind::Classifier: return "classifier";
    case OutputKind::Detection: return "detection";
    case OutputKind::Tensor: break;
  }
  return "tensor";
}

Result<AccuracyBound> parseBound(std::string_view text) {
  AccuracyBound b;
  std::stringstream in{std::string(text)};
  for (std::string term; std::getline(in, term, ',');) {
    if (term.empty()) continue;
    const auto eq = term.find('=');
    if (eq == std::string::npos) return Error::usage("--bound: '" + term + "' is not NAME=VALUE (cosine, top1, max_rel)");
    const std::string name = term.substr(0, eq), value = term.substr(eq + 1);
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || !std::isfinite(v) || v < 0)
      return Error::usage("--bound: '" + value + "' is not a non-negative number (" + name + ")");
    if (name == "cosine") {
      if (v > 1) return Error::usage("--bound: cosine is at most 1");
      b.cosine = v;
    } else if (name == "top1") {
      if (v > 1) return Error::usage("--bound: top1 is a share, at most 1 (0.99 for 99 %)");
      b.top1 = v;
    } else if (name == "max_rel") {
      b.maxRelToRange = v;
    } else {
      return Error::usage("--bound: unknown term '" + name + "' (cosine, top1, max_rel)");
    }
  }
  return b;
}

std::string boundText(const AccuracyBound& b) {
  char buf[128];
  std::snprintf(buf, sizeof buf, "cosine=%g,top1=%g", b.cosine, b.top1);
  std::string s = buf;
  if (b.maxRelToRange >= 0) {
    std::snprintf(buf, sizeof buf, ",max_rel=%g", b.maxRelToRange);
    s += buf;
  }
  return s;
}

Result<Accuracy> compareOutputs(const std::vector<std::vector<DataValue>>& reference,
                                const std::vector<std::vector<DataValue>>& candidate) {
  if (reference.size() != candidate.size() || reference.empty())
    return Error::usage("accuracy: the candidate ran on " + std::to_string(candidate.size()) + " samples, the reference on " +
                        std::to_string(reference.size()));
  Accuracy a;
  a.samples = static_cast<int>(reference.size());
  const size_t nOut = reference.front().size();
  a.outputs.resize(nOut);
  std::vector<size_t> agree1(nOut, 0), agree5(nOut, 0);
  for (size_t s = 0; s < reference.size(); ++s) {
    if (reference[s].size() != nOut || candidate[s].size() != nOut)
      return Error::usage("accuracy: the candidate's outputs differ in number from the reference's");
    for (size_t k = 0; k < nOut; ++k) {
      const DataValue& rv = reference[s][k];
      const DataValue& cv = candidate[s][k];
      OutputAccuracy& o = a.outputs[k];
      o.name = rv.name;
      if (rv.kind != DataValue::Kind::Tensor || cv.kind != DataValue::Kind::Tensor) continue;  // sequences: not judged
      if (rv.tensor.dims != cv.tensor.dims)
        return Error::usage("accuracy: output '" + rv.name + "' has another shape in the variant");
      const std::vector<double> ref = floats(rv), got = floats(cv);
      if (ref.empty()) {  // integers, bools: equal or not
        if (rv.tensor.raw() != cv.tensor.raw()) o.cosine = 0;
        continue;
      }
      const bool refFinite = allFinite(ref);
      if (refFinite && !allFinite(got)) {
        o.finite = false;
        o.cosine = 0;
        continue;
      }
      double dot = 0, nr = 0, ng = 0, lo = ref.front(), hi = ref.front(), maxAbs = 0;
      for (size_t i = 0; i < ref.size(); ++i) {
        if (!std::isfinite(ref[i])) continue;
        dot += ref[i] * got[i];
        nr += ref[i] * ref[i];
        ng += got[i] * got[i];
        lo = std::min(lo, ref[i]);
        hi = std::max(hi, ref[i]);
        maxAbs = std::max(maxAbs, std::fabs(ref[i] - got[i]));
      }
      // Both all zero: the same; one of them: orthogonal to anything.
      const double cosine = nr == 0 && ng == 0 ? 1.0 : (nr == 0 || ng == 0 ? 0.0 : dot / std::sqrt(nr * ng));
      o.cosine = std::min(o.cosine, cosine);
      o.maxAbs = std::max(o.maxAbs, maxAbs);
      const double range = hi - lo;
      o.maxRelToRange = std::max(o.maxRelToRange, range > 0 ? maxAbs / range : (maxAbs > 0 ? INFINITY : 0.0));
      const auto& dims = rv.tensor.dims;
      if (classifierLike(dims) && dims[0] > 0) {
        o.kind = OutputKind::Classifier;
        const size_t rows = static_cast<size_t>(dims[0]), classes = ref.size() / rows;
        for (size_t r = 0; r < rows; ++r) {
          const size_t top = topK(ref, r * classes, classes, 1).front();
          const auto got5 = topK(got, r * classes, classes, 5);
          agree1[k] += got5.front() == top;
          agree5[k] += std::find(got5.begin(), got5.end(), top) != got5.end();
        }
        o.rows += static_cast<int>(rows);
      } else if (detectionLike(dims, ref)) {
        o.kind = OutputKind::Detection;
        compareDetection(ref, got, static_cast<size_t>(dims[2]), o);
      }
    }
  }
  size_t rows = 0, a1 = 0, a5 = 0;
  for (size_t k = 0; k < nOut; ++k) {
    OutputAccuracy& o = a.outputs[k];
    if (o.kind == OutputKind::Classifier && o.rows > 0) {
      o.top1 = static_cast<double>(agree1[k]) / o.rows;
      o.top5 = static_cast<double>(agree5[k]) / o.rows;
      rows += static_cast<size_t>(o.rows);
      a1 += agree1[k];
      a5 += agree5[k];
    }
    a.cosine = std::min(a.cosine, o.cosine);
    a.maxRelToRange = std::max(a.maxRelToRange, o.maxRelToRange);
    a.boxMaxDelta = std::max(a.boxMaxDelta, o.boxMaxDelta);
    a.scoreMaxDelta = std::max(a.scoreMaxDelta, o.scoreMaxDelta);
    a.finite = a.finite && o.finite;
  }
  if (rows > 0) {
    a.top1 = static_cast<double>(a1) / static_cast<double>(rows);
    a.top5 = static_cast<double>(a5) / static_cast<double>(rows);
  }
  return a;
}

Verdict judge(const Accuracy& a, const AccuracyBound& b) {
  Verdict v;
  if (!a.finite) {
    v.failedTerm = "not_finite";
    return v;
  }
  if (!(a.cosine >= b.cosine)) {
    v.failedTerm = "cosine";
    v.value = a.cosine;
    v.limit = b.cosine;
    return v;
  }
  if (a.top1 >= 0 && a.top1 < b.top1) {
    v.failedTerm = "top1";
    v.value = a.top1;
    v.limit = b.top1;
    return v;
  }
  if (b.maxRelToRange >= 0 && !(a.maxRelToRange <= b.maxRelToRange)) {
    v.failedTerm = "max_rel";
    v.value = a.maxRelToRange;
    v.limit = b.maxRelToRange;
    return v;
  }
  v.within = true;
  return v;
}

}  // namespace msa
