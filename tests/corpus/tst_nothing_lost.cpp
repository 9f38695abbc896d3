// Nothing the user owns is lost: a write that fails (disk full, a file-size limit, permission
// denied) leaves neither a half-written file nor a stray temporary, keeps the old file intact,
// and says why. Runs the built CLI on a builder model (no corpus needed).
#include <QtTest>

#include <unistd.h>

#include <fstream>
#include <set>

#include "cli_run.h"
#include "model/onnx_io.h"
#include "model_builder.h"
#include "test_paths.h"

using namespace msa;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Files in `dir` other than `keep`.
QStringList strays(const fs::path& dir, const std::set<std::string>& keep) {
  QStringList out;
  for (const auto& e : fs::directory_iterator(dir))
    if (!keep.count(e.path().filename().string())) out << QString::fromStdString(e.path().filename().string());
  return out;
}

// The CLI under a file-size limit of `bytes` (prlimit: RLIMIT_FSIZE), as a crash-free stand-in
// for a disk that fills up halfway through a file.
test::CliRun limited(qint64 bytes, QStringList args) {
  return test::cli(QStringList{QStringLiteral("--fsize=%1").arg(bytes), QString::fromStdString(test::cliPath().string())} + args,
                   600000, QProcessEnvironment::systemEnvironment(), QStringLiteral("prlimit"));
}

}  // namespace

class TestNothingLost : public QObject {
  Q_OBJECT
  std::unique_ptr<test::TempDir> m_dir;
  fs::path m_model;

 private slots:
  void initTestCase() {
    m_dir = std::make_unique<test::TempDir>("nothing-lost");
    test::ModelBuilder b("m", 17, 3);
    auto x = b.input("x", {1, 64});
    b.output(b.relu(b.linear(x, 256)), "y");
    m_model = m_dir->path() / "model.onnx";
    QVERIFY(saveModel(b.build(), m_model));
  }

  void fileSizeLimitKeepsTheOldExport() {
    const fs::path out = m_dir->path() / "out.onnx";
    std::ofstream(out) << "the user's previous export";
    auto r = limited(4096, {"optimize", test::path(m_model), "-o", test::path(out)});
    QVERIFY2(r.exitCode > 0, r.err.constData());
    QVERIFY2(r.err.contains("File too large") && r.err.contains("out.onnx"), r.err.constData());
    QCOMPARE(slurp(out), std::string("the user's previous export"));
    QCOMPARE(strays(m_dir->path(), {"model.onnx", "out.onnx"}), QStringList());
  }

