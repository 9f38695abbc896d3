// msadvisor-cli analyze end to end: ResNet-18 measured on this CPU (few iterations), ViT estimated
// on Ascend 910B, an imported profile, the focused views, every output format, exit codes.
#include <QtTest>

#include <QProcess>

#include <fstream>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "report/json_schema.h"
#include "cli_run.h"
#include "test_paths.h"

using namespace msa;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

using Run = test::CliRun;
using test::cli;
using test::model;
using test::path;
using test::readJson;

json schema() {
  std::ifstream in(test::sourceDir() / "docs" / "report-schema.json");
  return json::parse(in);
}

void checkReport(const json& j, const char* source) {
  const auto errors = validateJson(j, schema());
  QVERIFY2(errors.empty(), errors.empty() ? "" : (errors[0].path + ": " + errors[0].message).c_str());
  QCOMPARE(j["latency_source"].get<std::string>(), std::string(source));
  double top = 0, all = 0;
  std::map<std::string, double> impact;
  for (const auto& f : j["findings"]) {
    impact[f["id"]] = f["impact_ms"].get<double>();
    all += f["impact_ms"].get<double>();
  }
  for (const auto& id : j["bottlenecks"]) top += impact.at(id.get<std::string>());
  QVERIFY(top <= j["latency_ms"].get<double>());
  QVERIFY(all <= j["latency_ms"].get<double>() * (1 + 1e-12));
  std::set<std::string> nodes;
  for (const auto& n : j["nodes"]) nodes.insert(n["name"].get<std::string>());
  for (const auto& f : j["findings"])
    for (const auto& n : f["nodes"]) QVERIFY2(nodes.count(n.get<std::string>()), n.get<std::string>().c_str());
}

}  // namespace

