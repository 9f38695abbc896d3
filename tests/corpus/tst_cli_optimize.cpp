// msadvisor-cli optimize end to end on real models: the DESIGN.md JSON keys, the written model
// loads and matches the original, the op-count table, --list-passes, --only/--skip, exit 4 when
// the result fails verification (nothing written), and the input file is never overwritten.
#include <QtTest>

#include <QCryptographicHash>
#include <QFile>
#include <QProcess>

#include <fstream>

#include <nlohmann/json.hpp>

#include "model/onnx_io.h"
#include "optimize/verify.h"
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

QByteArray sha(const fs::path& p) {
  QFile f(path(p));
  if (!f.open(QIODevice::ReadOnly)) return {};
  return QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256);
}

}  // namespace

class TestCliOptimize : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
  }

  // Without flags the outputs are compared with the original, and the summary says what was
  // compared with which tolerance; --no-verify skips it and says so.
  void verifiesWithoutFlags() {
    test::TempDir dir("cliopt_default");
    Run r = cli({"optimize", model("squeezenet1_1.onnx"), "-o", path(dir / "opt.onnx"), "--json", path(dir / "r.json"),
                 "--progress", "none"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.out.contains("verification: passed: "), r.out.constData());
    QVERIFY2(r.out.contains("compared with the original's"), r.out.constData());
    QVERIFY2(r.out.contains("tolerance atol"), r.out.constData());
    const json j = readJson(dir / "r.json");
    QVERIFY(j["verification"].is_object());
    QCOMPARE(j["verification"]["passed"].get<bool>(), true);
    QVERIFY(!j["verification"]["outputs"].empty());
    Run skipped = cli({"optimize", model("squeezenet1_1.onnx"), "-o", path(dir / "opt2.onnx"), "--no-verify", "--progress", "none"});
    QVERIFY2(skipped.exitCode == 0, skipped.err.constData());
    QVERIFY2(skipped.out.contains("verification: outputs not compared"), skipped.out.constData());
  }

  void conservativeResnetWithMeasure() {
    test::TempDir dir("cliopt");
    const fs::path out = dir / "resnet18.opt.onnx", report = dir / "report.json";
    Run r = cli({"optimize", model("resnet18.onnx"), "-o", path(out), "--verify", "--measure", "--iterations", "5",
                 "--json", path(report), "--progress", "none"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    json j = readJson(report);
    for (const char* k : {"level", "applied", "rolled_back", "verification", "latency_ms", "estimated_speedup", "measured_speedup",
                          "op_counts", "size", "checker"})
      QVERIFY2(j.contains(k), k);
    QCOMPARE(j["level"].get<std::string>(), std::string("conservative"));
    QVERIFY(j["applied"].size() >= 20);  // ResNet-18 has 20 Conv -> BatchNormalization pairs
    for (const auto& a : j["applied"]) {
      for (const char* k : {"pass", "finding", "nodes_before", "nodes_after"}) QVERIFY2(a.contains(k), k);
      QCOMPARE(a["runtime_specific"].get<bool>(), false);
    }
    QVERIFY(j["rolled_back"].empty());
    QCOMPARE(j["verification"]["passed"].get<bool>(), true);
    QVERIFY(j["verification"]["max_abs_error"].get<double>() >= 0);
    QVERIFY(j["verification"].contains("max_rel_error"));
    QVERIFY(!j["verification"]["outputs"].empty());
    for (const char* k : {"original_disabled", "optimized_disabled", "original_all", "optimized_all"})
      QVERIFY2(j["latency_ms"][k].get<double>() > 0, k);
    QVERIFY(j["measured_speedup"].get<double>() > 0);
    QVERIFY2(j["estimated_speedup"].is_number(), j.dump().c_str());
    bool sawBn = false;
    for (const auto& row : j["op_counts"])
      if (row["op"] == "BatchNormalization") {
        sawBn = true;
        QCOMPARE(row["after"].get<int>(), 0);
        QCOMPARE(row["change"].get<int>(), -row["before"].get<int>());
      }
    QVERIFY(sawBn);
    QVERIFY(j["size"]["file_bytes_after"].get<int64_t>() > 0);
    // The file written is a valid model that computes what the original does.
    auto a = loadModel(test::corpusModel("resnet18.onnx"));
    auto b = loadModel(out);
    QVERIFY(a.ok() && b.ok());
    QCOMPARE(b->metadataValue("corpus_seed"), a->metadataValue("corpus_seed"));
    QVERIFY(checkModel(*b).passed);
    const VerifyOptions vo;
    auto v = Verifier::create(*a, vo);
    QVERIFY(v.ok());
    v->setTolerance(toleranceFor(OptLevel::Conservative));
    QVERIFY(v->check(*b).passed);
  }

  void textTable() {
    test::TempDir dir("cliopt");
    Run r = cli({"optimize", model("mobilenet_v2.onnx"), "-o", path(dir / "m.onnx"), "--progress", "none"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.contains("op type"));
    QVERIFY(r.out.contains("BatchNormalization"));
    QVERIFY(r.out.contains("model size"));
    QVERIFY(r.out.contains("fold_bn_into_conv"));
  }

  void aggressiveIsLabelled() {
    test::TempDir dir("cliopt");
    const fs::path report = dir / "r.json";
    Run r = cli({"optimize", model("mobilenet_v3_small.onnx"), "-o", path(dir / "m.onnx"), "--level", "aggressive",
                 "--skip", "ort_offline_optimize", "--verify", "--json", path(report), "--progress", "none"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    json j = readJson(report);
    int runtimeSpecific = 0;
    for (const auto& a : j["applied"]) runtimeSpecific += a["runtime_specific"].get<bool>();
    QVERIFY(runtimeSpecific > 0);
    for (const auto& p : j["passes"]) QVERIFY(p != "ort_offline_optimize");
    bool msDomain = false;
    for (const auto& o : j["opset_changes"]) msDomain = msDomain || o["domain"] == "com.microsoft";
    QVERIFY(msDomain);
    QVERIFY(!j["checker"]["skipped"].empty());  // libonnx cannot check FusedConv and says so
  }

  void listPasses() {
    Run r = cli({"optimize", "--list-passes"});
    QCOMPARE(r.exitCode, 0);
    for (const char* p : {"fold_bn_into_conv", "fuse_conv_activation", "ort_offline_optimize"}) QVERIFY2(r.out.contains(p), p);
    QVERIFY(r.out.contains("aggressive"));
    QVERIFY(r.out.contains("conservative"));
  }

  void usageErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("unknown pass") << QStringList{"--only", "no_such_pass"} << "unknown pass 'no_such_pass'";
    QTest::newRow("pass above level") << QStringList{"--only", "fuse_conv_activation"} << "needs --level aggressive";
    QTest::newRow("bad level") << QStringList{"--level", "reckless"} << "--level is conservative, moderate or aggressive";
  }

  void usageErrors() {
    QFETCH(QStringList, args);
    QFETCH(QString, fragment);
    test::TempDir dir("cliopt");
    Run r = cli(QStringList{"optimize", model("squeezenet1_1.onnx"), "-o", path(dir / "x.onnx")} + args);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(fragment.toUtf8()), r.err.constData());
    QVERIFY(!fs::exists(dir / "x.onnx"));
  }

  // Tolerances of zero with no rollback: folding BatchNormalization changes the float rounding,
  // the final verification fails, exit 4, nothing written, the report says why.
  void verificationFailureExits4() {
    test::TempDir dir("cliopt");
    const fs::path out = dir / "x.onnx", report = dir / "r.json";
    Run r = cli({"optimize", model("resnet18.onnx"), "-o", path(out), "--verify", "--no-rollback", "--atol", "0", "--rtol",
                 "0", "--json", path(report), "--progress", "none"});
    QCOMPARE(r.exitCode, 4);
    QVERIFY2(r.err.contains("does not match the original"), r.err.constData());
    QVERIFY(!fs::exists(out));
    json j = readJson(report);
    QCOMPARE(j["verification"]["passed"].get<bool>(), false);
    QVERIFY(j["verification"]["max_abs_error"].get<double>() > 0);
    QVERIFY(j["output"].is_null());
  }

  // With rollback the same zero tolerance rolls every inexact rewrite back instead.
  void zeroToleranceRollsBack() {
    test::TempDir dir("cliopt");
    const fs::path out = dir / "x.onnx", report = dir / "r.json";
    Run r = cli({"optimize", model("mobilenet_v3_small.onnx"), "-o", path(out), "--verify", "--atol", "0", "--rtol", "0",
                 "--json", path(report), "--progress", "none"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    json j = readJson(report);
    QCOMPARE(j["verification"]["passed"].get<bool>(), true);
    QCOMPARE(j["verification"]["max_abs_error"].get<double>(), 0.0);
    QVERIFY(!j["rolled_back"].empty());
    for (const auto& b : j["rolled_back"]) QVERIFY(b["reason"].get<std::string>().find("beyond atol 0") != std::string::npos);
    for (const auto& a : j["applied"]) QVERIFY(a["pass"] != "fold_bn_into_conv");  // every fold changes the rounding
  }

  void neverOverwritesTheInput() {
    test::TempDir dir("cliopt");
    const fs::path in = dir / "model.onnx";
    fs::copy_file(test::corpusModel("squeezenet1_1.onnx"), in);
    const QByteArray before = sha(in);
    Run r = cli({"optimize", path(in), "-o", path(in), "--progress", "none"});
    QCOMPARE(r.exitCode, 1);  // a usage error, as every verb refuses an output over its input
    QVERIFY2(r.err.contains("refusing to write over"), r.err.constData());
    QCOMPARE(sha(in), before);
    // Through another spelling of the same path too.
    Run r2 = cli({"optimize", path(in), "-o", path(dir.path() / "." / "model.onnx"), "--progress", "none"});
    QCOMPARE(r2.exitCode, 1);
    QCOMPARE(sha(in), before);
  }

  // A source with external data: the output keeps its weights external, and an output whose data
  // file would land on the source's data file is refused before any work (nothing touched).
  void externalData() {
    test::TempDir dir("cliopt");
    auto src = loadModel(test::corpusModel("squeezenet1_1.onnx"));
    QVERIFY(src.ok());
    SaveOptions so;
    so.external = SaveOptions::External::Always;
    so.externalFileName = "out.onnx.data";
    QVERIFY(saveModel(*src, dir / "src.onnx", so).ok());
    const QByteArray before = sha(dir / "out.onnx.data");
    Run clash = cli({"optimize", path(dir / "src.onnx"), "-o", path(dir / "out.onnx"), "--progress", "none"});
    QCOMPARE(clash.exitCode, 1);
    QVERIFY2(clash.err.contains("external data"), clash.err.constData());
    QCOMPARE(sha(dir / "out.onnx.data"), before);
    QVERIFY(!fs::exists(dir / "out.onnx"));

    Run ok = cli({"optimize", path(dir / "src.onnx"), "-o", path(dir / "opt.onnx"), "--verify", "--progress", "none"});
    QVERIFY2(ok.exitCode == 0, ok.err.constData());
    QVERIFY(fs::exists(dir / "opt.onnx.data"));
    QVERIFY(fs::file_size(dir / "opt.onnx") < fs::file_size(dir / "opt.onnx.data"));
    auto back = loadModel(dir / "opt.onnx");
    QVERIFY(back.ok());
  }

  // PP-OCRv4 rec has dynamic batch and width: its LayerNorms' normalized axis is unknown to shape
  // inference, so they stay decomposed; with --static the bound dims are written into the input
  // first and the LayerNorms fuse (opset 9 -> 17), verified at those dims.
  void staticDims() {
    test::TempDir dir("cliopt");
    const QStringList dims{"--dim", "p2o.DynamicDimension.0=1", "--dim", "p2o.DynamicDimension.1=320"};
    auto lnAfter = [](const json& j) {
      for (const auto& o : j["op_counts"])
        if (o["op"] == "LayerNormalization") return o["after"].get<long long>();
      return 0LL;
    };
    Run dyn = cli(QStringList{"optimize", model("ch_PP-OCRv4_rec_infer.onnx"), "-o", path(dir / "d.onnx"), "--level", "moderate",
                              "--only", "fuse_layernorm", "--json", path(dir / "d.json"), "--progress", "none"} + dims);
    QVERIFY2(dyn.exitCode == 0, dyn.err.constData());
    QCOMPARE(lnAfter(readJson(dir / "d.json")), 0LL);

    Run st = cli(QStringList{"optimize", model("ch_PP-OCRv4_rec_infer.onnx"), "-o", path(dir / "s.onnx"), "--level", "moderate",
                             "--only", "fuse_layernorm", "--verify", "--static", "--json", path(dir / "s.json"), "--progress", "none"} +
                 dims);
    QVERIFY2(st.exitCode == 0, st.err.constData());
    const json j = readJson(dir / "s.json");
    QVERIFY(lnAfter(j) > 0);
    QCOMPARE(j["verification"]["passed"].get<bool>(), true);
    bool said = false;
    for (const auto& w : j["warnings"]) said = said || w.get<std::string>().find("specialised") != std::string::npos;
    QVERIFY(said);
    auto written = loadModel(dir / "s.onnx");
    QVERIFY(written.ok());
    QVERIFY(written->graph.inputs[0].type.shape.has_value());
    for (const auto& d : written->graph.inputs[0].type.shape->dims) QVERIFY(d.known());
    QCOMPARE(written->opset(), int64_t(17));

    Run noDims = cli({"optimize", model("ch_PP-OCRv4_rec_infer.onnx"), "-o", path(dir / "n.onnx"), "--static", "--progress", "none"});
    QCOMPARE(noDims.exitCode, 1);
    QVERIFY2(noDims.err.contains("--static binds the dims"), noDims.err.constData());
  }

  void unverifiableModel() {
    test::TempDir dir("cliopt");
    Run r = cli({"optimize", model("onnx-testdata_pytorch-operator_test_operator_basic.onnx"), "-o", path(dir / "x.onnx"),
                 "--verify", "--progress", "none"});
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.contains("cannot verify"), r.err.constData());
    QVERIFY(!fs::exists(dir / "x.onnx"));
  }
};

QTEST_GUILESS_MAIN(TestCliOptimize)
#include "tst_cli_optimize.moc"
