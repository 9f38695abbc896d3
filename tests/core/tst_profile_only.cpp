// The profile-only analysis (no model) on every real Ascend run under ../shared/real-profiles:
// the step it reports is the profiler's, the impacts add up to no more than the step, every
// finding has its texts in both languages and says where its kernels come from when the
// profile does, the report JSON follows docs/report-schema.json; and the rules fire on what
// the real runs hold (TransData, block dims, exposed communication, the msprof-analyze test
// kernels' MatMul and FlashAttention axes).
#include <QtTest>

#include <fstream>

#include <nlohmann/json.hpp>

#include "advisor/profile_analysis.h"
#include "advisor/profile_only.h"
#include "advisor/run_analysis.h"
#include "cli_run.h"
#include "report/json_schema.h"
#include "report/report_json.h"
#include "report/report_format.h"
#include "rules/texts.h"
#include "test_paths.h"

using namespace msa;
namespace fs = std::filesystem;

namespace {

fs::path ascend() { return test::realProfilesDir() / "ascend"; }

const Finding* byRule(const Report& r, const std::string& rule) {
  for (const Finding& f : r.findings)
    if (f.rule == rule) return &f;
  return nullptr;
}

nlohmann::json schema() {
  std::ifstream in(test::sourceDir() / "docs" / "report-schema.json");
  return nlohmann::json::parse(in);
}

}  // namespace

