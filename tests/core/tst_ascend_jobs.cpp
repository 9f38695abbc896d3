// Real Ascend jobs read as an Ascend performance engineer reads them (issue 27): communication
// told apart by what it is for, the rank placed in its job, warm-up steps left out, HCCL's
// sub-tasks kept out of the kernels, one finding per repeated block. Every expected figure is
// computed here from the profiler's own files (communication.json, communication_matrix.json,
// profiler_metadata.json, the msprof step trace), independently of the importers.
#include <QtTest>

#include <array>
#include <fstream>
#include <sstream>
#include <set>

#include <nlohmann/json.hpp>

#include "advisor/profile_analysis.h"
#include "profile/profile_import.h"
#include "report/report_format.h"
#include "report/report_text.h"
#include "report/run_compare.h"
#include "report/training_report.h"
#include "test_paths.h"

using namespace msa;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

fs::path ascend() { return test::realProfilesDir() / "ascend"; }

json readJson(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

const Finding* byRule(const Report& r, const std::string& rule) {
  for (const Finding& f : r.findings)
    if (f.rule == rule) return &f;
  return nullptr;
}

std::string text(const Finding& f) {
  const FindingText t = renderFinding(f, Lang::En);
  return t.title + " " + t.suggestion + " " + t.hazard;
}

// A CSV line of step_trace_time.csv (no quoted fields in it).
std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string f; std::getline(ss, f, ',');) out.push_back(f);
  return out;
}

// step_trace_time.csv's first step, by column name, in ms.
std::map<std::string, double> stepRecord(const fs::path& csv) {
  std::ifstream in(csv);
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  std::map<std::string, double> out;
  const auto h = split(header), v = split(row);
  for (size_t i = 0; i < h.size() && i < v.size(); ++i) out[h[i]] = std::atof(v[i].c_str()) / 1000.0;
  return out;
}

// Adds `addMs` to the first step of a rank's step record (step_trace_time.csv) in `column`.
void addToStepRecord(const fs::path& rank, const std::string& column, double addMs) {
  const fs::path csv = rank / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv";
  std::ifstream in(csv);
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  in.close();
  const std::vector<std::string> h = split(header);
  std::vector<std::string> v = split(row);
  for (size_t i = 0; i < h.size(); ++i)
    if (h[i] == column) v[i] = std::to_string(std::atof(v[i].c_str()) + addMs * 1000);
  std::ofstream out(csv, std::ios::trunc);
  out << header << "\n";
  for (size_t i = 0; i < v.size(); ++i) out << (i ? "," : "") << v[i];
  out << "\n";
}

// A two-rank job made of real rank folders (AlexNet's at profiler levels 1 and 2, the second
// renamed rank 1), `addMs` added to rank 1's step record in `column`.
void makeJob(const fs::path& dir, const std::string& column, double addMs) {
  const fs::path r0 = dir / "rank0_ascend_pt", r1 = dir / "rank1_ascend_pt";
  fs::copy(ascend() / "torch_npu_alexnet_train_level1" / "rank0_ascend_pt", r0, fs::copy_options::recursive);
  fs::copy(ascend() / "torch_npu_alexnet_train_level2" / "rank0_ascend_pt", r1, fs::copy_options::recursive);
  fs::rename(r1 / "profiler_info_0.json", r1 / "profiler_info_1.json");
  if (!column.empty()) addToStepRecord(r1, column, addMs);
}

// A kernel_details.csv line split at the commas outside quotes (shapes are quoted: "32,3,224,224").
std::vector<std::string> csvFields(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (char ch : line) {
    if (ch == '"') quoted = !quoted;
    if (ch == ',' && !quoted) out.emplace_back();
    else out.back() += ch;
  }
  return out;
}

// A copy of AlexNet's level-1 rank with every `type` kernel `factor` times as long and
// `addComputingMs` more Computing in its step record; returns the time the type gained (ms per
// step: the table holds one step), summed here from the CSV.
double slowedRank(const fs::path& dir, const std::string& type, double factor, double addComputingMs) {
  fs::copy(ascend() / "torch_npu_alexnet_train_level1" / "rank0_ascend_pt", dir, fs::copy_options::recursive);
  const fs::path csv = dir / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv";
  std::ifstream in(csv);
  std::string header, line, text;
  std::getline(in, header);
  const std::vector<std::string> h = csvFields(header);
  const size_t typeCol = std::find(h.begin(), h.end(), "Type") - h.begin();
  const size_t durCol = std::find(h.begin(), h.end(), "Duration(us)") - h.begin();
  double gainedMs = 0;
  text = header + "\n";
  while (std::getline(in, line)) {
    std::vector<std::string> f = csvFields(line);
    if (f.size() > durCol && f[typeCol] == type) {
      const double us = std::atof(f[durCol].c_str());
      gainedMs += us * (factor - 1) / 1000;
      f[durCol] = std::to_string(us * factor);
    }
    for (size_t i = 0; i < f.size(); ++i) text += (i ? "," : "") + f[i];
    text += "\n";
  }
  in.close();
  std::ofstream(csv, std::ios::trunc) << text;
  addToStepRecord(dir, "Computing", addComputingMs);
  return gainedMs;
}

