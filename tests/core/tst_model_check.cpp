// Model validation at load (core/model/model_check): what every client refuses before a runtime
// sees the model, the runtime gate (opsets and domains ONNX Runtime 1.21 cannot run), costs that
// saturate instead of printing astronomic figures, and node names that are not UTF-8 carried
// through ONNX Runtime's own profile.
#include <QtTest>

#include <atomic>
#include <cstdlib>
#include <new>

#include "cost/op_cost.h"
#include "model/model_check.h"
#include "model/onnx_io.h"
#include "model/shape_inference.h"
#include "model_builder.h"
#include "proto_edit.h"
#include "profile/ort_profiler.h"
#include "profile/ort_session.h"
#include "test_paths.h"
#include "util/utf8.h"

using namespace msa;

// Heap allocations counted while `g_counting` (the checker's cost must not grow with name length).
namespace {
std::atomic<bool> g_counting{false};
std::atomic<long> g_allocations{0};
}  // namespace

void* operator new(std::size_t n) {
  if (g_counting) ++g_allocations;
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
// The nothrow form too (std::stable_sort's buffer): left to a sanitizer's allocator, it would be
// freed here by the plain delete, which AddressSanitizer reports as a mismatch.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  if (g_counting) ++g_allocations;
  return std::malloc(n ? n : 1);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace {

// x -> Relu -> ... -> y, n nodes, every name ending in `pad`.
Model reluChain(int n, const std::string& pad) {
  Model m;
  m.irVersion = 8;
  m.opsets.push_back({"", 17});
  ValueInfo in;
  in.name = "x" + pad;
  in.type = TypeInfo::tensor(DType::Float, Shape{1, 4});
  m.graph.inputs.push_back(in);
  std::string prev = in.name;
  for (int i = 0; i < n; ++i) {
    Node node;
    node.opType = "Relu";
    node.name = "r" + std::to_string(i) + pad;
    node.inputs = {prev};
    node.outputs = {"v" + std::to_string(i) + pad};
    prev = node.outputs[0];
    m.graph.nodes.push_back(std::move(node));
  }
  ValueInfo out = in;
  out.name = prev;
  m.graph.outputs.push_back(out);
  return m;
}

long allocationsOfCheck(const Model& m) {
  g_allocations = 0;
  g_counting = true;
  const bool ok = checkModel(m, "chain").ok();
  g_counting = false;
  return ok ? g_allocations.load() : -1;
}

// x -> Relu(a) -> Relu(b) -> y, the model every case below damages.
Model twoRelus(int64_t opset = 17) {
  test::ModelBuilder b("g", opset);
  auto x = b.input("x", {1, 4});
  b.output(b.relu(b.relu(x)), "y");
  return b.build();
}

// Serializes and loads again: the one load path every client uses.
Result<Model> roundTrip(const Model& m) {
  auto bytes = serializeModel(m);
  if (!bytes) return bytes.error();
  return loadModelFromBytes(*bytes, {}, "hostile.onnx");
}

void expectRefused(const Model& m, const char* fragment, const char* node) {
  auto r = roundTrip(m);
  QVERIFY2(!r, "the model loaded");
  QCOMPARE(r.error().kind, ErrorKind::Model);
  QCOMPARE(QString::fromStdString(r.error().file), QStringLiteral("hostile.onnx"));
  QVERIFY2(r.error().message.find(fragment) != std::string::npos, r.error().describe().c_str());
  if (node) QCOMPARE(QString::fromStdString(r.error().node), QString::fromUtf8(node));
}

}  // namespace

class TestModelCheck : public QObject {
  Q_OBJECT
 private slots:
  // The checker looks names up as views of the model's strings: 4-character names (kept inside
  // the std::string) and 44-character ones (on the heap) cost it the same allocations. Copies of
  // every name into its sets: checkModel was 7 % of `analyze` on a 50k-node model (perf, issue 30), 6 % without.
  void checkingCopiesNoName() {
    (void)allocationsOfCheck(reluChain(1, ""));  // the checker's static tables, built on first use
    const long shortNames = allocationsOfCheck(reluChain(2000, ""));
    const long longNames = allocationsOfCheck(reluChain(2000, std::string(40, 'n')));
    qInfo("allocations while checking 2,000 nodes: %ld with short names, %ld with long ones", shortNames, longNames);
    QVERIFY(shortNames > 0);
    QCOMPARE(longNames, shortNames);
  }

  void theIntactModelLoads() {
    auto r = roundTrip(twoRelus());
    QVERIFY2(r, r ? "" : r.error().describe().c_str());
    QVERIFY(!runtimeCannotRun(*r));
  }

  void cycleNamesANodeOnIt() {
    Model m = twoRelus();
    Node& first = m.graph.nodes[0];
    first.inputs[0] = m.graph.nodes[1].outputs[0];  // Relu_0 reads Relu_1's output
    m.graph.outputs[0].name = "x";                  // keep the output defined
    expectRefused(m, "cycle", nullptr);
  }

  void danglingInput() {
    Model m = twoRelus();
    m.graph.nodes[1].inputs[0] = "nowhere";
    expectRefused(m, "input 'nowhere' names no value", m.graph.nodes[1].name.c_str());
  }

  void valueAssignedTwice() {
    Model m = twoRelus();
    m.graph.nodes[1].outputs[0] = m.graph.nodes[0].outputs[0];
    m.graph.outputs[0].name = m.graph.nodes[0].outputs[0];
    expectRefused(m, "also produced by node", m.graph.nodes[1].name.c_str());
  }

  void outputListedTwiceOrProducedByNothing() {
    Model m = twoRelus();
    m.graph.outputs.push_back(m.graph.outputs[0]);
    expectRefused(m, "listed twice", nullptr);
    Model n = twoRelus();
    n.graph.outputs[0].name = "ghost";
    expectRefused(n, "graph output 'ghost' is produced by no node", nullptr);
  }

  void negativeAndAbsurdDims() {
    auto bytes = serializeModel(twoRelus());
    QVERIFY(bytes);
    std::string negative = test::editModel(*bytes, [](onnx::ModelProto& mp) {
      mp.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)->set_dim_value(-3);
    });
    auto r = loadModelFromBytes(negative, {}, "hostile.onnx");
    QVERIFY(!r);
    QVERIFY2(r.error().message.find("value 'x' declares a negative dimension (-3)") != std::string::npos,
             r.error().describe().c_str());
    Model huge = twoRelus();
    huge.graph.inputs[0].type.shape = Shape{int64_t(1) << 31, int64_t(1) << 31, 4};
    expectRefused(huge, "more than 2^50 elements", nullptr);
  }

  void unimportedDomain() {
    Model m = twoRelus();
    m.graph.nodes[0].domain = "com.example.nowhere";
    expectRefused(m, "domain 'com.example.nowhere', which the model does not import", m.graph.nodes[0].name.c_str());
  }

  void nestingBeyondTheLimit() {
    // If inside If, 20 deep: each then/else branch holds the next If.
    test::ModelBuilder b("g", 17);
    auto cond = b.input("cond", {}, DType::Bool);
    auto x = b.input("x", {1});
    b.output(b.relu(x), "y");
    Model m = b.build();
    Graph leaf;
    leaf.name = "leaf";
    leaf.outputs.push_back({"x", TypeInfo::tensor(DType::Float, Shape{1}), {}, {}});
    Graph inner = leaf;
    for (int level = 0; level < ModelLimits::kMaxSubgraphDepth + 4; ++level) {
      Graph outer;
      outer.name = "level" + std::to_string(level);
      Node n;
      n.opType = "If";
      n.name = "if_" + std::to_string(level);
      n.inputs = {"cond"};
      n.outputs = {"out_" + std::to_string(level)};
      // then_branch holds the next level, else_branch a leaf: linear in size, not 2^depth.
      Attribute then;
      then.name = "then_branch";
      then.type = AttrType::Graph;
      then.graphs.push_back(std::move(inner));
      Attribute otherwise = then;
      otherwise.name = "else_branch";
      otherwise.graphs = {leaf};
      n.attributes = {then, otherwise};
      outer.addNode(n);
      outer.outputs.push_back({n.outputs[0], TypeInfo::tensor(DType::Float, Shape{1}), {}, {}});
      inner = std::move(outer);
    }
    Node top = inner.nodes[0];
    m.graph.addNode(top);
    expectRefused(m, "nest more than 16 levels", nullptr);
  }

  // The gate's figures are ONNX Runtime's own: it opens kRuntimeMaxOpset and refuses one more.
  void runtimeGateMatchesTheRuntime() {
    for (int64_t opset : {kRuntimeMaxOpset, kRuntimeMaxOpset + 1}) {
      Model m = twoRelus(17);
      m.setOpset("", opset);
      auto bytes = serializeModel(m);
      QVERIFY(bytes);
      auto direct = OrtSession::fromBytes(*bytes, {}, "direct");
      QCOMPARE(bool(direct), opset <= kRuntimeMaxOpset);
      QCOMPARE(!runtimeCannotRun(m), opset <= kRuntimeMaxOpset);
    }
    Model future = twoRelus(17);
    future.setOpset("", 99);
    auto loaded = roundTrip(future);
    QVERIFY(loaded);  // loads: estimation needs no runtime
    auto s = OrtSession::create(*loaded, {});
    QVERIFY(!s);
    QCOMPARE(s.error().kind, ErrorKind::Model);
    QVERIFY2(s.error().message.find("opset 99, newer than ONNX Runtime") != std::string::npos, s.error().message.c_str());
    QVERIFY(s.error().message.find("estimate") != std::string::npos);
    const GraphCost c = computeCosts(loaded->graph);
    QVERIFY(c.flops > 0);
  }

  void unknownDomainIsARuntimeRefusalNotALoadOne() {
    Model m = twoRelus();
    m.graph.nodes[0].domain = "com.example.custom";
    m.setOpset("com.example.custom", 1);
    auto loaded = roundTrip(m);
    QVERIFY(loaded);
    auto why = runtimeCannotRun(*loaded);
    QVERIFY(why);
    QVERIFY(why->find("com.example.custom") != std::string::npos);
  }

  void costsSaturateInsteadOfOverflowing() {
    test::ModelBuilder b("g", 17);
    auto x = b.input("x", {-1, -1, -1}, DType::Float, {"a", "b", "c"});
    auto y = b.matmul(x, x);
    b.output(y, "y");
    Model m = b.build();
    ShapeOptions so;
    so.dims = {{"a", int64_t(1) << 40}, {"b", int64_t(1) << 40}, {"c", int64_t(1) << 40}};
    QVERIFY(inferShapes(m, so));
    const GraphCost c = computeCosts(m.graph);
    QVERIFY(c.flops <= kCostCeiling);
    QVERIFY(c.macs <= kCostCeiling);
    QVERIFY(c.bytes() <= 2 * kCostCeiling);
    QCOMPARE(c.saturated.size(), size_t(1));
    QCOMPARE(QString::fromStdString(c.saturated[0]), QString::fromStdString(m.graph.nodes[0].name));
    // A sane model is never marked.
    const GraphCost sane = computeCosts(twoRelus().graph);
    QVERIFY(sane.saturated.empty());
    QVERIFY(!sane.totalsSaturated);
  }

  void invalidUtf8IsEscapedForDisplay() {
    QCOMPARE(QString::fromStdString(escapeInvalidUtf8("conv\xff\xfe")), QStringLiteral("conv\\xff\\xfe"));
    QCOMPARE(QString::fromStdString(escapeInvalidUtf8("卷积")), QStringLiteral("卷积"));
    Error e = Error::model("broken", "m.onnx", "n\xc3");
    QCOMPARE(QString::fromStdString(e.describe()), QStringLiteral("m.onnx: node 'n\\xc3': broken"));
  }

  // ONNX Runtime writes names as the bytes they are; its profile must still import, and its
  // entries must still name the IR's nodes.
  void nonUtf8NodeNamesSurviveTheRuntimesProfile() {
    Model m = twoRelus();
    const std::string odd = std::string("relu\xff\xfe") + "\xc3(";
    m.graph.nodes[0].name = odd;
    auto loaded = roundTrip(m);
    QVERIFY2(loaded, loaded ? "" : loaded.error().describe().c_str());
    CpuProfileOptions o;
    o.iterations = 2;
    o.warmup = 1;
    auto p = profileOnCpu(*loaded, o);
    QVERIFY2(p, p ? "" : p.error().describe().c_str());
    bool found = false;
    for (const NodeProfile& n : p->nodes)
      for (const std::string& ir : n.irNodes) found |= ir == odd;
    QVERIFY(found);
  }
};

QTEST_GUILESS_MAIN(TestModelCheck)
#include "tst_model_check.moc"
