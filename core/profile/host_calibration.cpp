#include "profile/host_calibration.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <numeric>
#include <optional>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <random>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "profile/cpu_share.h"
#include "profile/latency.h"
#include "util/atomic_file.h"

namespace fs = std::filesystem;

namespace msa {
namespace {

std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) {
        std::string v = line.substr(colon + 1);
        v.erase(0, v.find_first_not_of(' '));
        return v;
      }
    }
  return "unknown CPU";
}

std::string nowIso() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Tensor randomTensor(std::string name, std::vector<int64_t> dims, uint64_t seed) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<float> v(static_cast<size_t>(n));
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (float& x : v) x = u(rng);
  return Tensor::fromValues(std::move(name), DType::Float, std::move(dims), v);
}

// An empty calibration model named `name` (opset 17; com.microsoft for the int8 kernels it names).
Model probeModel(std::string name, bool int8) {
  Model m;
  m.opsets.push_back({"", 17});
  if (int8) m.opsets.push_back({"com.microsoft", 1});
  m.producerName = "msadvisor calibration";
  m.graph.name = std::move(name);
  return m;
}

Model matmulModel(int64_t n) {
  Model m = probeModel("calibration_matmul", false);
  Graph& g = m.graph;
  g.inputs.push_back({"A", TypeInfo::tensor(DType::Float, Shape{n, n}), {}, {}});
  // A constant right operand, as in a model: the runtime pre-packs it once.
  g.initializers.push_back(randomTensor("B", {n, n}, 2));
  g.outputs.push_back({"Y", TypeInfo::tensor(DType::Float, Shape{n, n}), {}, {}});
  Node mm;
  mm.name = "matmul";
  mm.opType = "MatMul";
  mm.inputs = {"A", "B"};
  mm.outputs = {"Y"};
  g.addNode(mm);
  return m;
}

// The same product in int8: uint8 activations times int8 weights into int32 (MatMulInteger, the
// kernel under DynamicQuantizeMatMul and QLinearMatMul), the weights constant as in a model.
Model int8MatmulModel(int64_t n) {
  Model m = probeModel("calibration_matmul_int8", false);
  Graph& g = m.graph;
  g.inputs.push_back({"A", TypeInfo::tensor(DType::UInt8, Shape{n, n}), {}, {}});
  std::vector<int8_t> b(static_cast<size_t>(n * n));
  std::mt19937_64 rng(5);
  for (int8_t& x : b) x = static_cast<int8_t>(static_cast<int>(rng() % 255) - 127);
  g.initializers.push_back(Tensor::fromValues("B", DType::Int8, {n, n}, b));
  g.initializers.push_back(Tensor::fromValues("A_zero_point", DType::UInt8, {}, std::vector<uint8_t>{128}));
  g.outputs.push_back({"Y", TypeInfo::tensor(DType::Int32, Shape{n, n}), {}, {}});
  Node mm;
  mm.name = "matmul_integer";
  mm.opType = "MatMulInteger";
  mm.inputs = {"A", "B", "A_zero_point"};
  mm.outputs = {"Y"};
  g.addNode(mm);
  return m;
}


Tensor randomUint8(std::string name, std::vector<int64_t> dims, uint64_t seed) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  std::vector<uint8_t> v(static_cast<size_t>(n));
  std::mt19937_64 rng(seed);
  for (uint8_t& x : v) x = static_cast<uint8_t>(rng() % 256);
  return Tensor::fromValues(std::move(name), DType::UInt8, std::move(dims), v);
}

// One kind of convolution as a chain of `chain` equal convolutions (same padding, so the layout
// conversions the runtime adds at the chain's ends are shared out), in float32 or as QLinearConv,
// the node ONNX Runtime makes of a static QDQ convolution. Run at ORT_ENABLE_ALL, as deployed: the
// float chain in NCHWc, the int8 chain in NHWC.
struct ConvProbe {
  std::string_view kind;
  int64_t cin, cout, group, k, stride, hw;
  int chain;
};
// One per int8ConvKind; the sizes are those of the layers of mid-sized CNNs.
constexpr ConvProbe kConvProbes[] = {
    {"dense", 64, 64, 1, 3, 1, 28, 4},       {"dense_few_channels", 16, 16, 1, 3, 1, 56, 4},
    {"pointwise", 64, 64, 1, 1, 1, 56, 4},
    {"depthwise", 96, 96, 96, 3, 1, 56, 4},  {"grouped", 128, 128, 8, 3, 1, 28, 4},
    {"narrow_input", 3, 32, 1, 3, 2, 224, 1},
};