class TestProfileOnly : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    if (!fs::exists(test::realProfilesDir() / "PROVENANCE.md")) QSKIP("no ../shared/real-profiles here");
  }

  void everyAscendRun_data() {
    QTest::addColumn<QString>("run");
    QTest::addColumn<QString>("device");  // the device profile the chip maps to
    QTest::addColumn<QStringList>("rules");  // rules that must fire
    if (!fs::exists(test::realProfilesDir() / "PROVENANCE.md")) return;
    // Communication is the timeline's to tell where the run has one (torch_npu: trace_view.json).
    QTest::newRow("torch_npu level0 (no shapes)") << "torch_npu_alexnet_train_level0" << "ascend910b"
                                                  << QStringList{"training.communication"};
    QTest::newRow("torch_npu level1") << "torch_npu_alexnet_train_level1" << "ascend910b2"
                                      << QStringList{"profile.transdata", "profile.block_dim", "training.communication"};
    QTest::newRow("torch_npu level2") << "torch_npu_alexnet_train_level2" << "ascend910b2"
                                      << QStringList{"profile.transdata", "training.communication"};
    QTest::newRow("msprof-analyze test kernels") << "msprof_analyze_ut_kernel_details_2025_pipe" << "ascend910b"
                                                 << QStringList{"profile.matmul_axes", "profile.attention_axes"};
    QTest::newRow("910A raw timeline") << "msprof_mindspore_910a_2dev_2023" << "ascend910" << QStringList{};
    QTest::newRow("msprof CLI group") << "msprof_cli_grouped_matmul_910b_vllm_ascend" << "ascend910b" << QStringList{};
    QTest::newRow("trace_view alone") << "msprof_analyze_ut_trace_view_2024/trace_view.json" << "ascend910b" << QStringList{};
  }
  void everyAscendRun() {
    QFETCH(QString, run);
    QFETCH(QString, device);
    QFETCH(QStringList, rules);
    AnalyzeOptions o;
    auto r = analyzeProfileFile(ascend() / run.toStdString(), "", o);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
    QCOMPARE(QString::fromStdString(r->device), device);
    QVERIFY(r->profileOnly);
    QCOMPARE(r->latencySource, std::string("measured"));
    QVERIFY(r->latencyMs > 0);
    QCOMPARE(r->latencyMs, r->profile->latencyMs.median);
    // Impacts add up to no more than the step.
    double sum = 0;
    for (const Finding& f : r->findings) {
      QVERIFY2(f.impact.ms >= 0 && f.impact.ms <= f.impact.rawMs + 1e-9, f.id.c_str());
      sum += f.impact.ms;
      QVERIFY2(hasTexts(f.rule), f.rule.c_str());
      const FindingText t = renderFinding(f, Lang::En), z = renderFinding(f, Lang::Zh);
      QVERIFY2(t.title.find('{') == std::string::npos, t.title.c_str());  // every placeholder filled
      QVERIFY2(t.suggestion.find('{') == std::string::npos, t.suggestion.c_str());
      QVERIFY2(z.title.find('{') == std::string::npos, z.title.c_str());
    }
    QVERIFY2(sum <= r->latencyMs + 1e-9, qPrintable(QString::number(sum) + " > " + QString::number(r->latencyMs)));
    QCOMPARE(r->totalImpactMs, sum);
    for (const QString& rule : rules) QVERIFY2(byRule(*r, rule.toStdString()), qPrintable(rule));
    // One node row per kernel entry; the optimum is the priced kernels' roofline.
    QCOMPARE(r->nodes.size(), r->profile->nodes.size());
    QCOMPARE(r->optimumMs, r->profileOnly->rooflineMs);
    // The JSON: the analyze schema, with the profile-only block.
    ReportOptions ro;
    const nlohmann::json j = reportToJson(*r, ro);
    const auto problems = validateJson(j, schema());
    QVERIFY2(problems.empty(), problems.empty() ? "" : (problems.front().path + ": " + problems.front().message).c_str());
    QVERIFY(j.contains("profile_only"));
    QCOMPARE(j["profile_only"]["kernels"].size(), r->profile->nodes.size());
  }

  // Kernel findings say where the kernel comes from: aten op, module and Python line.
  void findingsNameTheirOrigin() {
    AnalyzeOptions o;
    auto r = analyzeProfileFile(ascend() / "torch_npu_alexnet_train_level1", "", o);
    QVERIFY(r.ok());
    int kernelFindings = 0, withOrigin = 0;
    for (const Finding& f : r->findings) {
      if (f.category == Category::Host || f.params.count("origin") == 0) continue;
      ++kernelFindings;
      withOrigin += f.params.at("origin") != phrase("value.unknown");
    }
    QVERIFY(kernelFindings > 0);
    QCOMPARE(withOrigin, kernelFindings);
    // The first convolution: aten::conv2d in nn.Module Conv2d_0.
    const NodeProfile* conv = r->profile->find("Conv2D1");
    QVERIFY(conv);
    QCOMPARE(conv->origin.frameworkOp, std::string("aten::conv2d"));
    QCOMPARE(conv->origin.module, std::string("nn.Module: Conv2d_0"));
  }

  // runAnalysis with a null model is this analysis; without a profile it is a usage error.
  void runAnalysisWithoutModel() {
    AnalysisRequest req;
    req.profilePath = ascend() / "torch_npu_alexnet_train_level1";
    auto out = runAnalysis(std::shared_ptr<const Model>(), req);
    QVERIFY2(out.ok(), out.ok() ? "" : out.error().describe().c_str());
    QVERIFY(out->report.profileOnly);
    QCOMPARE(out->report.device, std::string("ascend910b2"));
    QVERIFY(!out->model);
    auto none = runAnalysis(std::shared_ptr<const Model>(), AnalysisRequest{});
    QVERIFY(!none.ok());
    QCOMPARE(none.error().kind, ErrorKind::Usage);
  }

  // msadvisor-cli analyze --profile P without a MODEL: the analyze contract, warnings listed.
  void cliWithoutModel() {
    test::TempDir dir("profile-only-cli");
    // A copy of the real table with one field fewer on line 17.
    fs::create_directories(dir / "rank0_ascend_pt" / "ASCEND_PROFILER_OUTPUT");
    std::ifstream in(ascend() / "torch_npu_alexnet_train_level1" / "rank0_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv",
                     std::ios::binary);
    std::ofstream out(dir / "rank0_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv", std::ios::binary);
    int line = 0;
    for (std::string l; std::getline(in, l);) {
      if (++line == 17) l = l.substr(0, l.rfind(','));  // the last field (and its comma) gone
      out << l << "\n";
    }
    out.close();
    const test::CliRun r = test::cli({"analyze", "--profile", QString::fromStdString((dir / "rank0_ascend_pt").string()), "--json", "-",
                                      "--progress", "none"});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const nlohmann::json j = nlohmann::json::parse(r.out.toStdString());
    for (const char* key : {"schema_version", "model", "device", "latency_ms", "latency_source", "optimum_ms", "gap_ratio",
                            "estimated_optimized_ms", "findings", "bottlenecks", "warnings", "profile_only"})
      QVERIFY2(j.contains(key), key);
    QCOMPARE(j["latency_source"].get<std::string>(), std::string("measured"));
    bool line17 = false;
    for (const auto& w : j["warnings"]) line17 = line17 || w.get<std::string>().find("line 17: 45 fields") != std::string::npos;
    QVERIFY2(line17, j["warnings"].dump().c_str());
    // No MODEL and no profile: a usage error (exit 1).
    QCOMPARE(test::cli({"analyze", "--progress", "none"}).exitCode, 1);
  }

  // A training run is ranked as the training step it is, and says why (issue 27.9): the AlexNet
  // and Qwen3 runs train (their tables hold backward kernels, read here), the vLLM group's
  // GroupedMatmul program serves. `training` fills its notes' parameters (it printed "{rank}").
  void aTrainingRunIsRankedAsATrainingStep_data() {
    QTest::addColumn<QString>("run");
    QTest::addColumn<QString>("table");  // a kernel table of the run, read here
    if (!fs::exists(test::realProfilesDir() / "PROVENANCE.md")) return;
    QTest::newRow("AlexNet training") << "torch_npu_alexnet_train_level1"
                                      << "torch_npu_alexnet_train_level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv";
    QTest::newRow("Qwen3 PP2 x DP2") << "torch_npu_qwen3_pp2dp2_level2"
                                     << "torch_npu_qwen3_pp2dp2_level2/rank_2_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv";
    QTest::newRow("vLLM GroupedMatmul") << "msprof_cli_grouped_matmul_910b_vllm_ascend"
                                        << "msprof_cli_grouped_matmul_910b_vllm_ascend/PROF_GROUP_20260823_165254/PROF_Memory/"
                                           "PROF_000001_20260823165413436_00626258NIRJNPIC/mindstudio_profiler_output/"
                                           "op_summary_20260823165421.csv";
  }
  void aTrainingRunIsRankedAsATrainingStep() {
    QFETCH(QString, run);
    QFETCH(QString, table);
    std::ifstream in(ascend() / table.toStdString());
    std::string header, row;
    std::getline(in, header);
    bool backward = false;  // a Grad/Backprop op type in the table's own rows
    while (std::getline(in, row)) backward = backward || row.find("Grad,") != std::string::npos || row.find("Backprop") != std::string::npos;
    const test::CliRun a = test::cli({"analyze", "--profile", QString::fromStdString((ascend() / run.toStdString()).string()), "--json",
                                      "-", "--progress", "none"});
    QVERIFY2(a.exitCode == 0, a.err.constData());
    const nlohmann::json j = nlohmann::json::parse(a.out.toStdString());
    QCOMPARE(j["goal"].get<std::string>(), std::string(backward ? "training" : "latency"));
    bool said = false;
    for (const auto& n : j["notes"]) said = said || n["key"] == "training_goal";
    QCOMPARE(said, backward);
    if (backward) {  // a datacenter step's weights: memory and compute above dispatch
      QCOMPARE(j["scenario"].get<std::string>(), std::string("datacenter"));
      QVERIFY(j["weights"]["memory"].get<double>() > j["weights"]["overhead"].get<double>());
    }
    const test::CliRun t = test::cli({"training", QString::fromStdString((ascend() / run.toStdString()).string()), "--progress", "none"});
    QVERIFY2(t.exitCode == 0, t.err.constData());
    QVERIFY2(!t.out.contains("{rank}") && !t.out.contains("{evidence}"), t.out.constData());
    if (run.startsWith("torch_npu_qwen3")) QVERIFY2(t.out.contains("This is rank 2 of a 4-rank job"), t.out.constData());
  }

  // An Apply kernel is an optimizer's only when it is one: an inference run's
  // ApplyRotaryPosEmb keeps the goal asked for, ApplyAdamWV2 makes the run a training step.
  void anApplyKernelIsNotAlwaysAnOptimizer() {
    test::TempDir dir("profile-only-apply");
    for (const char* kernel : {"ApplyRotaryPosEmb", "ApplyAdamWV2"}) {
      const fs::path csv = dir / (std::string(kernel) + "_kernel_details.csv");
      std::ofstream(csv) << "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us)\n"
                         << "1,aclnnMatmul_MatMulV3,MatMulV3,AI_CORE,1000,50,0\n"
                         << "1,aclnn" << kernel << "_" << kernel << "," << kernel << ",AI_VECTOR_CORE,1060,20,10\n";
      auto r = analyzeProfileFile(csv, "", {});
      QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
      QCOMPARE(r->goal, std::string_view(kernel) == "ApplyAdamWV2" ? Goal::Training : Goal::Latency);
    }
  }

  // Alignment reads the layout and the profile's own kernels (issue 27.7). On the Qwen3 rank the
  // LM head's backward MatMul ([4096,151936] x [151936,1024], a MIX_AIC kernel) multiplies over
  // the vocabulary axis 151936 (not a multiple of 256) far slower than the forward MatMul over
  // the same axis (an AI_CORE kernel): the table's own durations and shapes, read here, say so.
  // The axis is then not blamed (no "pad the vocabulary"); the kernel CANN selected is.
  void matmulAxisComparedWithItsTwin() {
    const fs::path run = ascend() / "torch_npu_qwen3_pp2dp2_level2";
    const auto table = run / "rank_2_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv";
    // The rows as the file has them: MatMuls with 151936 among their input dims, by core type.
    std::ifstream in(table);
    std::string line;
    std::getline(in, line);
    double mixUs = 0, coreUs = 0;
    while (std::getline(in, line)) {
      if (line.find("MatMul") == std::string::npos || line.find("151936") == std::string::npos) continue;
      // Both kernels do 4096 x 151936 x 1024 MACs: their durations compare directly.
      const bool mix = line.find(",MIX_AIC,") != std::string::npos;
      // Duration(us) is the 11th field (Step Id,Device_id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us)).
      size_t pos = 0;
      for (int f = 0; f < 10; ++f) pos = line.find(',', pos) + 1;
      (mix ? mixUs : coreUs) += std::atof(line.c_str() + pos);
    }
    QVERIFY(mixUs > 2 * coreUs && coreUs > 0);  // the premise, from the file
    AnalyzeOptions o;
    auto r = analyzeProfileFile(run, "", o);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().describe().c_str());
    auto entry = [&](const std::string& name) -> const NodeProfile* {
      for (const NodeProfile& n : r->profile->nodes)
        if (n.name == name) return &n;
      return nullptr;
    };
    auto hasVocab = [](const NodeProfile& n) {
      return std::any_of(n.inputShapes.begin(), n.inputShapes.end(),
                         [](const std::string& s) { return s.find("151936") != std::string::npos; });
    };
    int selection = 0;
    for (const Finding& f : r->findings) {
      if (f.nodes.empty() || (f.rule != "profile.matmul_axes" && f.rule != "profile.matmul_kernel_selection")) continue;
      const NodeProfile* n = entry(f.nodes.front());
      QVERIFY(n);
      if (f.rule == "profile.matmul_axes") QVERIFY2(!hasVocab(*n), f.id.c_str());
      if (f.rule == "profile.matmul_kernel_selection") {
        ++selection;
        QVERIFY2(hasVocab(*n) && n->kernel.find("MIX") != std::string::npos, f.id.c_str());
        const NodeProfile* twin = entry(f.params.at("twin"));
        // The twin: a MatMul over the same axis on the AI Core alone (Qwen3's is the FRACTAL_NZ
        // MatMulV2 [9496,256,16,16]: 9496 x 16 = 151936 rows).
        QVERIFY(twin && twin->opType.find("MatMul") != std::string::npos && twin->kernel.find("MIX") == std::string::npos);
        QCOMPARE(f.params.at("axis"), std::string("151936"));
        // What the twin's efficiency would save: some, never more than the MIX kernels took.
        QVERIFY(f.impact.ms > 0 && f.impact.ms < mixUs / 1e3);
      }
    }
    QVERIFY(selection > 0);
  }

  // The headline's gap is the priced kernels' (measured / roofline), and the text says so with
  // the kernels' time next to the step's: "136.6 ms, optimum 2.98 ms, the model runs ×2.92
  // slower" read as a wrong number (136.6 / 2.98 = 46).
  void gapSaysWhichTimesItCompares() {
    AnalyzeOptions o;
    auto r = analyzeProfileFile(ascend() / "torch_npu_alexnet_train_level1", "", o);
    QVERIFY(r.ok());
    QVERIFY(r->gapRatio > 1);
    QCOMPARE(r->gapRatio, r->profileOnly->pricedMs / r->profileOnly->rooflineMs);
    QVERIFY(r->latencyMs > 10 * r->profileOnly->pricedMs);  // a step mostly of communication
    const std::string text = report::gapText(*r, Lang::En);
    QVERIFY2(text.find("the model runs") == std::string::npos, text.c_str());
    QVERIFY2(text.find("the priced kernels took " + formatSignificant(r->profileOnly->pricedMs) + "\u202fms") != std::string::npos,
             text.c_str());
    QVERIFY(text.find(formatSignificant(r->latencyMs) + "\u202fms step") != std::string::npos);
  }

  // A device asked for wins over the chip's; an unknown chip is said so.
  void deviceChoice() {
    AnalyzeOptions o;
    auto r = analyzeProfileFile(ascend() / "torch_npu_alexnet_train_level1", "ascend910b4", o);
    QVERIFY(r.ok());
    QCOMPARE(r->device, std::string("ascend910b4"));
    QCOMPARE(r->profileOnly->deviceChoice, std::string("requested"));
    auto level0 = analyzeProfileFile(ascend() / "torch_npu_alexnet_train_level0", "", o);
    QVERIFY(level0.ok());
    QVERIFY(std::find(level0->notes.begin(), level0->notes.end(), "chip_unknown") != level0->notes.end());
  }

  // `analyze --profile P` and `training P` are two views of one analysis: on every real profile
  // folder and file they state the same step, analyse the same rank, and every finding both show
  // has the same id, priority, impact and title. (They used to be two pipelines: on the Qwen3
  // pipeline-parallel rank one advised DDP buckets where the other named the bubble.)
  void analyzeAndTrainingAgree_data() {
    QTest::addColumn<QString>("run");
    if (!fs::exists(test::realProfilesDir() / "PROVENANCE.md")) return;
    for (const char* r : {"ascend/torch_npu_alexnet_train_level0", "ascend/torch_npu_alexnet_train_level1",
                          "ascend/torch_npu_alexnet_train_level2", "ascend/torch_npu_qwen3_pp2dp2_level2",
                          "ascend/msprof_analyze_ut_kernel_details_2025_pipe/kernel_details.csv",
                          "ascend/msprof_analyze_ut_trace_view_2024/trace_view.json", "ascend/msprof_mindspore_910a_2dev_2023",
                          "ascend/msprof_cli_grouped_matmul_910b_vllm_ascend", "kineto/hta_mi250_minitoy_train",
                          "kineto/hta_a100_alexnet", "kineto/hta_cpu_only", "kineto/hta_sampled_train_rank0"})
      QTest::newRow(r) << QString::fromUtf8(r);
  }
  void analyzeAndTrainingAgree() {
    QFETCH(QString, run);
    fs::path path = test::realProfilesDir() / run.toStdString();
    // A Kineto folder holds one gzipped trace: name it, as a user would.
    if (fs::is_directory(path) && run.startsWith("kineto/"))
      for (const auto& e : fs::directory_iterator(path)) path = e.path();
    const QString p = QString::fromStdString(path.string());
    const auto a = test::cli({"analyze", "--profile", p, "--json", "-", "--progress", "none", "--top", "50"});
    const auto t = test::cli({"training", p, "--json", "-", "--progress", "none", "--top", "50"});
    QVERIFY2(a.exitCode == 0, a.err.constData());
    QVERIFY2(t.exitCode == 0, t.err.constData());
    const auto ja = nlohmann::json::parse(a.out.toStdString()), jt = nlohmann::json::parse(t.out.toStdString());
    QCOMPARE(ja["latency_ms"].get<double>(), jt["latency_ms"].get<double>());
    QCOMPARE(ja["device"], jt["device"]);
    std::map<std::string, nlohmann::json> byId;
    for (const auto& f : jt["findings"]) byId[f["id"].get<std::string>()] = f;
    int both = 0;
    for (const auto& f : ja["findings"]) {
      auto it = byId.find(f["id"].get<std::string>());
      QVERIFY2(it != byId.end(), f["id"].get<std::string>().c_str());  // the same findings
      for (const char* key : {"priority", "impact_ms", "title", "suggestion"})
        QVERIFY2(f[key] == it->second[key], (f["id"].get<std::string>() + ": " + key).c_str());
      ++both;
    }
    QCOMPARE(both, static_cast<int>(jt["findings"].size()));
    auto hasNote = [](const nlohmann::json& j, const char* key) {
      for (const auto& n : j["notes"])
        if (n["key"] == key) return true;
      return false;
    };
    QCOMPARE(hasNote(ja, "cluster"), hasNote(jt, "cluster"));  // a job: both analysed the same rank
  }
};

QTEST_APPLESS_MAIN(TestProfileOnly)
#include "tst_profile_only.moc"
