// The Netron-attachment importer and the format detection of importProfile().
#include <QtTest>

#include <fstream>

#include <nlohmann/json.hpp>

#include "model/onnx_io.h"
#include "profile/attachment_import.h"
#include "profile/profile_import.h"
#include "test_paths.h"

using namespace msa;
namespace fs = std::filesystem;

namespace {

Model chainModel() {
  Model m;
  m.opsets.push_back({"", 17});
  m.graph.inputs.push_back({"x", TypeInfo::tensor(DType::Float, Shape{1, 4}), {}, {}});
  m.graph.outputs.push_back({"y", TypeInfo::tensor(DType::Float, Shape{1, 4}), {}, {}});
  const char* names[] = {"/fc1/MatMul", "/act/Relu", "/fc2/MatMul"};
  const char* ops[] = {"MatMul", "Relu", "MatMul"};
  std::string prev = "x";
  for (int i = 0; i < 3; ++i) {
    Node n;
    n.name = names[i];
    n.opType = ops[i];
    n.inputs = {prev};
    prev = i == 2 ? "y" : "t" + std::to_string(i);
    n.outputs = {prev};
    m.graph.addNode(n);
  }
  return m;
}

nlohmann::json metric(const char* kind, const char* target, const char* name, nlohmann::json value,
                      const char* type = nullptr) {
  nlohmann::json j{{"kind", kind}, {"target", target}, {"name", name}, {"value", std::move(value)}};
  if (type) j["type"] = type;
  return j;
}

// A vector, not a json: json initialized from a one-element braced list is that element under
// clang and a one-element array under GCC (CWG 2137).
std::string attachment(const std::vector<nlohmann::json>& metrics) {
  return nlohmann::json{{"signature", "netron:attachment"}, {"metadata", nlohmann::json::array()},
                        {"metrics", metrics}}
      .dump();
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

}  // namespace

class TestProfileImport : public QObject {
  Q_OBJECT
 private slots:
  void attachmentUnits_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<double>("medianMs");
    // Number of the metric, in the unit its name, type or string value gives; else ms.
    QTest::newRow("plain latency is ms") << QString::fromStdString(attachment({metric("node", "/act/Relu", "latency", 0.25)})) << 0.25;
    QTest::newRow("unit in the name") << QString::fromStdString(attachment({metric("node", "/act/Relu", "time_us", 250)})) << 0.25;
    QTest::newRow("bracketed unit") << QString::fromStdString(attachment({metric("node", "/act/Relu", "Duration (µs)", 250)})) << 0.25;
    QTest::newRow("unit in type") << QString::fromStdString(attachment({metric("node", "/act/Relu", "latency", 250, "us")})) << 0.25;
    QTest::newRow("name beats type") << QString::fromStdString(attachment({metric("node", "/act/Relu", "latency_ms", 0.25, "us")})) << 0.25;
    QTest::newRow("string with unit") << QString::fromStdString(attachment({metric("node", "/act/Relu", "time", "250 us")})) << 0.25;
    QTest::newRow("nanoseconds") << QString::fromStdString(attachment({metric("node", "/act/Relu", "elapsed[ns]", 250000)})) << 0.25;
    QTest::newRow("seconds") << QString::fromStdString(attachment({metric("node", "/act/Relu", "latency", 0.00025, "s")})) << 0.25;
    QTest::newRow("samples") << QString::fromStdString(attachment({metric("node", "/act/Relu", "latency_us", {300, 250, 200, 260, 240})}))
                             << 0.25;
  }
  void attachmentUnits() {
    QFETCH(QString, json);
    QFETCH(double, medianMs);
    Model m = chainModel();
    auto p = importAttachmentText(json.toStdString(), m, "unit.json");
    QVERIFY2(p.ok(), p.ok() ? "" : p.error().describe().c_str());
    QCOMPARE(p->nodes.size(), size_t(1));
    QVERIFY(qAbs(p->nodes[0].timeMs.median - medianMs) < 1e-12);
    QCOMPARE(p->nodes[0].irNodes, std::vector<std::string>{"/act/Relu"});
    QCOMPARE(p->nodes[0].opType, std::string("Relu"));
  }

