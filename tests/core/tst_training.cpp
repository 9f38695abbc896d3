// The training analysis end to end on hand-built traces shaped as the real formats are
// documented: a Kineto Chrome trace of a CUDA data-parallel step (torch.profiler
// export_chrome_trace: traceEvents, cat cpu_op / user_annotation / cuda_runtime / kernel /
// gpu_memcpy, ProfilerStep#N, args correlation / Input Dims / Input type), a torch_npu
// trace_view.json (process_name lanes, decimal-string timestamps) and an msprof op_summary CSV.
// Every number a test checks follows from the timeline the fixture lays out (see the comments).
#include <QtTest>

#include <QProcess>

#include <cmath>
#include <fstream>
#include <map>
#include <random>

#include <nlohmann/json.hpp>

#include "cli_run.h"
#include "cost/kernel_cost.h"
#include "report/json_schema.h"
#include "rules/family_registry.h"
#include "rules/texts.h"
#include "test_paths.h"
#include "report/training_report.h"

using namespace msa;
using namespace msa::training;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// ---- The CUDA fixture --------------------------------------------------------------------
// Three ProfilerStep#N of 10, 10 and 12 ms starting at S = 1000, 11000, 21000 µs. In each (µs
// from S):
//   [0, 2000)      enumerate(DataLoader)#…__next__ on the host, no device work: a 2 ms stall;
//   [2000, 2500)   Memcpy HtoD 0.5 ms (launched by cudaMemcpyAsync);
//   [2500, 4000)   aten::linear (fp32 [64,512]×[1024,512]) → aten::addmm → cudaLaunchKernel at
//                  2700 → volta_sgemm_128x64_tn [3000, 6000): 3 ms of fp32 GEMM;
//   [4100, 5100)   autograd::engine::evaluate_function: AddmmBackward0 (host backward 1 ms);
//   6100 + 50 i    40 × elementwise add kernels of 5 µs, each launched by an 8 µs
//                  cudaLaunchKernel 20 µs before: every one is shorter than its launch;
//   [7800, 9200)   ncclKernel_AllReduce on a second stream, 1.4 ms; the add kernels i = 34…39
//                  (6 × 5 µs) overlap it, so 1.37 ms of it is exposed;
//   [9250, 9850)   Optimizer.step#SGD.step holding aten::_foreach_add_ [9260, 9760) (0.5 ms);
//   [9300, 9500)   Memcpy DtoH 0.2 ms (a loss.item()).
// Device busy = 0.5 + 3 + 34 × 0.005 + 1.4 + 0.2 = 5.27 ms, data loading 2 ms, idle 2.73 ms in
// the 10 ms steps (4.73 in the 12 ms one). Work items 44, of which 40 short: 0.2 ms of their
// own, and gaps before them of 0.1 (after the GEMM) + 33 × 0.045 = 1.585 ms — the last six start
// inside the all-reduce, so nothing is idle before them.
struct TraceBuilder {
  json events = json::array();
  long long correlation = 1;

  void x(const std::string& name, const std::string& cat, double ts, double dur, int pid, int tid, json args = json::object()) {
    json e = {{"ph", "X"}, {"name", name}, {"cat", cat}, {"ts", ts}, {"dur", dur}, {"pid", pid}, {"tid", tid}};
    if (!args.empty()) e["args"] = std::move(args);
    events.push_back(std::move(e));
  }
  // A runtime call on the host thread and the device event it launches, linked by correlation.
  void launch(const std::string& call, double callTs, double callDur, const std::string& name, const std::string& cat, double ts,
              double dur, int stream) {
    const long long c = correlation++;
    x(call, "cuda_runtime", callTs, callDur, 1, 1, {{"correlation", c}});
    x(name, cat, ts, dur, 0, stream, {{"correlation", c}, {"stream", stream}, {"device", 0}});
  }
};

json cudaTrace() {
  TraceBuilder b;
  const double starts[] = {1000, 11000, 21000};
  const double lengths[] = {10000, 10000, 12000};
  for (int k = 0; k < 3; ++k) {
    const double s = starts[k];
    b.x("ProfilerStep#" + std::to_string(k + 1), "user_annotation", s, lengths[k], 1, 1);
    b.x("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "user_annotation", s, 2000, 1, 1);
    b.launch("cudaMemcpyAsync", s + 1990, 9, "Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", s + 2000, 500, 7);
    b.x("aten::linear", "cpu_op", s + 2500, 1500, 1, 1,
        {{"Input Dims", {{64, 512}, {1024, 512}, {1024}}}, {"Input type", {"float", "float", "float"}}, {"External id", 10 * k + 1}});
    b.x("aten::addmm", "cpu_op", s + 2600, 1300, 1, 1,
        {{"Input Dims", {{1024}, {64, 512}, {512, 1024}, json::array(), json::array()}},
         {"Input type", {"float", "float", "float", "Scalar", "Scalar"}},
         {"External id", 10 * k + 2}});
    b.launch("cudaLaunchKernel", s + 2700, 8, "volta_sgemm_128x64_tn", "kernel", s + 3000, 3000, 7);
    b.x("autograd::engine::evaluate_function: AddmmBackward0", "cpu_op", s + 4100, 1000, 1, 1);
    for (int i = 0; i < 40; ++i) {
      const double ts = s + 6100 + 50 * i;
      b.launch("cudaLaunchKernel", ts - 20, 8, "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>>",
               "kernel", ts, 5, 7);
    }
    b.launch("cudaLaunchKernel", s + 7790, 8, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)",
             "kernel", s + 7800, 1400, 20);
    b.x("Optimizer.step#SGD.step", "user_annotation", s + 9250, 600, 1, 1);
    b.x("aten::_foreach_add_", "cpu_op", s + 9260, 500, 1, 1);
    b.launch("cudaMemcpyAsync", s + 9290, 9, "Memcpy DtoH (Device -> Pageable)", "gpu_memcpy", s + 9300, 200, 7);
  }
  return {{"schemaVersion", 1},
          {"deviceProperties", {{{"id", 0}, {"name", "NVIDIA A100-SXM4-40GB"}}}},
          {"traceEvents", b.events},
          {"traceName", "rank0.pt.trace.json"}};
}

// ---- The torch_npu fixture ---------------------------------------------------------------
// trace_view.json: no categories, lanes by process_name; two ProfilerStep#N of 4 ms from
// 1000 µs. Per step (µs from S): MatMulV2 on AI_CORE [500, 1500) fed by float16, IndexPutV2 on
// AI_CPU [1600, 1900) with int64 indices (0.3 ms, above the 20 µs line), NonZero on AI_CPU
// [2000, 2015) (15 µs: below it), hcom_allReduce_ on the HCCL stream [2100, 2900).
json npuTrace() {
  json ev = json::array();
  auto meta = [&](int pid, const std::string& lane) {
    ev.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"tid", 0}, {"args", {{"name", lane}}}});
  };
  meta(10, "Python");
  meta(20, "CANN");
  meta(30, "Ascend Hardware");
  meta(40, "Overlap Analysis");
  auto x = [&](const std::string& name, int pid, int tid, double ts, double dur, json args = json::object()) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", 1717000000000000.0 + ts);  // torch_npu: decimal strings, absolute µs
    json e = {{"ph", "X"}, {"name", name}, {"pid", pid}, {"tid", tid}, {"ts", buf}, {"dur", dur}};
    if (!args.empty()) e["args"] = std::move(args);
    ev.push_back(std::move(e));
  };
  for (int k = 0; k < 2; ++k) {
    const double s = 1000 + 4000 * k;
    x("ProfilerStep#" + std::to_string(k + 5), 10, 1, s, 4000);
    x("aten::matmul", 10, 1, s + 100, 300, {{"Input Dims", {{16, 1024}, {1024, 1024}}}, {"Input type", {"c10::Half", "c10::Half"}}});
    x("MatMulV2", 30, 2, s + 500, 1000, {{"Task Type", "AI_CORE"}});
    x("aten::index_put_", 10, 1, s + 1450, 100);
    x("IndexPutV2", 30, 2, s + 1600, 300, {{"Task Type", "AI_CPU"}});
    x("NonZero", 30, 2, s + 2000, 15, {{"Task Type", "AI_CPU"}});
    x("hcom_allReduce__123_0_1", 30, 3, s + 2100, 800, {{"Task Type", "HCCL"}});
    x("Computing", 40, 1, s + 500, 1500);  // derived lane: ignored
  }
  return ev;
}

