// `msadvisor-cli profile --import` with the Ascend and Netron importers: the JSON the GUI and
// scripts read, matched against the real corpus model.
#include <QtTest>

#include <QProcess>

#include <fstream>

#include <nlohmann/json.hpp>

#include "test_paths.h"

using namespace msa;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

int runCli(const QStringList& args, QByteArray* err = nullptr) {
  QProcess p;
  p.start(QString::fromStdString(test::cliPath().string()), args);
  if (!p.waitForFinished(60000)) return -1;
  if (err) *err = p.readAllStandardError();
  return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
}

json readJson(const fs::path& p) { return json::parse(std::ifstream(p)); }
QString q(const fs::path& p) { return QString::fromStdString(p.string()); }

}  // namespace

class TestCliImport : public QObject {
  Q_OBJECT
 private slots:
  void msprofFolder() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    test::TempDir dir("cli-import");
    const fs::path prof = test::sourceDir() / "tests" / "data" / "msprof" / "resnet18_cann8";
    QByteArray err;
    int rc = runCli({QStringLiteral("profile"), QStringLiteral("--import"), q(prof), q(test::corpusModel("resnet18.onnx")),
                     QStringLiteral("--json"), q(dir / "p.json"), QStringLiteral("--progress"), QStringLiteral("none")},
                    &err);
    QVERIFY2(rc == 0, err.constData());
    json j = readJson(dir / "p.json");
    QCOMPARE(j["runtime"].get<std::string>(), std::string("msprof"));
    QCOMPARE(j["iterations"].get<int>(), 3);
    QCOMPARE(j["nodes"].size(), size_t(30));
    QCOMPARE(j["unmatched"], json::array({"MemcpyAsync_0"}));
    QCOMPARE(j["device_info"]["ai_core_num"].get<double>(), 8.0);
    bool sawTransData = false;
    for (const auto& n : j["nodes"])
      if (n["name"] == "trans_TransData_2") {
        sawTransData = true;
        QCOMPARE(n["inserted"].get<bool>(), true);
        QCOMPARE(n["producer_ir_node"].get<std::string>(), std::string("/avgpool/GlobalAveragePool"));
        QCOMPARE(n["consumer_ir_node"].get<std::string>(), std::string("/Flatten"));
        QCOMPARE(n["input_formats"], json::array({"NC1HWC0"}));
        QCOMPARE(n["output_formats"], json::array({"NCHW"}));
      }
    QVERIFY(sawTransData);
  }

  void malformedCsvIsAModelError() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    test::TempDir dir("cli-import-bad");
    const fs::path bad = test::sourceDir() / "tests" / "data" / "msprof" / "malformed" / "bad_number.csv";
    QByteArray err;
    int rc = runCli({QStringLiteral("profile"), QStringLiteral("--import"), q(bad), q(test::corpusModel("resnet18.onnx")),
                     QStringLiteral("--json"), q(dir / "e.json"), QStringLiteral("--progress"), QStringLiteral("none")},
                    &err);
    QCOMPARE(rc, 2);
    QVERIFY2(err.contains("bad_number.csv: line 4"), err.constData());
    json e = readJson(dir / "e.json");
    QVERIFY(e["error"]["message"].get<std::string>().find("line 4") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TestCliImport)
#include "tst_cli_import.moc"
