#pragma once
// Small models for the pass tests, built on the IR with seeded random weights (a wrong rewrite
// cannot hide behind constant weights), and the checks every rewrite must pass: a well-formed
// graph, ONNX's checker, and the same outputs from ONNX Runtime on the same seeded inputs.
#include <QtTest>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "model/shape_inference.h"
#include "optimize/pass.h"
#include "pass_check.h"

namespace msa::test {

class PassFixture {
 public:
  explicit PassFixture(int64_t opset = 17, uint64_t seed = 42) : m_seed(seed) {
    m_model.irVersion = opset >= 15 ? 8 : 7;
    m_model.opsets.push_back({"", opset});
    m_model.graph.name = "fixture";
    m_model.metadata.push_back({"fixture", "pass tests"});
  }

  std::string input(const std::string& name, std::vector<int64_t> dims, DType t = DType::Float,
                    std::vector<std::string> params = {}) {
    Shape s;
    for (size_t k = 0; k < dims.size(); ++k)
      s.dims.push_back(dims[k] >= 0 ? Dim{dims[k], {}} : Dim{-1, k < params.size() ? params[k] : "d" + std::to_string(k)});
    m_model.graph.inputs.push_back({name, TypeInfo::tensor(t, s), {}, {}});
    return name;
  }
  // Seeded values uniform in [lo, hi).
  std::string weight(const std::string& name, std::vector<int64_t> dims, double lo = -1, double hi = 1,
                     DType t = DType::Float) {
    size_t n = 1;
    for (int64_t d : dims) n *= static_cast<size_t>(d);
    std::vector<double> v(n);
    for (double& x : v) x = lo + (hi - lo) * uniform();
    m_model.graph.initializers.push_back(Tensor::fromDoubles(name, t, std::move(dims), v));
    return name;
  }
  std::string values(const std::string& name, std::vector<int64_t> dims, const std::vector<float>& v) {
    m_model.graph.initializers.push_back(Tensor::fromValues(name, DType::Float, std::move(dims), v));
    return name;
  }
  std::string ints(const std::string& name, const std::vector<int64_t>& v, bool scalar = false) {
    std::vector<int64_t> dims = scalar ? std::vector<int64_t>{} : std::vector<int64_t>{int64_t(v.size())};
    m_model.graph.initializers.push_back(Tensor::fromValues(name, DType::Int64, dims, v));
    return name;
  }
  std::string scalar(const std::string& name, float v) {
    m_model.graph.initializers.push_back(Tensor::fromValues(name, DType::Float, {}, std::vector<float>{v}));
    return name;
  }

  // A node named "/blk/<op>_<k>" with outputs "<op>_<k>" (or "<op>_<k>_<j>" for several).
  std::vector<std::string> nodeN(const std::string& op, std::vector<std::string> inputs, size_t outputs,
                                 std::vector<Attribute> attrs = {}, const std::string& domain = {}) {
    Node n;
    n.opType = op;
    n.domain = domain;
    n.name = "/blk/" + op + "_" + std::to_string(m_count);
    n.inputs = std::move(inputs);
    for (size_t j = 0; j < outputs; ++j)
      n.outputs.push_back(op + "_" + std::to_string(m_count) + (outputs > 1 ? "_" + std::to_string(j) : ""));
    n.attributes = std::move(attrs);
    ++m_count;
    auto out = n.outputs;
    m_model.graph.addNode(std::move(n));
    return out;
  }
  std::string node(const std::string& op, std::vector<std::string> inputs, std::vector<Attribute> attrs = {},
                   const std::string& domain = {}) {
    return nodeN(op, std::move(inputs), 1, std::move(attrs), domain)[0];
  }
  void output(const std::string& value) { m_model.graph.outputs.push_back({value, {}, {}, {}}); }
  const std::string& lastNodeName() const { return m_model.graph.nodes.back().name; }
  Model& model() { return m_model; }
  // Values for the symbolic dims of the inputs (3 each), for running the model.
  InputOptions inputOptions() const {
    InputOptions o;
    for (const auto& v : m_model.graph.inputs)
      if (v.type.shape)
        for (const Dim& d : v.type.shape->dims)
          if (!d.known() && !d.param.empty()) o.dims[d.param] = 3;
    return o;
  }

  // The model with shapes inferred (as the optimizer sees it).
  Model build() const {
    Model m = m_model;
    auto r = inferShapes(m);
    if (!r) qWarning("%s", r.error().describe().c_str());
    return m;
  }

 private:
  double uniform() {  // splitmix64
    uint64_t z = (m_seed += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) / 9007199254740992.0;
  }

  Model m_model;
  uint64_t m_seed;
  int m_count = 0;
};

inline Attribute ia(const char* n, int64_t v) { return Attribute::makeInt(n, v); }
inline Attribute fa(const char* n, float v) { return Attribute::makeFloat(n, v); }
inline Attribute iv(const char* n, std::vector<int64_t> v) { return Attribute::makeInts(n, std::move(v)); }
inline Attribute sa(const char* n, const char* v) { return Attribute::makeString(n, v); }

inline Tolerance toleranceOf(const Pass& p) {
  return p.info().level == OptLevel::Conservative ? Tolerance{1e-5, 1e-6} : Tolerance{1e-4, 1e-5};
}

struct PassRun {
  Model model;
  std::vector<Rewrite> rewrites;
  std::string failure;  // empty: well formed, checked, same outputs
  double maxAbs = 0;
};

// Runs pass `id` on a copy of `m` and checks the result. `runtime` false skips ORT (for graphs
// the CPU runtime cannot run, e.g. contrib ops it lacks); the checker is skipped above opset 17.
inline PassRun runPass(const Model& m, const char* id, const PassContext& ctx = {}, bool runtime = true,
                       const InputOptions& inputs = {}) {
  PassRun r;
  const Pass* pass = findPass(id);
  if (!pass) {
    r.failure = std::string("no pass ") + id;
    return r;
  }
  r.model = m;
  r.rewrites = pass->run(r.model, ctx);
  if (auto p = graphProblem(r.model); !p.empty()) {
    r.failure = "graph: " + p;
    return r;
  }
  if (r.model.opset() <= 17 && onnxCheck(m).ok())  // the checker judges what it accepted before
    if (auto s = onnxCheck(r.model); !s) {
      r.failure = s.error().describe();
      return r;
    }
  if (runtime) {
    auto c = compareModels(m, r.model, toleranceOf(*pass), inputs);
    if (!c) r.failure = "runtime: " + c.error().describe();
    else if (!c->equal) r.failure = "outputs differ: " + c->message;
    else r.maxAbs = c->maxAbsError;
  }
  return r;
}

inline PassContext anchoredAt(std::initializer_list<std::string> names) {
  PassContext c;
  for (const auto& n : names) c.anchors.insert(n);
  return c;
}

}  // namespace msa::test

#define MSA_VERIFY_RUN(r) QVERIFY2((r).failure.empty(), (r).failure.c_str())
