#include "profile/acl_profiler.h"
#include "profile/profile_import.h"

namespace msa {

const char* aclUnavailableMessage() {
  return "the Ascend backend (ACL) is not available in this build: CANN was not found when msadvisor was built "
         "(install the CANN toolkit, set ASCEND_TOOLKIT_HOME and rebuild; or profile on the Ascend machine with "
         "msprof and import its op_summary CSV or PROF_ folder)";
}

}  // namespace msa

#if !MSA_HAVE_ACL

namespace msa {

bool aclBackendAvailable() { return false; }

Result<ProfileData> profileWithAcl(const Model&, const AclProfileOptions&, const Progress&) {
  return Error::device(aclUnavailableMessage());
}

}  // namespace msa

#else  // MSA_HAVE_ACL: written against the public AscendCL API (ascend.md §3)

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <acl/acl.h>
#include <acl/acl_prof.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <random>
#include <thread>

#include "model/onnx_io.h"
#include "profile/ascend_ops.h"
#include "profile/atc.h"

namespace msa {

namespace fs = std::filesystem;

namespace {

Error aclFailure(const char* call, aclError e) {
  return Error::device(std::string(call) + " failed with ACL error " + std::to_string(e));
}

// Releases what was acquired, in reverse order, on every path out of profileWithAcl().
class Cleanup {
 public:
  ~Cleanup() {
    for (auto it = m_steps.rbegin(); it != m_steps.rend(); ++it) (*it)();
  }
  void add(std::function<void()> step) { m_steps.push_back(std::move(step)); }

 private:
  std::vector<std::function<void()>> m_steps;
};

uint16_t toHalf(float f) {
  // Round-to-nearest-even float -> IEEE half, enough for random inputs in [-1, 1].
  uint32_t x;
  std::memcpy(&x, &f, sizeof x);
  uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xff) - 127 + 15;
  uint32_t mant = x & 0x7fffffu;
  if (exp <= 0) return static_cast<uint16_t>(sign);  // flush tiny values to zero
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00u);
  uint32_t h = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  if ((mant & 0x1fffu) > 0x1000u || ((mant & 0x1fffu) == 0x1000u && (h & 1u))) ++h;
  return static_cast<uint16_t>(h);
}

// Seeded inputs: floats in [-1, 1); integer inputs stay 0, a valid index for any gather.
std::vector<uint8_t> randomInput(aclDataType type, size_t bytes, std::mt19937& rng) {
  std::vector<uint8_t> buf(bytes, 0);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  if (type == ACL_FLOAT) {
    for (size_t i = 0; i + 4 <= bytes; i += 4) {
      float v = u(rng);
      std::memcpy(&buf[i], &v, 4);
    }
  } else if (type == ACL_FLOAT16) {
    for (size_t i = 0; i + 2 <= bytes; i += 2) {
      uint16_t v = toHalf(u(rng));
      std::memcpy(&buf[i], &v, 2);
    }
  } else if (type == ACL_DOUBLE) {
    for (size_t i = 0; i + 8 <= bytes; i += 8) {
      double v = u(rng);
      std::memcpy(&buf[i], &v, 8);
    }
  }
  return buf;
}

// Reads the subscription pipe on its own thread: whole op records of `descSize` bytes each.
class SubscriptionReader {
 public:
  SubscriptionReader(int fd, size_t descSize, uint32_t modelId)
      : m_fd(fd), m_descSize(descSize), m_modelId(modelId), m_thread([this] { run(); }) {}
  ~SubscriptionReader() { finish(); }

  // Stops after the writer closed its end (EOF) or, failing that, after a quiet period.
  void finish() {
    m_stop = true;
    if (m_thread.joinable()) m_thread.join();
  }
  std::vector<AscendOpRecord> take() {
    std::lock_guard lock(m_mutex);
    return std::move(m_records);
  }

