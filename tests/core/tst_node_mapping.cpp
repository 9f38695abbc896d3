// Runtime -> IR node mapping on hand-built graphs shaped like what ONNX Runtime dumps: an NCHWc
// Conv named after a tensor that absorbed BN, Add and Relu; an inserted reorder; a Gemm between
// two inserted Reshapes; nameless nodes of an inlined function; folded shape arithmetic.
#include <QtTest>

#include "profile/node_mapping.h"

using namespace msa;

namespace {

Node node(std::string name, std::string op, std::vector<std::string> in, std::vector<std::string> out,
          std::string domain = {}) {
  Node n;
  n.name = std::move(name);
  n.opType = std::move(op);
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  n.domain = std::move(domain);
  return n;
}

Tensor weight(const std::string& name) { return Tensor::fromValues(name, DType::Float, {1}, std::vector<float>{1}); }

// x -> conv -> bn -> add(+x) -> relu -> gap -> shape/gather chain -> reshape -> matmul -> bias add -> hardswish
Model original() {
  Model m;
  Graph& g = m.graph;
  g.inputs.push_back({"x", TypeInfo::tensor(DType::Float, Shape{1, 8, 4, 4}), {}, {}});
  for (const char* w : {"w", "scale", "bias", "mean", "var", "fcw", "fcb", "one"}) g.initializers.push_back(weight(w));
  g.nodes = {node("conv", "Conv", {"x", "w"}, {"c"}),
             node("bn", "BatchNormalization", {"c", "scale", "bias", "mean", "var"}, {"b"}),
             node("add", "Add", {"b", "x"}, {"a"}),
             node("relu", "Relu", {"a"}, {"r"}),
             node("gap", "GlobalAveragePool", {"r"}, {"p"}),
             node("shape", "Shape", {"p"}, {"s"}),
             node("take", "Gather", {"s", "one"}, {"s1"}),
             node("cat", "Concat", {"s1", "one"}, {"target"}),
             node("reshape", "Reshape", {"p", "target"}, {"flat"}),
             node("matmul", "MatMul", {"flat", "fcw"}, {"mm"}),
             node("biasadd", "Add", {"mm", "fcb"}, {"logits"}),
             node("hs", "HardSwish", {"logits"}, {"y"})};
  for (size_t i = 0; i < g.nodes.size(); ++i) g.nodes[i].id = static_cast<NodeId>(i);
  g.outputs.push_back({"y", TypeInfo::tensor(DType::Float, Shape{1, 8}), {}, {}});
  return m;
}

Model runtimeGraph() {
  Model m;
  Graph& g = m.graph;
  g.inputs.push_back({"x", TypeInfo::tensor(DType::Float, Shape{1, 8, 4, 4}), {}, {}});
  for (const char* w : {"w_packed", "fused_bias", "fcw", "fcb", "target", "gemm_shape"}) g.initializers.push_back(weight(w));
  Node conv = node("b_nchwc", "Conv", {"x_nchwc", "w_packed", "fused_bias", "x_nchwc"}, {"tok1"}, "com.microsoft.nchwc");
  conv.setAttr(Attribute::makeString("activation", "Relu"));
  Node h = node("", "HardSigmoid", {"logits"}, {"_inl_hs"});
  h.generatedName = true;
  h.name = "HardSigmoid_9";
  Node mul = node("", "Mul", {"logits", "_inl_hs"}, {"y"});
  mul.generatedName = true;
  mul.name = "Mul_10";
  g.nodes = {node("ReorderInput", "ReorderInput", {"x"}, {"x_nchwc"}, "com.microsoft.nchwc"),
             conv,
             node("p_nchwc", "GlobalAveragePool", {"tok1"}, {"tok2"}, "com.microsoft.nchwc"),
             node("ReorderOutput", "ReorderOutput", {"tok2"}, {"p"}, "com.microsoft.nchwc"),
             node("reshape", "Reshape", {"p", "target"}, {"flat"}),
             node("gemm_input_reshape", "Reshape", {"flat", "gemm_shape"}, {"gin"}),
             node("matmul/MatMulAddFusion", "Gemm", {"gin", "fcw", "fcb"}, {"gout"}),
             node("gemm_output_reshape", "Reshape", {"gout", "gemm_shape"}, {"logits"}),
             h,
             mul};
  return m;
}

ProfileData traced() {
  ProfileData p;
  for (const char* n : {"ReorderInput", "b_nchwc", "p_nchwc", "ReorderOutput", "reshape", "gemm_input_reshape",
                        "matmul/MatMulAddFusion", "gemm_output_reshape", "HardSigmoid_41", "Mul_42", "mystery"}) {
    NodeProfile np;
    np.name = n;
    np.kernel = "CPUExecutionProvider";
    np.opType = std::string(n).rfind("HardSigmoid", 0) == 0 ? "HardSigmoid" : std::string(n).rfind("Mul_", 0) == 0 ? "Mul" : "X";
    p.nodes.push_back(np);
  }
  return p;
}

std::vector<std::string> irOf(const ProfileData& p, const std::string& name) { return p.find(name)->irNodes; }

}  // namespace

