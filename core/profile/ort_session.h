#pragma once
// The one ONNX Runtime wrapper the project uses (profiling, verification, calibration): a
// process-wide environment, sessions built from the IR without copying weights, runs with named
// host values in and host values out. Runtime failures become Error::device with its message.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/data_value.h"
#include "model/graph.h"
#include "util/error.h"

namespace msa {

enum class GraphOptimization { Disabled, Basic, Extended, All };
std::string_view optimizationName(GraphOptimization o);  // "disabled", "basic", "extended", "all"
std::optional<GraphOptimization> optimizationFromName(std::string_view name);

struct RuntimeOptions {
  GraphOptimization optimization = GraphOptimization::All;
  int intraOpThreads = 0;  // 0: the runtime's default (one per physical core)
  // Idle intra-op threads spin waiting for work (the runtime's default, fastest on a quiet machine);
  // off, they sleep, which behaves better when other processes compete for the cores.
  bool spinning = true;
  // Whether idle threads spin on after Run() returns (the runtime's default; off: they stop when
  // it returns and spin again on the next Run(), session.force_spinning_stop). Off for every
  // session msadvisor times: sessions run in alternation would otherwise take each other's cores.
  bool spinAfterRun = true;
  // ORT_PARALLEL: independent branches of the graph run at once on `interOpThreads` threads (0:
  // the runtime's default); sequential otherwise, as ONNX Runtime runs by default.
  bool parallelExecution = false;
  int interOpThreads = 0;
  // Profiling: the runtime writes a Chrome-trace JSON named "<prefix>_<timestamp>.json";
  // endProfiling() says where. An empty prefix puts it in the system temp folder.
  bool profiling = false;
  std::filesystem::path profilePrefix;
  // When set, the runtime writes the graph as it runs it (after its own optimizations) here;
  // initializers of 1 KiB and more go to "<file name>.data" beside it.
  std::filesystem::path optimizedModelPath;
  // Top-level initializers at least this large, and every initializer the model reads from
  // external data, are handed to the runtime from memory instead of being serialized.
  int64_t detachAbove = int64_t(1) << 20;
};

// What the session says about one of its inputs or outputs.
struct IoInfo {
  std::string name;
  TypeInfo::Kind kind = TypeInfo::Kind::Tensor;  // Sequence / Optional as the model declares
  DType dtype = DType::Undefined;                // element type (innermost for sequences/optionals)
  std::vector<int64_t> shape;                    // -1 where the dim is symbolic or unknown
  std::vector<std::string> dimNames;             // the symbolic name per dim ("" when none)
  bool hasShape = false;
};

class OrtSession {
 public:
  // From the IR. Nameless nodes are written with the names the IR gave them, so the runtime's
  // node names match the IR's one to one.
  static Result<OrtSession> create(const Model& model, const RuntimeOptions& options = {});
  // From a file as it is on disk (external data resolves beside it).
  static Result<OrtSession> fromFile(const std::filesystem::path& file, const RuntimeOptions& options = {});
  // From serialized ONNX bytes; `label` names the model in errors.
  static Result<OrtSession> fromBytes(std::string_view bytes, const RuntimeOptions& options, const std::string& label);

  OrtSession(OrtSession&&) noexcept;
  OrtSession& operator=(OrtSession&&) noexcept;
  ~OrtSession();

  const std::vector<IoInfo>& inputs() const;
  const std::vector<IoInfo>& outputs() const;
  const RuntimeOptions& options() const;

  // Runs with values named after the inputs (DataValue::name / Tensor::name); returns every
  // output (or those named in `outputNames`) in order. Inputs must stay alive during the call.
  Result<std::vector<DataValue>> run(std::span<const DataValue> inputs,
                                     std::span<const std::string> outputNames = {}) const;
  Result<std::vector<DataValue>> run(std::span<const Tensor> inputs) const;
  // Runs and drops the outputs without copying them out: for timing.
  Status runDiscarding(std::span<const DataValue> inputs) const;

  // Thread-safe: a run() in progress (and every later one) returns ErrorKind::Cancelled.
  void terminate() const;

  // Profiling sessions: stops profiling and returns the trace file the runtime wrote.
  Result<std::filesystem::path> endProfiling();
  // The runtime's clock at profiling start (ns since epoch), to align traces.
  uint64_t profilingStartNs() const;

 private:
  struct Impl;
  explicit OrtSession(std::unique_ptr<Impl> impl);
  Result<std::vector<DataValue>> runImpl(std::span<const DataValue> inputs, std::span<const std::string> outputNames,
                                         bool keepOutputs) const;
  std::unique_ptr<Impl> m_impl;
};

// "onnxruntime 1.21.1": the library actually loaded, not the headers.
std::string ortVersion();

}  // namespace msa
