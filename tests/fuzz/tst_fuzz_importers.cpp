// Seeded mutations of the importer fixtures (byte flips, truncation, stray quotes, separators,
// newlines): every input must give a profile or a clear error naming the file, never a crash.
// Run it under the asan preset too.
#include <QtTest>

#include <fstream>
#include <random>
#include <sstream>

#include "profile/attachment_import.h"
#include "profile/msprof_import.h"
#include "profile_fuzz_input.h"
#include "test_paths.h"

using namespace msa;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string mutate(std::string s, std::mt19937& rng) {
  static const char kPicks[] = {'"', ',', '\n', '\r', ';', '\t', '\0', '\xff', '-', '.', 'e', '9', '{', '}', '[', ']'};
  std::uniform_int_distribution<int> kind(0, 5);
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    size_t at = rng() % s.size();
    switch (kind(rng)) {
      case 0: s[at] = kPicks[rng() % sizeof kPicks]; break;
      case 1: s.insert(at, 1, kPicks[rng() % sizeof kPicks]); break;
      case 2: s.erase(at, 1 + rng() % 16); break;
      case 3: s.resize(at); break;
      case 4: s[at] = static_cast<char>(rng()); break;
      case 5: s.insert(at, s.substr(rng() % s.size(), 1 + rng() % 64)); break;
    }
  }
  return s;
}

Model chain() {
  Model m;
  m.opsets.push_back({"", 17});
  m.graph.inputs.push_back({"x", TypeInfo::tensor(DType::Float, Shape{1, 4}), {}, {}});
  std::string prev = "x";
  for (const char* n : {"/conv1/Conv", "/relu/Relu", "/maxpool/MaxPool"}) {
    Node node;
    node.name = n;
    node.opType = "Relu";
    node.inputs = {prev};
    prev = std::string(n) + "_out";
    node.outputs = {prev};
    m.graph.addNode(node);
  }
  m.graph.outputs.push_back({prev, TypeInfo::tensor(DType::Float, Shape{1, 4}), {}, {}});
  return m;
}

}  // namespace

class TestFuzzImporters : public QObject {
  Q_OBJECT
 private slots:
  void mutatedCsvNeverCrashes() {
    const fs::path data = test::sourceDir() / "tests" / "data" / "msprof";
    const std::vector<fs::path> seeds{
        data / "mobilenet_v2_cann6" / "PROF_000001_20230131172437_KLMNOPQRSTUVWXYZ" / "device_0" / "summary" / "op_summary_0_1_1.csv",
        data / "linear_relu_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv",
        data / "mobilenet_v2_cann6" / "PROF_000001_20230131172437_KLMNOPQRSTUVWXYZ" / "device_0" / "summary" / "fusion_op_0_1_1.csv",
        data / "mobilenet_v2_cann6" / "PROF_000001_20230131172437_KLMNOPQRSTUVWXYZ" / "device_0" / "info.json.0"};
    test::TempDir dir("fuzz-csv");
    Model m = chain();
    std::mt19937 rng(20240611);
    int ok = 0, errors = 0;
    for (int i = 0; i < 600; ++i) {
      const fs::path& seed = seeds[static_cast<size_t>(i) % seeds.size()];
      const std::string text = mutate(slurp(seed), rng);
      // Keep the file names: the importer finds fusion_op and info.json by name.
      fs::path run = dir / std::to_string(i);
      fs::create_directories(run);
      for (const auto& s : seeds) fs::copy_file(s, run / s.filename(), fs::copy_options::overwrite_existing);
      std::ofstream(run / seed.filename(), std::ios::binary | std::ios::trunc) << text;
      const fs::path input = seed.extension() == ".csv" && seed.filename().string().starts_with("fusion")
                                 ? run / seeds[0].filename()
                                 : (seed.extension() == ".0" ? run / seeds[0].filename() : run / seed.filename());
      auto p = importMsprof(input, m);
      if (p.ok()) {
        ++ok;
        for (const auto& n : p->nodes) QVERIFY(n.timeMs.median >= 0 && n.timeMs.count > 0);
      } else {
        ++errors;
        QVERIFY(!p.error().message.empty());
        QVERIFY2(!p.error().file.empty(), p.error().describe().c_str());
      }
      fs::remove_all(run);
    }
    qInfo("%d imported, %d rejected", ok, errors);
    QVERIFY(ok > 0 && errors > 0);  // the mutations hit both sides
  }

  void mutatedAttachmentNeverCrashes() {
    const std::string seed = R"({"signature": "netron:attachment", "metadata": [],
      "metrics": [{"kind": "model", "target": "", "name": "latency_ms", "value": [8.0, 7.5]},
                  {"kind": "node", "target": "/conv1/Conv", "name": "latency", "value": 1.5, "type": "ms"},
                  {"kind": "node", "target": "/relu/Relu", "name": "time_us", "value": "120 us"},
                  {"kind": "node", "target": "/maxpool/MaxPool", "name": "duration", "value": [0.2, 0.3]}]})";
    Model m = chain();
    std::mt19937 rng(7);
    int ok = 0, errors = 0;
    for (int i = 0; i < 2000; ++i) {
      auto p = importAttachmentText(mutate(seed, rng), m, "fuzz.json");
      if (p.ok()) ++ok;
      else {
        ++errors;
        QCOMPARE(p.error().file, std::string("fuzz.json"));
      }
    }
    qInfo("%d imported, %d rejected", ok, errors);
    QVERIFY(ok > 0 && errors > 0);
  }

  // Inputs the profile fuzzers found crashing, kept after the fix (regressions-profile/<format>/).
  void profileFuzzRegressions_data() {
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("file");
    const fs::path root = test::sourceDir() / "tests" / "fuzz" / "regressions-profile";
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(root))
      if (e.is_regular_file() && e.path().parent_path() != root) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files)
      QTest::newRow((f.parent_path().filename().string() + "/" + f.filename().string()).c_str())
          << QString::fromStdString(f.parent_path().filename().string()) << QString::fromStdString(f.string());
    if (files.empty()) QTest::newRow("none yet") << QString() << QString();
  }

  void profileFuzzRegressions() {
    QFETCH(QString, format);
    QFETCH(QString, file);
    if (file.isEmpty()) QSKIP("no profile fuzz regressions recorded");
    fuzz::importProfileBytes(format.toStdString(), slurp(file.toStdString()));  // must return, not crash
  }
};

QTEST_GUILESS_MAIN(TestFuzzImporters)
#include "tst_fuzz_importers.moc"