// ---- The msprof op_summary fixture -------------------------------------------------------
// Two iterations (Infer ID 1, 2), 3 ms of device span each from 100 and 5100 µs: MatMulV2 fp32
// on AI_CORE [0, 1500), Cast on AI_CPU with a double input [1600, 1850) (0.25 ms),
// HcomAllReduce (COMMUNICATION) [1900, 3000).
std::string opSummaryCsv() {
  std::string s =
      "Device_id,Model Name,Model ID,Task ID,Stream ID,Infer ID,Op Name,OP Type,OP State,Task Type,Task Start Time(us),"
      "Task Duration(us),Task Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible,Input Shapes,Input Data Types,"
      "Input Formats,Output Shapes,Output Data Types,Output Formats,Context ID,aicore_time(us)\n";
  int task = 1;
  for (int it = 1; it <= 2; ++it) {
    const double base = 100 + 5000 * (it - 1);
    auto row = [&](const std::string& name, const std::string& type, const std::string& taskType, double start, double dur,
                   const std::string& shapes, const std::string& dtypes) {
      char buf[512];
      std::snprintf(buf, sizeof buf, "0,train,1,%d,2,%d,%s,%s,static,%s,%.3f,%.3f,0,20,0,NO,\"%s\",%s,ND,\"\",FLOAT,ND,N/A,%.3f\n",
                    task++, it, name.c_str(), type.c_str(), taskType.c_str(), base + start, dur, shapes.c_str(), dtypes.c_str(),
                    dur);
      s += buf;
    };
    row("Default/MatMul-op1", "MatMulV2", "AI_CORE", 0, 1500, "256,1024;1024,1024", "FLOAT;FLOAT");
    row("Default/Cast-op2", "Cast", "AI_CPU", 1600, 250, "256", "DOUBLE");
    row("Default/allreduce-op3", "HcomAllReduce", "COMMUNICATION", 1900, 1100, "1024,1024", "FLOAT");
  }
  return s;
}

// An msprof op_summary CSV with the same `kernels` in every iteration (Infer ID 1…iterations,
// 10 ms apart): name, OP Type, Task Type, start (µs from the iteration's start) and duration.
struct Task {
  std::string name, type, taskType;
  double start, dur;
};
std::string opSummary(const std::vector<Task>& kernels, int iterations) {
  std::string s =
      "Device_id,Model Name,Model ID,Task ID,Stream ID,Infer ID,Op Name,OP Type,OP State,Task Type,Task Start Time(us),"
      "Task Duration(us),Task Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible,Input Shapes,Input Data Types,"
      "Input Formats,Output Shapes,Output Data Types,Output Formats,Context ID,aicore_time(us)\n";
  int task = 1;
  for (int it = 1; it <= iterations; ++it)
    for (const Task& k : kernels) {
      char buf[512];
      std::snprintf(buf, sizeof buf, "0,train,1,%d,2,%d,%s,%s,static,%s,%.3f,%.3f,0,20,0,NO,\"\",FLOAT,ND,\"\",FLOAT,ND,N/A,%.3f\n",
                    task++, it, k.name.c_str(), k.type.c_str(), k.taskType.c_str(), 100 + 10000.0 * (it - 1) + k.start, k.dur,
                    k.dur);
      s += buf;
    }
  return s;
}

// Kernels back to back with a gap of `gapUs` before each, from `start`; returns the end.
double sequence(std::vector<Task>& out, const std::vector<std::string>& types, double start, double dur, double gapUs) {
  double t = start;
  for (const std::string& type : types) {
    t += gapUs;
    out.push_back({type + "_" + std::to_string(out.size()), type, "AI_VECTOR_CORE", t, dur});
    t += dur;
  }
  return t;
}

void writeFile(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

json schema() {
  std::ifstream in(test::sourceDir() / "docs" / "report-schema.json");
  return json::parse(in);
}

std::string schemaErrors(const json& j) {
  std::string s;
  for (const auto& e : validateJson(j, schema())) s += e.path + ": " + e.message + "\n";
  return s;
}

const Finding* findRule(const TrainingReport& r, std::string_view rule) {
  for (const Finding& f : r.report.findings)
    if (f.rule == rule) return &f;
  return nullptr;
}

bool near(double a, double b, double tol = 1e-6) { return std::fabs(a - b) <= tol; }

#define QNEAR(a, b) QVERIFY2(near((a), (b)), (std::to_string(a) + " != " + std::to_string(b)).c_str())

TrainingReport analyzeJson(const json& trace, const std::string& label) {
  auto t = parseChromeTrace(trace.dump(), label);
  if (!t) qFatal("%s", t.error().describe().c_str());
  auto r = buildTrainingReport(*t);
  if (!r) qFatal("%s", r.error().describe().c_str());
  return std::move(*r);
}

using Run = test::CliRun;
using test::cli;

QString qpath(const fs::path& p) { return QString::fromStdString(p.string()); }

}  // namespace