Model convChainModel(const ConvProbe& p, bool int8) {
  Model m = probeModel("calibration_conv_" + std::string(p.kind) + (int8 ? "_int8" : ""), false);
  Graph& g = m.graph;
  const DType act = int8 ? DType::UInt8 : DType::Float;
  g.inputs.push_back({"X", TypeInfo::tensor(act, Shape{1, p.cin, p.hw, p.hw}), {}, {}});
  const int64_t perGroup = p.cin / p.group;
  const std::vector<int64_t> wDims{p.cout, perGroup, p.k, p.k};
  std::mt19937_64 rng(11);
  auto scalar = [&](std::string name, DType t, double v) {
    if (t == DType::Float) g.initializers.push_back(Tensor::fromValues(std::move(name), t, {}, std::vector<float>{static_cast<float>(v)}));
    else if (t == DType::UInt8) g.initializers.push_back(Tensor::fromValues(std::move(name), t, {}, std::vector<uint8_t>{static_cast<uint8_t>(v)}));
    else g.initializers.push_back(Tensor::fromValues(std::move(name), t, {}, std::vector<int8_t>{static_cast<int8_t>(v)}));
  };
  if (int8) {
    scalar("x_scale", DType::Float, 0.02);
    scalar("x_zero", DType::UInt8, 128);
    scalar("w_zero", DType::Int8, 0);
    g.initializers.push_back(Tensor::fromValues("w_scale", DType::Float, {p.cout}, std::vector<float>(static_cast<size_t>(p.cout), 0.01f)));
    g.initializers.push_back(Tensor::fromValues("bias", DType::Int32, {p.cout}, std::vector<int32_t>(static_cast<size_t>(p.cout), 7)));
  } else {
    g.initializers.push_back(randomTensor("bias", {p.cout}, 12));
  }
  std::string prev = "X";
  int64_t hw = p.hw;
  for (int i = 0; i < p.chain; ++i) {
    const std::string w = "W" + std::to_string(i), y = i + 1 == p.chain ? std::string("Y") : "Y" + std::to_string(i);
    if (int8) {
      std::vector<int8_t> v(static_cast<size_t>(p.cout * perGroup * p.k * p.k));
      for (int8_t& x : v) x = static_cast<int8_t>(static_cast<int>(rng() % 255) - 127);
      g.initializers.push_back(Tensor::fromValues(w, DType::Int8, wDims, v));
    } else {
      g.initializers.push_back(randomTensor(w, wDims, 20 + static_cast<uint64_t>(i)));
    }
    Node conv;
    conv.name = "conv" + std::to_string(i);
    conv.opType = int8 ? "QLinearConv" : "Conv";
    conv.inputs = int8 ? std::vector<std::string>{prev, "x_scale", "x_zero", w, "w_scale", "w_zero", "x_scale", "x_zero", "bias"}
                       : std::vector<std::string>{prev, w, "bias"};
    conv.outputs = {y};
    conv.setAttr(Attribute::makeInts("kernel_shape", {p.k, p.k}));
    conv.setAttr(Attribute::makeInts("strides", {p.stride, p.stride}));
    conv.setAttr(Attribute::makeInts("pads", {p.k / 2, p.k / 2, p.k / 2, p.k / 2}));
    conv.setAttr(Attribute::makeInt("group", p.group));
    g.addNode(conv);
    prev = y;
    hw = (hw + 2 * (p.k / 2) - p.k) / p.stride + 1;
  }
  g.outputs.push_back({"Y", TypeInfo::tensor(act, Shape{1, p.cout, hw, hw}), {}, {}});
  return m;
}

