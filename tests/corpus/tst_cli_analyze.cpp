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