const RunDelta* rowOf(const std::vector<RunDelta>& rows, const std::string& key) {
  for (const RunDelta& d : rows)
    if (d.key == key) return &d;
  return nullptr;
}

}  // namespace

class TestAscendJobs : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    if (!fs::exists(test::realProfilesDir() / "PROVENANCE.md")) QSKIP("no ../shared/real-profiles here");
  }
  void ranksFromTheirStepRecords_data();
  void ranksFromTheirStepRecords();

  // Two runs of one rank side by side (compare, File ▸ Compare With on a profile): the second
  // has its MatMulV2 kernels twice as long and 5 ms more Computing in its step record. The
  // comparison names that kernel type first with the time the CSV says it gained, the
  // Computing phase with its 5 ms, and no other kernel as changed.
  void twoRunsSideBySide() {
    test::TempDir dir("run-compare");
    const double gained = slowedRank(dir / "b", "MatMulV2", 2.0, 5.0);
    QVERIFY(gained > 0.1);
    const fs::path a = ascend() / "torch_npu_alexnet_train_level1" / "rank0_ascend_pt";
    auto ra = analyzeProfileFile(a, "", {});
    QVERIFY2(ra, ra ? "" : ra.error().describe().c_str());
    auto rb = analyzeProfileFile(dir / "b", "", {});
    QVERIFY2(rb, rb ? "" : rb.error().describe().c_str());
    const RunComparison c = compareRuns(*ra, *rb, "a", "b");
    QCOMPARE(QString::fromStdString(c.kernelTypes.front().key), QStringLiteral("MatMulV2"));
    QVERIFY2(std::abs(c.kernelTypes.front().deltaMs() - gained) < 1e-6 * std::max(1.0, gained),
             qPrintable(QString("%1 vs %2").arg(c.kernelTypes.front().deltaMs()).arg(gained)));
    const auto rec = stepRecord(a / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv");
    const RunDelta* computing = rowOf(c.phases, "computing");
    QVERIFY(computing && computing->inA && computing->inB);
    QVERIFY(std::abs(computing->aMs - rec.at("Computing")) < 1e-6);
    QVERIFY(std::abs(computing->deltaMs() - 5.0) < 1e-6);
    QVERIFY(std::abs(rowOf(c.phases, "free")->deltaMs()) < 1e-9);
    QVERIFY(std::abs((c.b.stepMs - c.a.stepMs) - 5.0) < 1e-6);
    QVERIFY(c.ranks.empty());  // one rank of no job
    QVERIFY(!c.kernels.regressions.empty());
    QVERIFY(c.kernels.improvements.empty());
    for (const std::string& name : c.kernels.regressions) {
      const auto it = std::find_if(ra->nodes.begin(), ra->nodes.end(), [&](const NodeReport& n) { return n.name == name; });
      QVERIFY2(it != ra->nodes.end() && it->opType == "MatMulV2", name.c_str());
    }
    // The same through the CLI's JSON document.
    const json j = toJson(c);
    QCOMPARE(QString::fromStdString(j["kernel_types"][0]["key"].get<std::string>()), QStringLiteral("MatMulV2"));
  }

  // Two runs of a job at different profiler levels: HCCL numbers its operators per run
  // (hcom_allReduce__586_… against __271_…), yet each all-reduce is paired with its twin, so no
  // communication kernel is reported as added or removed; each run's phases are its own CSV's.
  void communicationKernelsPairedAcrossRuns() {
    const fs::path a = ascend() / "torch_npu_alexnet_train_level1" / "rank0_ascend_pt";
    const fs::path b = ascend() / "torch_npu_alexnet_train_level2" / "rank0_ascend_pt";
    auto ra = analyzeProfileFile(a, "", {});
    auto rb = analyzeProfileFile(b, "", {});
    QVERIFY(ra && rb);
    const RunComparison c = compareRuns(*ra, *rb, "level1", "level2");
    int paired = 0;
    for (const NodeDelta& d : c.kernels.nodes)
      if (d.name.rfind("hcom_", 0) == 0) {
        QVERIFY2(d.inA && d.inB, d.name.c_str());
        paired += d.name.find(" ~ ") != std::string::npos;
      }
    QVERIFY(paired > 0);
    for (const auto& [side, path] : {std::pair{0, a}, std::pair{1, b}}) {
      const auto rec = stepRecord(path / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv");
      const RunDelta* free = rowOf(c.phases, "free");
      QVERIFY(std::abs((side ? free->bMs : free->aMs) - rec.at("Free")) < 1e-6);
    }
  }

  // A task far longer on the timeline than its cores were busy waited, it did not compute
  // (issue 27.10: an 87 ms task with 12.7 µs of core time). AlexNet's MatMulV2 kernels made 40×
  // as long, their aicore_time unchanged, are named as such, with the time above their core
  // time as the impact; no real run of ../shared has such a task.
  void aTaskFarLongerThanItsCoreTimeIsAStall() {
    test::TempDir dir("task-stall");
    QVERIFY(slowedRank(dir / "b", "MatMulV2", 40.0, 0) > 1.0);
    auto r = analyzeProfileFile(dir / "b", "", {});
    QVERIFY2(r, r ? "" : r.error().describe().c_str());
    const Finding* f = byRule(*r, "profile.task_stall");
    QVERIFY(f);
    double current = 0;
    for (const std::string& name : f->nodes) {
      const auto it = std::find_if(r->nodes.begin(), r->nodes.end(), [&](const NodeReport& n) { return n.name == name; });
      QVERIFY2(it != r->nodes.end() && it->opType == "MatMulV2", name.c_str());
      current += it->measuredMs;
    }
    QVERIFY(std::abs(f->impact.currentMs - current) < 1e-6);
    QVERIFY(f->impact.fixedMs > 0 && f->impact.fixedMs < current / 10);
    QVERIFY(text(*f).find("waited") != std::string::npos);
    for (const char* run : {"torch_npu_alexnet_train_level1", "torch_npu_alexnet_train_level2", "torch_npu_qwen3_pp2dp2_level2",
                            "msprof_mindspore_910a_2dev_2023", "msprof_cli_grouped_matmul_910b_vllm_ascend"}) {
      auto real = analyzeProfileFile(ascend() / run, "", {});
      QVERIFY2(real, run);
      QVERIFY2(!byRule(*real, "profile.task_stall"), run);
    }
  }

  // A one-off gap is not a launch-bound program (27.10): the vLLM group's 3-kernel program waited
  // 857 µs once, before one short kernel, and that was ranked P0 "the device waited before 1 short
  // kernels". AlexNet's training step, whose 46 short kernels each wait longer than they run, still is.
  void aOneOffGapIsNotLaunchBound() {
    auto vllm = analyzeProfileFile(ascend() / "msprof_cli_grouped_matmul_910b_vllm_ascend", "", {});
    QVERIFY2(vllm, vllm ? "" : vllm.error().describe().c_str());
    QVERIFY(!byRule(*vllm, "profile.launch_bound"));
    for (const Finding& f : vllm->findings) QVERIFY2(f.priority != Priority::P0, f.id.c_str());
    auto alexnet = analyzeProfileFile(ascend() / "torch_npu_alexnet_train_level1" / "rank0_ascend_pt", "", {});
    QVERIFY(alexnet);
    const Finding* launch = byRule(*alexnet, "profile.launch_bound");
    QVERIFY(launch);
    QVERIFY(std::stoi(launch->params.at("kernels")) >= 5);
  }

  // Two jobs rank by rank: the second's rank 1 computes 30 ms more a step.
  void twoJobsRankByRank() {
    test::TempDir dir("job-compare");
    fs::create_directories(dir / "a");
    fs::create_directories(dir / "b");
    makeJob(dir / "a", "", 0);
    makeJob(dir / "b", "Computing", 30.0);
    auto ra = analyzeProfileFile(dir / "a", "", {});
    auto rb = analyzeProfileFile(dir / "b", "", {});
    QVERIFY(ra && rb);
    const RunComparison c = compareRuns(*ra, *rb, "a", "b");
    QCOMPARE(c.a.ranks, 2);
    QCOMPARE(c.ranks.size(), size_t(2));
    QCOMPARE(c.ranks[1].rank, 1);
    QVERIFY(std::abs(c.ranks[1].compute.deltaMs() - 30.0) < 1e-6);
    QVERIFY(std::abs(c.ranks[1].step.deltaMs() - 30.0) < 1e-6);
    QVERIFY(beyondNoise(c.ranks[1].step, c.threshold));
    QVERIFY(std::abs(c.ranks[0].step.deltaMs()) < 1e-9);
    QVERIFY(!beyondNoise(c.ranks[0].step, c.threshold));
  }

  // Rank 2 of a PP=2 × DP=2 Qwen3-class job: its point-to-point and stage-crossing collectives
  // are waiting for the other stage (elapsed − transit, from the files), not data-parallel
  // traffic to re-bucket; its data-parallel reduce-scatter/all-gather want overlap settings; the
  // tied embedding's 622 MB all-reduce crosses the stages.
  void pipelineParallelRankIsToldApart() {
    const fs::path rank = ascend() / "torch_npu_qwen3_pp2dp2_level2" / "rank_2_ascend_pt";
    const fs::path out = rank / "ASCEND_PROFILER_OUTPUT";
    // Independently: per operator elapsed (communication.json) and its slowest non-local link's
    // transit (communication_matrix.json, each operator listed under several summaries).
    std::map<std::string, double> elapsed, transit;
    std::map<std::string, std::string> kind;
    const json comm = readJson(out / "communication.json");
    for (const auto& [step, kinds] : comm.items())
      for (const auto& [k, ops] : kinds.items())
        for (const auto& [key, info] : ops.items()) {
          if (key.starts_with("Total")) continue;
          const std::string name = key.substr(0, key.find('@'));
          elapsed[name] += info["Communication Time Info"]["Elapse Time(ms)"].get<double>();
          kind[name] = k;
        }
    const json matrix = readJson(out / "communication_matrix.json");
    for (const auto& [step, kinds] : matrix.items())
      for (const auto& [k, ops] : kinds.items())
        for (const auto& [summary, links] : ops.items())
          for (const auto& [link, info] : links.items()) {
            // "-total" summaries add up an operator kind's links and name no operator.
            if (info["Transport Type"] == "LOCAL" || !info.contains("Op Name")) continue;
            double& t = transit[info["Op Name"].get<std::string>()];
            t = std::max(t, info["Transit Time(ms)"].get<double>());
          }
    double p2pWait = 0;
    for (const auto& [name, ms] : elapsed)
      if (kind[name] == "p2p") p2pWait += ms - std::min(ms, transit[name]);
    QVERIFY(p2pWait > 50);  // the file: ~72 ms of send/receive, under 1 ms of it moving data

    auto r = training::analyzeTraining(rank.parent_path());
    QVERIFY2(r, r ? "" : r.error().describe().c_str());
    const Report& rep = r->report;
    const Finding* wait = byRule(rep, "training.pipeline_bubble");
    QVERIFY(wait);
    QCOMPARE(wait->category, Category::named("communication"));  // not "Host"
    // At least the point-to-point waiting, at most every communication operator's elapsed time.
    double all = 0;
    for (const auto& [name, ms] : elapsed) all += ms;
    QVERIFY2(wait->impact.rawMs >= p2pWait - 1e-6 && wait->impact.rawMs <= all + 1e-6,
             std::to_string(wait->impact.rawMs).c_str());
    const std::string w = text(*wait);
    QVERIFY2(w.find("stage 2 of 2") != std::string::npos, w.c_str());
    QVERIFY2(w.find("bucket_cap_mb") == std::string::npos, w.c_str());
    // Waiting for the neighbour's activations names a send/receive of the file, not the
    // all-reduce that waits longer for the slowest stage.
    QCOMPARE(wait->nodes.size(), size_t(1));
    QVERIFY2(kind[wait->nodes.front()] == "p2p", wait->nodes.front().c_str());
    QVERIFY2(w.find(wait->nodes.front()) != std::string::npos, w.c_str());
    // The data-parallel side: the distributed optimizer's overlap settings, no bucket advice.
    const Finding* dp = byRule(rep, "training.communication");
    QVERIFY(dp);
    const std::string d = text(*dp);
    QVERIFY2(d.find("overlap_grad_reduce") != std::string::npos, d.c_str());
    QVERIFY2(d.find("bucket_cap_mb") == std::string::npos, d.c_str());
    // The tied embedding's gradient: its size is the matrix's largest link of that operator.
    double largest = 0;
    for (const auto& [step, kinds] : matrix.items())
      for (const auto& [k, ops] : kinds.items())
        for (const auto& [summary, links] : ops.items())
          for (const auto& [link, info] : links.items())
            if (info["Transport Type"] != "LOCAL" && info.contains("Op Name") && summary.starts_with("allreduce"))
              largest = std::max(largest, info["Transit Size(MB)"].get<double>());
    const Finding* crossing = byRule(rep, "training.stage_collective");
    QVERIFY(crossing);
    QCOMPARE(crossing->params.at("mb"), std::to_string(static_cast<long>(std::lround(largest))));
    // The rank in its job (profiler_metadata.json): rank 2 of 4.
    const json meta = readJson(rank / "profiler_metadata.json");
    QVERIFY(std::count(rep.notes.begin(), rep.notes.end(), "rank_of_job") == 1);
    QCOMPARE(rep.noteParams.at("rank"), std::to_string(meta["distributed_args"]["rank"].get<int>()));
    QCOMPARE(rep.noteParams.at("world"), std::to_string(meta["distributed_args"]["world_size"].get<int>()));
    for (const std::string& key : rep.notes) {
      const std::string t = report::noteText(rep, key, Lang::Zh);
      QVERIFY2(!t.empty() && t.find("note.") == std::string::npos && t.find('{') == std::string::npos, key.c_str());
    }
    // Ids are unique in a report.
    std::set<std::string> ids;
    for (const Finding& f : rep.findings) QVERIFY2(ids.insert(f.id).second, f.id.c_str());
    // One finding per repeated block: no two fusible-sequence findings on one pattern.
    std::set<std::string> patterns;
    for (const Finding& f : rep.findings)
      if (f.rule == "profile.fusible_sequence") QVERIFY2(patterns.insert(f.params.at("pattern")).second, f.params.at("pattern").c_str());
    // The impacts together stay within the step.
    double total = 0;
    for (const Finding& f : rep.findings) total += f.impact.ms;
    QVERIFY(total <= rep.latencyMs + 1e-6);
  }

  // A 910A MindSpore job: ten iterations in the step trace, the first a warm-up (47.6 ms against
  // ~15.4); its gradient all-reduce is most of a steady step; HCCL's NOTIFY/REDUCE/MEMCPY
  // sub-tasks are communication, never fused as if they were kernels.
  // Every real folder's findings in both languages carry one percent sign per figure: a template
  // with "{x_pct}%" around a figure that brings its own read "102 ms（65.4%%）" in the GUI.
  void everyFigureReadsOnce() {
    for (const auto& e : fs::directory_iterator(ascend())) {
      if (!e.is_directory()) continue;
      auto r = analyzeProfileFile(e.path(), "", {});
      QVERIFY2(r, (e.path().string() + ": " + (r ? "" : r.error().describe())).c_str());
      for (const Finding& f : r->findings)
        for (Lang lang : {Lang::En, Lang::Zh}) {
          const FindingText t = renderFinding(f, lang);
          for (const std::string& s : {t.title, t.suggestion, t.hazard, t.help})
            for (const char* bad : {"%%", "% %", " %)"}) QVERIFY2(s.find(bad) == std::string::npos, (f.id + ": " + s).c_str());
        }
    }
  }

  // MindSpore (2.3 and later) writes the run folders torch_npu writes, named
  // {worker}_{timestamp}_ascend_ms: a folder of them is a job, rank by rank, as *_ascend_pt.
  void mindSporeRunFoldersAreAJob() {
    test::TempDir dir("ascend-ms-job");
    const fs::path r0 = dir / "node7_40211_20250301093000123_ascend_ms", r1 = dir / "node7_40212_20250301093000456_ascend_ms";
    fs::copy(ascend() / "torch_npu_alexnet_train_level1" / "rank0_ascend_pt", r0, fs::copy_options::recursive);
    fs::copy(ascend() / "torch_npu_alexnet_train_level2" / "rank0_ascend_pt", r1, fs::copy_options::recursive);
    fs::rename(r1 / "profiler_info_0.json", r1 / "profiler_info_1.json");
    addToStepRecord(r1, "Computing", 30.0);
    auto r = training::analyzeTraining(dir.path());
    QVERIFY2(r, r ? "" : r.error().describe().c_str());
    QVERIFY(r->report.job);
    const training::ClusterView& c = *r->report.job;
    QCOMPARE(c.ranks.size(), size_t(2));
    const auto rec = stepRecord(r1 / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv");
    QCOMPARE(c.ranks[static_cast<size_t>(c.slowRank)].rank, 1);
    QVERIFY(std::abs(c.ranks[static_cast<size_t>(c.slowRank)].computeMs - rec.at("Computing")) < 1e-6);
    QVERIFY(byRule(r->report, "training.slow_rank"));
  }

  // msprof-analyze's cluster summary without the ranks' folders (`msprof-analyze cluster -d JOB`
  // writes JOB/cluster_analysis_output/): the job's ranks from cluster_step_trace_time.csv, their
  // stages from its pipeline ("stage") rows, the slow rank with its excess over the median, the
  // slow link from cluster_communication_matrix.json. Figures in the layout msprof-analyze writes
  // (a PP 2 x DP 2 job: pipelines (0, 2) and (1, 3)), expected values computed here.
  void clusterSummaryAlone() {
    test::TempDir dir("cluster-summary");
    const fs::path out = dir / "cluster_analysis_output";
    fs::create_directories(out);
    // rank, computing, not overlapped, free (µs)
    const std::vector<std::array<double, 4>> ranks{{0, 231000, 446000, 132000}, {1, 235000, 442000, 131000},
                                                   {2, 400448, 277649, 131705}, {3, 440000, 237000, 133000}};
    std::ofstream csv(out / "cluster_step_trace_time.csv");
    csv << "Step,Type,Index,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,"
           "Communication(Not Overlapped and Exclude Receive),Preparing\n";
    for (const auto& r : ranks)
      csv << "13,rank," << r[0] << "," << r[1] << "," << r[2] << ",0," << r[2] << "," << r[3] << ",809000,0," << r[2] << ",189\n";
    csv << "13,stage,\"(0, 2)\",400448,446000,0,446000,132000,809000,0,446000,189\n";
    csv << "13,stage,\"(1, 3)\",440000,442000,0,442000,133000,809000,0,442000,189\n";
    csv.close();
    // Two HCCS links of the data-parallel group, one at a tenth of the other's bandwidth.
    json matrix;
    matrix["(0, 1)"]["step"]["Total Op Info@5501"]["0-1"] = {{"Transport Type", "HCCS"}, {"Transit Size(MB)", 800.0}, {"Transit Time(ms)", 40.0}, {"Bandwidth(GB/s)", 20.0}};
    matrix["(2, 3)"]["step"]["Total Op Info@5502"]["2-3"] = {{"Transport Type", "HCCS"}, {"Transit Size(MB)", 800.0}, {"Transit Time(ms)", 4.0}, {"Bandwidth(GB/s)", 200.0}};
    matrix["(2, 3)"]["step"]["Total Op Info@5502"]["3-2"] = {{"Transport Type", "HCCS"}, {"Transit Size(MB)", 800.0}, {"Transit Time(ms)", 4.1}, {"Bandwidth(GB/s)", 195.1}};
    matrix["(2, 3)"]["step"]["hcom_allReduce__1@5502"]["2-3"] = {{"Transport Type", "HCCS"}, {"Transit Size(MB)", 800.0}, {"Transit Time(ms)", 4.0}};
    std::ofstream(out / "cluster_communication_matrix.json") << matrix.dump();

    for (const fs::path& p : {dir.path(), out, out / "cluster_step_trace_time.csv"}) {
      QVERIFY2(isProfilePath(p), p.c_str());  // File ▸ Open Profile takes it
      auto r = training::analyzeTraining(p);
      QVERIFY2(r, (p.string() + ": " + (r ? "" : r.error().describe())).c_str());
      QVERIFY(r->report.job);
      const training::ClusterView& c = *r->report.job;
      QCOMPARE(c.ranks.size(), ranks.size());
      std::vector<double> compute;
      for (size_t k = 0; k < ranks.size(); ++k) {
        QCOMPARE(c.ranks[k].rank, static_cast<int>(ranks[k][0]));
        QVERIFY(std::abs(c.ranks[k].computeMs - ranks[k][1] / 1000) < 1e-9);
        QVERIFY(std::abs(c.ranks[k].notOverlappedMs - ranks[k][2] / 1000) < 1e-9);
        QVERIFY(std::abs(c.ranks[k].idleMs - ranks[k][3] / 1000) < 1e-9);
        QCOMPARE(c.ranks[k].stage, k < 2 ? 0 : 1);  // rank 2 is second in pipeline (0, 2)
        compute.push_back(ranks[k][1] / 1000);
      }
      QCOMPARE(c.ranks[static_cast<size_t>(c.slowRank)].rank, 3);
      // Rank 3 against the ranks doing its work (stage 2: ranks 2 and 3), not against stage 1's.
      const Finding* slow = byRule(r->report, "training.slow_rank");
      QVERIFY(slow);
      QVERIFY2(std::abs(slow->impact.rawMs - (compute[3] - (compute[2] + compute[3]) / 2)) < 1e-6, std::to_string(slow->impact.rawMs).c_str());
      // The stages' difference is its own finding: stage 2's compute (the median of its ranks)
      // above the two stages' mean.
      const double stage1 = (compute[0] + compute[1]) / 2, stage2 = (compute[2] + compute[3]) / 2;
      const Finding* stages = byRule(r->report, "training.stage_imbalance");
      QVERIFY(stages);
      QVERIFY2(std::abs(stages->impact.rawMs - (stage2 - (stage1 + stage2) / 2)) < 1e-6, std::to_string(stages->impact.rawMs).c_str());
      QCOMPARE(QString::fromStdString(stages->params.at("stage")), QString("2"));
      // The step is the slow rank's own record; the slow link is 0-1 (20 GB/s against 195-200).
      QVERIFY(std::abs(r->report.latencyMs - (440000 + 237000 + 133000) / 1000.0) < 1e-6);
      const Finding* link = byRule(r->report, "training.slow_link");
      QVERIFY(link);
      QCOMPARE(QString::fromStdString(link->params.at("link")), QString("0-1"));
      QCOMPARE(r->report.goal, Goal::Training);
      QVERIFY(std::count(r->report.notes.begin(), r->report.notes.end(), "cluster_summary") == 1);
      const std::string text = reportToText(r->report, {});
      QVERIFY2(text.find("4 ranks") != std::string::npos && text.find("--dim") == std::string::npos, text.c_str());
    }
    // With the ranks' own folders beside it, they are read instead.
    makeJob(dir.path(), "", 0);
    auto withRanks = training::analyzeTraining(dir.path());
    QVERIFY2(withRanks, withRanks ? "" : withRanks.error().describe().c_str());
    QCOMPARE(withRanks->report.job->ranks.size(), size_t(2));
    QVERIFY(std::count(withRanks->report.notes.begin(), withRanks->report.notes.end(), "cluster_summary") == 0);
  }

  // A run exported as a database only (export_type Db) has no table msadvisor reads: the error
  // names the database and says how to export text, instead of listing the folders it searched.
  void databaseOnlyExportIsNamed() {
    test::TempDir dir("ascend-db-only");
    const fs::path out = dir / "node7_40211_20250301093000123_ascend_pt" / "ASCEND_PROFILER_OUTPUT";
    fs::create_directories(out);
    std::ofstream(out / "ascend_pytorch_profiler_0.db") << "SQLite format 3";
    for (const fs::path& p : {dir.path(), out.parent_path(), out, out / "ascend_pytorch_profiler_0.db"}) {
      auto r = training::analyzeTraining(p);
      QVERIFY(!r);
      const std::string msg = r.error().describe();
      QVERIFY2(msg.find("ascend_pytorch_profiler_0.db") != std::string::npos, msg.c_str());
      QVERIFY2(msg.find("export_type") != std::string::npos, msg.c_str());
    }
  }

  void warmupAndHcclSubtasks() {
    const fs::path run = ascend() / "msprof_mindspore_910a_2dev_2023";
    fs::path stepTrace;
    for (const auto& e : fs::recursive_directory_iterator(run))
      if (e.path().filename().string().starts_with("step_trace_")) stepTrace = e.path();
    QVERIFY(!stepTrace.empty());
    std::vector<double> iterations, reduce;
    for (const auto& e : readJson(stepTrace)) {
      if (e.value("ph", "") != "X" || !e.contains("args")) continue;
      const std::string name = e["name"].get<std::string>();
      if (name.starts_with("Iteration ") && !name.starts_with("Iteration Refresh")) iterations.push_back(e["dur"].get<double>() / 1000);
      if (name.starts_with("Reduce_")) reduce.push_back(e["dur"].get<double>() / 1000);
    }
    QVERIFY(iterations.size() >= 4);
    QVERIFY(iterations.front() > 2 * iterations[1]);  // the warm-up
    std::vector<double> steady(iterations.begin() + 1, iterations.end());
    std::sort(steady.begin(), steady.end());
    const double median = steady.size() % 2 ? steady[steady.size() / 2]
                                            : (steady[steady.size() / 2 - 1] + steady[steady.size() / 2]) / 2;

    auto r = analyzeProfileFile(run, "", {});
    QVERIFY2(r, r ? "" : r.error().describe().c_str());
    QVERIFY2(std::fabs(r->latencyMs - median) < 1e-6, std::to_string(r->latencyMs).c_str());
    QVERIFY(std::count(r->notes.begin(), r->notes.end(), "warmup_left_out") == 1);
    QVERIFY(std::count(r->notes.begin(), r->notes.end(), "rows_from_warmup") == 1);
    // The all-reduce after the backward pass is most of a steady step: a communication finding.
    const Finding* comm = byRule(*r, "profile.communication");
    QVERIFY2(comm, "no communication finding although the all-reduce dominates the step");
    // Filed with the job's other communication findings, not under the training loop ("Host"):
    // HCCL moves data between devices, and the GUI's walk showed it as "主机".
    QCOMPARE(comm->category.id(), std::string_view("communication"));
    // Its exposed time (what it costs now) is most of the step; the saving is the part computing could hide.
    QVERIFY2(comm->impact.currentMs > 0.3 * r->latencyMs && comm->impact.currentMs < r->latencyMs,
             std::to_string(comm->impact.currentMs).c_str());
    QVERIFY(comm->impact.rawMs > 0 && comm->impact.rawMs <= comm->impact.currentMs);
    // Every note the run states has its sentence (a key without one prints as the key).
    for (const std::string& key : r->notes) {
      const std::string t = report::noteText(*r, key, Lang::En);
      QVERIFY2(!t.empty() && t.find("note.") == std::string::npos && t.find('{') == std::string::npos, key.c_str());
    }
    for (const Finding& f : r->findings) {
      if (f.rule != "profile.fusible_sequence") continue;
      for (const char* sub : {"NOTIFY", "REDUCE_ASYNC", "MEMCPY_ASYNC"})
        QVERIFY2(f.params.at("pattern").find(sub) == std::string::npos, f.params.at("pattern").c_str());
    }
  }
};

// A job's ranks side by side from their own step records (issue 27.1): each rank's step,
// computing, communication not overlapped and free are step_trace_time.csv's (read here); the
// slow rank is the one with the most time of its own, and its cause is told apart as
// msprof-analyze's slow-rank check does — its device computing longer (training.slow_rank), or
// idling for its host's dispatch (training.slow_rank_host).
void TestAscendJobs::ranksFromTheirStepRecords_data() {
  QTest::addColumn<QString>("column");  // rank 1's step record column made 30 ms longer
  QTest::addColumn<QString>("rule");
  QTest::addColumn<QString>("cause");
  QTest::newRow("device-bound rank 1") << "Computing" << "training.slow_rank" << "device";
  QTest::newRow("host-bound rank 1") << "Free" << "training.slow_rank_host" << "host";
}
void TestAscendJobs::ranksFromTheirStepRecords() {
  QFETCH(QString, column);
  QFETCH(QString, rule);
  QFETCH(QString, cause);
  test::TempDir dir("ascend-job");
  makeJob(dir.path(), column.toStdString(), 30.0);
  auto r = training::analyzeTraining(dir.path());
  QVERIFY2(r, r ? "" : r.error().describe().c_str());
  QVERIFY(r->report.job);
  const training::ClusterView& c = *r->report.job;
  QCOMPARE(c.ranks.size(), size_t(2));
  for (int k = 0; k < 2; ++k) {
    const auto rec = stepRecord(dir / ("rank" + std::to_string(k) + "_ascend_pt") / "ASCEND_PROFILER_OUTPUT" / "step_trace_time.csv");
    const training::RankStep& rank = c.ranks[static_cast<size_t>(k)];
    QVERIFY(rank.stepRecord);
    QVERIFY(std::abs(rank.computeMs - rec.at("Computing")) < 1e-6);
    QVERIFY(std::abs(rank.idleMs - rec.at("Free")) < 1e-6);
    QVERIFY(std::abs(rank.notOverlappedMs - rec.at("Communication(Not Overlapped)")) < 1e-6);
    QVERIFY(std::abs(rank.stepMs - (rec.at("Computing") + rec.at("Communication(Not Overlapped)") + rec.at("Free"))) < 1e-6);
  }
  QCOMPARE(c.ranks[static_cast<size_t>(c.slowRank)].rank, 1);
  QCOMPARE(QString::fromStdString(c.slowCause), cause);
  const Finding* f = byRule(r->report, rule.toStdString());
  QVERIFY2(f, rule.toUtf8().constData());
  // The excess over the other rank (the median of two is their mean), in the column edited.
  const double mine = cause == "host" ? c.ranks[1].idleMs : c.ranks[1].computeMs;
  const double other = cause == "host" ? c.ranks[0].idleMs : c.ranks[0].computeMs;
  QVERIFY2(std::abs(f->impact.rawMs - (mine - (mine + other) / 2)) < 1e-3, qPrintable(QString::number(f->impact.rawMs)));
  QVERIFY(!byRule(r->report, cause == "host" ? "training.slow_rank" : "training.slow_rank_host"));
  QVERIFY(hasTexts(rule.toStdString()));
  // The text puts the ranks side by side and marks the slow one with its cause.
  const std::string out = training::trainingReportText(*r);
  QVERIFY2(out.find(cause == "host" ? "slow rank: its host's dispatch" : "slow rank: its compute") != std::string::npos, out.c_str());
}

QTEST_GUILESS_MAIN(TestAscendJobs)
#include "tst_ascend_jobs.moc"