// Elementwise work in int8: a chain of Adds of a [1, 64, 56, 56] activation and a constant, in
// float32 or as com.microsoft QLinearAdd, the node a static QDQ Add becomes. Its kernel dequantizes,
// adds and requantizes each element, so it gains little over float32 although it moves a quarter
// of the bytes.
constexpr int64_t kElementwiseProbe[] = {1, 64, 56, 56};

Model elementwiseChainModel(bool int8) {
  Model m = probeModel(int8 ? "calibration_elementwise_int8" : "calibration_elementwise", int8);
  Graph& g = m.graph;
  const std::vector<int64_t> dims(std::begin(kElementwiseProbe), std::end(kElementwiseProbe));
  const DType act = int8 ? DType::UInt8 : DType::Float;
  Shape shape;
  for (int64_t d : dims) shape.dims.push_back({d, {}});
  g.inputs.push_back({"X", TypeInfo::tensor(act, shape), {}, {}});
  g.initializers.push_back(int8 ? randomUint8("B", dims, 15) : randomTensor("B", dims, 15));
  if (int8) {
    g.initializers.push_back(Tensor::fromValues("scale", DType::Float, {}, std::vector<float>{0.02f}));
    g.initializers.push_back(Tensor::fromValues("zero", DType::UInt8, {}, std::vector<uint8_t>{128}));
  }
  std::string prev = "X";
  for (int i = 0; i < 4; ++i) {
    Node add;
    add.name = "add" + std::to_string(i);
    add.opType = int8 ? "QLinearAdd" : "Add";
    if (int8) add.domain = "com.microsoft";
    add.inputs = int8 ? std::vector<std::string>{prev, "scale", "zero", "B", "scale", "zero", "scale", "zero"}
                      : std::vector<std::string>{prev, "B"};
    add.outputs = {i == 3 ? std::string("Y") : "Y" + std::to_string(i)};
    g.addNode(add);
    prev = add.outputs.front();
  }
  g.outputs.push_back({"Y", TypeInfo::tensor(act, shape), {}, {}});
  return m;
}

// Four [1, 32, 28, 28] activations joined on the channels, in float32 or as com.microsoft
// QLinearConcat, which requantizes each input from its own scale: slower than the float copy.
constexpr int64_t kConcatPart[] = {1, 32, 28, 28};

Model concatModel(bool int8) {
  Model m = probeModel(int8 ? "calibration_concat_int8" : "calibration_concat", int8);
  Graph& g = m.graph;
  const std::vector<int64_t> dims(std::begin(kConcatPart), std::end(kConcatPart));
  const DType act = int8 ? DType::UInt8 : DType::Float;
  Shape part, joined;
  for (int64_t d : dims) part.dims.push_back({d, {}});
  joined = part;
  joined.dims[1].value *= 4;
  g.inputs.push_back({"X", TypeInfo::tensor(act, part), {}, {}});
  Node cat;
  cat.name = "concat";
  cat.opType = int8 ? "QLinearConcat" : "Concat";
  if (int8) {
    cat.domain = "com.microsoft";
    g.initializers.push_back(Tensor::fromValues("y_scale", DType::Float, {}, std::vector<float>{0.05f}));
    g.initializers.push_back(Tensor::fromValues("zero", DType::UInt8, {}, std::vector<uint8_t>{128}));
    cat.inputs = {"y_scale", "zero"};
  }
  for (int i = 0; i < 4; ++i) {
    // The first part is the input; the others constants, each with its own scale.
    const std::string name = i == 0 ? std::string("X") : "C" + std::to_string(i);
    if (i > 0) g.initializers.push_back(int8 ? randomUint8(name, dims, 30 + static_cast<uint64_t>(i)) : randomTensor(name, dims, 30 + static_cast<uint64_t>(i)));
    cat.inputs.push_back(name);
    if (int8) {
      const std::string scale = "s" + std::to_string(i);
      g.initializers.push_back(Tensor::fromValues(scale, DType::Float, {}, std::vector<float>{0.01f * static_cast<float>(i + 1)}));
      cat.inputs.push_back(scale);
      cat.inputs.push_back("zero");
    }
  }
  cat.outputs = {"Y"};
  cat.setAttr(Attribute::makeInt("axis", 1));
  g.addNode(cat);
  g.outputs.push_back({"Y", TypeInfo::tensor(act, joined), {}, {}});
  return m;
}

