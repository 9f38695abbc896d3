#include "profile/host_calibration.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "profile/ort_session.h"

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

Model oneNodeModel(const std::string& op, std::vector<int64_t> a, std::vector<int64_t> b, std::vector<int64_t> y,
                   std::optional<Tensor> bInit) {
  Model m;
  m.opsets.push_back({"", 17});
  m.producerName = "msadvisor calibration";
  Graph& g = m.graph;
  g.name = "calibration_" + op;
  g.inputs.push_back({"A", TypeInfo::tensor(DType::Float, Shape::of(a)), {}, {}});
  if (bInit) g.initializers.push_back(std::move(*bInit));
  else g.inputs.push_back({"B", TypeInfo::tensor(DType::Float, Shape::of(b)), {}, {}});
  g.outputs.push_back({"Y", TypeInfo::tensor(DType::Float, Shape::of(y)), {}, {}});
  Node n;
  n.name = op;
  n.opType = op;
  n.inputs = {"A", "B"};
  n.outputs = {"Y"};
  g.addNode(n);
  return m;
}

Result<double> medianRunMs(const Model& m, const std::vector<Tensor>& inputs, int threads, int repeats,
                           const Progress& progress, std::string_view phase) {
  RuntimeOptions ro;
  ro.optimization = GraphOptimization::All;
  ro.intraOpThreads = threads;
  auto s = OrtSession::create(m, ro);
  if (!s) return s.error();
  std::vector<double> t;
  for (int i = 0; i < repeats + 2; ++i) {
    if (progress.cancelled()) return Error::cancelled();
    auto t0 = std::chrono::steady_clock::now();
    auto r = s->run(inputs);
    auto t1 = std::chrono::steady_clock::now();
    if (!r) return r.error();
    if (i >= 2) t.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());  // two warm-ups
    progress.report(phase, static_cast<double>(i + 1) / (repeats + 2));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

Result<HostCalibration> measureHost(const CalibrationOptions& o, const Progress& progress) {
  if (o.matmulN < 16 || o.addElements < 1024 || o.repeats < 1) return Error::usage("calibration sizes are too small");
  HostCalibration c;
  c.threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  c.runtime = ortVersion();
  c.cpu = cpuModel();
  c.matmulN = o.matmulN;
  c.addElements = o.addElements;
  const int64_t n = o.matmulN;
  // MatMul with a constant right operand, as in a model: the runtime pre-packs it once.
  Model mm = oneNodeModel("MatMul", {n, n}, {n, n}, {n, n}, randomTensor("B", {n, n}, 2));
  auto tm = medianRunMs(mm, {randomTensor("A", {n, n}, 1)}, c.threads, o.repeats, progress, "calibrate matmul");
  if (!tm) return tm.error();
  c.matmulMs = *tm;
  c.gflops = 2.0 * static_cast<double>(n) * n * n / (*tm * 1e-3) / 1e9;

  const int64_t e = o.addElements;
  Model add = oneNodeModel("Add", {e}, {e}, {e}, std::nullopt);
  auto ta = medianRunMs(add, {randomTensor("A", {e}, 3), randomTensor("B", {e}, 4)}, c.threads, o.repeats, progress,
                        "calibrate bandwidth");
  if (!ta) return ta.error();
  c.addMs = *ta;
  c.bandwidthGBs = 3.0 * 4.0 * static_cast<double>(e) / (*ta * 1e-3) / 1e9;
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
          {"matmul", {{"n", c.matmulN}, {"median_ms", c.matmulMs}}},
          {"add", {{"elements", c.addElements}, {"median_ms", c.addMs}}}};
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
    if (j.contains("matmul")) {
      c.matmulN = j["matmul"].value("n", 0);
      c.matmulMs = j["matmul"].value("median_ms", 0.0);
    }
    if (j.contains("add")) {
      c.addElements = j["add"].value("elements", 0LL);
      c.addMs = j["add"].value("median_ms", 0.0);
    }
    if (!(c.gflops > 0) || !(c.bandwidthGBs > 0)) return Error::model("calibration numbers must be positive", label);
    return c;
  } catch (const std::exception& e) {
    return Error::model(std::string("not a calibration record: ") + e.what(), label);
  }
}

Result<HostCalibration> hostCalibration(bool refresh, const Progress& progress, bool* fromCache,
                                        const CalibrationOptions& options) {
  const fs::path file = calibrationCachePath();
  const int threads = options.threads > 0 ? options.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (fromCache) *fromCache = false;
  if (!refresh) {
    std::ifstream in(file);
    if (in) {
      try {
        auto j = nlohmann::json::parse(in);
        auto c = calibrationFromJson(j, file.string());
        // Another CPU, runtime or thread count measures something else: measure again.
        if (c && c->cpu == cpuModel() && c->runtime == ortVersion() && c->threads == threads) {
          if (fromCache) *fromCache = true;
          return c;
        }
      } catch (const std::exception&) {
        // A damaged cache is measured over.
      }
    }
  }
  auto c = measureHost(options, progress);
  if (!c) return c;
  std::error_code ec;
  fs::create_directories(file.parent_path(), ec);
  fs::path tmp = file;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << toJson(*c).dump(2) << "\n";
    if (!out.flush()) return c;  // measured but not cached: still useful
  }
  fs::rename(tmp, file, ec);
  return c;
}

}  // namespace msa
