// The ONNX Runtime trace parser and the ProfileData model: statistics, JSON round trip, nesting,
// older trace formats and malformed input.
#include <QtTest>

#include <nlohmann/json.hpp>

#include "profile/ort_trace.h"
#include "profile/profile_data.h"

using namespace msa;
using nlohmann::json;

namespace {

json kernel(const std::string& node, const std::string& op, double ts, double dur, const std::string& provider = "CPUExecutionProvider") {
  return {{"cat", "Node"},
          {"pid", 1},
          {"tid", 1},
          {"ph", "X"},
          {"name", node + "_kernel_time"},
          {"ts", ts},
          {"dur", dur},
          {"args",
           {{"op_name", op},
            {"provider", provider},
            {"input_type_shape", json::array({json{{"float", {1, 3, 8, 8}}}, json{{"float", {4, 3, 3, 3}}}})},
            {"output_type_shape", json::array({json{{"float", {1, 4, 6, 6}}}})}}}};
}

json run(double ts, double dur) {
  return {{"cat", "Session"}, {"pid", 1}, {"tid", 1}, {"ph", "X"}, {"name", "model_run"}, {"ts", ts}, {"dur", dur}, {"args", json::object()}};
}

// Three runs of conv (10, 20, 30 µs) and relu (1, 2, 3 µs), plus session events to ignore.
json threeRuns() {
  json t = json::array();
  t.push_back({{"cat", "Session"}, {"ph", "X"}, {"name", "session_initialization"}, {"ts", 0}, {"dur", 50}, {"args", json::object()}});
  for (int r = 0; r < 3; ++r) {
    double base = 100.0 + r * 100.0;
    t.push_back({{"cat", "Node"}, {"ph", "X"}, {"name", "conv_fence_before"}, {"ts", base + 1}, {"dur", 0}, {"args", {{"op_name", "Conv"}}}});
    t.push_back(kernel("conv", "Conv", base + 1, 10.0 * (r + 1)));
    t.push_back(kernel("relu", "Relu", base + 40, 1.0 * (r + 1)));
    t.push_back(run(base, 60));
  }
  return t;
}

}  // namespace

class TestOrtTrace : public QObject {
  Q_OBJECT
 private slots:
  void statsInterpolate() {
    Stats s = Stats::of({10, 1, 2, 3, 4, 5, 6, 7, 8, 9});
    QCOMPARE(s.count, 10);
    QCOMPARE(s.median, 5.5);
    QVERIFY(std::abs(s.p10 - 1.9) < 1e-12);
    QVERIFY(std::abs(s.p90 - 9.1) < 1e-12);
    QCOMPARE(s.min, 1.0);
    QCOMPARE(s.max, 10.0);
    QCOMPARE(s.mean, 5.5);
    QCOMPARE(Stats::of({}).count, 0);
  }

  void perNodeStatisticsOverRuns() {
    auto t = parseOrtTrace(threeRuns().dump());
    QVERIFY2(t.ok(), t.ok() ? "" : t.error().describe().c_str());
    QCOMPARE(t->runs.size(), size_t(3));
    QCOMPARE(t->kernels.size(), size_t(6));
    QVERIFY(!t->runsInferred);
    auto p = profileFromTrace(*t, 1);  // the first run is a warm-up
    QVERIFY(p.ok());
    QCOMPARE(p->iterations, 2);
    QCOMPARE(p->nodes.size(), size_t(2));
    const NodeProfile* conv = p->find("conv");
    QVERIFY(conv);
    QCOMPARE(conv->opType, std::string("Conv"));
    QCOMPARE(conv->kernel, std::string("CPUExecutionProvider"));
    QCOMPARE(conv->timeMs.count, 2);
    QCOMPARE(conv->timeMs.median, 0.025);  // (20 + 30) / 2 µs
    QCOMPARE(conv->inputShapes, (std::vector<std::string>{"[1,3,8,8]", "[4,3,3,3]"}));
    QCOMPARE(conv->outputDtypes, (std::vector<std::string>{"float"}));
    QCOMPARE(p->latencyMs.median, 0.06);
    QCOMPARE(p->sumNodeMedians(), 0.025 + 0.0025);
    QCOMPARE(p->nodes[0].name, std::string("conv"));  // execution order
  }