// Y1 = A + B, Y2 = Y1 + B, … then a ReduceSum to a scalar: the runtime reuses its buffers for the
// chain and hands back 4 bytes, so the time is the elementwise traffic, not output copies.
constexpr int kAddChain = 4;

Model addChainModel(int64_t e) {
  Model m = probeModel("calibration_bandwidth", false);
  Graph& g = m.graph;
  g.inputs.push_back({"A", TypeInfo::tensor(DType::Float, Shape{e}), {}, {}});
  g.inputs.push_back({"B", TypeInfo::tensor(DType::Float, Shape{e}), {}, {}});
  g.outputs.push_back({"S", TypeInfo::tensor(DType::Float, Shape{}), {}, {}});
  std::string prev = "A";
  for (int i = 0; i < kAddChain; ++i) {
    Node add;
    add.name = "add" + std::to_string(i);
    add.opType = "Add";
    add.inputs = {prev, "B"};
    add.outputs = {"Y" + std::to_string(i)};
    prev = add.outputs[0];
    g.addNode(add);
  }
  Node sum;
  sum.name = "sum";
  sum.opType = "ReduceSum";
  sum.inputs = {prev};
  sum.outputs = {"S"};
  sum.setAttr(Attribute::makeInt("keepdims", 0));
  g.addNode(sum);
  return m;
}

// The analysis's thread count: the calibration describes what its runs can reach.
int threadsFor(const CalibrationOptions& o) { return o.threads > 0 ? o.threads : defaultThreads(); }

struct TimedRuns {
  double bestMs = 0, medianMs = 0;
  double cpuShare = 1;  // of the CPU time the runtime's threads were ready to use, the part they got
  bool contended = false;
};

// Best and median through the measurement engine (profile/latency.h), contended blocks set aside.
// The best run is the achievable figure (what the machine does when nothing else gets in the
// way); the median is kept for context, the CPU share to tell whether other processes held the cores.
Result<TimedRuns> timeRuns(const Model& m, const std::vector<Tensor>& inputs, int threads, int repeats,
                           const Progress& progress, std::string_view phase) {
  std::vector<DataValue> in;
  for (const Tensor& t : inputs) in.push_back(DataValue::of(t));
  TimedConfig config{&m, in, {}};
  config.session.optimization = GraphOptimization::Disabled;  // nothing to fuse: the runtime runs what is written
  config.session.threads = threads;
  SamplingPolicy policy;
  policy.warmup = 2;
  policy.minRuns = repeats;
  policy.target = 0.02;
  policy.budgetSeconds = 2;
  const Progress stage([&](std::string_view, double f) { progress.report(phase, f); }, progress.cancelFlag());
  auto timed = timeConfigs({&config, 1}, policy, stage);
  if (!timed) return timed.error();
  const TimedLatency& t = timed->front();
  return TimedRuns{t.stats.min, t.stats.median, t.measurement.cpuShare, t.measurement.contended};
}

// The calling thread's CPU time of one run of each model, best of `repeats`, the two run in
// alternation on one intra-op thread (the runtime computes on the calling thread): time other
// processes held the core is not in it, so the ratio of the two holds on a busy machine too.
Result<std::pair<double, double>> cpuTimes(const Model& a, const Tensor& inA, const Model& b, const Tensor& inB, int repeats,
                                           GraphOptimization optimization, const Progress& progress, std::string_view phase) {
  RuntimeOptions ro;
  ro.optimization = optimization;
  ro.intraOpThreads = 1;
  auto sa = OrtSession::create(a, ro);
  if (!sa) return sa.error();
  auto sb = OrtSession::create(b, ro);
  if (!sb) return sb.error();
  const std::vector<DataValue> va{DataValue::of(inA)}, vb{DataValue::of(inB)};
  double bestA = INFINITY, bestB = INFINITY;
  auto threadMs = [] {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
  };
  for (int i = 0; i < repeats + 1; ++i) {
    if (progress.cancelled()) return Error::cancelled();
    for (int k = 0; k < 2; ++k) {
      const OrtSession& s = k == 0 ? *sa : *sb;
      const double t0 = threadMs();
      if (auto r = s.runDiscarding(k == 0 ? va : vb); !r) return r.error();
      const double t = threadMs() - t0;
      if (i > 0) (k == 0 ? bestA : bestB) = std::min(k == 0 ? bestA : bestB, t);  // the first run warms up
    }
    progress.report(phase, static_cast<double>(i + 1) / (repeats + 1));
  }
  return std::make_pair(bestA, bestB);
}

}  // namespace