  void attachmentModelLatencyMetricsAndUnmatched() {
    Model m = chainModel();
    auto p = importAttachmentText(
        attachment({metric("model", "", "latency_ms", {8.0, 7.5, 9.0}),
                    metric("node", "/fc1/MatMul", "latency", 1.5), metric("node", "/fc1/MatMul", "flops", 65536),
                    metric("node", "/fc1/MatMul", "time", 99.0),  // a second time metric: the first wins
                    metric("node", "/fc2/MatMul\nMatMul", "latency", 2.0),  // Netron matches the first line
                    metric("node", "/gone/Conv", "latency", 0.5), metric("value", "t0", "latency", 1.0),
                    metric("node", "/act/Relu", "note", "fast")}),
        m, "mixed.json");
    QVERIFY2(p.ok(), p.ok() ? "" : p.error().describe().c_str());
    QCOMPARE(p->latencyMs.median, 8.0);
    QCOMPARE(p->latencyMs.count, 3);
    QCOMPARE(p->iterations, 1);
    QCOMPARE(p->nodes.size(), size_t(3));  // /act/Relu has no time metric: no entry
    QCOMPARE(p->find("/fc1/MatMul")->timeMs.median, 1.5);
    QCOMPARE(p->find("/fc1/MatMul")->metrics.at("flops"), 65536.0);
    QCOMPARE(p->find("/fc2/MatMul")->irNodes, std::vector<std::string>{"/fc2/MatMul"});
    QCOMPARE(p->unmatched, std::vector<std::string>{"/gone/Conv"});
    QVERIFY(p->find("/gone/Conv"));  // listed and kept
    QCOMPARE(p->source, std::string("imported:mixed.json"));
  }

  void attachmentErrors_data() {
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("not json") << "{\"signature\": " << "not JSON";
    QTest::newRow("wrong signature") << "{\"signature\": \"other\", \"metrics\": []}" << "signature";
    // fuzz_profile_attachment: json::value() threw type_error, std::terminate.
    QTest::newRow("signature not a string") << "{\"signature\": [{\"kind\": \"node\"}], \"metrics\": []}" << "signature";
    QTest::newRow("metrics not array") << "{\"signature\": \"netron:attachment\", \"metrics\": {}}" << "not an array";
    QTest::newRow("item without kind")
        << "{\"signature\": \"netron:attachment\", \"metrics\": [{\"kind\": \"node\", \"target\": \"a\", \"name\": \"x\"}, "
           "{\"target\": \"/act/Relu\", \"name\": \"latency\", \"value\": 1}]}"
        << "metrics[1] has no \"kind\"";
    QTest::newRow("item not an object") << "{\"signature\": \"netron:attachment\", \"metrics\": [3]}"
                                        << "metrics[0] is not an object";
    QTest::newRow("negative time") << QString::fromStdString(attachment({metric("node", "/act/Relu", "latency", -1)}))
                                   << "metrics[0]: 'latency' of '/act/Relu'";
    QTest::newRow("unknown unit") << QString::fromStdString(attachment({metric("node", "/act/Relu", "latency", "3 parsecs")}))
                                  << "is not a non-negative time";
    QTest::newRow("empty samples") << QString::fromStdString(attachment({metric("node", "/act/Relu", "latency", nlohmann::json::array())}))
                                   << "metrics[0]";
    QTest::newRow("no time at all") << QString::fromStdString(attachment({metric("node", "/act/Relu", "flops", 3)}))
                                    << "no node has a time metric";
  }
  void attachmentErrors() {
    QFETCH(QString, json);
    QFETCH(QString, fragment);
    Model m = chainModel();
    auto p = importAttachmentText(json.toStdString(), m, "bad.json");
    QVERIFY(!p.ok());
    const QString msg = QString::fromStdString(p.error().describe());
    QVERIFY2(msg.contains(fragment), qPrintable(msg));
    QVERIFY2(msg.startsWith(QLatin1String("bad.json: ")), qPrintable(msg));
  }

