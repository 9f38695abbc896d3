// The profile-only analysis on a generated torch_npu kernel_details.csv of N kernels (default
// 2,500: the issue-12 target is ≤ 1 s for `analyze --profile`): rows of the real AlexNet run's
// column set (46 columns, PipeUtilization) cycling through convolutions, matrix products,
// TransData, elementwise and reduction kernels with their shapes, Wait Times and pipe ratios.
// Prints the time of import + analysis + JSON, its ratio to the 1 s target, and its ratio to
// reading the same file's bytes and splitting its lines (a floor measured in the same run).
// Asserts nothing.
//
//   bench_profile_only [KERNELS] [--runs N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "advisor/profile_analysis.h"
#include "advisor/profile_only.h"
#include "report/report_json.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

const char* kHeader =
    "Step Id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),"
    "Block Dim,Mix Block Dim,HF32 Eligible,Input Shapes,Input Data Types,Input Formats,Output Shapes,Output Data Types,"
    "Output Formats,Context ID,aicore_time(us),aic_total_cycles,aic_mac_time(us),aic_mac_ratio,aic_scalar_time(us),"
    "aic_scalar_ratio,aic_mte1_time(us),aic_mte1_ratio,aic_mte2_time(us),aic_mte2_ratio,aic_fixpipe_time(us),"
    "aic_fixpipe_ratio,aic_icache_miss_rate,aiv_time(us),aiv_total_cycles,aiv_vec_time(us),aiv_vec_ratio,"
    "aiv_scalar_time(us),aiv_scalar_ratio,aiv_mte2_time(us),aiv_mte2_ratio,aiv_mte3_time(us),aiv_mte3_ratio,"
    "aiv_icache_miss_rate,cube_utilization(%)";

struct Kind {
  const char* name;
  const char* type;
  const char* core;
  const char* shapes;  // the 6 shape/dtype/format fields, quoted as torch_npu writes them
  double us;
  int block;
};

// Shapes and times of the kind the real run holds; each layer i scales the batch a little so
// that entries differ.
const Kind kKinds[] = {
    {"Conv2D", "Conv2D", "AI_CORE", "\"\"\"32,8,%d,27,8;200,12,16,8;192\"\"\",FLOAT;FLOAT;FLOAT,NC1HWC0;FRACTAL_Z;NCHW,\"\"\"32,24,%d,27,8\"\"\",FLOAT,NC1HWC0", 158.6, 16},
    {"aclnnAddmm_MatMulCommon_MatMulV2", "MatMulV2", "AI_CORE", "\"\"\"32,%d;4096,4096;4096\"\"\",FLOAT;FLOAT;FLOAT,FORMAT_ND;FORMAT_ND;FORMAT_ND,\"\"\"32,%d\"\"\",FLOAT,FORMAT_ND", 114.9, 16},
    {"trans_TransData", "TransData", "AI_VECTOR_CORE", "\"\"\"32,64,%d,55\"\"\",FLOAT,NCHW,\"\"\"32,8,%d,55,8\"\"\",FLOAT,NC1HWC0", 22.9, 32},
    {"aclnnInplaceRelu_Relu_Relu", "Relu", "AI_VECTOR_CORE", "\"\"\"32,192,%d,27\"\"\",FLOAT,NCHW,\"\"\"32,192,%d,27\"\"\",FLOAT,NCHW", 13.0, 48},
    {"aclnnMuls_MulAiCore_Mul", "Mul", "AI_VECTOR_CORE", "\"\"\"%d,4096;\"\"\",FLOAT;FLOAT,FORMAT_ND;FORMAT_ND,\"\"\"%d,4096\"\"\",FLOAT,FORMAT_ND", 13.4, 48},
    {"aclnnReduceSum_ReduceSumOpAiCore_ReduceSum", "ReduceSum", "MIX_AIV", "\"\"\"32,%d;1\"\"\",FLOAT;INT64,FORMAT_ND;FORMAT_ND,\"\"\"1,%d\"\"\",FLOAT,FORMAT_ND", 20.4, 47},
    {"aclnnAdd_AddAiCore_Add", "Add", "AI_VECTOR_CORE", "\"\"\"512,2,%d;512,2,%d\"\"\",DT_BF16;DT_BF16,NCL;NCL,\"\"\"512,2,%d\"\"\",DT_BF16,NCL", 26.8, 40},
};