  void fileSizeLimitOnAReport() {
    const fs::path json = m_dir->path() / "info.json";
    auto r = limited(100, {"info", test::path(m_model), "--json", test::path(json)});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("cannot write") && r.err.contains("File too large"), r.err.constData());
    QVERIFY(!fs::exists(json));
    QCOMPARE(strays(m_dir->path(), {"model.onnx", "out.onnx"}), QStringList());
  }

  // /dev/full answers every write with ENOSPC: the disk-full path, for real.
  void diskFullIsSaid() {
    auto r = test::cli({"info", test::path(m_model), "--json", "/dev/full"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("No space left on device"), r.err.constData());
    QVERIFY(fs::exists("/dev/full") && !fs::is_regular_file("/dev/full"));
  }

  // No output of any verb lands on a file the run reads: the model (by its own name, a symlink or
  // a hard link), a profile, or a second output of the same run. Refused before any work, exit 1.
  void outputsNeverLandOnInputs_data() {
    QTest::addColumn<QStringList>("args");  // MODEL stands for the model's path, LINK for a symlink, HARD for a hard link
    QTest::newRow("info --json") << QStringList{"info", "MODEL", "--json", "MODEL"};
    QTest::newRow("estimate --json") << QStringList{"estimate", "MODEL", "--json", "MODEL"};
    QTest::newRow("profile --json") << QStringList{"profile", "MODEL", "--json", "MODEL"};
    QTest::newRow("profile --trace") << QStringList{"profile", "MODEL", "--trace", "MODEL"};
    QTest::newRow("optimize --json") << QStringList{"optimize", "MODEL", "-o", "OUT", "--json", "MODEL"};
    QTest::newRow("analyze --md") << QStringList{"analyze", "MODEL", "--device", "ascend910b", "--md", "MODEL"};
    QTest::newRow("compare --json") << QStringList{"compare", "MODEL", "MODEL", "--json", "MODEL"};
    QTest::newRow("through a symlink") << QStringList{"info", "MODEL", "--json", "LINK"};
    QTest::newRow("through a hard link") << QStringList{"estimate", "MODEL", "--json", "HARD"};
    QTest::newRow("two outputs, one file") << QStringList{"analyze", "MODEL", "--device", "ascend910b", "--json", "OUT",
                                                          "--html", "OUT"};
  }
  void outputsNeverLandOnInputs() {
    QFETCH(QStringList, args);
    test::TempDir dir("nothing-lost-in");
    const fs::path model = dir / "model.onnx";
    fs::copy_file(m_model, model);
    fs::create_symlink(model, dir / "link.json");
    fs::create_hard_link(model, dir / "hard.json");
    const std::string before = slurp(model);
    for (QString& a : args) {
      if (a == "MODEL") a = test::path(model);
      else if (a == "LINK") a = test::path(dir / "link.json");
      else if (a == "HARD") a = test::path(dir / "hard.json");
      else if (a == "OUT") a = test::path(dir / "out");
    }
    const auto r = test::cli(args);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("refusing to write over its input") || r.err.contains("the second would replace the first"),
             r.err.constData());
    QCOMPARE(slurp(model), before);
    QVERIFY(!fs::exists(dir / "out"));  // refused before any work
  }

  // The model's own external data is an input too, and so is a model whose file name is the one
  // an export would give its generated data file.
  void externalDataIsNeverWrittenOver() {
    test::TempDir dir("nothing-lost-ext");
    test::ModelBuilder b("ext", 17, 3);
    auto x = b.input("x", {1, 64});
    b.output(b.relu(b.linear(x, 256)), "y");
    SaveOptions so;
    so.external = SaveOptions::External::Always;
    so.externalFileName = "w.bin";
    QVERIFY(saveModel(b.build(), dir / "model.onnx", so));
    const std::string weights = slurp(dir / "w.bin"), model = slurp(dir / "model.onnx");
    for (const QStringList& extra : {QStringList{"-o", test::path(dir / "w.bin")},
                                     QStringList{"-o", test::path(dir / "out.onnx"), "--json", test::path(dir / "w.bin")}}) {
      const auto r = test::cli(QStringList{"optimize", test::path(dir / "model.onnx")} + extra + QStringList{"--progress", "none"});
      QCOMPARE(r.exitCode, 1);
      QVERIFY2(r.err.contains("external data") && r.err.contains("w.bin"), r.err.constData());
    }
    const auto info = test::cli({"info", test::path(dir / "model.onnx"), "--json", test::path(dir / "w.bin")});
    QCOMPARE(info.exitCode, 1);
    QCOMPARE(slurp(dir / "w.bin"), weights);
    QCOMPARE(slurp(dir / "model.onnx"), model);
    QVERIFY(loadModel(dir / "model.onnx"));

    // A model saved as 'opt.onnx.data': '-o opt.onnx' would generate 'opt.onnx.data' over it.
    fs::rename(dir / "model.onnx", dir / "opt.onnx.data");
    const auto r = test::cli({"optimize", test::path(dir / "opt.onnx.data"), "-o", test::path(dir / "opt.onnx"),
                              "--progress", "none"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("opt.onnx.data"), r.err.constData());
    QCOMPARE(slurp(dir / "opt.onnx.data"), model);
    QVERIFY(!fs::exists(dir / "opt.onnx"));
  }

  // A folder the user may not write into.
  void permissionDenied() {
    // As root the CLI runs as nobody, who must reach the model and the CLI: the build tree need
    // not be reachable (a clone inside `mktemp -d` is 0700), so both go to a world-readable folder
    // in the system's temporary directory, with a copy of the CLI and ONNX Runtime.
    const bool root = ::geteuid() == 0;
    QTemporaryDir shared;
    const fs::path base = root ? fs::path(shared.path().toStdString()) : m_dir->path();
    if (root) fs::permissions(base, fs::perms::others_read | fs::perms::others_exec, fs::perm_options::add);
    const fs::path locked = base / "locked";
    fs::create_directories(locked);
    fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
    fs::copy_file(m_model, locked / "model.onnx");
    QStringList args{"optimize", test::path(locked / "model.onnx"), "-o", test::path(locked / "out.onnx")};
    test::CliRun r;
    if (root) {
      const fs::path bin = base / "bin";
      fs::create_directories(bin);
      fs::copy_file(test::cliPath(), bin / "msadvisor-cli");
      fs::copy_file(MSA_ORT_LIBRARY, bin / "libonnxruntime.so.1");
      QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
      env.insert(QStringLiteral("LD_LIBRARY_PATH"), test::path(bin));
      r = test::cli(QStringList{"--reuid=65534", "--regid=65534", "--clear-groups", test::path(bin / "msadvisor-cli")} + args,
                    600000, env, QStringLiteral("setpriv"));
    } else {
      r = test::cli(args);
    }
    QVERIFY2(r.exitCode > 0, r.err.constData());
    QVERIFY2(r.err.contains("Permission denied") && r.err.contains("out.onnx"), r.err.constData());
    QCOMPARE(strays(locked, {"model.onnx"}), QStringList());
  }
};

QTEST_GUILESS_MAIN(TestNothingLost)
#include "tst_nothing_lost.moc"