  void detectsFormats() {
    test::TempDir dir("detect");
    const fs::path msprof = test::sourceDir() / "tests" / "data" / "msprof";
    write(dir / "ort.json", "[\n{\"cat\": \"Session\", \"name\": \"model_run\", \"ph\": \"X\", \"dur\": 10}]");
    write(dir / "ort_obj.json", "{\"traceEvents\": []}");
    write(dir / "netron.json", attachment({metric("node", "/act/Relu", "latency", 1)}));
    write(dir / "late_signature.json", "{\"metrics\": [], " + std::string(70000, ' ') + "\"signature\": \"netron:attachment\"}");
    write(dir / "ours.json", "{\"device\": \"cpu\", \"nodes\": []}");
    write(dir / "garbage.bin", std::string("\x01\x02garbage\x00\x03", 12));
    write(dir / "other.json", "{\"hello\": 1}");
    write(dir / "empty.csv", "  \n");
    // A fusion_op csv on its own is refused; inside its run it reads the run (tst_real_profiles).
    fs::copy_file(msprof / "mobilenet_v2_cann6" / "PROF_000001_20230131172437_KLMNOPQRSTUVWXYZ" / "device_0" / "summary" /
                      "fusion_op_0_1_1.csv",
                  dir / "fusion_op_0_1_1.csv");
    // trtexec --exportProfile, with and without medianMs: a JSON array, not an ONNX Runtime trace.
    write(dir / "trt.json", "[\n  { \"count\" : 100 }\n, { \"name\" : \"/fc1/MatMul + /act/Relu\", \"timeMs\" : 12.5, "
                            "\"averageMs\" : 0.125, \"percentage\" : 62.5 }\n, { \"name\" : \"/fc2/MatMul input reformatter 0\", "
                            "\"timeMs\" : 2.5, \"averageMs\" : 0.025, \"medianMs\" : 0.024, \"percentage\" : 12.5 }\n]");
    write(dir / "kineto.json", "{\"schemaVersion\": 1, \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", "
                               "\"pid\": 0, \"tid\": 7, \"ts\": 10, \"dur\": 5}]}");
    struct Case {
      fs::path path;
      const char* want;
    };
    for (const Case& c : {Case{dir / "ort.json", "onnxruntime"}, Case{dir / "ort_obj.json", "onnxruntime"},
                          Case{dir / "netron.json", "netron"}, Case{dir / "late_signature.json", "netron"},
                          Case{dir / "ours.json", "msadvisor"}, Case{dir / "trt.json", "tensorrt"},
                          Case{dir / "kineto.json", "kineto"},
                          Case{msprof / "linear_relu_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv", "ascend"},
                          Case{msprof / "resnet18_cann8", "ascend"}}) {
      auto f = findProfileImporter(c.path);
      QVERIFY2(f.ok(), f.ok() ? "" : f.error().describe().c_str());
      QCOMPARE(std::string((*f)->id), std::string(c.want));
    }
    for (auto [file, fragment] : {std::pair{dir / "garbage.bin", "unknown profile format"},
                                  std::pair{dir / "other.json", "no known profile"},
                                  std::pair{dir / "empty.csv", "empty file"},
                                  std::pair{dir / "missing.json", "no such file"},
                                  std::pair{dir / "fusion_op_0_1_1.csv", "import the op_summary"}}) {
      auto f = findProfileImporter(file);
      QVERIFY2(!f.ok(), file.c_str());
      QVERIFY2(QString::fromStdString(f.error().describe()).contains(QLatin1String(fragment)),
               f.error().describe().c_str());
    }
  }

  // trtexec --exportProfile: layers, fused names matched member by member, reformatters inserted.
  void tensorRtImport() {
    test::TempDir dir("trt");
    write(dir / "trt.json", "[{\"count\": 100}, {\"name\": \"/fc1/MatMul + /act/Relu\", \"timeMs\": 12.5, \"averageMs\": 0.125, "
                            "\"percentage\": 62.5}, {\"name\": \"/fc2/MatMul input reformatter 0\", \"timeMs\": 2.5, "
                            "\"averageMs\": 0.025, \"medianMs\": 0.024, \"percentage\": 12.5}, {\"name\": \"/fc2/MatMul\", "
                            "\"timeMs\": 5, \"averageMs\": 0.05, \"percentage\": 25}]");
    Model m = chainModel();
    auto p = importProfile(dir / "trt.json", m);
    QVERIFY2(p.ok(), p.ok() ? "" : p.error().describe().c_str());
    QCOMPARE(p->importer, std::string("tensorrt"));
    QCOMPARE(p->iterations, 100);
    QCOMPARE(p->nodes.size(), size_t(3));
    QCOMPARE(p->nodes[0].irNodes, (std::vector<std::string>{"/fc1/MatMul", "/act/Relu"}));
    QVERIFY(p->nodes[1].inserted);
    QCOMPARE(p->nodes[1].timeMs.median, 0.024);  // medianMs when the file has it, else averageMs
    QCOMPARE(p->nodes[2].timeMs.median, 0.05);
    QCOMPARE(p->latencyMs.median, 0.2);
    QVERIFY(p->unmatched.empty());
  }