class TestCliAnalyze : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    QVERIFY(fs::exists(test::cliPath()));
  }

  void resnetMeasuredOnCpu() {
    test::TempDir dir("cli_analyze");
    const Run r = cli({"analyze", model("resnet18.onnx"), "--device", "cpu", "--iterations", "2", "--warmup", "1", "--json",
                       path(dir / "r.json"), "--html", path(dir / "r.html"), "--md", path(dir / "r.md"), "--progress", "none"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const json j = readJson(dir / "r.json");
    checkReport(j, "measured");
    QCOMPARE(j["device"].get<std::string>(), std::string("cpu-host"));
    QVERIFY(j["runtime_latency_ms"].is_number());
    QCOMPARE(j["profile"]["optimization"].get<std::string>(), std::string("disabled"));
    QCOMPARE(j["runtime_profile"]["optimization"].get<std::string>(), std::string("all"));
    int convBn = 0;
    for (const auto& f : j["findings"]) convBn += f["rule"] == "fusion.conv_bn_act";
    QCOMPARE(convBn, 20);  // every Conv→BN of ResNet-18
    // The text sheet went to stdout, the files are there.
    QVERIFY(r.out.contains("Performance check-up"));
    QVERIFY(r.out.contains("measured"));
    QVERIFY(fs::file_size(dir / "r.html") > 10000);
    QVERIFY(fs::file_size(dir / "r.md") > 1000);
  }

  // A fresh, uncalibrated configuration folder: the first measured analysis calibrates this host
  // itself (progress on stderr), caches it, and the report is calibrated. The deployed run is the
  // headline; ResNet-18's Conv+BN folds are applied by ONNX Runtime and none is in the TOP list.
  // Runs alone (ctest's tst_cli_analyze_fresh): calibrated beside another test, the host's figures
  // read low, the optimum lands above the run and the report says so instead (CI saw it).
  void freshConfigCalibratesAndHeadlinesTheDeployedRun() {
    if (!qEnvironmentVariableIsSet("MSA_RUN_ALONE")) QSKIP("runs alone, as ctest's tst_cli_analyze_fresh");
    test::TempDir dir("cli_analyze_fresh");
    fs::create_directories(dir / "config");
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_CONFIG_HOME"), QString::fromStdString((dir / "config").string()));
    env.insert(QStringLiteral("HOME"), QString::fromStdString(dir.path().string()));
    const Run r = cli({"analyze", model("resnet18.onnx"), "--iterations", "3", "--warmup", "1", "--json", path(dir / "r.json")},
                      600000, env);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.err.contains("calibrate"), r.err.constData());  // its progress
    QVERIFY(fs::exists(dir / "config" / "msadvisor" / "host_calibration.json"));
    const json j = readJson(dir / "r.json");
    checkReport(j, "measured");
    QCOMPARE(j["device_calibrated"].get<bool>(), true);
    QCOMPARE(j["latency_run"].get<std::string>(), std::string("deployed"));
    QCOMPARE(j["latency_ms"].get<double>(), j["runtime_latency_ms"].get<double>());
    QVERIFY(j["unoptimized_latency_ms"].get<double>() > 0);
    QVERIFY(j["latency_p10_ms"].get<double>() <= j["latency_ms"].get<double>());
    QVERIFY(j["latency_p90_ms"].get<double>() >= j["latency_ms"].get<double>());
    const std::set<std::string> top(j["bottlenecks"].begin(), j["bottlenecks"].end());
    int folds = 0;
    for (const auto& f : j["findings"])
      if (f["rule"] == "fusion.conv_bn_act") {
        ++folds;
        QCOMPARE(f["applied_by"].get<std::string>(), std::string("onnxruntime"));
        QVERIFY2(!top.count(f["id"].get<std::string>()), f["id"].get<std::string>().c_str());
      }
    QCOMPARE(folds, 20);
    // As deployed, ONNX Runtime's convolutions can run faster than the rates the calibration
    // measures (on this two-vCPU VM: ResNet-18 at ~330 GFLOP/s, a 1024² MatMul at ~290 timed by the
    // one engine; CI saw the same): then the report states it and computes no gap, as every corpus
    // model's does (optimumNeverAboveTheDeployedRun). Otherwise the optimum is below the run.
    const bool above = j["optimum_above_latency"].get<bool>();
    if (above) {
      QCOMPARE(j["gap_ratio"].get<double>(), 0.0);
      QVERIFY(std::find(j["notes"].begin(), j["notes"].end(), "optimum_above_latency") != j["notes"].end() ||
              std::any_of(j["notes"].begin(), j["notes"].end(), [](const json& n) { return n.is_object() && n.value("key", "") == "optimum_above_latency"; }));
    } else {
      QVERIFY(j["optimum_ms"].get<double>() < j["latency_ms"].get<double>());
    }
    // The deployed run in one line; on a machine that stayed busy, said so first (issue 24).
    const std::string headline = j["headline"].get<std::string>();
    const bool busy = j["measurement"]["contended"].get<bool>();
    QCOMPARE(headline.rfind("Measured on a busy machine: ", 0) == 0, busy);
    QVERIFY2(headline.find("With ONNX Runtime's optimizer: ") == (busy ? headline.find(". With ") + 2 : 0), headline.c_str());
    QVERIFY2(above || headline.find("of the optimum") != std::string::npos, headline.c_str());
    QVERIFY2(r.out.contains(busy ? "In one line              Measured on a busy machine: "
                                 : "In one line              With ONNX Runtime's optimizer: "),
             r.out.constData());  // wrapped at 100 columns
    QVERIFY(j["measurement"]["threads"].get<int>() >= 1);
    QVERIFY(r.out.contains("applied by ONNX Runtime at load"));
  }

  // Every corpus model measured here: the optimum is never above the measured deployed latency
  // as a gap — either it is below, or the report states the fact and computes no gap.
  void optimumNeverAboveTheDeployedRun_data() {
    QTest::addColumn<QString>("file");
    for (const char* m : {"resnet18.onnx", "mobilenet_v3_small.onnx", "squeezenet1_1.onnx", "bert_like_encoder.onnx",
                          "vit_ti_16.onnx"})
      if (fs::exists(model(m).toStdString())) QTest::newRow(m) << QString::fromLatin1(m);
  }
  void optimumNeverAboveTheDeployedRun() {
    QFETCH(QString, file);
    test::TempDir dir("cli_analyze_optimum");
    const Run r = cli({"analyze", model(file.toStdString().c_str()), "--iterations", "3", "--warmup", "1", "--json", path(dir / "r.json"),
                       "--progress", "none"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const json j = readJson(dir / "r.json");
    checkReport(j, "measured");
    const double latency = j["latency_ms"].get<double>(), optimum = j["optimum_ms"].get<double>();
    // The run bounds the host's compute from below (rates_from_run): whatever the calibration
    // measured, the optimum's compute never exceeds the run it prices.
    QVERIFY2(j["optimum"]["compute_ms"].get<double>() <= latency,
             qPrintable(QString("compute %1 ms, run %2 ms").arg(j["optimum"]["compute_ms"].get<double>()).arg(latency)));
    if (optimum > latency * j["optimum"]["known_time_share"].get<double>()) {
      QVERIFY2(j["optimum_above_latency"].get<bool>(), j["headline"].get<std::string>().c_str());
      QCOMPARE(j["gap_ratio"].get<double>(), 0.0);
      QCOMPARE(j["percent_of_optimum"].get<double>(), 0.0);
    } else {
      QVERIFY(j["gap_ratio"].get<double>() == 0 || j["gap_ratio"].get<double>() >= 1.0);
      QVERIFY(j["percent_of_optimum"].get<double>() <= 100.0);
    }
    QVERIFY(j["total_impact_ms"].get<double>() <= std::max(0.0, latency - (j["optimum_above_latency"].get<bool>() ? 0.0 : optimum)) + 1e-9);
  }

  void vitEstimatedOnAscend() {
    test::TempDir dir("cli_analyze");
    const Run r = cli({"analyze", model("vit_ti_16.onnx"), "--device", "ascend910b", "--json", path(dir / "v.json"), "--lang",
                       "zh", "--goal", "throughput", "--scenario", "datacenter", "--top", "5"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const json j = readJson(dir / "v.json");
    checkReport(j, "estimated");
    QCOMPARE(j["device"].get<std::string>(), std::string("ascend910b"));
    QCOMPARE(j["lang"].get<std::string>(), std::string("zh"));
    QCOMPARE(j["goal"].get<std::string>(), std::string("throughput"));
    QVERIFY(j["bottlenecks"].size() <= 5);
    QVERIFY(j["profile"].is_null());
    QVERIFY(QString::fromUtf8(r.out).contains(u"性能体检报告"_qs));
  }

  void jsonToStdout() {
    const Run r = cli({"analyze", model("squeezenet1_1.onnx"), "--device", "ascend310p", "--json", "-", "--progress", "none"});
    QCOMPARE(r.exitCode, 0);
    const json j = json::parse(r.out.toStdString());  // nothing but the JSON on stdout
    checkReport(j, "estimated");
  }

  // A profile kept by `profile --json` is analysed as measured, without running anything.
  void importedProfile() {
    test::TempDir dir("cli_analyze");
    const Run p = cli({"profile", model("squeezenet1_1.onnx"), "--iterations", "2", "--warmup", "0", "--json", path(dir / "p.json"),
                       "--progress", "none"});
    QVERIFY2(p.exitCode == 0, p.err.constData());
    const Run r = cli({"analyze", model("squeezenet1_1.onnx"), "--profile", path(dir / "p.json"), "--device", "cpu", "--json",
                       path(dir / "a.json"), "--progress", "none"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const json j = readJson(dir / "a.json");
    checkReport(j, "measured");
    QVERIFY2(j["profile"]["source"].get<std::string>().rfind("imported", 0) == 0, j["profile"]["source"].dump().c_str());
  }

  void focusedViews_data() {
    QTest::addColumn<QString>("verb");
    QTest::addColumn<QString>("heading");
    QTest::newRow("fusions") << "fusions" << "Fusion";
    QTest::newRow("formats") << "formats" << "Format conversions";
    QTest::newRow("kernels") << "kernels" << "Kernel selection";
  }
  void focusedViews() {
    QFETCH(QString, verb);
    QFETCH(QString, heading);
    const Run r = cli({verb, model("mobilenet_v2.onnx"), "--device", "ascend910b", "--progress", "none"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.out.startsWith(heading.toUtf8()), r.out.left(200).constData());
    if (verb == u"fusions"_qs) QVERIFY(r.out.contains("Conv→BatchNormalization→Clip"));
  }

  void exitCodes_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("message");
    const QString m = model("squeezenet1_1.onnx");
    QTest::newRow("no model") << QStringList{"analyze"} << 1 << "expects one MODEL";
    QTest::newRow("bad goal") << QStringList{"analyze", m, "--goal", "speed"} << 1 << "--goal";
    QTest::newRow("bad lang") << QStringList{"analyze", m, "--lang", "fr"} << 1 << "--lang";
    QTest::newRow("bad top") << QStringList{"analyze", m, "--top", "0"} << 1 << "top";
    QTest::newRow("missing model") << QStringList{"analyze", "/nonexistent/model.onnx", "--device", "ascend910b"} << 2 << "model.onnx";
    QTest::newRow("unknown device") << QStringList{"analyze", m, "--device", "tpu9"} << 3 << "no device 'tpu9'";
    QTest::newRow("bad profile") << QStringList{"analyze", m, "--profile", "/nonexistent/prof.csv"} << 2 << "prof.csv";
    QTest::newRow("runtime cannot run it")
        << QStringList{"analyze", model("onnx-testdata_pytorch-operator_test_operator_basic.onnx"), "--device", "cpu", "--iterations", "1"}
        << 3 << "Could not find an implementation";
    QTest::newRow("unbound dims") << QStringList{"analyze", m, "--dim", "batch"} << 1 << "NAME=VALUE";
  }
  void exitCodes() {
    QFETCH(QStringList, args);
    QFETCH(int, code);
    QFETCH(QString, message);
    const Run r = cli(args + QStringList{"--progress", "none"});
    QCOMPARE(r.exitCode, code);
    QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
  }

  void neverWritesOverTheModel() {
    test::TempDir dir("cli_analyze");
    fs::copy_file(test::corpusModel("squeezenet1_1.onnx"), dir / "m.onnx");
    const auto before = fs::file_size(dir / "m.onnx");
    for (const char* opt : {"--html", "--md", "--json"}) {
      const Run r = cli({"analyze", path(dir / "m.onnx"), "--device", "ascend910b", opt, path(dir / "m.onnx"), "--progress", "none"});
      QCOMPARE(r.exitCode, 1);
      QVERIFY(r.err.contains("over its input"));
      QCOMPARE(fs::file_size(dir / "m.onnx"), before);
    }
  }
};

QTEST_GUILESS_MAIN(TestCliAnalyze)
#include "tst_cli_analyze.moc"
