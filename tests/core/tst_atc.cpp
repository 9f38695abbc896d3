// ATC command line and process handling (with stand-in `atc` scripts: CANN is not installed
// here), and the plain refusal of the ACL backend in a build without CANN.
#include <QtTest>

#include <sys/stat.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "model/onnx_io.h"
#include "profile/acl_profiler.h"
#include "profile/atc.h"
#include "test_paths.h"

using namespace msa;
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

Model symbolicModel() {
  Model m;
  m.opsets.push_back({"", 17});
  Shape s;
  s.dims = {Dim{-1, "batch"}, Dim{3, {}}, Dim{-1, {}}, Dim{224, {}}};
  m.graph.inputs.push_back({"pixels", TypeInfo::tensor(DType::Float, s), {}, {}});
  m.graph.inputs.push_back({"w", TypeInfo::tensor(DType::Float, Shape{8}), {}, {}});
  m.graph.initializers.push_back(Tensor::fromValues("w", DType::Float, {8}, std::vector<float>(8, 1.f)));
  Node n;
  n.opType = "Relu";
  n.inputs = {"pixels"};
  n.outputs = {"y"};
  m.graph.addNode(n);
  m.graph.outputs.push_back({"y", TypeInfo::tensor(DType::Float, s), {}, {}});
  return m;
}

fs::path script(const test::TempDir& dir, const std::string& name, const std::string& body) {
  fs::path p = dir / name;
  std::ofstream(p) << "#!/bin/sh\n" << body;
  ::chmod(p.c_str(), 0755);
  return p;
}

// A stand-in that writes <output>.om like ATC does and records its arguments.
const char* kFakeAtc = R"(for a in "$@"; do echo "$a" >> "$(dirname "$0")/args.txt"; done
for a in "$@"; do case "$a" in --output=*) out="${a#--output=}";; esac; done
echo "ATC start working now, please wait for a moment."
printf 'IMOD' > "$out.om"
echo "ATC run success, welcome to the next use."
)";

}  // namespace

