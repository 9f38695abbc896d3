#include "plain_ort_timing.h"

#include <onnxruntime_cxx_api.h>

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

namespace msa::bench {
namespace {

struct Session {
  std::unique_ptr<Ort::Session> session;
  std::vector<std::string> inputNames, outputNames;
  std::vector<const char*> inputs, outputs;
};

Session open(Ort::Env& env, const std::string& bytes, int threads) {
  Ort::SessionOptions so;
  so.SetIntraOpNumThreads(threads);
  so.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_ENABLE_ALL);
  Session s;
  s.session = std::make_unique<Ort::Session>(env, bytes.data(), bytes.size(), so);
  Ort::AllocatorWithDefaultOptions alloc;
  for (size_t i = 0; i < s.session->GetInputCount(); ++i)
    s.inputNames.push_back(s.session->GetInputNameAllocated(i, alloc).get());
  for (size_t i = 0; i < s.session->GetOutputCount(); ++i)
    s.outputNames.push_back(s.session->GetOutputNameAllocated(i, alloc).get());
  for (const auto& n : s.outputNames) s.outputs.push_back(n.c_str());
  return s;
}

// With one intra-op thread the runtime computes on the calling thread: its CPU time leaves out
// the time other processes held the core (this machine is shared).
double threadCpuMs() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

}  // namespace

Result<PlainComparison> comparePlain(const std::string& original, const std::string& optimized,
                                     const std::vector<Tensor>& inputs, int threads, int turns, double blockMs) {
  try {
    Ort::Env env(ORT_LOGGING_LEVEL_ERROR, "bench");
    Session s[2] = {open(env, original, threads), open(env, optimized, threads)};
    const auto memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
    // The inputs each session declares, by name, from the same tensors.
    std::vector<Ort::Value> values[2];
    for (int k = 0; k < 2; ++k)
      for (const auto& name : s[k].inputNames) {
        auto t = std::find_if(inputs.begin(), inputs.end(), [&](const Tensor& x) { return x.name == name; });
        if (t == inputs.end()) return Error::usage("no input '" + name + "'");
        std::string_view raw = t->raw();
        values[k].push_back(Ort::Value::CreateTensor(memory, const_cast<char*>(raw.data()), raw.size(), t->dims.data(),
                                                     t->dims.size(), static_cast<ONNXTensorElementDataType>(t->dtype)));
        s[k].inputs.push_back(name.c_str());
      }
    auto run = [&](int k) {
      return s[k].session->Run(Ort::RunOptions{nullptr}, s[k].inputs.data(), values[k].data(), values[k].size(),
                               s[k].outputs.data(), s[k].outputs.size());
    };
    PlainComparison c;
    {
      auto a = run(0), b = run(1);
      for (size_t o = 0; o < a.size() && o < b.size(); ++o) {
        auto info = a[o].GetTensorTypeAndShapeInfo();
        if (info.GetElementType() != ONNX_TENSOR_ELEMENT_DATA_TYPE_FLOAT) continue;
        const size_t n = info.GetElementCount();
        if (b[o].GetTensorTypeAndShapeInfo().GetElementCount() != n) return Error::model("output shapes differ");
        const float* x = a[o].GetTensorData<float>();
        const float* y = b[o].GetTensorData<float>();
        for (size_t i = 0; i < n; ++i) {
          c.maxAbsDiff = std::max(c.maxAbsDiff, static_cast<double>(std::fabs(x[i] - y[i])));
          c.scale = std::max(c.scale, static_cast<double>(std::fabs(x[i])));
        }
      }
    }
    using Clock = std::chrono::steady_clock;
    std::vector<double> means[2];
    for (int turn = 0; turn < turns; ++turn)
      for (int j = 0; j < 2; ++j) {
        const int k = (turn + j) % 2;  // each turn starts with the other model
        run(k);                        // untimed: refills the caches after the other session's block
        const auto start = Clock::now();
        const double cpu0 = threadCpuMs();
        int runs = 0;
        double elapsed = 0;
        do {
          run(k);
          ++runs;
          elapsed = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
        } while (elapsed < blockMs || runs < 3);
        means[k].push_back((threads == 1 ? threadCpuMs() - cpu0 : elapsed) / runs);
      }
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    };
    c.originalMs = median(means[0]);
    c.optimizedMs = median(means[1]);
    c.blocks = turns;
    return c;
  } catch (const Ort::Exception& e) {
    return Error::model(std::string("ONNX Runtime: ") + e.what());
  }
}

}  // namespace msa::bench