 private:
  void run() {
    std::vector<char> pending;
    std::vector<char> chunk(m_descSize * 64);
    int quiet = 0;
    while (true) {
      pollfd p{m_fd, POLLIN, 0};
      int r = poll(&p, 1, 100);
      if (r == 0) {
        if (m_stop && ++quiet >= 10) break;  // 1 s without data after stop: the writer is gone
        continue;
      }
      if (r < 0) break;
      ssize_t n = read(m_fd, chunk.data(), chunk.size());
      if (n <= 0) break;  // EOF: unsubscribing closed the write end
      quiet = 0;
      pending.insert(pending.end(), chunk.begin(), chunk.begin() + n);
      size_t whole = pending.size() / m_descSize * m_descSize;
      if (whole) {
        parse(pending.data(), whole);
        pending.erase(pending.begin(), pending.begin() + static_cast<long>(whole));
      }
    }
  }

  void parse(const char* data, size_t len) {
    uint32_t count = 0;
    if (aclprofGetOpNum(data, len, &count) != ACL_SUCCESS) return;
    std::lock_guard lock(m_mutex);
    for (uint32_t i = 0; i < count; ++i) {
      if (aclprofGetModelId(data, len, i) != m_modelId) continue;
      AscendOpRecord rec;
      size_t nameLen = 0, typeLen = 0;
      if (aclprofGetOpNameLen(data, len, i, &nameLen) == ACL_SUCCESS && nameLen > 0) {
        std::vector<char> name(nameLen + 1, '\0');
        if (aclprofGetOpName(data, len, i, name.data(), name.size()) == ACL_SUCCESS) rec.name = name.data();
      }
      if (aclprofGetOpTypeLen(data, len, i, &typeLen) == ACL_SUCCESS && typeLen > 0) {
        std::vector<char> type(typeLen + 1, '\0');
        if (aclprofGetOpType(data, len, i, type.data(), type.size()) == ACL_SUCCESS) rec.opType = type.data();
      }
      if (rec.name.empty()) continue;
      rec.startUs = static_cast<double>(aclprofGetOpStart(data, len, i));
      rec.durationUs = static_cast<double>(aclprofGetOpDuration(data, len, i));
      m_records.push_back(std::move(rec));
    }
  }

  int m_fd;
  size_t m_descSize;
  uint32_t m_modelId;
  std::atomic<bool> m_stop{false};
  std::mutex m_mutex;
  std::vector<AscendOpRecord> m_records;
  std::thread m_thread;  // last: starts after the members it uses
};

// A dataset of device buffers, one per model input or output, freed on destruction.
class Dataset {
 public:
  Dataset() : m_set(aclmdlCreateDataset()) {}
  ~Dataset() {
    for (aclDataBuffer* b : m_buffers) aclDestroyDataBuffer(b);
    for (void* p : m_device) aclrtFree(p);
    if (m_set) aclmdlDestroyDataset(m_set);
  }
  Dataset(const Dataset&) = delete;
  Dataset& operator=(const Dataset&) = delete;
  aclmdlDataset* get() const { return m_set; }

  Status add(size_t bytes, const std::vector<uint8_t>* host, aclrtMemcpyKind kind) {
    if (!m_set) return Error::device("aclmdlCreateDataset failed");
    void* dev = nullptr;
    if (aclError e = aclrtMalloc(&dev, bytes, ACL_MEM_MALLOC_HUGE_FIRST); e != ACL_SUCCESS)
      return aclFailure("aclrtMalloc", e);
    m_device.push_back(dev);
    if (host)
      if (aclError e = aclrtMemcpy(dev, bytes, host->data(), bytes, kind); e != ACL_SUCCESS)
        return aclFailure("aclrtMemcpy", e);
    aclDataBuffer* buf = aclCreateDataBuffer(dev, bytes);
    if (!buf) return Error::device("aclCreateDataBuffer failed");
    m_buffers.push_back(buf);
    if (aclError e = aclmdlAddDatasetBuffer(m_set, buf); e != ACL_SUCCESS) return aclFailure("aclmdlAddDatasetBuffer", e);
    return Ok{};
  }

 private:
  aclmdlDataset* m_set;
  std::vector<void*> m_device;
  std::vector<aclDataBuffer*> m_buffers;
};

}  // namespace