class TestAtc : public QObject {
  Q_OBJECT
 private slots:
  void inputShapeFromTheModel() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    auto m = loadModel(test::corpusModel("resnet18.onnx"));
    QVERIFY(m.ok());
    AtcOptions o;
    auto s = atcInputShape(*m, o);
    QVERIFY2(s.ok(), s.ok() ? "" : s.error().describe().c_str());
    QCOMPARE(*s, m->graph.inputs.at(0).name + ":1,3,224,224");
  }

  void symbolicDimsNeedBindings() {
    Model m = symbolicModel();
    AtcOptions o;
    auto unbound = atcInputShape(m, o);
    QVERIFY(!unbound.ok());
    QVERIFY2(QString::fromStdString(unbound.error().message).contains(QLatin1String("--dim batch=N")),
             unbound.error().message.c_str());
    QCOMPARE(unbound.error().kind, ErrorKind::Usage);
    o.dims["batch"] = 4;
    auto axis = atcInputShape(m, o);
    QVERIFY(!axis.ok());  // dim 2 has no name: bound by input:axis
    QVERIFY(QString::fromStdString(axis.error().message).contains(QLatin1String("--dim pixels:2=N")));
    o.dims["pixels:2"] = 160;
    auto ok = atcInputShape(m, o);
    QVERIFY(ok.ok());
    QCOMPARE(*ok, std::string("pixels:4,3,160,224"));  // the initializer listed as an input is left out
  }

  void commandLine() {
    Model m = symbolicModel();
    AtcOptions o;
    o.dims = {{"batch", 1}, {"pixels:2", 224}};
    o.outputDir = "/tmp/out";
    auto noSoc = atcCommand(m, "/models/net.onnx", o);
    QVERIFY(!noSoc.ok());
    QVERIFY(QString::fromStdString(noSoc.error().message).contains(QLatin1String("--soc-version")));
    o.socVersion = "Ascend310P3";
    o.atc = "/opt/cann/bin/atc";
    o.extraArgs = {"--precision_mode=force_fp16"};
    auto argv = atcCommand(m, "/models/net.onnx", o);
    QVERIFY(argv.ok());
    QCOMPARE(*argv, (std::vector<std::string>{"/opt/cann/bin/atc", "--model=/models/net.onnx", "--framework=5",
                                              "--output=/tmp/out/net", "--soc_version=Ascend310P3",
                                              "--input_shape=pixels:1,3,224,224", "--log=error",
                                              "--precision_mode=force_fp16"}));
  }

  void convertsWithAStandIn() {
    test::TempDir dir("atc-ok");
    Model m = symbolicModel();
    AtcOptions o;
    o.dims = {{"batch", 2}, {"pixels:2", 64}};
    o.socVersion = "Ascend910B4";
    o.atc = script(dir, "atc", kFakeAtc);
    o.outputDir = dir / "om";
    auto r = convertWithAtc(m, dir / "tiny.onnx", o);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
    QCOMPARE(r->om, dir / "om" / "tiny.om");
    QVERIFY(fs::is_regular_file(r->om));
    QVERIFY(QString::fromStdString(r->log).contains(QLatin1String("ATC run success")));
    std::ifstream args(dir / "args.txt");
    std::string all((std::istreambuf_iterator<char>(args)), {});
    QVERIFY(QString::fromStdString(all).contains(QLatin1String("--input_shape=pixels:2,3,64,224")));
    QVERIFY(QString::fromStdString(all).contains(QLatin1String("--soc_version=Ascend910B4")));
  }

  void failuresQuoteAtc_data() {
    QTest::addColumn<QString>("body");
    QTest::addColumn<QString>("fragment");
    QTest::newRow("error code") << "echo 'ATC start working now'\n"
                                   "echo 'E10016: Input parameter [--input_shape] opname [pixels] is not found in model' >&2\n"
                                   "echo 'ATC run failed, Please check the detail log' >&2\nexit 1\n"
                                << "E10016";
    QTest::newRow("exit code") << "exit 3\n"
                               << "exit code 3";
    QTest::newRow("no om written") << "echo 'ATC run success'\n"
                                   << "wrote no";
    QTest::newRow("crash") << "kill -SEGV $$\n"
                           << "signal 11";
  }
  void failuresQuoteAtc() {
    QFETCH(QString, body);
    QFETCH(QString, fragment);
    test::TempDir dir("atc-fail");
    Model m = symbolicModel();
    AtcOptions o;
    o.dims = {{"batch", 1}, {"pixels:2", 8}};
    o.socVersion = "Ascend310P3";
    o.atc = script(dir, "atc", body.toStdString());
    o.outputDir = dir / "om";
    auto r = convertWithAtc(m, dir / "tiny.onnx", o);
    QVERIFY(!r.ok());
    QCOMPARE(r.error().kind, ErrorKind::Device);
    QVERIFY2(QString::fromStdString(r.error().message).contains(fragment), r.error().message.c_str());
  }

  void missingAtcIsAClearError() {
    test::TempDir dir("atc-missing");
    Model m = symbolicModel();
    AtcOptions o;
    o.dims = {{"batch", 1}, {"pixels:2", 8}};
    o.socVersion = "Ascend310P3";
    o.atc = dir / "no-such-atc";
    o.outputDir = dir / "om";
    auto r = convertWithAtc(m, dir / "tiny.onnx", o);
    QVERIFY(!r.ok());
    QVERIFY2(QString::fromStdString(r.error().message).contains(QLatin1String("cannot run")), r.error().message.c_str());
    QVERIFY(QString::fromStdString(r.error().message).contains(QLatin1String("ASCEND_TOOLKIT_HOME")));
  }

  void hangingAtcIsKilledAtTheTimeout() {
    // Ignores SIGTERM, and so does its child: the whole process group gets SIGKILL after 5 s.
    test::TempDir dir("atc-hang");
    Model m = symbolicModel();
    AtcOptions o;
    o.dims = {{"batch", 1}, {"pixels:2", 8}};
    o.socVersion = "Ascend310P3";
    o.atc = script(dir, "atc", "trap '' TERM\necho compiling\nsleep 60\n");
    o.outputDir = dir / "om";
    o.timeout = std::chrono::seconds(1);
    auto t0 = Clock::now();
    auto r = convertWithAtc(m, dir / "tiny.onnx", o);
    const double s = std::chrono::duration<double>(Clock::now() - t0).count();
    QVERIFY(!r.ok());
    QVERIFY2(QString::fromStdString(r.error().message).contains(QLatin1String("did not finish within 1 s")),
             r.error().message.c_str());
    QVERIFY(QString::fromStdString(r.error().message).contains(QLatin1String("compiling")));
    QVERIFY2(s < 15, qPrintable(QString::number(s)));  // timeout + kill grace, not the 60 s sleep
  }

  void cancelStopsAtc() {
    test::TempDir dir("atc-cancel");
    Model m = symbolicModel();
    AtcOptions o;
    o.dims = {{"batch", 1}, {"pixels:2", 8}};
    o.socVersion = "Ascend310P3";
    o.atc = script(dir, "atc", "sleep 60\n");
    o.outputDir = dir / "om";
    std::atomic<bool> cancel{false};
    Progress progress({}, &cancel);
    std::thread stopper([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      cancel = true;
    });
    auto t0 = Clock::now();
    auto r = convertWithAtc(m, dir / "tiny.onnx", o, progress);
    stopper.join();
    QVERIFY(!r.ok());
    QCOMPARE(r.error().kind, ErrorKind::Cancelled);
    QVERIFY(std::chrono::duration<double>(Clock::now() - t0).count() < 10);
  }

  void aclBackendSaysPlainlyWhenAbsent() {
    if (aclBackendAvailable()) QSKIP("this build has CANN");
    Model m = symbolicModel();
    auto r = profileWithAcl(m, AclProfileOptions{});
    QVERIFY(!r.ok());
    QCOMPARE(r.error().kind, ErrorKind::Device);
    const QString msg = QString::fromStdString(r.error().message);
    QVERIFY(msg.contains(QLatin1String("CANN was not found")));
    QVERIFY(msg.contains(QLatin1String("ASCEND_TOOLKIT_HOME")));
  }
};

QTEST_GUILESS_MAIN(TestAtc)
#include "tst_atc.moc"