class TestNodeMapping : public QObject {
  Q_OBJECT
 private slots:
  void fusedInsertedAndFoldedNodes() {
    Model g0 = original();
    Model g1 = runtimeGraph();
    ProfileData p = traced();
    mapToIr(p, g0, &g1);
    // The NCHWc Conv named after the BN output also absorbed the Add (its Sum input) and the Relu.
    QCOMPARE(irOf(p, "b_nchwc"), (std::vector<std::string>{"conv", "bn", "add", "relu"}));
    QCOMPARE(p.find("b_nchwc")->kernel, std::string("CPUExecutionProvider:com.microsoft.nchwc"));
    QCOMPARE(irOf(p, "p_nchwc"), std::vector<std::string>{"gap"});
    // Reorders are inserted, with the IR nodes on either side.
    QVERIFY(p.find("ReorderOutput")->inserted);
    QCOMPARE(p.find("ReorderOutput")->neighbours, (std::vector<std::string>{"gap", "shape", "reshape"}));
    QVERIFY(p.find("ReorderInput")->inserted);
    QCOMPARE(p.find("ReorderInput")->neighbours, (std::vector<std::string>{"conv", "add"}));
    // The Gemm writes what the Reshape after it writes: MatMul and the bias Add.
    QCOMPARE(irOf(p, "matmul/MatMulAddFusion"), (std::vector<std::string>{"matmul", "biasadd"}));
    QVERIFY(p.find("gemm_input_reshape")->inserted);
    QVERIFY(p.find("gemm_output_reshape")->inserted);
    // The shape arithmetic was folded: the Reshape covers itself only.
    QCOMPARE(irOf(p, "reshape"), std::vector<std::string>{"reshape"});
    QCOMPARE(p.irNodesNotRun, (std::vector<std::string>{"shape", "take", "cat"}));
    // Both halves of the inlined HardSwish, saved nameless, map to it.
    QCOMPARE(irOf(p, "HardSigmoid_41"), std::vector<std::string>{"hs"});
    QCOMPARE(irOf(p, "Mul_42"), std::vector<std::string>{"hs"});
    QCOMPARE(p.unmatched, std::vector<std::string>{"mystery"});
  }

