// msadvisor-cli what-if: the JSON contract, and --export writing exactly the variant it measured
// (the same fingerprint as the what-if run listed and as the file on disk), its session settings
// beside it, never over the model, nothing written outside the accuracy bound.
#include <QtTest>

#include "cli_run.h"
#include "model/onnx_io.h"
#include "model_builder.h"
#include "test_paths.h"
#include "whatif/whatif.h"

using namespace msa;
using namespace msa::test;
namespace fs = std::filesystem;

namespace {

// Conv -> Relu -> Conv -> Relu -> GlobalAveragePool -> Flatten -> Gemm: static QDQ and dynamic Gemm apply.
fs::path writeConvnet(const fs::path& dir) {
  ModelBuilder b("convnet", 17);
  auto x = b.input("x", {1, 8, 16, 16});
  auto a = b.relu(b.conv(x, 16, 3, {.pads = 1}));
  auto c = b.relu(b.conv(a, 16, 3, {.pads = 1}));
  auto p = b.node("GlobalAveragePool", {c}, {}, {TypeInfo::tensor(DType::Float, Shape{1, 16, 1, 1})})[0];
  auto f = b.node("Flatten", {p}, {Attribute::makeInt("axis", 1)}, {TypeInfo::tensor(DType::Float, Shape{1, 16})})[0];
  b.output(b.gemm(f, 10, true), "logits");
  const fs::path path = dir / "convnet.onnx";
  if (auto s = b.save(path); !s) qFatal("%s", s.error().describe().c_str());
  return path;
}

const QStringList kQuick{"--samples", "2", "--budget", "1", "--progress", "none"};

nlohmann::json variantNamed(const nlohmann::json& j, const std::string& name) {
  for (const auto& v : j["variants"])
    if (v["name"] == name) return v;
  return {};
}

}  // namespace

class TestWhatIfCli : public QObject {
  Q_OBJECT

 private slots:
  void exportWritesTheVariantMeasured() {
    TempDir dir("whatif-cli");
    const fs::path model = writeConvnet(dir.path());
    const fs::path listed = dir / "whatif.json";
    auto r = cli(QStringList{"what-if", path(model), "--json", path(listed)} + kQuick);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto j = readJson(listed);
    const auto st = variantNamed(j, "int8_static");
    QVERIFY(st.is_object());
    QVERIFY(st["within_bound"].get<bool>());
    const std::string fingerprint = st["fingerprint"].get<std::string>();
    QVERIFY(!fingerprint.empty());

    const fs::path out = dir / "convnet.int8.onnx", exported = dir / "export.json";
    r = cli(QStringList{"what-if", path(model), "--export", "int8_static", "-o", path(out), "--json", path(exported)} + kQuick);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(fs::exists(out));
    const auto e = readJson(exported);
    QCOMPARE(e["exported"]["fingerprint"].get<std::string>(), fingerprint);
    // The file on disk is that model, byte for byte as serialized.
    auto written = loadModel(out);
    QVERIFY(written);
    QCOMPARE(modelFingerprint(*written), fingerprint);
    const auto session = readJson(fs::path(out.string() + ".session.json"));
    QCOMPARE(session["variant"].get<std::string>(), std::string("int8_static"));
    QCOMPARE(session["graph_optimization_level"].get<std::string>(), std::string("ORT_ENABLE_ALL"));
    QVERIFY(session["intra_op_num_threads"].get<int>() >= 1);
    QCOMPARE(session["fingerprint"].get<std::string>(), fingerprint);
    // The written model holds the int8 weights behind DequantizeLinear.
    int dq = 0;
    for (const Node& n : written->graph.nodes) dq += n.opType == "DequantizeLinear";
    QVERIFY(dq >= 6);

    // A session-settings variant writes the original model and the settings that make it fast.
    const fs::path spin = dir / "convnet.spin.onnx";
    r = cli(QStringList{"what-if", path(model), "--export", "spinning_off", "-o", path(spin)} + kQuick);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto spinSettings = readJson(fs::path(spin.string() + ".session.json"));
    QCOMPARE(spinSettings["config_entries"]["session.intra_op.allow_spinning"].get<std::string>(), std::string("0"));
  }

  void exportRefusesWhatItMustNotWrite() {
    TempDir dir("whatif-cli-refuse");
    const fs::path model = writeConvnet(dir.path());
    const auto before = fs::file_size(model);
    // Never over the model.
    auto r = cli(QStringList{"what-if", path(model), "--export", "int8_static", "-o", path(model)} + kQuick);
    QVERIFY(r.exitCode != 0);
    QCOMPARE(fs::file_size(model), before);
    // Outside the bound: exit 4, nothing written.
    const fs::path out = dir / "strict.onnx";
    r = cli(QStringList{"what-if", path(model), "--export", "int8_static", "-o", path(out), "--bound", "cosine=1"} + kQuick);
    QCOMPARE(r.exitCode, 4);
    QVERIFY(!fs::exists(out));
    QVERIFY(!fs::exists(out.string() + ".session.json"));
    // A variant that does not exist.
    r = cli(QStringList{"what-if", path(model), "--export", "int4_magic", "-o", path(out)} + kQuick);
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.err.contains("int4_magic"));
    // --export without -o, a bad bound.
    QCOMPARE(cli(QStringList{"what-if", path(model), "--export", "int8_static"} + kQuick).exitCode, 1);
    QCOMPARE(cli(QStringList{"what-if", path(model), "--bound", "top1=2"} + kQuick).exitCode, 1);
  }

  void ascendEstimatesNeedNoRuntime() {
    TempDir dir("whatif-cli-ascend");
    const fs::path model = writeConvnet(dir.path());
    const fs::path out = dir / "ascend.json";
    auto r = cli(QStringList{"what-if", path(model), "--device", "ascend910b", "--json", path(out), "--progress", "none"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const auto j = readJson(out);
    QVERIFY(j["estimated"].get<bool>());
    QVERIFY(j["best"].is_null());
    const auto fp16 = variantNamed(j, "fp16");
    QVERIFY(fp16.is_object());
    QVERIFY(fp16["estimated"].get<bool>());
    QVERIFY(fp16["speedup"].get<double>() > 1);
    QVERIFY(fp16["option"].get<std::string>().find("--precision_mode") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TestWhatIfCli)
#include "tst_whatif_cli.moc"
