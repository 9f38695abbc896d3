#pragma once
// Small graphs for the cost tests: inputs, zero-filled weights and nodes from short strings,
// costed with or without the real ONNX shape inference.
#include <QtTest>

#include "cost/cost_context.h"
#include "cost/op_cost.h"
#include "model/shape_inference.h"

namespace msa::test {

inline constexpr double T = cost::kTranscendental;

inline std::vector<int64_t> ints(const QString& s) {
  std::vector<int64_t> v;
  for (const QString& part : s.split(u',', Qt::SkipEmptyParts)) v.push_back(part.trimmed().toLongLong());
  return v;
}

inline Shape shapeOf(const QString& s) {
  Shape sh;
  for (const QString& part : s.split(u',', Qt::SkipEmptyParts)) {
    bool ok = false;
    const qlonglong v = part.toLongLong(&ok);
    sh.dims.push_back(ok ? Dim{v, {}} : Dim{-1, part.toStdString()});
  }
  return sh;
}

// "strides=2,2;pads=1,1,1,1;auto_pad=SAME_UPPER;alpha=0.5" -> attributes.
inline std::vector<Attribute> attrs(const QString& spec) {
  static const QStringList intKeys = {"group", "transA", "transB", "keepdims", "axis", "ceil_mode", "hidden_size",
                                      "layout", "noop_with_empty_axes", "p", "to", "num_groups", "size"};
  static const QStringList floatKeys = {"alpha", "beta", "epsilon"};
  std::vector<Attribute> out;
  for (const QString& kv : spec.split(u';', Qt::SkipEmptyParts)) {
    const QString key = kv.section(u'=', 0, 0), value = kv.section(u'=', 1);
    const std::string k = key.toStdString();
    if (intKeys.contains(key)) out.push_back(Attribute::makeInt(k, value.toLongLong()));
    else if (floatKeys.contains(key)) out.push_back(Attribute::makeFloat(k, value.toFloat()));
    else if (value.contains(QRegularExpression(QStringLiteral("[A-Za-z>]")))) out.push_back(Attribute::makeString(k, value.toStdString()));
    else out.push_back(Attribute::makeInts(k, ints(value)));
  }
  return out;
}

// A model under construction: inputs, zero-filled weights, nodes; costed with or without shape
// inference.
struct TestGraph {
  Model model;
  explicit TestGraph(int opset = 17) { model.opsets.push_back({"", opset}); }

  TestGraph& input(const std::string& name, const QString& dims, DType t = DType::Float) {
    model.graph.inputs.push_back({name, TypeInfo::tensor(t, shapeOf(dims)), {}, {}});
    return *this;
  }
  TestGraph& weight(const std::string& name, const QString& dims, DType t = DType::Float) {
    auto d = ints(dims);
    int64_t n = 1;
    for (int64_t x : d) n *= x;
    if (t == DType::Float) model.graph.initializers.push_back(Tensor::fromValues(name, t, d, std::vector<float>(size_t(n), 0.5f)));
    else model.graph.initializers.push_back(Tensor::fromValues(name, t, d, std::vector<int64_t>(size_t(n), 1)));
    return *this;
  }
  TestGraph& constInts(const std::string& name, const std::vector<int64_t>& v) {
    model.graph.initializers.push_back(Tensor::fromValues(name, DType::Int64, {int64_t(v.size())}, v));
    return *this;
  }
  TestGraph& constScalar(const std::string& name, float v) {
    model.graph.initializers.push_back(Tensor::fromValues(name, DType::Float, {}, std::vector<float>{v}));
    return *this;
  }
  TestGraph& node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out,
                  const QString& attributes = {}, const std::string& domain = {}) {
    Node n;
    n.opType = op;
    n.domain = domain;
    n.inputs = std::move(in);
    n.outputs = std::move(out);
    n.attributes = attrs(attributes);
    model.graph.addNode(std::move(n));
    return *this;
  }
  TestGraph& output(const std::string& name) {
    model.graph.outputs.push_back({name, {}, {}, {}});
    return *this;
  }
  GraphCost cost(bool infer = true) {
    if (infer) {
      auto r = inferShapes(model);
      if (!r) qWarning("%s", r.error().describe().c_str());
      else for (const auto& w : r->warnings) qWarning("shape inference: %s", w.c_str());
    }
    return computeCosts(model.graph);
  }
};

// Conv as a one-node graph: X, W (and B when `bias`).
inline TestGraph convGraph(const std::string& op, const QString& x, const QString& w, const QString& attributes, bool bias,
                    int64_t biasLen) {
  TestGraph g;
  g.input("x", x).weight("w", w);
  std::vector<std::string> in = {"x", "w"};
  if (bias) {
    g.weight("b", QString::number(biasLen));
    in.push_back("b");
  }
  g.node(op, in, {"y"}, attributes).output("y");
  return g;
}


}  // namespace msa::test
