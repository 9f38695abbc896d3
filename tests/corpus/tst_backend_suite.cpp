// ONNX's own backend test suite (Debian libonnx-testdata): every model is imported into the IR,
// exported again, and the exported bytes run by ONNX Runtime on each test_data_set_*; outputs
// must match the references (rtol 1e-3, atol 1e-7, as ONNX's backend tests). The original file
// runs too, as the control: what the runtime cannot run or gets wrong from the original is
// skipped with its reason; everything else that fails is a bug in our import or export.
#include <QtTest>

#include <map>

#include "backend_suite.h"
#include "model/onnx_io.h"
#include "test_paths.h"

using namespace msa;
using namespace msa::test;
namespace fs = std::filesystem;

namespace {

CaseResult runCase(const fs::path& dir) {
  CaseResult why;
  auto c = loadBackendCase(dir, &why);
  if (!c) return why;
  auto bytes = serializeModel(c->model);
  if (!bytes) return {Outcome::Fail, "export: " + bytes.error().describe()};
  if (auto skip = controlRun(*c)) return *skip;
  auto exported = OrtSession::fromBytes(*bytes, {}, c->file.string() + " (exported)");
  if (!exported) return {Outcome::Fail, "the exported model does not load: " + firstLine(exported.error().message)};
  bool runFailed = false;
  if (std::string w = runAndCompare(*exported, *c, &runFailed); !w.empty()) return {Outcome::Fail, "exported model: " + w};
  return {};
}

}  // namespace

class TestBackendSuite : public QObject {
  Q_OBJECT
  int m_passed = 0, m_failed = 0, m_skipped = 0;

 private slots:
  void cleanupTestCase() {
    std::printf("backend suite: %d passed, %d failed, %d skipped\n", m_passed, m_failed, m_skipped);
  }

  void folder_data() {
    QTest::addColumn<QString>("folder");
    for (const char* f : {"node", "pytorch-converted", "pytorch-operator", "simple", "real"}) QTest::newRow(f) << f;
  }

  void folder() {
    QFETCH(QString, folder);
    const fs::path root = test::onnxTestData() / folder.toStdString();
    if (!fs::is_directory(root)) QSKIP("libonnx-testdata is not installed");
    const auto cases = backendCases(folder.toStdString());
    Tally tally;
    for (const auto& dir : cases) tally.add(folder.toStdString() + "/" + dir.filename().string(), runCase(dir));
    const int passed = tally.passed(), failed = tally.failed(), skipped = tally.skipped();
    m_passed += passed;
    m_failed += failed;
    m_skipped += skipped;
    std::printf("%s: %d passed, %d failed, %d skipped (of %zu)\n", folder.toStdString().c_str(), passed, failed, skipped,
                cases.size());
    std::fflush(stdout);
    QCOMPARE(failed, 0);
    QVERIFY(passed + skipped == static_cast<int>(cases.size()));
  }
};

QTEST_GUILESS_MAIN(TestBackendSuite)
#include "tst_backend_suite.moc"
