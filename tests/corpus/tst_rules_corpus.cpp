// The kernel, small-ops, precision and graph families on every corpus model: measured on this
// CPU through ONNX Runtime (optimizations disabled) where the runtime runs the model, estimated
// on Ascend 910B and 310P. Every finding keeps the invariants (rules_test_util.h); the counts per
// model and device are printed (MSA_PRINT_FINDINGS=1 prints every finding's title).
#include <QtTest>

#include <chrono>
#include <cstdlib>

#include "../core/rules_test_util.h"
#include "profile/ort_profiler.h"

using namespace msa;
using namespace msa::test;

namespace {

const std::vector<std::string_view> kFamilies{"kernel", "small_ops", "precision", "graph"};

std::map<std::string, int64_t, std::less<>> dimsOf(const QStringList& dims) {
  std::map<std::string, int64_t, std::less<>> out;
  for (const QString& d : dims) out[d.section(u'=', 0, 0).toStdString()] = d.section(u'=', 1).toLongLong();
  return out;
}

void report(const std::string& model, const std::string& device, const Analysed& a) {
  std::map<std::string, int> counts = a.byRule;
  double impact = 0;
  for (const auto& f : a.findings) impact += f.impact.ms;
  std::string line;
  for (const auto& [rule, n] : counts) line += " " + rule + "×" + std::to_string(n);
  std::printf("RULES %-40s %-14s latency %9.3f ms, %3zu findings, raw impact %8.3f ms:%s\n", model.c_str(), device.c_str(),
              a.state->context().latencyMs, a.findings.size(), impact, line.c_str());
  if (std::getenv("MSA_PRINT_FINDINGS"))
    for (const auto& f : a.findings)
      std::printf("    %-28s %8.3f ms (%s)  %s\n", f.rule.c_str(), f.impact.ms,
                  std::string(impactSourceName(f.impact.source)).c_str(), renderFinding(f, Lang::En).title.c_str());
  std::fflush(stdout);
}

}  // namespace

class TestRulesCorpus : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    if (!hasCorpus()) QSKIP("no model corpus");
  }

  void everyModel_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QStringList>("dims");
    const std::map<std::string, QStringList> dims = {
        {"ch_PP-OCRv4_rec_infer.onnx", {"p2o.DynamicDimension.0=1", "p2o.DynamicDimension.1=320"}},
        {"ch_ppocr_mobile_v2.0_cls_infer.onnx",
         {"p2o.DynamicDimension.0=1", "p2o.DynamicDimension.1=48", "p2o.DynamicDimension.2=192"}},
        {"silero_vad_legacy.onnx", {"batch=1", "sequence=512"}},
        {"silero_vad_v6.onnx", {"input:0=1", "input:1=512", "state:1=1"}},
    };
    for (const auto& path : corpusModels()) {
      const std::string name = path.filename().string();
      auto it = dims.find(name);
      QTest::newRow(name.c_str()) << QString::fromStdString(name) << (it == dims.end() ? QStringList{} : it->second);
    }
  }

  void everyModel() {
    QFETCH(QString, file);
    QFETCH(QStringList, dims);
    ShapeOptions shapes;
    shapes.dims = dimsOf(dims);
    const Model m = loadCorpus(file.toStdString(), shapes);
    const std::string name = file.toStdString();

    CpuProfileOptions o;
    o.iterations = 5;
    o.warmup = 1;
    for (const auto& [k, v] : shapes.dims) o.inputs.dims[k] = v;
    auto profile = profileOnCpu(m, o);
    if (profile) {
      Analysed cpu = analyse(m, device("cpu-host"), kFamilies, &*profile);
      report(name, "cpu measured", cpu);
      QCOMPARE(QString::fromStdString(violations(cpu)), QString());
    } else {
      std::printf("RULES %-40s cpu measured: the runtime does not run it (%s)\n", name.c_str(),
                  profile.error().describe().c_str());
    }
    for (const char* dev : {"ascend910b", "ascend310p"}) {
      Analysed a = analyse(m, device(dev), kFamilies);
      report(name, dev, a);
      QCOMPARE(QString::fromStdString(violations(a)), QString());
    }
  }
};

QTEST_GUILESS_MAIN(TestRulesCorpus)
#include "tst_rules_corpus.moc"