  // fuzz_profile_trt: a count beyond an int was cast (undefined behaviour); and format detection
  // of a large JSON whose "signature" is no string threw from json::value() (std::terminate).
  void hostileCountAndSignatureAreRefused() {
    test::TempDir dir("trt-count");
    write(dir / "trt.json", "[{\"count\": 5.5e39}, {\"name\": \"/act/Relu\", \"timeMs\": 1, \"averageMs\": 0.1}]");
    Model m = chainModel();
    auto p = importProfile(dir / "trt.json", m);
    QVERIFY(!p.ok());
    QVERIFY2(p.error().describe().find("'count' is not a run count") != std::string::npos, p.error().describe().c_str());

    write(dir / "big.json", "{\"signature\": 7, \"pad\": \"" + std::string(70000, 'x') + "\"}");
    auto q = importProfile(dir / "big.json", m);  // returns: no importer reads it
    QVERIFY(!q.ok());
  }

  void ortTraceImport() {
    // Three runs of the chain; the first (slowest: allocation) is left out of the statistics.
    nlohmann::json trace = nlohmann::json::array();
    const char* names[] = {"/fc1/MatMul", "/act/Relu", "/fc2/MatMul"};
    const char* ops[] = {"MatMul", "Relu", "MatMul"};
    for (int r = 0; r < 3; ++r) {
      const double base = 1000.0 * (r + 1);
      double ts = base + 1;
      for (int k = 0; k < 3; ++k) {
        const double dur = (r == 0 ? 100.0 : 10.0 * (k + 1) + r);
        trace.push_back({{"cat", "Node"}, {"ph", "X"}, {"name", std::string(names[k]) + "_kernel_time"}, {"ts", ts},
                         {"dur", dur}, {"args", {{"op_name", ops[k]}, {"provider", "CPUExecutionProvider"}}}});
        ts += dur + 1;
      }
      trace.push_back({{"cat", "Session"}, {"ph", "X"}, {"name", "model_run"}, {"ts", base}, {"dur", 400},
                       {"args", nlohmann::json::object()}});
    }
    test::TempDir dir("ort-import");
    write(dir / "trace.json", trace.dump());
    Model m = chainModel();
    auto p = importProfile(dir / "trace.json", m);
    QVERIFY2(p.ok(), p.ok() ? "" : p.error().describe().c_str());
    QCOMPARE(p->iterations, 2);
    QCOMPARE(p->nodes.size(), size_t(3));
    QCOMPARE(p->find("/act/Relu")->irNodes, std::vector<std::string>{"/act/Relu"});
    QCOMPARE(p->find("/act/Relu")->timeMs.median, 0.0215);  // runs 2 and 3: 21 and 22 us
    QVERIFY(p->unmatched.empty());
    QCOMPARE(p->source, std::string("imported:trace.json"));
  }

  void importProfileDispatches() {
    Model m = chainModel();
    test::TempDir dir("dispatch");
    write(dir / "n.json", attachment({metric("node", "/fc1/MatMul", "latency_us", 120)}));
    auto a = importProfile(dir / "n.json", m);
    QVERIFY(a.ok());
    QCOMPARE(a->runtime, std::string("netron:attachment"));
    QVERIFY(qAbs(a->nodes.at(0).timeMs.median - 0.12) < 1e-12);

    // Our own profile JSON re-matched against this model: stale IR names are dropped.
    ProfileData own;
    own.device = "cpu";
    NodeProfile fused;
    fused.name = "fused_fc1";
    fused.irNodes = {"/fc1/MatMul", "/old/Add"};
    NodeProfile plain;
    plain.name = "/fc2/MatMul";
    NodeProfile stranger;
    stranger.name = "mystery";
    own.nodes = {fused, plain, stranger};
    write(dir / "own.json", toJson(own).dump());
    auto b = importProfile(dir / "own.json", m);
    QVERIFY2(b.ok(), b.ok() ? "" : b.error().describe().c_str());
    QCOMPARE(b->find("fused_fc1")->irNodes, std::vector<std::string>{"/fc1/MatMul"});
    QCOMPARE(b->find("/fc2/MatMul")->irNodes, std::vector<std::string>{"/fc2/MatMul"});
    QCOMPARE(b->unmatched, std::vector<std::string>{"mystery"});

    auto c = importProfile(test::sourceDir() / "tests" / "data" / "msprof" / "linear_relu_ascend_pt", m);
    QVERIFY(c.ok());
    QCOMPARE(c->iterations, 2);
  }
};

QTEST_GUILESS_MAIN(TestProfileImport)
#include "tst_profile_import.moc"