// Four torch_npu rank folders, three steps each (10 ms apart): MatMulV2 from the step's start
// for 2 ms (rank 2: 3 ms), then hcom_allReduce until 4 ms. communication_matrix.json: the ring
// 0-1, 1-2, 2-3, 3-0 over HCCS, 100 MB per link, link 2-3 at `slowGbps` and the others at
// `gbps`; every rank writes both links it is on (as the profiler writes them: the op's largest
// instance "top1" and, where `withTotal`, its "total" too).
void writeRingCluster(const fs::path& dir, double slowGbps, double gbps, bool withTotal = false) {
  for (int rank = 0; rank < 4; ++rank) {
    const fs::path folder = dir / ("node1_" + std::to_string(4000 + rank) + "_20250110_ascend_pt");
    fs::create_directories(folder / "ASCEND_PROFILER_OUTPUT");
    writeFile(folder / ("profiler_info_" + std::to_string(rank) + ".json"), "{}");
    std::string csv = "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us)\n";
    const double compute = rank == 2 ? 3000 : 2000;
    for (int step = 1; step <= 3; ++step) {
      const double t0 = 1000 + 10000.0 * (step - 1);
      csv += std::to_string(step) + ",mm,MatMulV2,AI_CORE," + std::to_string(t0) + "," + std::to_string(compute) + "\n";
      csv += std::to_string(step) + ",hcom_allReduce__1_0_1,hcom_allReduce_,COMMUNICATION," + std::to_string(t0 + compute) + "," +
             std::to_string(4000 - compute) + "\n";
    }
    writeFile(folder / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv", csv);
    json links = json::object(), totals = json::object();
    for (int a : {(rank + 3) % 4, rank}) {
      const int b = (a + 1) % 4;
      const double bw = a == 2 ? slowGbps : gbps;
      const std::string link = std::to_string(a) + "-" + std::to_string(b);
      links[link] = {{"Transport Type", "HCCS"}, {"Transit Size(MB)", 100.0}, {"Transit Time(ms)", 100.0 / bw},
                     {"Bandwidth(GB/s)", bw}, {"Op Name", "hcom_allReduce__1_0_1"}};
      totals[link] = {{"Transport Type", "HCCS"}, {"Transit Size(MB)", 100.0}, {"Transit Time(ms)", 100.0 / bw}, {"Bandwidth(GB/s)", bw}};
    }
    links[std::to_string(rank) + "-" + std::to_string(rank)] = {{"Transport Type", "LOCAL"}, {"Transit Size(MB)", 5.0},
                                                                {"Transit Time(ms)", 0.01}};
    json collective = {{"allreduce-top1@1", links}};
    if (withTotal) collective["allreduce-total@1"] = totals;
    json matrix = {{"step1", {{"p2p", json::object()}, {"collective", collective}}}};
    writeFile(folder / "ASCEND_PROFILER_OUTPUT" / "communication_matrix.json", matrix.dump());
  }
}

class TestTraining : public QObject {
  Q_OBJECT
 private slots:
  void cudaStepStatistics() {
    const TrainingReport r = analyzeJson(cudaTrace(), "rank0.pt.trace.json");
    QCOMPARE(r.format, std::string("kineto"));
    QCOMPARE(r.device, std::string("cuda"));
    QCOMPARE(r.stepSource, std::string("profiler_step"));
    const TrainingProfile& p = r.profile;
    QCOMPARE(p.timeline, std::string("device"));
    QCOMPARE(p.steps.size(), size_t(3));
    QCOMPARE(p.steps[2].number, 3LL);
    QNEAR(p.stepMs, 10.0);
    QNEAR(p.stepMinMs, 10.0);
    QNEAR(p.stepMaxMs, 12.0);
    QNEAR(p.stepP90Ms, 11.6);  // linear interpolation over 10, 10, 12
    QNEAR(p.median.busyMs, 5.27);
    QNEAR(p.median.memoryMs, 0.7);
    QNEAR(p.median.dataLoadingMs, 2.0);
    QNEAR(p.median.idleMs, 2.73);
    QNEAR(p.steps[2].idleMs, 4.73);
    QNEAR(p.median.forwardMs, 1.5);
    QNEAR(p.median.backwardMs, 1.0);
    QNEAR(p.median.optimizerMs, 0.5);
    QNEAR(p.median.commMs, 1.4);
    QNEAR(p.median.commExposedMs, 1.37);
    QNEAR(p.median.h2dMs, 0.5);
    QNEAR(p.median.d2hMs, 0.2);
    QCOMPARE(p.median.copies, 2);
    QNEAR(p.median.copyExposedMs, 0.7);
    QCOMPARE(p.median.items, 44);
    QCOMPARE(p.median.shortItems, 40);
    QNEAR(p.median.shortMs, 0.2);
    QNEAR(p.median.shortGapMs, 1.585);
    // Top kernel: the GEMM, 3 ms per step, 30 % of the median step.
    QVERIFY(!p.kernels.empty());
    QCOMPARE(p.kernels.front().name, std::string("volta_sgemm_128x64_tn"));
    QNEAR(p.kernels.front().ms, 3.0);
    QNEAR(p.kernels.front().share, 0.3);
    QNEAR(p.kernels.front().calls, 1.0);
    // The GEMM's device time belongs to the op that launched it.
    auto addmm = std::find_if(p.ops.begin(), p.ops.end(), [](const OpTime& o) { return o.name == "aten::addmm"; });
    QVERIFY(addmm != p.ops.end());
    QNEAR(addmm->deviceMs, 3.0);
  }

  void cudaFindings() {
    const TrainingReport r = analyzeJson(cudaTrace(), "rank0.pt.trace.json");
    const Finding* loading = findRule(r, "training.data_loading");
    QVERIFY(loading);
    QNEAR(loading->impact.ms, 2.0);
    QCOMPARE(loading->priority, Priority::P0);  // 20 % of the step
    QCOMPARE(loading->category, Category::Host);

    const Finding* comm = findRule(r, "training.communication");
    QVERIFY(comm);
    QNEAR(comm->impact.rawMs, 1.37);
    QNEAR(comm->impact.ms, 1.37);
    QCOMPARE(comm->priority, Priority::P0);
    QVERIFY(comm->nodes.front().starts_with("ncclKernel_AllReduce"));

    const Finding* copies = findRule(r, "training.host_copies");
    QVERIFY(copies);
    QNEAR(copies->impact.rawMs, 0.7);
    QCOMPARE(copies->params.at("copies"), std::string("2"));

    const Finding* amp = findRule(r, "training.amp");
    QVERIFY(amp);
    QNEAR(amp->impact.currentMs, 3.0);  // the fp32 GEMM under aten::linear
    QNEAR(amp->impact.rawMs, 1.5);
    QCOMPARE(amp->nodes.front(), std::string("aten::linear"));

    const Finding* launch = findRule(r, "training.launch_bound");
    QVERIFY(launch);
    QNEAR(launch->impact.rawMs, 1.585);
    QCOMPARE(launch->params.at("short_count"), std::string("40"));

    // Idle is 27 % of the step: below the 40 % host-bound line.
    QVERIFY(!findRule(r, "training.host_bound"));
    // No finding claims more than the step; they add up to at most the step.
    double total = 0;
    for (const Finding& f : r.report.findings) {
      QVERIFY(f.impact.ms <= f.impact.rawMs + 1e-9);
      total += f.impact.ms;
    }
    QVERIFY(total <= r.latencyMs + 1e-9);
    QNEAR(r.latencyMs, 10.0);
    // Ranked by score: the data-loading stall first.
    QCOMPARE(r.report.findings.front().rule, std::string("training.data_loading"));
  }

  // Without record_shapes the operators carry no dtypes; the GEMM kernel's name (sgemm: fp32 on
  // the SIMT cores) still tells. A TF32 kernel already runs on the tensor cores: no finding.
  void ampFromKernelNames_data() {
    QTest::addColumn<QString>("kernel");
    QTest::addColumn<bool>("fires");
    QTest::newRow("volta sgemm") << "volta_sgemm_128x64_tn" << true;
    QTest::newRow("xmma f32") << "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize128x128x8" << true;
    QTest::newRow("tf32") << "sm80_xmma_gemm_tf32f32_tf32f32_f32_nn_n_tilesize128x128x16" << false;
    QTest::newRow("half") << "ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_nn" << false;
  }
  void ampFromKernelNames() {
    QFETCH(QString, kernel);
    QFETCH(bool, fires);
    json t = cudaTrace();
    for (auto& e : t["traceEvents"]) {
      if (e.contains("args")) {
        e["args"].erase("Input Dims");
        e["args"].erase("Input type");
      }
      if (e["name"] == "volta_sgemm_128x64_tn") e["name"] = kernel.toStdString();
    }
    const TrainingReport r = analyzeJson(t, "noshapes.json");
    QVERIFY(std::find(r.notes.begin(), r.notes.end(), "no_shapes") != r.notes.end());
    const Finding* amp = findRule(r, "training.amp");
    QCOMPARE(amp != nullptr, fires);
    if (amp) {
      QNEAR(amp->impact.currentMs, 3.0);
      QCOMPARE(amp->nodes.front(), std::string("aten::linear"));
    }
  }

  void cudaReportValidates_data() {
    QTest::addColumn<QString>("lang");
    QTest::newRow("en") << "en";
    QTest::newRow("zh") << "zh";
  }
  void cudaReportValidates() {
    QFETCH(QString, lang);
    const TrainingReport r = analyzeJson(cudaTrace(), "rank0.pt.trace.json");
    TrainingReportFormat fmt;
    QVERIFY(parseLang(lang.toStdString(), fmt.lang));
    const json j = json::parse(trainingReportToJson(r, fmt).dump());
    const std::string errors = schemaErrors(j);
    QVERIFY2(errors.empty(), errors.c_str());
    QCOMPARE(j["kind"].get<std::string>(), std::string("training"));
    QCOMPARE(j["latency_source"].get<std::string>(), std::string("measured"));
    QCOMPARE(j["nodes_total"].get<int>(), 0);
    QVERIFY(j["total_impact_ms"].get<double>() <= j["latency_ms"].get<double>());
    QCOMPARE(j["training"]["steps"].size(), size_t(3));
    QVERIFY(near(j["training"]["communication"]["exposed_ms"].get<double>(), 1.37));
    QVERIFY(near(j["training"]["step_ms"]["p90"].get<double>(), 11.6));
    // The category summary covers the training loop's findings; communication has its own.
    int host = 0, communication = 0;
    for (const auto& c : j["categories"]) {
      if (c["category"] == "host") host = c["findings"].get<int>();
      if (c["category"] == "communication") communication = c["findings"].get<int>();
    }
    QVERIFY2(host >= 2 && communication >= 1, qPrintable(QStringLiteral("%1 host, %2 communication").arg(host).arg(communication)));
    for (const auto& f : j["findings"]) {
      QVERIFY2(!f["title"].get<std::string>().empty() && f["title"].get<std::string>().find('{') == std::string::npos,
               f["title"].get<std::string>().c_str());
      // Chinese titles are Chinese: at least one CJK character (UTF-8 lead bytes E4–E9).
      const std::string title = f["title"].get<std::string>();
      if (fmt.lang == Lang::Zh)
        QVERIFY(std::any_of(title.begin(), title.end(), [](char c) {
          const auto u = static_cast<unsigned char>(c);
          return u >= 0xE4 && u <= 0xE9;
        }));
    }
    // time_by_op_type comes from the kernels: the GEMM first.
    QCOMPARE(j["time_by_op_type"][0]["op_type"].get<std::string>(), std::string("volta_sgemm_128x64_tn"));
  }

  void everyRuleHasTexts() {
    for (const char* rule : {"training.data_loading", "training.host_bound", "training.framework_overhead", "training.launch_bound",
                             "training.fused_operator", "training.amp", "training.aicpu", "training.dynamic_shape",
                             "training.communication", "training.pipeline_bubble", "training.host_copies",
                             "training.checkpoint", "training.host_sync"})
      QVERIFY2(hasTexts(rule), rule);
    // The training family describes its category (host) in the same registry as the graph families.
    auto families = ruleFamilies();
    auto training =
        std::find_if(families.begin(), families.end(), [](const RuleFamilyInfo& f) { return f.id == "training"; });
    QVERIFY(training != families.end());
    QCOMPARE(training->kind, std::string("trace"));
    QVERIFY(std::find(training->categories.begin(), training->categories.end(), Category::Host) !=
            training->categories.end());
    QCOMPARE(categoryTitle(Category::Host, Lang::Zh), std::string("训练流程"));
    QVERIFY(hasUiText("note.training_per_step", Lang::En));
  }

  void npuTraceView() {
    const TrainingReport r = analyzeJson(npuTrace(), "trace_view.json");
    QCOMPARE(r.device, std::string("npu"));
    QCOMPARE(r.profile.steps.size(), size_t(2));
    QCOMPARE(r.profile.steps[0].number, 5LL);
    QNEAR(r.profile.stepMs, 4.0);
    const Finding* aicpu = findRule(r, "training.aicpu");
    QVERIFY(aicpu);
    QNEAR(aicpu->impact.currentMs, 0.3);  // IndexPutV2 only: NonZero's 15 µs is under the line
    QCOMPARE(aicpu->nodes, std::vector<std::string>{"IndexPutV2"});
    const Finding* comm = findRule(r, "training.communication");
    QVERIFY(comm);
    QNEAR(comm->impact.rawMs, 0.8);  // nothing overlaps the HCCL task
    // The derived Overlap Analysis lane is not work.
    QNEAR(r.profile.median.busyMs, 1.0 + 0.3 + 0.015 + 0.8);
  }

  // The torch_npu folder tests/data/training/npu_train_ascend_pt (make_npu_fixture.py): three
  // steps of 3.87, 5.87 and 3.87 ms whose kernels cover 1.8 ms each (step_trace_time.csv's
  // Computing, written from the same timeline), a 1.2 ms data-loading range before any kernel,
  // an fp32 MatMulV2 of 1.5 ms, IndexPutV2 (180 µs) and NonZero (60 µs) on AI_CPU.
  void torchNpuFolder() {
    auto r = analyzeTraining(test::sourceDir() / "tests" / "data" / "training" / "npu_train_ascend_pt");
    QVERIFY2(r, r ? "" : r.error().describe().c_str());
    QCOMPARE(r->format, std::string("torch_npu"));
    QCOMPARE(r->device, std::string("npu"));
    QCOMPARE(r->profile.steps.size(), size_t(3));
    QCOMPARE(r->stepTrace.size(), size_t(3));
    for (size_t k = 0; k < 3; ++k) {
      QNEAR(r->profile.steps[k].busyMs, r->stepTrace[k].computingUs / 1000.0);
      QNEAR(r->profile.steps[k].ms, r->stepTrace[k].totalUs() / 1000.0);
    }
    QNEAR(r->profile.stepMs, 3.87);
    QNEAR(r->profile.stepMaxMs, 5.87);
    QNEAR(r->profile.median.dataLoadingMs, 1.2);
    // The AI CPU tasks from the kernel table's own rows (their dtypes there): one finding, the
    // kernel rules', not the timeline's as well.
    const Finding* aicpu = findRule(*r, "profile.aicpu");
    QVERIFY(aicpu);
    QVERIFY(!findRule(*r, "training.aicpu"));
    QNEAR(aicpu->impact.currentMs, 0.24);
    const Finding* amp = findRule(*r, "training.amp");
    QVERIFY(amp);
    QNEAR(amp->impact.currentMs, 1.5);
    QVERIFY(findRule(*r, "training.dynamic_shape"));
    // Mul → Add → Relu repeats, but no fused operator computes it: launch-bound work, not a
    // fusion (before issue 13.6 it was offered as a "fusion candidate").
    const Finding* launch = findRule(*r, "training.launch_bound");
    QVERIFY(launch);
    QVERIFY(!findRule(*r, "training.fused_operator"));
    QVERIFY(launch->impact.ms <= r->profile.median.shortGapMs + 1e-9);
    const std::string errors = schemaErrors(trainingReportToJson(*r));
    QVERIFY2(errors.empty(), errors.c_str());
  }

  // The same folder priced on Ascend 910B (13.6): every kernel from its own kernel_details row
  // (op type, shapes, dtypes, formats) with the Ascend cost model; the optimum is a step's priced
  // kernels at their roofline. The fp32 MatMulV2 (M = 8 in steps 1 and 3, 16 in step 2: a
  // dynamic shape) is checked against the cost model called on the rows' literal fields, so the
  // shapes, dtypes and formats reach it and each step is priced from its own rows.
  void torchNpuFolderPriced() {
    const fs::path folder = test::sourceDir() / "tests" / "data" / "training" / "npu_train_ascend_pt";
    auto device = loadDevice("ascend910b");
    QVERIFY(device);
    TrainingOptions o;
    o.device = &*device;
    auto r = analyzeTraining(folder, o);
    QVERIFY2(r, r ? "" : r.error().describe().c_str());
    QVERIFY(r->pricing);
    const TrainingPricing& p = *r->pricing;
    QCOMPARE(p.device, std::string("ascend910b"));
    auto matmulMs = [&](const std::string& m) {
      const KernelCost cost = kernelCost(parseKernelSignature("MatMulV2", {"[" + m + ",1024]", "[1024,4096]"},
                                                              {"float", "float"}, {"ND", "ND"}, {"[" + m + ",4096]"},
                                                              {"float"}, {"ND"}));
      return cost.cost.known ? kernelRoofline(cost.cost, *device).seconds * 1e3 : -1.0;
    };
    const double mmRoofline = (2 * matmulMs("8") + matmulMs("16")) / 3;  // per step
    QVERIFY(matmulMs("8") > 0 && matmulMs("16") > matmulMs("8"));
    auto row = std::find_if(p.byType.begin(), p.byType.end(), [](const auto& t) { return t.opType == "MatMulV2"; });
    QVERIFY(row != p.byType.end());
    QNEAR(row->calls, 1.0);
    QNEAR(row->measuredMs, 1.5);
    QNEAR(row->rooflineMs, mmRoofline);
    QVERIFY(p.rooflineMs >= mmRoofline - 1e-12);  // the step's optimum holds the MatMul's
    QVERIFY(p.pricedMs <= p.computeMs + 1e-12);
    QVERIFY(p.computeMs <= r->profile.median.busyMs + 1e-9);
    // The advisor report's optimum is the pricing's; the note says what it is.
    QNEAR(r->report.optimumMs, p.rooflineMs);
    QNEAR(r->report.optimum.knownTimeShare, p.pricedMs / p.computeMs);
    if (r->report.optimum.knownTimeShare >= 0.5) QNEAR(r->report.gapRatio, p.pricedMs / p.rooflineMs);
    // Priced from the kernel table (the same pricing `analyze --profile` states): its note, no other.
    QVERIFY(std::count(r->notes.begin(), r->notes.end(), "optimum_unknown") == 0);
    QVERIFY(std::count(r->report.notes.begin(), r->report.notes.end(), "profile_only") == 1);
    const json j = trainingReportToJson(*r);
    QNEAR(j["training"]["pricing"]["roofline_ms"].get<double>(), p.rooflineMs);
    const std::string errors = schemaErrors(j);
    QVERIFY2(errors.empty(), errors.c_str());
    // Without a device the chip the profile names is priced on, as `analyze --profile` does (this
    // folder names none: the default 910B, said so), never nothing in one view and a figure in
    // the other.
    auto plain = analyzeTraining(folder);
    QVERIFY(plain && plain->pricing);
    QCOMPARE(plain->report.device, std::string("ascend910b"));
    QVERIFY(plain->report.optimumMs > 0);
    QVERIFY(std::count(plain->report.notes.begin(), plain->report.notes.end(), "chip_unknown") == 1);
    // A Kineto trace has no kernel_details rows: nothing to price, even with a device.
    test::TempDir dir("training-priced");
    writeFile(dir / "rank0.pt.trace.json", cudaTrace().dump());
    auto kineto = analyzeTraining(dir / "rank0.pt.trace.json", o);
    QVERIFY(kineto && !kineto->pricing);
  }

  void msprofOpSummary() {
    test::TempDir dir("training");
    writeFile(dir / "op_summary_0_1_1.csv", opSummaryCsv());
    auto r = analyzeTraining(dir / "op_summary_0_1_1.csv");
    QVERIFY2(r, r ? "" : r.error().describe().c_str());
    QCOMPARE(r->stepSource, std::string("step_id"));
    QCOMPARE(r->profile.steps.size(), size_t(2));
    QNEAR(r->profile.stepMs, 3.0);  // first task start to last task end of each Infer ID
    QNEAR(r->profile.median.busyMs, 1.5 + 0.25 + 1.1);
    QNEAR(r->profile.median.idleMs, 0.15);
    const Finding* aicpu = findRule(*r, "profile.aicpu");  // the kernel table's, with the row's dtypes
    QVERIFY(aicpu);
    QNEAR(aicpu->impact.currentMs, 0.25);
    QVERIFY(std::any_of(aicpu->params.begin(), aicpu->params.end(),
                        [](const auto& kv) { return kv.second.find("double") != std::string::npos; }));
    const Finding* comm = findRule(*r, "training.communication");
    QVERIFY(comm);
    QNEAR(comm->impact.rawMs, 1.1);
    const Finding* amp = findRule(*r, "training.amp");
    QVERIFY(amp);
    QNEAR(amp->impact.currentMs, 1.5);
    const std::string errors = schemaErrors(trainingReportToJson(*r));
    QVERIFY2(errors.empty(), errors.c_str());
  }

  // Issue 13.6: on a pipeline-parallel run the point-to-point send/receive is the pipeline
  // bubble, not gradient all-reduce. Per iteration: MatMulV2 [0, 1000), hcom_batchSendRecv
  // [1000, 1600), MatMulV2 [1600, 2100), HcomAllReduce [2100, 2500): 0.6 ms of p2p and 0.4 ms of
  // collectives, none overlapped.
  void pipelineVersusCollectives() {
    test::TempDir dir("training");
    writeFile(dir / "op_summary_0_1_1.csv",
              opSummary({{"mm1", "MatMulV2", "AI_CORE", 0, 1000},
                         {"hcom_batchSendRecv__58_0_1", "hcom_batchSendRecv_", "COMMUNICATION", 1000, 600},
                         {"mm2", "MatMulV2", "AI_CORE", 1600, 500},
                         {"hcom_allReduce__58_1_1", "HcomAllReduce", "COMMUNICATION", 2100, 400}},
                        3));
    auto r = analyzeTraining(dir / "op_summary_0_1_1.csv");
    QVERIFY2(r, r ? "" : r.error().describe().c_str());
    QNEAR(r->profile.median.p2pExposedMs, 0.6);
    QNEAR(r->profile.median.collectiveExposedMs, 0.4);
    QNEAR(r->profile.median.commExposedMs, 1.0);
    const Finding* bubble = findRule(*r, "training.pipeline_bubble");
    QVERIFY(bubble);
    QNEAR(bubble->impact.rawMs, 0.6);
    QCOMPARE(bubble->nodes, std::vector<std::string>{"hcom_batchSendRecv__58_0_1"});
    const Finding* comm = findRule(*r, "training.communication");
    QVERIFY(comm);
    QNEAR(comm->impact.rawMs, 0.4);  // the all-reduce only: the send/receive is not gradient traffic
    QCOMPARE(comm->nodes, std::vector<std::string>{"hcom_allReduce__58_1_1"});
    QVERIFY(renderFinding(*bubble, Lang::En).suggestion.find("micro-batches") != std::string::npos);
    QCOMPARE(communicationKind("ncclKernel_SendRecv_RING_LL(ncclDevComm*)"), std::string_view("p2p"));
    QCOMPARE(communicationKind("c10d::recv_"), std::string_view("p2p"));
    QCOMPARE(communicationKind("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevComm*)"), std::string_view("collective"));
    QCOMPARE(communicationKind("aten::add"), std::string_view(""));
  }

  // Issue 13.6: fusions only where a fused operator exists, named; a host synchronisation is its
  // own finding. Per iteration (20 µs gaps, 30 µs kernels): six times the transformer window
  // "RmsNorm → MatMulV3 → Slice → RmsNorm → Slice → RmsNorm → Cos → Mul → Cast → Sin" (no kernel
  // implements it), four Add → RmsNorm (npu_add_rms_norm), two rotary embeddings (npu_rotary_mul),
  // three Greater → MemSet → NonZero → Slice with a 100 µs gap after each NonZero (boolean
  // indexing: the host reads the count back). MatMulV2 kernels separate the groups.
  void fusionsOnlyWithAFusedOperator() {
    std::vector<Task> k;
    double t = 0;
    auto separator = [&] { t = sequence(k, {"MatMulV2"}, t, 200, 20); };
    for (int i = 0; i < 6; ++i) {
      t = sequence(k, {"RmsNorm", "MatMulV3", "Slice", "RmsNorm", "Slice", "RmsNorm", "Cos", "Mul", "Cast", "Sin"}, t, 30, 20);
      separator();
    }
    for (int i = 0; i < 4; ++i) {
      t = sequence(k, {"Add", "RmsNorm"}, t, 30, 20);
      separator();
    }
    for (int i = 0; i < 2; ++i) {
      t = sequence(k, {"Mul", "StridedSliceD", "StridedSliceD", "Neg", "ConcatD", "Mul", "Add"}, t, 30, 20);
      separator();
    }
    for (int i = 0; i < 3; ++i) {
      t = sequence(k, {"Greater", "MemSet", "NonZero"}, t, 30, 20);
      t = sequence(k, {"Slice"}, t, 30, 100);
      separator();
    }
    test::TempDir dir("training");
    writeFile(dir / "op_summary_0_1_1.csv", opSummary(k, 3));
    auto r = analyzeTraining(dir / "op_summary_0_1_1.csv");
    QVERIFY2(r, r ? "" : r.error().describe().c_str());
    std::map<std::string, const Finding*> fused;
    for (const Finding& f : r->report.findings)
      if (f.rule == "training.fused_operator") fused[f.params.at("fused")] = &f;
    QCOMPARE(fused.size(), size_t(2));
    QVERIFY(fused.count("torch_npu.npu_add_rms_norm") && fused.count("torch_npu.npu_rotary_mul"));
    const Finding& addRms = *fused["torch_npu.npu_add_rms_norm"];
    QCOMPARE(addRms.params.at("per_step"), std::string("4"));
    QCOMPARE(addRms.params.at("sequence"), std::string("Add → RmsNorm"));
    QNEAR(addRms.impact.rawMs, 4 * 0.020);  // the gap inside each of the four
    const Finding& rope = *fused["torch_npu.npu_rotary_mul"];
    QCOMPARE(rope.params.at("sequence"), std::string("Mul → StridedSliceD → StridedSliceD → Neg → ConcatD → Mul → Add"));
    QNEAR(rope.impact.rawMs, 2 * 6 * 0.020);
    QVERIFY(renderFinding(rope, Lang::En).title.find("torch_npu.npu_rotary_mul") != std::string::npos);
    // The NonZero chain is a host synchronisation, not a fusion.
    const Finding* sync = findRule(*r, "training.host_sync");
    QVERIFY(sync);
    QCOMPARE(sync->nodes, std::vector<std::string>{"NonZero"});
    QNEAR(sync->impact.rawMs, 3 * 0.100);
    QCOMPARE(sync->params.at("per_step"), std::string("3"));
  }

  void kernelNamesAsHtaShortensThem_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("shortName");
    QTest::newRow("template kernel")
        << "void at::native::vectorized_elementwise_kernel<4, at::native::AddFunctor<float>, at::detail::Array<char*, 3> >(int, "
           "at::native::AddFunctor<float>, at::detail::Array<char*, 3>)"
        << "at::native::vectorized_elementwise_kernel";
    QTest::newRow("nccl") << "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"
                          << "ncclKernel_AllReduce_RING_LL_Sum_float";
    QTest::newRow("memcpy description") << "Memcpy HtoD (Pageable -> Device)" << "Memcpy HtoD (Pageable -> Device)";
    QTest::newRow("plain") << "volta_sgemm_128x64_tn" << "volta_sgemm_128x64_tn";
    QTest::newRow("aten") << "aten::add" << "aten::add";
  }
  void kernelNamesAsHtaShortensThem() {
    QFETCH(QString, name);
    QFETCH(QString, shortName);
    QCOMPARE(QString::fromStdString(shortKernelName(name.toStdString())), shortName);
  }

  // Findings and the kernel table name CUDA kernels shortly; budgets keep the full names.
  void findingsUseShortKernelNames() {
    const TrainingReport r = analyzeJson(cudaTrace(), "rank0.pt.trace.json");
    const Finding* launch = findRule(r, "training.launch_bound");
    QVERIFY(launch);
    QCOMPARE(launch->nodes.front(), std::string("at::native::vectorized_elementwise_kernel"));
    const Finding* comm = findRule(r, "training.communication");
    QCOMPARE(comm->nodes.front(), std::string("ncclKernel_AllReduce_RING_LL_Sum_float"));
    const json j = trainingReportToJson(r);
    bool shortened = false;
    for (const auto& k : j["training"]["kernels"])
      shortened = shortened || k["short_name"] == "at::native::vectorized_elementwise_kernel";
    QVERIFY(shortened);
    QVERIFY(trainingReportText(r).find("AddFunctor") == std::string::npos);
  }

  // Issue 13.6: a folder of ranks gets the cluster view. Four torch_npu rank folders, three
  // steps each (10 ms apart): MatMulV2 from the step's start for 2 ms (rank 2: 3 ms), then
  // hcom_allReduce until 4 ms — the all-reduce waits for rank 2. communication_matrix.json: the
  // ring 0-1, 1-2, 2-3, 3-0 over HCCS at 50 GB/s except 2-3 at 10 GB/s; every rank writes both
  // links it is on, so each link appears in two files (counted once).
  void clusterView() {
    test::TempDir dir("cluster");
    writeRingCluster(dir.path(), 10.0, 50.0);
    auto members = clusterMembers(dir.path());
    QVERIFY(members);
    QCOMPARE(members->size(), size_t(4));
    QCOMPARE(members->back().rank, 3);
    auto r = analyzeTraining(dir.path());
    QVERIFY2(r, r ? "" : r.error().describe().c_str());
    QVERIFY(r->report.job);
    const ClusterView& c = *r->report.job;
    QCOMPARE(c.ranks.size(), size_t(4));
    QCOMPARE(c.ranks[static_cast<size_t>(c.slowRank)].rank, 2);
    QNEAR(c.ranks[0].computeMs, 2.0);
    QNEAR(c.ranks[0].collectiveExposedMs, 2.0);
    QNEAR(c.ranks[2].computeMs, 3.0);
    QNEAR(c.medianComputeMs, 2.0);
    const Finding* slow = findRule(*r, "training.slow_rank");
    QVERIFY(slow);
    QCOMPARE(slow->nodes, std::vector<std::string>{"rank 2"});
    QNEAR(slow->impact.rawMs, 1.0);
    QCOMPARE(c.links.size(), size_t(4));  // LOCAL left out, duplicates once
    QCOMPARE(c.links.front().link, std::string("2-3"));
    QNEAR(c.links.front().gbps(), 10.0);
    const Finding* link = findRule(*r, "training.slow_link");
    QVERIFY(link);
    QCOMPARE(link->params.at("link"), std::string("2-3"));
    QCOMPARE(link->params.at("median_gbps"), std::string("50.0"));
    QNEAR(link->impact.rawMs, 10.0 - 2.0);
    QCOMPARE(r->profile.stepMs, r->report.job->ranks[2].stepMs);  // the report is the slow rank's
    const json j = trainingReportToJson(*r);
    QCOMPARE(j["training"]["cluster"]["slow_rank"].get<int>(), 2);
    QCOMPARE(j["training"]["cluster"]["ranks"].size(), size_t(4));
    const std::string errors = schemaErrors(j);
    QVERIFY2(errors.empty(), errors.c_str());
    // One rank's folder alone is not a cluster.
    auto one = clusterMembers(members->front().path);
    QVERIFY(one && one->empty());
  }

  // Links that are all slow share their median, so only the chip's own figure shows them (CANN
  // msadvisor's per-link HCCS figure, read here from the device file): every link of the ring at
  // 10 GB/s, 100 MB a step. The matrix lists the op's largest instance and its total, the same
  // transfer twice: it is counted once (the total).
  void linksSlowerThanTheChipsFigure() {
    test::TempDir dir("cluster_links");
    writeRingCluster(dir.path(), 10.0, 10.0, true);
    auto device = loadDevice("ascend910b2");
    QVERIFY(device);
    std::ifstream in(test::sourceDir() / "resources" / "devices" / "ascend910b2.json");
    const double hccs = json::parse(in)["link_bandwidth_gbps"]["HCCS"]["value"].get<double>();
    TrainingOptions o;
    o.device = &*device;
    auto r = analyzeTraining(dir.path(), o);
    QVERIFY2(r, r ? "" : r.error().describe().c_str());
    QVERIFY(r->report.job);
    QCOMPARE(r->report.job->links.size(), size_t(4));
    for (const LinkTraffic& l : r->report.job->links) QNEAR(l.megabytes, 100.0);  // not 200: the total once
    QVERIFY(!findRule(*r, "training.slow_link"));  // one median for all: none below half of it
    const Finding* f = findRule(*r, "training.link_utilization");
    QVERIFY(f);
    QCOMPARE(f->params.at("chip_gbps"), QString::number(hccs, 'f', 1).toStdString());
    QNEAR(f->impact.rawMs, 100.0 / 10.0 - 100.0 / hccs);
    QVERIFY(hasTexts("training.link_utilization"));
    // Links at the chip's figure are not slow.
    test::TempDir fast("cluster_links_fast");
    writeRingCluster(fast.path(), hccs, hccs, true);
    auto ok = analyzeTraining(fast.path(), o);
    QVERIFY(ok);
    QVERIFY(!findRule(*ok, "training.link_utilization"));
  }

  // The iteration's first operator often starts a few microseconds before the profiler opens
  // the step's range (CI: aten::zero_ of an [8] gradient before the first range, inside the
  // next ones): it belongs to the step that follows, or that step lacks a shape its neighbours
  // ran and the next one's looks new. Before the first range only as far back as the widest
  // gap between ranges; set-up long before it belongs to no step.
  void anOperatorInTheGapBeforeAStepIsThatSteps() {
    TraceBuilder b;
    const double starts[] = {1000, 2010, 3020};
    for (int k = 0; k < 3; ++k) {
      const double s = starts[k];
      b.x("ProfilerStep#" + std::to_string(k + 1), "user_annotation", s, 1000, 1, 1);
      // Step 1's zero_ of the [8] gradient starts 4 µs before its range, the others' inside.
      b.x("aten::zero_", "cpu_op", k == 0 ? s - 4 : s + 2, 2, 1, 1, {{"Input Dims", {{8}}}, {"Input type", {"float"}}});
      b.x("aten::zero_", "cpu_op", s + 6, 2, 1, 1, {{"Input Dims", {{1}}}, {"Input type", {"float"}}});
      b.x("aten::addmm", "cpu_op", s + 100, 500, 1, 1,
          {{"Input Dims", {{8}, {4, 16}, {16, 8}, json::array(), json::array()}},
           {"Input type", {"float", "float", "float", "Scalar", "Scalar"}}});
    }
    b.x("aten::empty", "cpu_op", 500, 5, 1, 1, {{"Input Dims", {{3}}}, {"Input type", {"float"}}});  // set-up
    const TrainingReport r = analyzeJson({{"schemaVersion", 1}, {"traceEvents", b.events}}, "gap.json");
    QCOMPARE(r.profile.steps.size(), size_t(3));
    QVERIFY2(!findRule(r, "training.dynamic_shape"), "the gap's operator read as a new shape in step 2");
    // A real change is still one: step 3 runs the multiply on a smaller batch.
    TraceBuilder c;
    c.events = b.events;
    for (auto& e : c.events)
      if (e["name"] == "aten::addmm" && e["ts"].get<double>() > 3000) e["args"]["Input Dims"][1] = json::array({2, 16});
    const TrainingReport changed = analyzeJson({{"schemaVersion", 1}, {"traceEvents", c.events}}, "gap_changed.json");
    QVERIFY(findRule(changed, "training.dynamic_shape"));
  }

  // Profilers drop events: the first recorded step of a CI run had no aten::zero_ of the [8]
  // bias gradient that every later step zeroed. A shape a step lacks is no shape change; one in
  // place of another is (a smaller batch, another length), and so is each new shape of an
  // alternation.
  void aShapeAStepLacksIsNoChange() {
    auto trace = [](const std::vector<std::vector<std::vector<int>>>& stepShapes) {
      TraceBuilder b;
      for (size_t k = 0; k < stepShapes.size(); ++k) {
        const double s = 1000 + 1000.0 * k;
        b.x("ProfilerStep#" + std::to_string(k + 1), "user_annotation", s, 900, 1, 1);
        double ts = s + 10;
        for (const auto& shape : stepShapes[k]) {
          b.x("aten::zero_", "cpu_op", ts, 2, 1, 1, {{"Input Dims", {shape}}, {"Input type", {"float"}}});
          ts += 5;
        }
      }
      return json{{"schemaVersion", 1}, {"traceEvents", b.events}};
    };
    const std::vector<int> bias{8}, count{1}, weight{8, 3, 3, 3}, half{4, 3, 3, 3};
    QVERIFY(!findRule(analyzeJson(trace({{count, weight}, {count, bias, weight}, {count, bias, weight}}), "dropped.json"),
                      "training.dynamic_shape"));
    QVERIFY(findRule(analyzeJson(trace({{count, weight}, {count, weight}, {count, half}}), "replaced.json"),
                     "training.dynamic_shape"));
    const TrainingReport alternating =
        analyzeJson(trace({{weight}, {half}, {weight}, {half}}), "alternating.json");
    const Finding* f = findRule(alternating, "training.dynamic_shape");
    QVERIFY(f);
    QCOMPARE(f->params.at("new_steps"), std::string("1"));  // the second step; later ones repeat shapes seen
  }

  void noSteps() {
    json t = cudaTrace();
    json kept = json::array();
    for (const auto& e : t["traceEvents"])
      if (!e["name"].get<std::string>().starts_with("ProfilerStep#")) kept.push_back(e);
    t["traceEvents"] = kept;
    const TrainingReport r = analyzeJson(t, "nosteps.json");
    QCOMPARE(r.stepSource, std::string("whole_trace"));
    QCOMPARE(r.profile.steps.size(), size_t(1));
    QVERIFY(std::find(r.notes.begin(), r.notes.end(), "no_steps") != r.notes.end());
    // The one "step" spans from the first event to the last: 1000 … 21000 + 9850 µs.
    QNEAR(r.profile.stepMs, 29.85);
  }

  void malformed_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("error");
    QTest::newRow("not json") << R"({"traceEvents": [{"ph": "X", "name": )" << "not valid JSON at byte";
    QTest::newRow("no traceEvents") << R"({"schemaVersion": 1})" << "without 'traceEvents'";
    QTest::newRow("missing ts") << R"({"traceEvents": [{"ph":"X","name":"a","cat":"cpu_op","ts":1,"dur":2},
      {"ph":"X","name":"aten::mm","cat":"cpu_op","dur":3}]})"
                                << "event 1 ('aten::mm'): 'ts' is missing";
    QTest::newRow("negative dur") << R"({"traceEvents": [{"ph":"X","name":"k","cat":"kernel","ts":1,"dur":-4}]})"
                                  << "event 0 ('k'): 'dur' is negative";
    QTest::newRow("string ts") << R"({"traceEvents": [{"ph":"X","name":"k","cat":"kernel","ts":"12x","dur":4}]})"
                               << "'ts' is not a number";
    QTest::newRow("args not object") << R"({"traceEvents": [{"ph":"X","name":"k","cat":"cpu_op","ts":1,"dur":4,"args":3}]})"
                                     << "'args' is not an object";
    QTest::newRow("event not object") << R"({"traceEvents": [{"ph":"X","name":"k","cat":"cpu_op","ts":1,"dur":4}, 7]})"
                                      << "event 1: not an object";
    QTest::newRow("no events") << R"({"traceEvents": [{"ph":"M","name":"process_name","pid":1,"args":{"name":"x"}}]})"
                               << "no operator or kernel events";
  }
  void malformed() {
    QFETCH(QString, text);
    QFETCH(QString, error);
    auto t = parseChromeTrace(text.toStdString(), "bad.json");
    QVERIFY(!t);
    QVERIFY2(QString::fromStdString(t.error().describe()).contains(error), t.error().describe().c_str());
    QVERIFY2(t.error().describe().find("bad.json") != std::string::npos, t.error().describe().c_str());
  }

  // Mutated traces (bytes flipped, cut short, numbers replaced) never crash: each is an error
  // or a report whose JSON validates. Deterministic (fixed seed).
  void mutatedTracesNeverCrash() {
    const std::string base = cudaTrace().dump();
    const std::string npu = npuTrace().dump();
    std::mt19937 rng(20261130);
    int errors = 0, reports = 0;
    const json sch = schema();
    for (int round = 0; round < 300; ++round) {
      std::string text = round % 3 == 2 ? npu : base;
      std::uniform_int_distribution<size_t> pos(0, text.size() - 1);
      switch (round % 4) {
        case 0:  // flip a few bytes
          for (int k = 0; k < 3; ++k) text[pos(rng)] = static_cast<char>(rng() & 0xFF);
          break;
        case 1:  // cut short
          text.resize(pos(rng));
          break;
        case 2: {  // a number becomes negative, huge or not a number
          static const char* kValues[] = {"-1", "1e308", "\"x\"", "null", "[]", "{}"};
          size_t at = text.find("\"dur\":", pos(rng));
          if (at == std::string::npos) at = text.find("\"dur\":");
          const size_t end = text.find_first_of(",}", at + 6);
          text.replace(at + 6, end - at - 6, kValues[rng() % 6]);
          break;
        }
        default: {  // a key renamed
          size_t at = text.find("\"ts\"", pos(rng));
          if (at != std::string::npos) text[at + 1] = 'q';
        }
      }
      auto t = parseChromeTrace(text, "mutated.json");
      if (!t) {
        ++errors;
        QVERIFY(!t.error().describe().empty());
        continue;
      }
      ++reports;
      auto built = buildTrainingReport(*t);
      QVERIFY2(built, built ? "" : built.error().describe().c_str());
      const json j = json::parse(trainingReportToJson(*built).dump());
      const auto e = validateJson(j, sch);
      QVERIFY2(e.empty(), e.empty() ? "" : (e[0].path + ": " + e[0].message).c_str());
    }
    QVERIFY(errors > 0);
    QVERIFY(reports > 0);
  }

  void malformedCsv_data() {
    QTest::addColumn<QString>("line");
    QTest::addColumn<QString>("error");
    QTest::newRow("duration") << "0,train,1,9,2,1,Default/x,Add,static,AI_CORE,10.0,abc,0,1,0,NO,\"\",,,,,,N/A,1"
                              << "line 8: 'abc' in column 'Task Duration(us)' is not a number";
    QTest::newRow("negative") << "0,train,1,9,2,1,Default/x,Add,static,AI_CORE,10.0,-3,0,1,0,NO,\"\",,,,,,N/A,1"
                              << "line 8: negative duration";
  }
  void malformedCsv() {
    QFETCH(QString, line);
    QFETCH(QString, error);
    test::TempDir dir("training");
    writeFile(dir / "op_summary_0_1_1.csv", opSummaryCsv() + line.toStdString() + "\n");
    auto r = analyzeTraining(dir / "op_summary_0_1_1.csv");
    QVERIFY(!r);
    QVERIFY2(QString::fromStdString(r.error().describe()).contains(error), r.error().describe().c_str());
  }

  void cli() {
    if (!fs::exists(test::cliPath())) QSKIP("msadvisor-cli not built");
    test::TempDir dir("training-cli");
    writeFile(dir / "rank0.pt.trace.json", cudaTrace().dump());
    // JSON and text.
    Run run = ::cli({"training", qpath(dir / "rank0.pt.trace.json"), "--json", qpath(dir / "out.json")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY2(run.out.contains("Step time") && run.out.contains("10.0\u202fms median"), run.out.constData());
    QVERIFY2(run.out.contains("(1.37\u202fms not overlapped)") && run.out.contains("H2D 0.500\u202fms, D2H 0.200\u202fms"), run.out.constData());
    std::ifstream in(dir / "out.json");
    const json j = json::parse(in);
    const std::string errors = schemaErrors(j);
    QVERIFY2(errors.empty(), errors.c_str());
    QCOMPARE(j["device"].get<std::string>(), std::string("cuda"));
    QVERIFY(near(j["latency_ms"].get<double>(), 10.0));
    // A device profile names the device and sets the short-kernel line from its launch overhead.
    run = ::cli({"training", qpath(dir / "rank0.pt.trace.json"), "--device", "ascend910b", "--lang", "zh", "--json", "-"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const json k = json::parse(run.out.toStdString());
    QCOMPARE(k["device"].get<std::string>(), std::string("ascend910b"));
    QCOMPARE(k["lang"].get<std::string>(), std::string("zh"));
    QVERIFY(k["launch_overhead_ms"].get<double>() > 0);
    QVERIFY(near(k["training"]["launch"]["short_threshold_us"].get<double>(), k["launch_overhead_ms"].get<double>() * 1000, 1e-6));
    // tensorboard_trace_handler writes *.pt.trace.json.gz: the same report from the compressed file.
    {
      QProcess gz;
      gz.start("gzip", {"-k", qpath(dir / "rank0.pt.trace.json")});
      QVERIFY(gz.waitForFinished() && gz.exitCode() == 0);
      run = ::cli({"training", qpath(dir / "rank0.pt.trace.json.gz"), "--json", "-"});
      QVERIFY2(run.exitCode == 0, run.err.constData());
      const json z = json::parse(run.out.toStdString());
      QCOMPARE(z["findings"].size(), j["findings"].size());
      QVERIFY(near(z["total_impact_ms"].get<double>(), j["total_impact_ms"].get<double>()));
      // Cut short: the compressed stream is truncated, exit 2.
      const auto size = fs::file_size(dir / "rank0.pt.trace.json.gz");
      fs::resize_file(dir / "rank0.pt.trace.json.gz", size / 2);
      run = ::cli({"training", qpath(dir / "rank0.pt.trace.json.gz")});
      QCOMPARE(run.exitCode, 2);
    }
    // --model names the trained model: its path, node count and inputs.
    if (test::hasCorpus() && fs::exists(test::corpusModel("resnet18.onnx"))) {
      run = ::cli({"training", qpath(dir / "rank0.pt.trace.json"), "--model", qpath(test::corpusModel("resnet18.onnx")), "--json", "-"});
      QVERIFY2(run.exitCode == 0, run.err.constData());
      const json m = json::parse(run.out.toStdString());
      QCOMPARE(m["model"].get<std::string>(), test::corpusModel("resnet18.onnx").string());
      QVERIFY(m["nodes_total"].get<int>() > 10);
      QCOMPARE(m["inputs"].size(), size_t(1));
      QCOMPARE(m["training"]["trace"].get<std::string>(), (dir / "rank0.pt.trace.json").string());
    }
    QCOMPARE(::cli({"training", qpath(dir / "rank0.pt.trace.json"), "--device", "no-such-device"}).exitCode, 3);
    // Malformed: exit 2, the event named, an error object in the JSON.
    writeFile(dir / "bad.json", R"({"traceEvents": [{"ph":"X","name":"aten::mm","cat":"cpu_op","ts":5}]})");
    run = ::cli({"training", qpath(dir / "bad.json"), "--json", qpath(dir / "bad_out.json")});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains("event 0 ('aten::mm'): 'dur' is missing"), run.err.constData());
    std::ifstream badIn(dir / "bad_out.json");
    const json bad = json::parse(badIn);
    QVERIFY(bad["error"]["message"].get<std::string>().find("'dur' is missing") != std::string::npos);
    // Missing file: exit 2; no TRACE: usage (1).
    QCOMPARE(::cli({"training", qpath(dir / "nope.json")}).exitCode, 2);
    QCOMPARE(::cli({"training"}).exitCode, 1);
  }
};

QTEST_GUILESS_MAIN(TestTraining)
#include "tst_training.moc"
