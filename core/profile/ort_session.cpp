#include "profile/ort_session.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <fstream>
#include <mutex>
#include <optional>
#include <unordered_map>

#include <onnxruntime_cxx_api.h>
#include <onnxruntime_session_options_config_keys.h>

#include "model/mapped_file.h"
#include "model/model_check.h"
#include "model/onnx_io.h"
#include "model/tensor_file.h"
#include "util/scratch_dir.h"

namespace fs = std::filesystem;

namespace msa {
namespace {

// One environment for the whole process: the runtime wants exactly one, and it owns the
// logging sink. It stays quiet: failures come back as errors with the runtime's message, and
// the CLI's stderr carries progress lines a parent process parses.
Result<Ort::Env*> environment() {
  static std::once_flag once;
  static std::unique_ptr<Ort::Env> env;
  static std::string failure;
  std::call_once(once, [] {
    try {
      env = std::make_unique<Ort::Env>(ORT_LOGGING_LEVEL_FATAL, "msadvisor");
    } catch (const std::exception& e) {
      failure = e.what();
    }
  });
  if (!env) return Error::device("ONNX Runtime could not start: " + failure);
  return env.get();
}

Error deviceError(const std::string& label, const std::string& what) {
  Error e = Error::device(what);
  e.file = label;
  return e;
}

GraphOptimizationLevel ortLevel(GraphOptimization o) {
  switch (o) {
    case GraphOptimization::Disabled: return ORT_DISABLE_ALL;
    case GraphOptimization::Basic: return ORT_ENABLE_BASIC;
    case GraphOptimization::Extended: return ORT_ENABLE_EXTENDED;
    case GraphOptimization::All: return ORT_ENABLE_ALL;
  }
  return ORT_ENABLE_ALL;
}

void describeType(const Ort::ConstTensorTypeAndShapeInfo& t, IoInfo& io) {
  io.dtype = static_cast<DType>(t.GetElementType());
  io.shape = t.GetShape();
  std::vector<const char*> names(io.shape.size(), nullptr);
  if (!names.empty()) t.GetSymbolicDimensions(names.data(), names.size());
  io.dimNames.clear();
  for (const char* n : names) io.dimNames.emplace_back(n ? n : "");
  io.hasShape = true;
}

IoInfo describe(std::string name, const Ort::TypeInfo& info) {
  IoInfo io;
  io.name = std::move(name);
  switch (info.GetONNXType()) {
    case ONNX_TYPE_TENSOR:
    case ONNX_TYPE_SPARSETENSOR:
      io.kind = TypeInfo::Kind::Tensor;
      describeType(info.GetTensorTypeAndShapeInfo(), io);
      break;
    case ONNX_TYPE_SEQUENCE: {
      io.kind = TypeInfo::Kind::Sequence;
      Ort::TypeInfo elem = info.GetSequenceTypeInfo().GetSequenceElementType();
      if (elem.GetONNXType() == ONNX_TYPE_TENSOR) io.dtype = static_cast<DType>(elem.GetTensorTypeAndShapeInfo().GetElementType());
      break;
    }
    case ONNX_TYPE_OPTIONAL: {
      io.kind = TypeInfo::Kind::Optional;
      Ort::TypeInfo elem = info.GetOptionalTypeInfo().GetOptionalElementType();
      if (elem.GetONNXType() == ONNX_TYPE_TENSOR) io.dtype = static_cast<DType>(elem.GetTensorTypeAndShapeInfo().GetElementType());
      break;
    }
    default: io.kind = TypeInfo::Kind::Other; break;
  }
  return io;
}

// Why a tensor's bytes do not fit its shape (the runtime's own message would name neither).
std::optional<std::string> byteCountMismatch(const Tensor& t, const std::string& what) {
  const size_t have = t.raw().size();
  const int64_t need = (t.dtype == DType::Int4 || t.dtype == DType::UInt4) ? (t.numElements() + 1) / 2 : t.byteSize();
  if (static_cast<int64_t>(have) == need) return std::nullopt;
  return what + " holds " + std::to_string(have) + " bytes, its shape " + Shape::of(t.dims).str() + " needs " +
         std::to_string(need);
}

// Host tensor -> OrtValue. Numeric tensors are wrapped, not copied: the caller keeps them alive.
Ort::Value toOrt(const Tensor& t, const std::string& what) {
  static const Ort::MemoryInfo cpu = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  const auto type = static_cast<ONNXTensorElementDataType>(t.dtype);
  if (t.dtype == DType::String) {
    Ort::AllocatorWithDefaultOptions alloc;
    Ort::Value v = Ort::Value::CreateTensor(alloc, t.dims.data(), t.dims.size(), type);
    std::vector<const char*> ptrs;
    for (const auto& s : t.strings) ptrs.push_back(s.c_str());
    if (static_cast<int64_t>(ptrs.size()) != t.numElements())
      throw Ort::Exception(what + " holds " + std::to_string(ptrs.size()) + " strings, its shape needs " +
                               std::to_string(t.numElements()),
                           ORT_INVALID_ARGUMENT);
    if (!ptrs.empty()) v.FillStringTensor(ptrs.data(), ptrs.size());
    return v;
  }
  static char empty[8] = {};
  const std::string_view b = t.raw();
  if (auto why = byteCountMismatch(t, what)) throw Ort::Exception(std::move(*why), ORT_INVALID_ARGUMENT);
  void* p = b.empty() ? static_cast<void*>(empty) : const_cast<char*>(b.data());
  return Ort::Value::CreateTensor(cpu, p, b.size(), t.dims.data(), t.dims.size(), type);
}

Ort::Value toOrt(const DataValue& v, const std::string& what) {
  if (v.kind == DataValue::Kind::Tensor) return toOrt(v.tensor, what);
  if (v.kind == DataValue::Kind::Optional) {
    if (v.elements.empty()) throw Ort::Exception(what + ": an empty optional is passed by leaving the input out", ORT_INVALID_ARGUMENT);
    return toOrt(v.elements[0], what);
  }
  if (v.elements.empty())
    throw Ort::Exception(what + ": ONNX Runtime cannot take an empty sequence as an input", ORT_INVALID_ARGUMENT);
  std::vector<Ort::Value> elems;
  for (size_t i = 0; i < v.elements.size(); ++i) elems.push_back(toOrt(v.elements[i], what + "[" + std::to_string(i) + "]"));
  return Ort::Value::CreateSequence(elems);
}

Tensor fromOrtTensor(const Ort::Value& v, const std::string& name) {
  Tensor t;
  t.name = name;
  auto info = v.GetTensorTypeAndShapeInfo();
  t.dtype = static_cast<DType>(info.GetElementType());
  t.dims = info.GetShape();
  const size_t count = info.GetElementCount();
  if (t.dtype == DType::String) {
    size_t len = v.GetStringTensorDataLength();
    std::string buf(len, '\0');
    std::vector<size_t> offsets(count);
    if (count) v.GetStringTensorContent(buf.data(), len, offsets.data(), offsets.size());
    for (size_t i = 0; i < count; ++i) {
      size_t end = i + 1 < count ? offsets[i + 1] : len;
      t.strings.push_back(buf.substr(offsets[i], end - offsets[i]));
    }
    return t;
  }
  size_t bytes = (t.dtype == DType::Int4 || t.dtype == DType::UInt4) ? (count + 1) / 2
                                                                       : count * static_cast<size_t>(dtypeSize(t.dtype));
  const char* p = bytes ? static_cast<const char*>(v.GetTensorRawData()) : nullptr;
  t.data = TensorBytes::owned(p ? std::string(p, bytes) : std::string());
  return t;
}

DataValue fromOrt(const Ort::Value& v, const std::string& name, TypeInfo::Kind declared) {
  if (declared == TypeInfo::Kind::Optional) {
    DataValue o;
    o.kind = DataValue::Kind::Optional;
    o.name = name;
    if (v.HasValue()) o.elements.push_back(fromOrt(v, name, TypeInfo::Kind::None));
    return o;
  }
  if (v.IsTensor()) return DataValue::of(fromOrtTensor(v, name));
  DataValue s;
  s.kind = DataValue::Kind::Sequence;
  s.name = name;
  Ort::AllocatorWithDefaultOptions alloc;
  const size_t n = v.GetCount();
  for (size_t i = 0; i < n; ++i) s.elements.push_back(fromOrt(v.GetValue(static_cast<int>(i), alloc), name, TypeInfo::Kind::None));
  Ort::TypeInfo ti = v.GetTypeInfo();
  Ort::TypeInfo elem = ti.GetSequenceTypeInfo().GetSequenceElementType();
  if (elem.GetONNXType() == ONNX_TYPE_TENSOR) s.sequenceElemType = static_cast<DType>(elem.GetTensorTypeAndShapeInfo().GetElementType());
  return s;
}

}  // namespace

struct OrtSession::Impl {
  Ort::Session session{nullptr};
  mutable Ort::RunOptions runOptions;
  mutable std::atomic<bool> terminated{false};
  std::vector<IoInfo> inputs, outputs;
  RuntimeOptions options;
  std::string label;
  bool profilingEnded = false;
  // Weights handed over from memory: the values point into these bytes.
  std::vector<std::shared_ptr<const TensorBytes>> detachedBytes;