Result<HostCalibration> measureHost(const CalibrationOptions& o, const Progress& progress) {
  if (o.matmulN < 16 || o.addElements < 1024 || o.repeats < 1) return Error::usage("calibration sizes are too small");
  HostCalibration c;
  c.threads = threadsFor(o);
  c.runtime = ortVersion();
  c.cpu = cpuModel();
  c.matmulN = o.matmulN;
  c.addElements = o.addElements;
  const int64_t n = o.matmulN;
  auto tm = timeRuns(matmulModel(n), {randomTensor("A", {n, n}, 1)}, c.threads, o.repeats, progress, "calibrate matmul");
  if (!tm) return tm.error();
  c.matmulMs = tm->bestMs;
  c.matmulMedianMs = tm->medianMs;
  c.gflops = 2.0 * static_cast<double>(n) * n * n / (tm->bestMs * 1e-3) / 1e9;
  // The int8 rate as the float32 rate times how much faster the same product runs in int8, that
  // ratio from CPU time on one thread: the two best wall-clock runs of a busy machine are not
  // comparable (a 2 ms int8 run finds a quiet moment far more often than a 30 ms float32 run).
  auto ti = cpuTimes(matmulModel(n), randomTensor("A", {n, n}, 1), int8MatmulModel(n), randomUint8("A", {n, n}, 6),
                     std::max(3, o.repeats / 2), GraphOptimization::Disabled, progress, "calibrate int8 matmul");
  if (!ti) return ti.error();
  c.int8MatmulMs = ti->second;
  c.int8MatmulMedianMs = ti->first;  // the float32 product's CPU time beside it
  c.int8Gops = ti->second > 0 ? c.gflops * ti->first / ti->second : 0;
  // Convolutions: the int8 kernels gain far less than the product above where the reduction is
  // short or the layer is small (depthwise, a 3-channel input), so each kind is measured.
  for (const ConvProbe& probe : kConvProbes) {
    const std::vector<int64_t> in{1, probe.cin, probe.hw, probe.hw};
    auto tc = cpuTimes(convChainModel(probe, false), randomTensor("X", in, 13), convChainModel(probe, true),
                       randomUint8("X", in, 14), std::max(3, o.repeats / 2), GraphOptimization::All, progress,
                       "calibrate int8 convolution");
    if (!tc) return tc.error();
    if (tc->second > 0) c.int8KernelSpeedup[std::string(probe.kind)] = tc->first / tc->second;
  }
  const std::vector<int64_t> ew(std::begin(kElementwiseProbe), std::end(kElementwiseProbe));
  auto te = cpuTimes(elementwiseChainModel(false), randomTensor("X", ew, 16), elementwiseChainModel(true), randomUint8("X", ew, 17),
                     std::max(3, o.repeats / 2), GraphOptimization::All, progress, "calibrate int8 elementwise");
  if (!te) return te.error();
  if (te->second > 0) c.int8KernelSpeedup["elementwise"] = te->first / te->second;
  const std::vector<int64_t> part(std::begin(kConcatPart), std::end(kConcatPart));
  auto tcat = cpuTimes(concatModel(false), randomTensor("X", part, 18), concatModel(true), randomUint8("X", part, 19),
                       std::max(3, o.repeats / 2), GraphOptimization::All, progress, "calibrate int8 concat");
  if (!tcat) return tcat.error();
  if (tcat->second > 0) c.int8KernelSpeedup["concat"] = tcat->first / tcat->second;

  const int64_t e = o.addElements;
  auto ta = timeRuns(addChainModel(e), {randomTensor("A", {e}, 3), randomTensor("B", {e}, 4)}, c.threads, o.repeats,
                     progress, "calibrate bandwidth");
  if (!ta) return ta.error();
  c.addMs = ta->bestMs;
  c.addMedianMs = ta->medianMs;
  c.cpuShare = std::min(tm->cpuShare, ta->cpuShare);
  c.contended = tm->contended || ta->contended;
  // Each Add reads two operands and writes one; the ReduceSum reads one more.
  const double bytes = (3.0 * kAddChain + 1.0) * 4.0 * static_cast<double>(e);
  c.bandwidthGBs = bytes / (ta->bestMs * 1e-3) / 1e9;
  c.measuredAt = nowIso();
  return c;
}

