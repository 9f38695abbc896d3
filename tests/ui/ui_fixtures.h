#pragma once
// Small IR graphs with known structure for the UI tests.
#include <QSignalSpy>
#include <QTest>
#include <string>
#include <vector>

#include "model/graph.h"

namespace msa::test {

// in -> /a/MatMul -> /a/Add -> /a/Relu -> /b/Conv -> /b/Relu -> /b/Add(+ /a/Relu) -> /head/Softmax -> out
// plus a Constant feeding /a/Add (not drawn). Blocks: /a (3 nodes), /b (3 nodes); /head has one
// node and dissolves into the top level.
inline Model fixtureModel() {
  Model m;
  m.setOpset("", 17);
  Graph& g = m.graph;
  g.inputs.push_back({"x", TypeInfo::tensor(DType::Float, Shape{1, 8, 16, 16}), {}, {}});
  auto add = [&](const std::string& name, const std::string& op, std::vector<std::string> in, const std::string& out,
                 Shape s) {
    Node n;
    n.name = name;
    n.opType = op;
    n.inputs = std::move(in);
    n.outputs = {out};
    g.addNode(std::move(n));
    if (!s.dims.empty()) g.valueInfo.push_back({out, TypeInfo::tensor(DType::Float, s), {}, {}});
  };
  Tensor w;
  w.name = "w";
  w.dtype = DType::Float;
  w.dims = {16, 16};
  g.initializers.push_back(w);
  add("/a/Constant", "Constant", {}, "c", Shape{1});
  add("/a/MatMul", "MatMul", {"x", "w"}, "t1", Shape{1, 8, 16, 16});
  add("/a/Add", "Add", {"t1", "c"}, "t2", Shape{1, 8, 16, 16});
  add("/a/Relu", "Relu", {"t2"}, "t3", Shape{1, 8, 16, 16});
  add("/b/Conv", "Conv", {"t3", "w"}, "t4", Shape{1, 8, 16, 16});
  add("/b/Relu", "Relu", {"t4"}, "t5", Shape{1, 8, 16, 16});
  add("/b/Add", "Add", {"t5", "t3"}, "t6", Shape{1, 8, 16, 16});
  add("/head/Softmax", "Softmax", {"t6"}, "y", Shape{1, 8, 16, 16});
  g.outputs.push_back({"y", TypeInfo::tensor(DType::Float, Shape{1, 8, 16, 16}), {}, {}});
  return m;
}

}  // namespace msa::test