  static Result<std::unique_ptr<Impl>> make(const RuntimeOptions& o, const std::string& label,
                                            const std::function<Ort::Session(Ort::Env&, Ort::SessionOptions&)>& open,
                                            const std::vector<const Tensor*>& detached);
};

Result<std::unique_ptr<OrtSession::Impl>> OrtSession::Impl::make(
    const RuntimeOptions& o, const std::string& label,
    const std::function<Ort::Session(Ort::Env&, Ort::SessionOptions&)>& open, const std::vector<const Tensor*>& detached) {
  auto env = environment();
  if (!env) return env.error();
  auto impl = std::make_unique<Impl>();
  impl->options = o;
  impl->label = label;
  try {
    Ort::SessionOptions so;
    so.SetGraphOptimizationLevel(ortLevel(o.optimization));
    so.SetExecutionMode(o.parallelExecution ? ORT_PARALLEL : ORT_SEQUENTIAL);
    if (o.intraOpThreads > 0) so.SetIntraOpNumThreads(o.intraOpThreads);
    so.SetInterOpNumThreads(o.parallelExecution ? std::max(0, o.interOpThreads) : 1);
    if (!o.spinning) so.AddConfigEntry(kOrtSessionOptionsConfigAllowIntraOpSpinning, "0");
    // Spinning between the parallel parts of a run, not after it: a session's threads spinning
    // on after Run() returns take the cores of the next session timed in alternation (BERT-like
    // encoder here: 9.5 ms, p10–p90 6.4–16.6, against 4.8 ms for the same session alone).
    if (o.spinning && !o.spinAfterRun) so.AddConfigEntry(kOrtSessionOptionsConfigForceSpinningStop, "1");
    if (o.profiling) {
      fs::path prefix = o.profilePrefix.empty() ? fs::temp_directory_path() / "msadvisor_ort_profile" : o.profilePrefix;
      so.EnableProfiling(prefix.c_str());
    }
    if (!o.optimizedModelPath.empty()) {
      so.SetOptimizedModelFilePath(o.optimizedModelPath.c_str());
      std::string data = o.optimizedModelPath.filename().string() + ".data";
      so.AddConfigEntry(kOrtSessionOptionsOptimizedModelExternalInitializersFileName, data.c_str());
      so.AddConfigEntry(kOrtSessionOptionsOptimizedModelExternalInitializersMinSizeInBytes, "1024");
    }
    std::vector<std::string> names;
    std::vector<Ort::Value> values;
    for (const Tensor* t : detached) {
      names.push_back(t->name);
      values.push_back(toOrt(*t, "initializer '" + t->name + "'"));
      impl->detachedBytes.push_back(t->data);
    }
    if (!names.empty()) so.AddExternalInitializers(names, values);
    impl->session = open(**env, so);

    Ort::AllocatorWithDefaultOptions alloc;
    for (size_t i = 0; i < impl->session.GetInputCount(); ++i)
      impl->inputs.push_back(describe(impl->session.GetInputNameAllocated(i, alloc).get(), impl->session.GetInputTypeInfo(i)));
    for (size_t i = 0; i < impl->session.GetOutputCount(); ++i)
      impl->outputs.push_back(
          describe(impl->session.GetOutputNameAllocated(i, alloc).get(), impl->session.GetOutputTypeInfo(i)));
  } catch (const std::exception& e) {
    return deviceError(label, std::string("ONNX Runtime cannot load the model: ") + e.what());
  }
  return impl;
}

OrtSession::OrtSession(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
OrtSession::OrtSession(OrtSession&&) noexcept = default;
OrtSession& OrtSession::operator=(OrtSession&&) noexcept = default;
OrtSession::~OrtSession() {
  // A profiling session that was not ended would leave its trace behind in the temp folder.
  if (m_impl && m_impl->options.profiling && !m_impl->profilingEnded) {
    if (auto p = endProfiling()) {
      std::error_code ec;
      fs::remove(*p, ec);
    }
  }
}

Result<OrtSession> OrtSession::create(const Model& model, const RuntimeOptions& options) {
  const std::string label = model.path.empty() ? std::string("<model>") : model.path.string();
  // Refused before the runtime sees it: its own message for a future opset is an internal one.
  if (auto why = runtimeCannotRun(model)) return Error::model(*why, label);
  // Large weights stay out of the serialized model. Those viewed in an external-data file are
  // left for the runtime to read from that file itself (through a link in a private folder where
  // the model is written): handed over from memory, a 0.5B-parameter decoder's 2.5 GB of weights
  // took the runtime 18 s and 10.8 GB to load, against 1.3 s and 1.1 GB read from their file.
  // The others are handed over from memory.
  std::unordered_map<const Tensor*, ExternalLocation> located;
  std::vector<const Tensor*> detached;
  std::optional<ScratchDir> dir;  // made for the first weight read from its file
  std::unordered_map<const MappedFile*, std::string> links;
  for (const Tensor& t : model.graph.initializers) {
    if (t.dtype == DType::String || !t.data) continue;
    if (!t.external && static_cast<int64_t>(t.raw().size()) < options.detachAbove) continue;
    if (auto why = byteCountMismatch(t, "initializer '" + t.name + "'"))
      return deviceError(label, "ONNX Runtime cannot load the model: " + *why);
    const FileView v = fileViewOf(*t.data);
    if (v.file && v.file->stillAtPath() && !(dir ? dir->path() : dir.emplace("msadvisor-session-").path()).empty()) {
      auto [link, added] = links.try_emplace(v.file, "weights-" + std::to_string(links.size()) + ".data");
      std::error_code ec;
      if (added) fs::create_symlink(fs::absolute(v.file->path(), ec), dir->path() / link->second, ec);
      if (!ec) {
        located[&t] = {link->second, static_cast<int64_t>(v.offset), static_cast<int64_t>(v.length), {}};
        continue;
      }
      links.erase(link);
    }
    located[&t] = {"msadvisor-detached-weights", 0, static_cast<int64_t>(t.raw().size()), {}};
    detached.push_back(&t);
  }
  SaveOptions so;
  so.keepGeneratedNames = true;
  so.detach = [&](const Tensor& t) -> std::optional<ExternalLocation> {
    const auto it = located.find(&t);
    return it == located.end() ? std::nullopt : std::optional<ExternalLocation>(it->second);
  };
  auto bytes = serializeModel(model, so);
  if (!bytes) return bytes.error();
  const fs::path written = links.empty() ? fs::path() : dir->path() / "model.onnx";
  if (!links.empty()) {
    std::ofstream out(written, std::ios::binary);
    out.write(bytes->data(), static_cast<std::streamsize>(bytes->size()));
    if (!out.flush()) return deviceError(label, "cannot write the model for ONNX Runtime to " + written.string());
  }
  auto impl = Impl::make(
      options, label,
      [&](Ort::Env& env, Ort::SessionOptions& so) {
        return links.empty() ? Ort::Session(env, bytes->data(), bytes->size(), so) : Ort::Session(env, written.c_str(), so);
      },
      detached);
  if (!impl) return impl.error();
  return OrtSession(std::move(*impl));
}

Result<OrtSession> OrtSession::fromFile(const fs::path& file, const RuntimeOptions& options) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return Error::model("no such model file", file.string());
  auto impl = Impl::make(
      options, file.string(),
      [&](Ort::Env& env, Ort::SessionOptions& so) { return Ort::Session(env, file.c_str(), so); }, {});
  if (!impl) return impl.error();
  return OrtSession(std::move(*impl));
}

Result<OrtSession> OrtSession::fromBytes(std::string_view bytes, const RuntimeOptions& options, const std::string& label) {
  auto impl = Impl::make(
      options, label,
      [&](Ort::Env& env, Ort::SessionOptions& so) { return Ort::Session(env, bytes.data(), bytes.size(), so); }, {});
  if (!impl) return impl.error();
  return OrtSession(std::move(*impl));
}

const std::vector<IoInfo>& OrtSession::inputs() const { return m_impl->inputs; }
const std::vector<IoInfo>& OrtSession::outputs() const { return m_impl->outputs; }
const RuntimeOptions& OrtSession::options() const { return m_impl->options; }

Result<std::vector<DataValue>> OrtSession::run(std::span<const DataValue> inputs,
                                               std::span<const std::string> outputNames) const {
  return runImpl(inputs, outputNames, true);
}

Status OrtSession::runDiscarding(std::span<const DataValue> inputs) const {
  auto r = runImpl(inputs, {}, false);
  if (!r) return r.error();
  return Ok{};
}

Result<std::vector<DataValue>> OrtSession::runImpl(std::span<const DataValue> inputs,
                                                   std::span<const std::string> outputNames, bool keepOutputs) const {
  const Impl& im = *m_impl;
  if (im.terminated.load()) return Error::cancelled();
  std::vector<const char*> inNames;
  std::vector<Ort::Value> inValues;
  std::vector<const char*> outNames;
  std::vector<TypeInfo::Kind> outKinds;
  try {
    for (const DataValue& v : inputs) {
      auto it = std::find_if(im.inputs.begin(), im.inputs.end(), [&](const IoInfo& io) { return io.name == v.name; });
      if (it == im.inputs.end()) {
        std::string known;
        for (const auto& io : im.inputs) known += (known.empty() ? "" : ", ") + io.name;
        return Error::model("the model has no input named '" + v.name + "' (its inputs: " + known + ")", im.label);
      }
      if (v.kind == DataValue::Kind::Optional && v.elements.empty()) continue;  // none: leave it out
      inNames.push_back(it->name.c_str());
      inValues.push_back(toOrt(v, "input '" + v.name + "'"));
    }
    for (const IoInfo& io : im.inputs) {
      bool given = std::any_of(inputs.begin(), inputs.end(), [&](const DataValue& v) { return v.name == io.name; });
      if (!given && io.kind != TypeInfo::Kind::Optional)
        return Error::model("no value given for the model's input '" + io.name + "'", im.label);
    }
    if (outputNames.empty()) {
      for (const IoInfo& io : im.outputs) {
        outNames.push_back(io.name.c_str());
        outKinds.push_back(io.kind);
      }
    } else {
      for (const std::string& n : outputNames) {
        auto it = std::find_if(im.outputs.begin(), im.outputs.end(), [&](const IoInfo& io) { return io.name == n; });
        if (it == im.outputs.end()) return Error::model("the model has no output named '" + n + "'", im.label);
        outNames.push_back(it->name.c_str());
        outKinds.push_back(it->kind);
      }
    }
  } catch (const Ort::Exception& e) {
    return Error::model(e.what(), im.label);
  }
  try {
    auto outs = const_cast<Ort::Session&>(im.session)
                    .Run(im.runOptions, inNames.data(), inValues.data(), inValues.size(), outNames.data(), outNames.size());
    std::vector<DataValue> result;
    if (!keepOutputs) return result;
    result.reserve(outs.size());
    for (size_t i = 0; i < outs.size(); ++i) result.push_back(fromOrt(outs[i], outNames[i], outKinds[i]));
    return result;
  } catch (const std::exception& e) {
    if (im.terminated.load()) return Error::cancelled();
    return deviceError(im.label, std::string("ONNX Runtime failed to run the model: ") + e.what());
  }
}

Result<std::vector<DataValue>> OrtSession::run(std::span<const Tensor> inputs) const {
  std::vector<DataValue> values;
  values.reserve(inputs.size());
  for (const Tensor& t : inputs) values.push_back(DataValue::of(t));  // shares the bytes
  return run(values);
}

void OrtSession::terminate() const {
  m_impl->terminated.store(true);
  m_impl->runOptions.SetTerminate();
}

Result<fs::path> OrtSession::endProfiling() {
  if (!m_impl->options.profiling) return Error::usage("the session was created without profiling");
  if (m_impl->profilingEnded) return Error::usage("profiling has already ended");
  try {
    Ort::AllocatorWithDefaultOptions alloc;
    auto name = m_impl->session.EndProfilingAllocated(alloc);
    m_impl->profilingEnded = true;
    return fs::path(name.get());
  } catch (const std::exception& e) {
    return deviceError(m_impl->label, std::string("ONNX Runtime could not write its profile: ") + e.what());
  }
}

uint64_t OrtSession::profilingStartNs() const {
  try {
    return m_impl->session.GetProfilingStartTimeNs();
  } catch (const std::exception&) {
    return 0;
  }
}

std::string ortVersion() { return "onnxruntime " + Ort::GetVersionString(); }

std::string_view optimizationName(GraphOptimization o) {
  switch (o) {
    case GraphOptimization::Disabled: return "disabled";
    case GraphOptimization::Basic: return "basic";
    case GraphOptimization::Extended: return "extended";
    case GraphOptimization::All: return "all";
  }
  return "all";
}

std::optional<GraphOptimization> optimizationFromName(std::string_view name) {
  for (auto o : {GraphOptimization::Disabled, GraphOptimization::Basic, GraphOptimization::Extended, GraphOptimization::All})
    if (optimizationName(o) == name) return o;
  return std::nullopt;
}

}  // namespace msa