  // A static QDQ model as ONNX Runtime runs it (all optimizations): each DQ → Conv → (Relu) → Q
  // group fused into a com.microsoft QLinearConv in NHWC, which the layout transformer names
  // "<node>_token_<n>" and whose output it names after the node, so no tensor of the chain is
  // one of the IR's. Each fused node covers its own group (seen on MobileNetV2 int8: every
  // QLinearConv covered nothing, or the first layer's nodes).
  void qdqGroupsFusedInNhwc() {
    Model g0;
    {
      Graph& g = g0.graph;
      g.inputs.push_back({"x", TypeInfo::tensor(DType::Float, Shape{1, 8, 4, 4}), {}, {}});
      for (const char* w : {"w1", "w2", "s", "z"}) g.initializers.push_back(weight(w));
      g.nodes = {node("q_in", "QuantizeLinear", {"x", "s", "z"}, {"xq"}),
                 node("dq_in", "DequantizeLinear", {"xq", "s", "z"}, {"xd"}),
                 node("c1", "Conv", {"xd", "w1"}, {"c1o"}),
                 node("r1", "Relu", {"c1o"}, {"r1o"}),
                 node("q1", "QuantizeLinear", {"r1o", "s", "z"}, {"q1o"}),
                 node("dq1", "DequantizeLinear", {"q1o", "s", "z"}, {"d1"}),
                 node("c2", "Conv", {"d1", "w2"}, {"c2o"}),
                 node("q2", "QuantizeLinear", {"c2o", "s", "z"}, {"q2o"}),
                 node("dq2", "DequantizeLinear", {"q2o", "s", "z"}, {"y"})};
      for (size_t i = 0; i < g.nodes.size(); ++i) g.nodes[i].id = static_cast<NodeId>(i);
      g.outputs.push_back({"y", TypeInfo::tensor(DType::Float, Shape{1, 8, 4, 4}), {}, {}});
    }
    Model g1;
    {
      Graph& g = g1.graph;
      g.inputs.push_back({"x", TypeInfo::tensor(DType::Float, Shape{1, 8, 4, 4}), {}, {}});
      for (const char* w : {"w1_q", "w2_q", "s", "z"}) g.initializers.push_back(weight(w));
      g.nodes = {node("q_in", "QuantizeLinear", {"x", "s", "z"}, {"xq"}),
                 node("Transpose", "Transpose", {"xq"}, {"Transpose_out0"}),
                 node("c1_token_1", "QLinearConv", {"Transpose_out0", "s", "z", "w1_q"}, {"c1"}, "com.microsoft"),
                 node("c2_token_4", "QLinearConv", {"c1", "s", "z", "w2_q"}, {"c2"}, "com.microsoft"),
                 node("Transpose_token_5", "Transpose", {"c2"}, {"q2o"}),
                 node("dq2", "DequantizeLinear", {"q2o", "s", "z"}, {"y"})};
    }
    ProfileData p;
    for (const Node& n : g1.graph.nodes) {
      NodeProfile np;
      np.name = n.name;
      np.opType = n.opType;
      p.nodes.push_back(np);
    }
    mapToIr(p, g0, &g1);
    QCOMPARE(irOf(p, "c1_token_1"), (std::vector<std::string>{"dq_in", "c1", "r1", "q1"}));
    QCOMPARE(irOf(p, "c2_token_4"), (std::vector<std::string>{"dq1", "c2", "q2"}));
    QCOMPARE(irOf(p, "q_in"), std::vector<std::string>{"q_in"});
    QVERIFY(p.find("Transpose")->inserted);
    QVERIFY(p.find("Transpose_token_5")->inserted);
    QVERIFY(p.unmatched.empty());
    QVERIFY(p.irNodesNotRun.empty());
  }

  void withoutRuntimeGraphNamesMatch() {
    Model g0 = original();
    ProfileData p;
    for (const char* n : {"conv", "bn", "relu", "ReorderOutput", "other"}) {
      NodeProfile np;
      np.name = n;
      np.opType = n == std::string("ReorderOutput") ? "ReorderOutput" : "X";
      p.nodes.push_back(np);
    }
    mapToIr(p, g0, nullptr);
    QCOMPARE(irOf(p, "conv"), std::vector<std::string>{"conv"});
    QVERIFY(p.find("ReorderOutput")->inserted);
    QCOMPARE(p.unmatched, std::vector<std::string>{"other"});
    QCOMPARE(p.irNodesNotRun.size(), g0.graph.nodes.size() - 3);
  }
};

QTEST_GUILESS_MAIN(TestNodeMapping)
#include "tst_node_mapping.moc"