fs::path calibrationCachePath() {
  const char* xdg = std::getenv("XDG_CONFIG_HOME");
  fs::path base;
  if (xdg && *xdg && fs::path(xdg).is_absolute()) base = xdg;
  else if (const char* home = std::getenv("HOME"); home && *home) base = fs::path(home) / ".config";
  else base = fs::temp_directory_path();
  return base / "msadvisor" / "host_calibration.json";
}

nlohmann::json toJson(const HostCalibration& c) {
  return {{"gflops", c.gflops},       {"bandwidth_gbps", c.bandwidthGBs}, {"threads", c.threads},
          {"runtime", c.runtime},     {"cpu", c.cpu},                     {"measured_at", c.measuredAt},
          {"cpu_share", c.cpuShare},  {"contended", c.contended},     {"contended_measurements", c.contendedMeasurements},
          {"matmul", {{"n", c.matmulN}, {"best_ms", c.matmulMs}, {"median_ms", c.matmulMedianMs}}},
          {"int8_gops", c.int8Gops},
          {"matmul_int8", {{"n", c.matmulN}, {"cpu_ms_one_thread", c.int8MatmulMs}, {"float32_cpu_ms_one_thread", c.int8MatmulMedianMs}}},
          {"int8_kernel_speedup", c.int8KernelSpeedup},
          {"add_chain", {{"elements", c.addElements}, {"adds", kAddChain}, {"best_ms", c.addMs}, {"median_ms", c.addMedianMs}}}};
}

Result<HostCalibration> calibrationFromJson(const nlohmann::json& j, const std::string& label) {
  try {
    HostCalibration c;
    c.gflops = j.at("gflops").get<double>();
    c.bandwidthGBs = j.at("bandwidth_gbps").get<double>();
    c.threads = j.at("threads").get<int>();
    c.runtime = j.at("runtime").get<std::string>();
    c.cpu = j.at("cpu").get<std::string>();
    c.measuredAt = j.value("measured_at", std::string());
    c.cpuShare = j.value("cpu_share", 1.0);
    // Records written before the measurement engine judged contention kept only the share.
    c.contended = j.value("contended", c.cpuShare < kContendedShare);
    c.contendedMeasurements = j.value("contended_measurements", 0);
    if (j.contains("matmul")) {
      c.matmulN = j["matmul"].value("n", 0);
      c.matmulMs = j["matmul"].value("best_ms", 0.0);
      c.matmulMedianMs = j["matmul"].value("median_ms", 0.0);
    }
    c.int8Gops = j.value("int8_gops", 0.0);
    if (j.contains("matmul_int8")) {
      c.int8MatmulMs = j["matmul_int8"].value("cpu_ms_one_thread", 0.0);
      c.int8MatmulMedianMs = j["matmul_int8"].value("float32_cpu_ms_one_thread", 0.0);
    }
    if (auto it = j.find("int8_kernel_speedup"); it != j.end() && it->is_object())
      for (const auto& [kind, v] : it->items())
        if (v.is_number() && v.get<double>() > 0) c.int8KernelSpeedup[kind] = v.get<double>();
    if (j.contains("add_chain")) {
      c.addElements = j["add_chain"].value("elements", 0LL);
      c.addMs = j["add_chain"].value("best_ms", 0.0);
      c.addMedianMs = j["add_chain"].value("median_ms", 0.0);
    }
    if (!(c.gflops > 0) || !(c.bandwidthGBs > 0)) return Error::model("calibration numbers must be positive", label);
    return c;
  } catch (const std::exception& e) {
    return Error::model(std::string("not a calibration record: ") + e.what(), label);
  }
}

