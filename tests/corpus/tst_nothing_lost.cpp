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