  void olderFormatsAndWrappers_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("kernels");
    QTest::addColumn<QString>("op");
    // ORT before 1.6: no provider, no shapes; some writers leave out "cat" and "ph".
    QTest::newRow("no provider or shapes")
        << R"([{"name":"model_run","cat":"Session","ts":0,"dur":9},{"name":"a_kernel_time","cat":"Node","ts":1,"dur":5,"args":{"op_name":"Add"}}])"
        << 1 << "Add";
    QTest::newRow("no cat, no ph") << R"([{"name":"a_kernel_time","ts":1,"dur":5,"args":{"op_name":"Mul"}}])" << 1 << "Mul";
    QTest::newRow("traceEvents object")
        << R"({"traceEvents":[{"name":"a_kernel_time","ph":"X","cat":"Node","ts":"3","dur":"2","args":{"op_name":"Relu"}}]})" << 1
        << "Relu";
    QTest::newRow("metadata skipped")
        << R"([{"name":"process_name","ph":"M","args":{}},{"name":"b_kernel_time","ts":1,"dur":1,"args":{"op_name":"Sub"}}])" << 1
        << "Sub";
  }

  void olderFormatsAndWrappers() {
    QFETCH(QString, text);
    QFETCH(int, kernels);
    QFETCH(QString, op);
    auto t = parseOrtTrace(text.toStdString());
    QVERIFY2(t.ok(), t.ok() ? "" : t.error().describe().c_str());
    QCOMPARE(static_cast<int>(t->kernels.size()), kernels);
    QCOMPARE(QString::fromStdString(t->kernels[0].opType), op);
    auto p = profileFromTrace(*t, 0);
    QVERIFY(p.ok());
    QCOMPARE(p->nodes.size(), size_t(1));
  }

  void malformedTracesNameTheEvent_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("not json") << "[{\"name\": " << "not valid JSON";
    QTest::newRow("not a list") << "42" << "expected a list of trace events";
    QTest::newRow("object without events") << R"({"a":1})" << "without 'traceEvents'";
    QTest::newRow("event not object") << R"([{"name":"model_run","ts":0,"dur":1}, 7])" << "event 1: not an object";
    QTest::newRow("no name") << R"([{"ts":0,"dur":1}])" << "event 0: 'name' is missing";
    QTest::newRow("missing dur") << R"([{"name":"x","ts":0},{"name":"c_kernel_time","ts":0,"args":{}}])"
                                 << "event 1 ('c_kernel_time'): 'dur' is missing";
    QTest::newRow("negative dur") << R"([{"name":"c_kernel_time","ts":0,"dur":-4}])" << "event 0 ('c_kernel_time'): 'dur' is negative";
    QTest::newRow("text dur") << R"([{"name":"c_kernel_time","ts":0,"dur":"fast"}])" << "'dur' is not a number";
    QTest::newRow("args not object") << R"([{"name":"c_kernel_time","ts":0,"dur":1,"args":[1]}])" << "'args' is not an object";
    QTest::newRow("bad shape list") << R"([{"name":"c_kernel_time","ts":0,"dur":1,"args":{"input_type_shape":{"float":[1]}}}])"
                                    << "args.input_type_shape is not a list";
    QTest::newRow("bad dim") << R"([{"name":"c_kernel_time","ts":0,"dur":1,"args":{"output_type_shape":[{"float":[1,"x"]}]}}])"
                             << "non-integer dim";
    QTest::newRow("bad run") << R"([{"name":"model_run","cat":"Session","ts":0}])" << "event 0 ('model_run'): 'dur' is missing";
  }

  void malformedTracesNameTheEvent() {
    QFETCH(QString, text);
    QFETCH(QString, fragment);
    auto t = parseOrtTrace(text.toStdString(), "bad.json");
    QVERIFY(!t.ok());
    QVERIFY2(t.error().describe().find(fragment.toStdString()) != std::string::npos, t.error().describe().c_str());
    QVERIFY(t.error().describe().find("bad.json") != std::string::npos);
  }

  void emptyOrExhaustedTraces() {
    auto none = parseOrtTrace(R"([{"name":"model_run","ts":0,"dur":3}])");
    QVERIFY(none.ok());
    auto p = profileFromTrace(*none, 0);
    QVERIFY(!p.ok());
    QVERIFY(p.error().message.find("no '_kernel_time' events") != std::string::npos);
    auto three = parseOrtTrace(threeRuns().dump());
    auto q = profileFromTrace(*three, 3);
    QVERIFY(!q.ok());
    QVERIFY(q.error().message.find("nothing is left after skipping 3") != std::string::npos);
  }

  // A subgraph's nodes run inside their If's span: they get it as parent and the sum of node
  // medians counts the If alone.
  void nestedNodesHaveTheirParent() {
    json t = json::array();
    t.push_back(run(0, 100));
    t.push_back(kernel("then_conv", "Conv", 12, 30));
    t.push_back(kernel("then_relu", "Relu", 45, 5));
    t.push_back(kernel("if_node", "If", 10, 50));
    t.push_back(kernel("after", "Add", 70, 4));
    auto tr = parseOrtTrace(t.dump());
    QVERIFY(tr.ok());
    auto p = profileFromTrace(*tr, 0);
    QVERIFY(p.ok());
    QCOMPARE(p->find("then_conv")->parent, std::string("if_node"));
    QCOMPARE(p->find("then_relu")->parent, std::string("if_node"));
    QVERIFY(p->find("if_node")->parent.empty());
    QVERIFY(p->find("after")->parent.empty());
    QCOMPARE(p->sumNodeMedians(), 0.054);
    QCOMPARE(p->nodes[0].name, std::string("if_node"));
  }

  // Without model_run events (a trimmed trace) runs are cut where a node comes round again;
  // a Loop body's repeated calls stay in one run and are summed.
  void runsInferredWithoutModelRun() {
    json t = json::array();
    for (int r = 0; r < 2; ++r) {
      double b = r * 1000.0;
      t.push_back(kernel("loop", "Loop", b, 100));
      t.push_back(kernel("body_add", "Add", b + 10, 10));
      t.push_back(kernel("body_add", "Add", b + 30, 10));
      t.push_back(kernel("tail", "Relu", b + 200, 5));
    }
    auto tr = parseOrtTrace(t.dump());
    QVERIFY(tr.ok());
    QVERIFY(tr->runsInferred);
    QCOMPARE(tr->runs.size(), size_t(2));
    auto p = profileFromTrace(*tr, 0);
    QVERIFY(p.ok());
    const NodeProfile* body = p->find("body_add");
    QCOMPARE(body->timeMs.median, 0.02);
    QCOMPARE(body->metrics.at("calls_per_run"), 2.0);
    QCOMPARE(body->parent, std::string("loop"));
  }

  void profileJsonRoundTrip() {
    ProfileData p;
    p.device = "cpu";
    p.runtime = "onnxruntime 1.21.1";
    p.source = "measured";
    p.optimization = "all";
    p.threads = 2;
    p.iterations = 5;
    p.warmup = 1;
    p.inputShapes["x"] = "[1,3,224,224]";
    p.latencyMs = Stats::of({1, 2, 3});
    NodeProfile a;
    a.name = "fused";
    a.opType = "FusedConv";
    a.irNodes = {"conv", "bn", "relu"};
    a.timeMs = Stats::of({0.5, 0.6});
    a.kernel = "CPUExecutionProvider";
    a.inputShapes = {"[1,3,224,224]"};
    a.metrics["calls_per_run"] = 1;
    NodeProfile b;
    b.name = "ReorderOutput";
    b.opType = "ReorderOutput";
    b.inserted = true;
    b.neighbours = {"relu", "flatten"};
    b.timeMs = Stats::of({0.1});
    NodeProfile c;
    c.name = "inner";
    c.parent = "fused";
    c.timeMs = Stats::of({0.2});
    p.nodes = {a, b, c};
    p.unmatched = {"mystery"};
    p.irNodesNotRun = {"const"};
    json j = toJson(p);
    for (const char* key : {"device", "runtime", "optimization", "iterations", "latency_ms", "nodes", "unmatched"})
      QVERIFY2(j.contains(key), key);
    for (const char* key : {"name", "op_type", "median_ms", "p10_ms", "p90_ms", "kernel", "input_shapes", "output_shapes"})
      QVERIFY2(j["nodes"][0].contains(key), key);
    QCOMPARE(j["sum_node_median_ms"].get<double>(), 0.55 + 0.1);
    auto back = profileFromJson(json::parse(j.dump()), "p.json");
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().describe().c_str());
    QCOMPARE(toJson(*back), j);
  }

  void malformedProfileJson_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("not object") << "[]" << "a profile is a JSON object";
    QTest::newRow("no nodes") << R"({"device":"cpu"})" << "'nodes' is missing";
    QTest::newRow("node without name") << R"({"nodes":[{"median_ms":1}]})" << "nodes[0]: 'name' is missing";
    QTest::newRow("median text") << R"({"nodes":[{"name":"a","median_ms":1},{"name":"b","median_ms":"x"}]})"
                                 << "nodes[1]: 'median_ms' is not a number";
    QTest::newRow("negative") << R"({"nodes":[{"name":"a","median_ms":-1}]})" << "nodes[0]: 'median_ms' is negative";
    QTest::newRow("inserted") << R"({"nodes":[{"name":"a","median_ms":1,"inserted":"yes"}]})" << "'inserted' is not true or false";
    // Counts beyond an int (the cast of 1e300 was undefined behaviour).
    QTest::newRow("threads out of range") << R"({"threads":1e300,"nodes":[]})" << "'threads' is out of range";
    QTest::newRow("count out of range") << R"({"nodes":[{"name":"a","median_ms":1,"count":-3e12}]})"
                                        << "nodes[0]: 'count' is out of range";
    QTest::newRow("error record") << R"({"error":{"kind":"device","message":"Could not find an implementation"}})"
                                  << "records a failed profile: Could not find";
  }

  void malformedProfileJson() {
    QFETCH(QString, text);
    QFETCH(QString, fragment);
    auto p = profileFromJson(json::parse(text.toStdString()), "in.json");
    QVERIFY(!p.ok());
    QVERIFY2(p.error().describe().find(fragment.toStdString()) != std::string::npos, p.error().describe().c_str());
  }

  void timePerIrNodeSplitsFusedTime() {
    ProfileData p;
    NodeProfile f;
    f.name = "fused";
    f.irNodes = {"conv", "relu"};
    f.timeMs.median = 1.0;
    NodeProfile g;
    g.name = "gemm";
    g.irNodes = {"gemm"};
    g.timeMs.median = 0.5;
    NodeProfile r;
    r.name = "reorder";
    r.inserted = true;
    r.timeMs.median = 0.25;
    p.nodes = {f, g, r};
    auto even = p.timePerIrNode();
    QCOMPARE(even.at("conv"), 0.5);
    QCOMPARE(even.at("relu"), 0.5);
    QCOMPARE(even.at("gemm"), 0.5);
    QCOMPARE(even.size(), size_t(3));
    auto weighted = p.timePerIrNode({{"conv", 3.0}, {"relu", 1.0}});
    QCOMPARE(weighted.at("conv"), 0.75);
    QCOMPARE(weighted.at("relu"), 0.25);
  }
};

QTEST_GUILESS_MAIN(TestOrtTrace)
#include "tst_ort_trace.moc"
