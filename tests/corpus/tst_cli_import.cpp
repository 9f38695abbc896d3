// `msadvisor-cli profile --import` with the Ascend and Netron importers: the JSON the GUI and
// scripts read, matched against the real corpus model.
#include <QtTest>

#include <QProcess>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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

// Runs the CLI with `fifo` as its output, reading the pipe while it runs; returns what came through.
QByteArray runIntoFifo(const QStringList& args, const fs::path& fifo, int* rc) {
  const int fd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);  // a reader first, so the writer's open() returns
  QByteArray got;
  QProcess p;
  p.start(QString::fromStdString(test::cliPath().string()), args);
  char buf[65536];
  auto drain = [&] {
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) got.append(buf, static_cast<qsizetype>(n));
  };
  for (int i = 0; i < 6000 && !p.waitForFinished(10); ++i) drain();
  drain();
  ::close(fd);
  *rc = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
  return got;
}

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

  // Writing "over" /dev/null or a pipe must write into it: renaming a temporary over it replaced
  // /dev/null itself with a regular file (seen on a shared machine, run as root).
  void outputsIntoAPipeKeepThePipe() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
    test::TempDir dir("cli-fifo");
    const fs::path fifo = dir / "out.fifo";
    QVERIFY(::mkfifo(fifo.c_str(), 0600) == 0);
    const QString model = q(test::corpusModel("resnet18.onnx"));
    const QStringList quiet{QStringLiteral("--progress"), QStringLiteral("none")};
    int rc = -1;
    QByteArray json = runIntoFifo({QStringLiteral("info"), model, QStringLiteral("--json"), q(fifo)}, fifo, &rc);
    QCOMPARE(rc, 0);
    QVERIFY2(json.contains("\"nodes\""), json.left(200).constData());
    struct stat st {};
    QVERIFY(::lstat(fifo.c_str(), &st) == 0 && S_ISFIFO(st.st_mode));
    QByteArray md = runIntoFifo(QStringList{QStringLiteral("analyze"), model, QStringLiteral("--device"), QStringLiteral("ascend910b"),
                                            QStringLiteral("--md"), q(fifo)} + quiet,
                                fifo, &rc);
    QCOMPARE(rc, 0);
    QVERIFY(md.startsWith("#"));
    QVERIFY(::lstat(fifo.c_str(), &st) == 0 && S_ISFIFO(st.st_mode));
    QVERIFY(!fs::exists(dir / "out.fifo.tmp"));
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
