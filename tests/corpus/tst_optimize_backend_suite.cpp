// ONNX's backend test suite through the optimizer at every level: each model is optimized (no
// verification, so nothing is rolled back behind the test's back), exported, and ONNX Runtime
// runs the exported bytes on the case's data sets; the outputs must match ONNX's reference
// outputs (rtol 1e-3, atol 1e-7). Cases the runtime cannot judge on the original are skipped with
// the control run's reason. "changed" counts the cases where the optimizer rewrote something.
#include <QtTest>

#include "backend_suite.h"
#include "model/onnx_io.h"
#include "optimize/optimizer.h"
#include "test_paths.h"

using namespace msa;
using namespace msa::test;
namespace fs = std::filesystem;

namespace {

CaseResult runCase(const fs::path& dir, OptLevel level, bool* changed) {
  *changed = false;
  CaseResult why;
  auto c = loadBackendCase(dir, &why);
  if (!c) return why;
  if (auto skip = controlRun(*c)) return *skip;
  OptimizeOptions o;
  o.level = level;
  o.verify = false;
  auto r = optimize(c->model, o);
  if (!r) return {Outcome::Fail, "optimize: " + r.error().describe()};
  *changed = !r->applied.empty();
  if (r->checker.ran && !r->checker.passed) return {Outcome::Fail, "the ONNX checker rejects the result: " + r->checker.message};
  auto bytes = serializeModel(r->model);
  if (!bytes) return {Outcome::Fail, "export: " + bytes.error().describe()};
  auto s = OrtSession::fromBytes(*bytes, {}, c->file.string() + " (optimized)");
  if (!s) return {Outcome::Fail, "the optimized model does not load: " + firstLine(s.error().message)};
  bool runFailed = false;
  if (std::string w = runAndCompare(*s, *c, &runFailed); !w.empty()) {
    std::string passes;
    for (const auto& a : r->applied) passes += (passes.empty() ? "" : ",") + a.pass;
    return {Outcome::Fail, "optimized model (" + passes + "): " + w};
  }
  return {};
}

}  // namespace

class TestOptimizeBackendSuite : public QObject {
  Q_OBJECT
  int m_passed = 0, m_failed = 0, m_skipped = 0, m_changed = 0;

 private slots:
  void cleanupTestCase() {
    std::printf("backend suite through the optimizer (3 levels): %d passed, %d failed, %d skipped\n", m_passed, m_failed,
                m_skipped);
    std::printf("cases the optimizer changed: %d\n", m_changed);
  }

  void folder_data() {
    QTest::addColumn<QString>("folder");
    QTest::addColumn<int>("level");
    for (const char* f : {"node", "pytorch-converted", "pytorch-operator", "simple", "real"})
      for (OptLevel l : {OptLevel::Conservative, OptLevel::Moderate, OptLevel::Aggressive})
        QTest::newRow((std::string(f) + "@" + std::string(levelName(l))).c_str()) << f << static_cast<int>(l);
  }

  void folder() {
    QFETCH(QString, folder);
    QFETCH(int, level);
    const auto cases = backendCases(folder.toStdString());
    if (cases.empty()) QSKIP("libonnx-testdata is not installed");
    const auto lvl = static_cast<OptLevel>(level);
    Tally tally;
    int changed = 0;
    for (const auto& dir : cases) {
      bool c = false;
      const std::string name = folder.toStdString() + "/" + dir.filename().string() + " @" + std::string(levelName(lvl));
      CaseResult r = runCase(dir, lvl, &c);
      tally.add(name, r);
      changed += c && r.outcome == Outcome::Pass;
    }
    m_changed += changed;
    m_passed += tally.passed();
    m_failed += tally.failed();
    m_skipped += tally.skipped();
    tally.print(folder.toStdString() + " @" + std::string(levelName(lvl)) + " (" + std::to_string(changed) + " changed)");
    QCOMPARE(tally.failed(), 0);
    QCOMPARE(tally.total(), static_cast<int>(cases.size()));
  }
};

QTEST_GUILESS_MAIN(TestOptimizeBackendSuite)
#include "tst_optimize_backend_suite.moc"