namespace {

// A calibration older than this is measured again: the machine's load, firmware and runtime
// settings drift, and a figure that no longer holds puts the optimum above measured runs.
constexpr std::chrono::hours kCalibrationLifetime{24 * 30};

bool stale(const std::string& measuredAt) {
  std::tm tm{};
  std::istringstream in(measuredAt);
  in >> std::get_time(&tm, "%Y-%m-%dT%H:%M:%S");
  if (in.fail()) return true;  // no date: cannot tell how old, measure again
  const auto when = std::chrono::system_clock::from_time_t(timegm(&tm));
  return std::chrono::system_clock::now() - when > kCalibrationLifetime;
}

constexpr int kContendedTries = 3;

// The cached record when it was measured on this CPU, runtime and thread count and is not stale;
// a damaged cache is as good as none.
std::optional<HostCalibration> readCache(const CalibrationOptions& options) {
  const fs::path file = calibrationCachePath();
  std::ifstream in(file);
  if (!in) return std::nullopt;
  try {
    auto c = calibrationFromJson(nlohmann::json::parse(in), file.string());
    // Another CPU, runtime or thread count measured something else; a record without the int8
    // rates (written before they were measured) is measured again once.
    if (c && c->cpu == cpuModel() && c->runtime == ortVersion() && c->threads == threadsFor(options) && !stale(c->measuredAt) &&
        c->int8Gops > 0 && c->int8KernelSpeedup.size() == std::size(kConvProbes) + 2)
      return *c;
  } catch (const std::exception&) {
    // A damaged cache is as good as none.
  }
  return std::nullopt;
}

// Each data cache level of this CPU, in bytes over all its instances (a per-core L2 counts once
// per core), from sysfs; read once: the host does not change under a running process.
const std::vector<double>& cacheLevels() {
  static const std::vector<double> levels = [] {
    std::vector<double> out;
    const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator("/sys/devices/system/cpu/cpu0/cache", ec)) {
      if (entry.path().filename().string().rfind("index", 0) != 0) continue;
      auto read = [&](const char* name) {
        std::ifstream in(entry.path() / name);
        std::string v;
        std::getline(in, v);
        return v;
      };
      if (read("type") == "Instruction") continue;
      const std::string size = read("size");  // "2048K"
      double bytes = std::atof(size.c_str());
      if (!size.empty() && (size.back() == 'K' || size.back() == 'k')) bytes *= 1024;
      else if (!size.empty() && size.back() == 'M') bytes *= 1024 * 1024;
      // "0-1,4": how many CPUs share one instance of this cache.
      unsigned sharing = 0;
      std::istringstream list(read("shared_cpu_list"));
      for (std::string part; std::getline(list, part, ',');) {
        const auto dash = part.find('-');
        const int first = std::atoi(part.c_str()), last = dash == std::string::npos ? first : std::atoi(part.c_str() + dash + 1);
        sharing += static_cast<unsigned>(std::max(1, last - first + 1));
      }
      out.push_back(bytes * std::max(1u, cpus / std::max(1u, sharing)));
    }
    return out;
  }();
  return levels;
}

}  // namespace

bool contended(const HostCalibration& c) { return c.contended; }

bool reusable(const HostCalibration& c) { return !contended(c) || c.contendedMeasurements >= kContendedTries; }

std::optional<HostCalibration> cachedHostCalibration(const CalibrationOptions& options) { return readCache(options); }

Result<HostCalibration> hostCalibration(bool refresh, const Progress& progress, bool* fromCache,
                                        const CalibrationOptions& options) {
  const fs::path file = calibrationCachePath();
  if (fromCache) *fromCache = false;
  const auto previous = readCache(options);
  if (!refresh && previous && reusable(*previous)) {
    if (fromCache) *fromCache = true;
    return *previous;
  }
  auto c = measureHost(options, progress);
  if (!c) return c;
  // A contended measurement never replaces an uncontended record: its figures describe the
  // machine's other work (458 -> 134 GFLOP/s here, and every optimum moved with it).
  if (contended(*c) && previous && !contended(*previous)) {
    if (fromCache) *fromCache = true;
    return *previous;
  }
  // Figures measured while other processes held the cores are a floor: the better ones stand.
  if (previous && contended(*previous)) {
    c->gflops = std::max(c->gflops, previous->gflops);
    // int8 stays the float32 rate times the ratio measured on one thread's CPU time.
    if (c->int8MatmulMs > 0) c->int8Gops = c->gflops * c->int8MatmulMedianMs / c->int8MatmulMs;
    c->bandwidthGBs = std::max(c->bandwidthGBs, previous->bandwidthGBs);
  }
  if (contended(*c)) c->contendedMeasurements = 1 + (previous && contended(*previous) ? previous->contendedMeasurements : 0);
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  (void)writeFileAtomically(file, toJson(*c).dump(2) + "\n");  // not cached on failure: still useful
  return c;
}