std::string generate(int kernels) {
  std::string s = std::string(kHeader) + "\r\n";
  char shapes[512], row[2048];
  double t = 1736408883704643.0;
  for (int i = 0; i < kernels; ++i) {
    const Kind& k = kKinds[i % (sizeof kKinds / sizeof kKinds[0])];
    const int layer = i / static_cast<int>(sizeof kKinds / sizeof kKinds[0]);
    const int dim = 27 + layer % 64;
    std::snprintf(shapes, sizeof shapes, k.shapes, dim, dim, dim);
    const double us = k.us * (1 + (layer % 7) * 0.05);
    const bool cube = std::strcmp(k.core, "AI_CORE") == 0;
    std::snprintf(row, sizeof row,
                  "50,4294967295,%d,2,%s%s,%s,dynamic,%s,%.3f\t,%.3f,%.3f,%d,0,NO,%s,N/A,%s,%.0f,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,"
                  "0.001,%s,%.0f,%.3f,%.3f,0.5,0.1,%.3f,0.6,%.3f,0.3,0.02,%s",
                  11000 + i, k.name, cube ? std::to_string(layer).c_str() : "", k.type, k.core, t, us, 2.0 + layer % 30, k.block,
                  shapes, cube ? std::to_string(us * 0.97).c_str() : "0.0", cube ? us * 0.97 * 1800 * k.block : 0.0,
                  cube ? std::to_string(us * 0.5).c_str() : "0.0", cube ? "0.52" : "0.0", cube ? "40.0" : "0.0", cube ? "0.3" : "0.0",
                  cube ? "80.0" : "0.0", cube ? "0.8" : "0.0", cube ? "90.0" : "0.0", cube ? "0.9" : "0.0", cube ? "8.0" : "0.0",
                  cube ? "0.08" : "0.0", cube ? "0.0" : std::to_string(us * 0.9).c_str(), cube ? 0.0 : us * 0.9 * 1800 * k.block,
                  cube ? 0.0 : us * 0.2, cube ? 0.0 : 0.2, cube ? 0.0 : us * 0.5, cube ? 0.0 : us * 0.4, cube ? "66.0" : "0");
    s += row;
    s += "\r\n";
    t += us + 2.0 + layer % 30;
  }
  return s;
}

double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

}  // namespace

int main(int argc, char** argv) {
  int kernels = 2500, runs = 5;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) runs = std::atoi(argv[++i]);
    else kernels = std::atoi(argv[i]);
  }
  const fs::path dir = fs::temp_directory_path() / ("msa-bench-profile-only-" + std::to_string(::getpid()));
  fs::create_directories(dir / "rank0_ascend_pt" / "ASCEND_PROFILER_OUTPUT");
  const fs::path csv = dir / "rank0_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "kernel_details.csv";
  const std::string text = generate(kernels);
  std::ofstream(csv, std::ios::binary) << text;

  std::vector<double> analysis, floor;
  size_t findings = 0, entries = 0;
  for (int r = 0; r < runs; ++r) {
    const auto a = Clock::now();
    std::ifstream in(csv, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto lines = std::count(bytes.begin(), bytes.end(), '\n');
    const auto b = Clock::now();
    msa::AnalyzeOptions o;
    auto report = msa::analyzeProfileFile(dir / "rank0_ascend_pt", "", o);
    if (!report) {
      std::printf("bench_profile_only: %s\n", report.error().describe().c_str());
      return 1;
    }
    const std::string json = msa::reportToJson(*report, {}).dump();
    const auto c = Clock::now();
    if (lines < kernels) return 1;  // the file holds every row
    floor.push_back(seconds(a, b));
    analysis.push_back(seconds(b, c));
    findings = report->findings.size();
    entries = report->nodes.size();
    if (json.empty()) return 1;
  }
  std::sort(analysis.begin(), analysis.end());
  std::sort(floor.begin(), floor.end());
  const double med = analysis[analysis.size() / 2], flo = std::max(1e-9, floor[floor.size() / 2]);
  std::printf("analyze --profile (import + analysis + JSON), %d kernels (%zu entries, %zu findings): median %.3f s of %d runs\n",
              kernels, entries, findings, med, runs);
  std::printf("  ratio to the 1 s target: %.3f (target <= 1)\n", med / 1.0);
  std::printf("  ratio to reading the file and counting its lines (%.4f s): %.0f x\n", flo, med / flo);
  fs::remove_all(dir);
  return 0;
}