bool aclBackendAvailable() { return true; }

Result<ProfileData> profileWithAcl(const Model& model, const AclProfileOptions& opt, const Progress& progress) {
  if (opt.iterations < 1 || opt.warmup < 0) return Error::usage("iterations must be >= 1 and warmup >= 0");
  Cleanup cleanup;
  progress.report("initialising AscendCL", 0.0);
  if (aclError e = aclInit(nullptr); e != ACL_SUCCESS) return aclFailure("aclInit (is the NPU driver installed?)", e);
  cleanup.add([] { aclFinalize(); });
  if (aclError e = aclrtSetDevice(opt.deviceId); e != ACL_SUCCESS) return aclFailure("aclrtSetDevice", e);
  cleanup.add([dev = opt.deviceId] { aclrtResetDevice(dev); });
  aclrtContext context = nullptr;
  if (aclError e = aclrtCreateContext(&context, opt.deviceId); e != ACL_SUCCESS) return aclFailure("aclrtCreateContext", e);
  cleanup.add([context] { aclrtDestroyContext(context); });
  aclrtStream stream = nullptr;
  if (aclError e = aclrtCreateStream(&stream); e != ACL_SUCCESS) return aclFailure("aclrtCreateStream", e);
  cleanup.add([stream] { aclrtDestroyStream(stream); });
  aclrtRunMode runMode = ACL_HOST;
  if (aclError e = aclrtGetRunMode(&runMode); e != ACL_SUCCESS) return aclFailure("aclrtGetRunMode", e);
  const aclrtMemcpyKind toDevice = runMode == ACL_HOST ? ACL_MEMCPY_HOST_TO_DEVICE : ACL_MEMCPY_DEVICE_TO_DEVICE;
  const char* deviceSoc = aclrtGetSocName();
  const std::string soc = !opt.socVersion.empty() ? opt.socVersion : deviceSoc ? deviceSoc : "";

  // The offline model: given, or compiled by ATC for this chip.
  fs::path om = opt.om;
  if (om.empty()) {
    AtcOptions atc;
    atc.socVersion = soc;
    atc.extraArgs = opt.atcArgs;
    atc.dims = opt.dims;
    atc.outputDir = opt.workDir;
    if (atc.outputDir.empty()) {
      atc.outputDir = fs::temp_directory_path() / ("msadvisor-atc-" + std::to_string(::getpid()));
      cleanup.add([dir = atc.outputDir] {
        std::error_code ec;
        fs::remove_all(dir, ec);
      });
    }
    fs::path onnx = !opt.onnx.empty() ? opt.onnx : model.path;
    if (onnx.empty()) {  // a model built or rewritten in memory: write it for ATC
      onnx = atc.outputDir / "model.onnx";
      std::error_code ec;
      fs::create_directories(atc.outputDir, ec);
      if (auto s = saveModel(model, onnx); !s) return s.error();
    }
    auto converted = convertWithAtc(model, onnx, atc, progress);
    if (!converted) return converted.error();
    om = converted->om;
  }

  progress.report("loading the offline model", 0.0);
  uint32_t modelId = 0;
  if (aclError e = aclmdlLoadFromFile(om.c_str(), &modelId); e != ACL_SUCCESS)
    return Error::device("aclmdlLoadFromFile failed with ACL error " + std::to_string(e) + " for " + om.string());
  cleanup.add([modelId] { aclmdlUnload(modelId); });
  aclmdlDesc* desc = aclmdlCreateDesc();
  if (!desc) return Error::device("aclmdlCreateDesc failed");
  cleanup.add([desc] { aclmdlDestroyDesc(desc); });
  if (aclError e = aclmdlGetDesc(desc, modelId); e != ACL_SUCCESS) return aclFailure("aclmdlGetDesc", e);

  std::mt19937 rng(opt.seed);
  Dataset inputs, outputs;
  for (size_t i = 0, n = aclmdlGetNumInputs(desc); i < n; ++i) {
    size_t bytes = aclmdlGetInputSizeByIndex(desc, i);
    std::vector<uint8_t> host = randomInput(aclmdlGetInputDataType(desc, i), bytes, rng);
    if (auto s = inputs.add(bytes, &host, toDevice); !s) return s.error();
  }
  for (size_t i = 0, n = aclmdlGetNumOutputs(desc); i < n; ++i)
    if (auto s = outputs.add(aclmdlGetOutputSizeByIndex(desc, i), nullptr, toDevice); !s) return s.error();

  auto execute = [&]() -> Status {
    if (aclError e = aclmdlExecute(modelId, inputs.get(), outputs.get()); e != ACL_SUCCESS)
      return aclFailure("aclmdlExecute", e);
    return Ok{};
  };
  for (int i = 0; i < opt.warmup; ++i) {
    if (progress.cancelled()) return Error::cancelled();
    progress.report("warm-up", static_cast<double>(i) / opt.warmup);
    if (auto s = execute(); !s) return s.error();
  }

  // Per-op timing: the subscription writes op records into a pipe that a thread drains.
  size_t descSize = 0;
  if (aclError e = aclprofGetOpDescSize(&descSize); e != ACL_SUCCESS || descSize == 0)
    return aclFailure("aclprofGetOpDescSize", e);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Error::device(std::string("pipe: ") + std::strerror(errno));
  auto writeEndOwned = std::make_shared<bool>(true);  // until ACL closes it when unsubscribing
  cleanup.add([fds, writeEndOwned] {
    close(fds[0]);
    if (*writeEndOwned) close(fds[1]);
  });
  int writeFd = fds[1];
  aclprofSubscribeConfig* config = aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, &writeFd);
  if (!config) return Error::device("aclprofCreateSubscribeConfig failed");
  cleanup.add([config] { aclprofDestroySubscribeConfig(config); });
  SubscriptionReader reader(fds[0], descSize, modelId);
  if (aclError e = aclprofModelSubscribe(modelId, config); e != ACL_SUCCESS) return aclFailure("aclprofModelSubscribe", e);
  bool subscribed = true;
  auto unsubscribe = [&]() {
    if (!subscribed) return;
    subscribed = false;
    if (aclprofModelUnSubscribe(modelId) != ACL_SUCCESS) close(fds[1]);  // so the reader sees EOF
    *writeEndOwned = false;
    reader.finish();
  };
  // Unsubscribe before the model is unloaded, also on the error paths below.
  struct Guard {
    std::function<void()> f;
    ~Guard() { f(); }
  } guard{unsubscribe};

  std::vector<double> latencyMs;
  for (int i = 0; i < opt.iterations; ++i) {
    if (progress.cancelled()) return Error::cancelled();
    progress.report("profiling", static_cast<double>(i) / opt.iterations);
    auto t0 = std::chrono::steady_clock::now();
    if (auto s = execute(); !s) return s.error();
    auto t1 = std::chrono::steady_clock::now();
    latencyMs.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  if (aclError e = aclrtSynchronizeStream(stream); e != ACL_SUCCESS) return aclFailure("aclrtSynchronizeStream", e);
  unsubscribe();
  std::vector<AscendOpRecord> records = reader.take();
  if (records.empty())
    return Error::device("the profiling subscription delivered no op records (is profiling enabled for this device?)");

  AscendAggregateOptions agg;
  agg.device = soc.empty() ? "ascend" : soc;
  agg.runtime = "AscendCL";
  agg.source = "measured";
  ProfileData p = aggregateAscendOps(std::move(records), model.graph, agg);
  p.latencyMs = Stats::of(latencyMs);  // host wall time of aclmdlExecute, as the CPU backend measures
  p.iterations = opt.iterations;
  p.warmup = opt.warmup;
  p.optimization = "atc";
  p.importer = "acl";
  p.caps = findProfilerBackend("acl")->caps;
  for (const ValueInfo& in : model.graph.inputs)
    if (!model.graph.findInitializer(in.name) && in.type.shape) p.inputShapes[in.name] = in.type.shape->str();
  progress.report("profiling", 1.0);
  return p;
}

}  // namespace msa

#endif  // MSA_HAVE_ACL