double calibrationWorkingSetBytes(const CalibrationOptions& options) {
  return 3.0 * sizeof(float) * static_cast<double>(options.addElements);
}

double cacheBelow(double workingSetBytes) {
  double best = 0;
  for (double total : cacheLevels())
    if (total < workingSetBytes) best = std::max(best, total);
  return best;
}

std::string_view int8ConvKind(int64_t inputChannelsPerGroup, int64_t group, int64_t kernelElements) {
  // The int8 kernels reduce four uint8 products at a time: fewer than that per group leaves the
  // depthwise kernel; a few input channels (an RGB stem) leave short, badly vectorised reductions.
  if (group > 1 && inputChannelsPerGroup < 4) return "depthwise";
  if (group > 1) return "grouped";
  if (inputChannelsPerGroup < 8) return "narrow_input";
  if (kernelElements == 1) return "pointwise";
  return inputChannelsPerGroup < 32 ? "dense_few_channels" : "dense";
}

DeviceProfile withHostCalibration(const DeviceProfile& profile, const HostCalibration& m) {
  char text[512];
  std::snprintf(text, sizeof text,
                "host calibration %s: %s, %s, %d threads; %dx%d MatMul best %.3f ms (int8: %.3f ms of CPU on one thread), chain of Adds "
                "over %lld floats best %.3f ms",
                m.measuredAt.c_str(), m.cpu.c_str(), m.runtime.c_str(), m.threads, m.matmulN, m.matmulN, m.matmulMs,
                m.int8MatmulMs, m.addElements, m.addMs);
  DeviceProfile::Calibration c;
  c.source = text;
  if (m.bandwidthGBs > 0) c.bytesPerSecond = m.bandwidthGBs * 1e9;
  if (m.gflops <= 0) return profile.withCalibration(c);
  const double measured = m.gflops * 1e9;
  c.flopsPerSecond[DType::Float] = measured;
  if (m.int8Gops > 0) c.flopsPerSecond[DType::Int8] = m.int8Gops * 1e9;
  DeviceProfile p = profile.withCalibration(c);
  // Other element types: the profile's ratio to float32, applied to the measurement.
  for (auto& [key, f] : p.peaks) {
    if (key.second == DType::Float || f.origin == FigureOrigin::Calibrated) continue;  // int8 too when measured
    auto old = profile.peaks.find({key.first, DType::Float});
    if (old == profile.peaks.end()) old = profile.peaks.find({ComputeUnit::None, DType::Float});
    if (old == profile.peaks.end() || old->second.value <= 0) continue;
    // The ratio first: measured * a / b can land an ulp away from measured when a == b, and a
    // float16 rate one ulp above float32 would read as "faster in float16".
    const double ratio = f.value / old->second.value;
    char formula[160];
    std::snprintf(formula, sizeof formula, "measured float32 rate x %.3g (this type's ratio to float32 in the profile)",
                  ratio);
    f.value = measured * ratio;
    f.origin = FigureOrigin::Derived;
    f.source = "calibration";
    f.formula = formula;
  }
  // The name says what the figures now are (the profile's own name calls them defaults).
  char name[160];
  std::snprintf(name, sizeof name, "This machine's CPU through ONNX Runtime (calibrated: %.0f\u202fGFLOP/s, %.1f\u202fGB/s)", m.gflops,
                m.bandwidthGBs);
  p.displayName = name;
  p.displayNameZh.clear();  // reports name a calibrated host by its figures, in their language
  return p;
}

}  // namespace msa
