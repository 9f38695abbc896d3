// ONNX -> IR. Weights are moved out of the parsed protobuf (never copied); external data is
// mapped lazily after its location has been checked to stay inside the model's folder.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <map>
#include <unordered_set>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "model/mapped_file.h"
#include "model/onnx_io.h"
#include "model/onnx_proto.h"

namespace fs = std::filesystem;

namespace msa {
namespace {

constexpr int64_t kMaxDim = int64_t(1) << 40;
constexpr int64_t kMaxElements = int64_t(1) << 50;

std::string unknownOf(const google::protobuf::Message& m) {
  const auto& u = m.GetReflection()->GetUnknownFields(m);
  if (u.empty()) return {};
  std::string s;
  u.SerializeToString(&s);
  return s;
}

template <typename M>
std::string serialized(const M& m) {
  std::string s;
  m.SerializeToString(&s);
  return s;
}

class Importer {
 public:
  Importer(std::string label, fs::path baseDir) : m_label(std::move(label)), m_baseDir(std::move(baseDir)) {}

  Result<Model> run(onnx::ModelProto& mp) {
    Model m;
    m.irVersion = mp.ir_version();
    for (const auto& o : mp.opset_import()) m.opsets.push_back({o.domain(), o.version()});
    m.producerName = mp.producer_name();
    m.producerVersion = mp.producer_version();
    m.domain = mp.domain();
    m.modelVersion = mp.model_version();
    m.docString = mp.doc_string();
    for (const auto& kv : mp.metadata_props()) m.metadata.emplace_back(kv.key(), kv.value());
    for (const auto& f : mp.functions()) m.functions.push_back(serialized(f));
    for (const auto& t : mp.training_info()) m.trainingInfo.push_back(serialized(t));
    m.unknownFields = unknownOf(mp);
    if (!mp.has_graph()) return fail("the file holds no graph (is it an ONNX model?)");
    importGraph(*mp.mutable_graph(), m.graph);
    if (m_error) return *m_error;
    return m;
  }

  // A lone TensorProto (test data, input files); external data resolves against the base dir.
  Result<Tensor> runTensor(onnx::TensorProto& tp) {
    Tensor t = importTensor(tp, tp.name().empty() ? std::string("tensor") : "tensor '" + tp.name() + "'");
    if (m_error) return *m_error;
    return t;
  }

 private:
  Error fail(std::string msg, std::string node = {}) { return Error::model(std::move(msg), m_label, std::move(node)); }
  void setError(std::string msg, std::string node = {}) {
    if (!m_error) m_error = fail(std::move(msg), std::move(node));
  }

  void importGraph(onnx::GraphProto& gp, Graph& g) {
    g.name = gp.name();
    g.docString = gp.doc_string();
    g.unknownFields = unknownOf(gp);
    for (const auto& v : gp.input()) g.inputs.push_back(importValueInfo(v));
    for (const auto& v : gp.output()) g.outputs.push_back(importValueInfo(v));
    for (const auto& v : gp.value_info()) g.valueInfo.push_back(importValueInfo(v));
    g.initializers.reserve(static_cast<size_t>(gp.initializer_size()));
    for (auto& t : *gp.mutable_initializer()) {
      g.initializers.push_back(importTensor(t, "initializer '" + t.name() + "'"));
      if (m_error) return;
    }
    for (const auto& s : gp.sparse_initializer()) g.sparseInitializers.push_back(serialized(s));
    for (const auto& q : gp.quantization_annotation()) g.quantizationAnnotations.push_back(serialized(q));

    g.nodes.reserve(static_cast<size_t>(gp.node_size()));
    std::unordered_set<std::string> names;
    for (auto& np : *gp.mutable_node()) {
      Node n;
      n.id = g.nextNodeId++;
      n.name = np.name();
      n.opType = np.op_type();
      n.domain = np.domain();
      n.docString = np.doc_string();
      n.unknownFields = unknownOf(np);
      n.inputs.assign(np.input().begin(), np.input().end());
      n.outputs.assign(np.output().begin(), np.output().end());
      if (n.opType.empty()) setError("node has no op_type", n.name);
      n.attributes.reserve(static_cast<size_t>(np.attribute_size()));
      for (auto& ap : *np.mutable_attribute()) {
        n.attributes.push_back(importAttribute(ap, n.name.empty() ? n.opType : n.name));
        if (m_error) return;
      }
      if (!n.name.empty()) names.insert(n.name);
      g.nodes.push_back(std::move(n));
    }
    // Every node gets a unique name: profiles, findings and selections refer to nodes by name.
    std::unordered_set<std::string> seen;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      Node& n = g.nodes[i];
      if (!n.name.empty() && seen.insert(n.name).second) continue;
      bool wasEmpty = n.name.empty();
      std::string base = wasEmpty ? n.opType + "_" + std::to_string(i) : n.name + "_dup";
      std::string cand = base;
      for (int k = 1; names.count(cand) || seen.count(cand); ++k) cand = base + "_" + std::to_string(k);
      n.name = cand;
      n.generatedName = wasEmpty;
      names.insert(cand);
      seen.insert(cand);
    }
  }

  Attribute importAttribute(onnx::AttributeProto& ap, const std::string& nodeName) {
    Attribute a;
    a.name = ap.name();
    a.docString = ap.doc_string();
    a.refAttrName = ap.ref_attr_name();
    auto type = static_cast<AttrType>(ap.type());
    if (type == AttrType::Undefined) {  // very old files leave `type` unset
      if (ap.has_f()) type = AttrType::Float;
      else if (ap.has_i()) type = AttrType::Int;
      else if (ap.has_s()) type = AttrType::String;
      else if (ap.has_t()) type = AttrType::Tensor;
      else if (ap.has_g()) type = AttrType::Graph;
      else if (ap.floats_size()) type = AttrType::Floats;
      else if (ap.ints_size()) type = AttrType::Ints;
      else if (ap.strings_size()) type = AttrType::Strings;
      else if (ap.tensors_size()) type = AttrType::Tensors;
      else if (ap.graphs_size()) type = AttrType::Graphs;
    }
    a.type = type;
    switch (type) {
      case AttrType::Float: a.f = ap.f(); break;
      case AttrType::Int: a.i = ap.i(); break;
      case AttrType::String: a.s = ap.s(); break;
      case AttrType::Floats: a.floats.assign(ap.floats().begin(), ap.floats().end()); break;
      case AttrType::Ints: a.ints.assign(ap.ints().begin(), ap.ints().end()); break;
      case AttrType::Strings: a.strings.assign(ap.strings().begin(), ap.strings().end()); break;
      case AttrType::Tensor:
        a.tensors.push_back(importTensor(*ap.mutable_t(), "attribute '" + a.name + "' of node '" + nodeName + "'"));
        break;
      case AttrType::Tensors:
        for (auto& t : *ap.mutable_tensors())
          a.tensors.push_back(importTensor(t, "attribute '" + a.name + "' of node '" + nodeName + "'"));
        break;
      case AttrType::Graph:
        a.graphs.emplace_back();
        importGraph(*ap.mutable_g(), a.graphs.back());
        break;
      case AttrType::Graphs:
        for (auto& g : *ap.mutable_graphs()) {
          a.graphs.emplace_back();
          importGraph(g, a.graphs.back());
        }
        break;
      default:
        a.raw = serialized(ap);  // sparse tensors, type protos: kept verbatim
        break;
    }
    return a;
  }

  ValueInfo importValueInfo(const onnx::ValueInfoProto& vp) {
    ValueInfo v;
    v.name = vp.name();
    v.docString = vp.doc_string();
    v.unknownFields = unknownOf(vp);
    if (vp.has_type()) v.type = fromProto(vp.type());
    return v;
  }

  Tensor importTensor(onnx::TensorProto& tp, const std::string& where) {
    Tensor t;
    t.name = tp.name();
    t.docString = tp.doc_string();
    t.unknownFields = unknownOf(tp);
    if (tp.data_type() < 0 || tp.data_type() > static_cast<int>(DType::Int4)) {
      setError(where + " has unknown data type " + std::to_string(tp.data_type()));
      return t;
    }
    t.dtype = static_cast<DType>(tp.data_type());
    int64_t numel = 1;
    for (int64_t d : tp.dims()) {
      if (d < 0 || d > kMaxDim || (d > 0 && numel > kMaxElements / d)) {
        setError(where + " has an invalid shape (dimension " + std::to_string(d) + ")");
        return t;
      }
      numel *= d;
      t.dims.push_back(d);
    }
    const int esize = dtypeSize(t.dtype);
    const int64_t expected = (t.dtype == DType::Int4 || t.dtype == DType::UInt4) ? (numel + 1) / 2 : numel * esize;

    if (tp.data_location() == onnx::TensorProto::EXTERNAL) {
      importExternal(tp, t, where, expected);
      return t;
    }
    if (t.dtype == DType::String) {
      t.strings.assign(tp.string_data().begin(), tp.string_data().end());
      return t;
    }
    if (tp.has_raw_data()) {
      if (static_cast<int64_t>(tp.raw_data().size()) != expected) {
        setError(where + " holds " + std::to_string(tp.raw_data().size()) + " bytes of data, its shape needs " +
                 std::to_string(expected));
        return t;
      }
      std::string bytes;
      bytes.swap(*tp.mutable_raw_data());
      t.data = TensorBytes::owned(std::move(bytes));
      return t;
    }
    std::string bytes;
    auto pack = [&](const auto& field, auto narrow) {
      using Out = decltype(narrow(*field.begin()));
      bytes.resize(static_cast<size_t>(field.size()) * sizeof(Out));
      char* p = bytes.data();
      for (const auto& v : field) {
        Out o = narrow(v);
        std::memcpy(p, &o, sizeof(Out));
        p += sizeof(Out);
      }
    };
    switch (t.dtype) {
      case DType::Float: case DType::Complex64:
        pack(tp.float_data(), [](float v) { return v; });
        break;
      case DType::Double: case DType::Complex128:
        pack(tp.double_data(), [](double v) { return v; });
        break;
      case DType::Int64:
        pack(tp.int64_data(), [](int64_t v) { return v; });
        break;
      case DType::UInt32:
        pack(tp.uint64_data(), [](uint64_t v) { return static_cast<uint32_t>(v); });
        break;
      case DType::UInt64:
        pack(tp.uint64_data(), [](uint64_t v) { return v; });
        break;
      case DType::Int32:
        pack(tp.int32_data(), [](int32_t v) { return v; });
        break;
      case DType::Int16:
        pack(tp.int32_data(), [](int32_t v) { return static_cast<int16_t>(v); });
        break;
      case DType::UInt16: case DType::Float16: case DType::BFloat16:
        pack(tp.int32_data(), [](int32_t v) { return static_cast<uint16_t>(v); });
        break;
      case DType::Int8:
        pack(tp.int32_data(), [](int32_t v) { return static_cast<int8_t>(v); });
        break;
      default:  // uint8, bool, float8 and 4-bit types: one int32 per stored byte
        pack(tp.int32_data(), [](int32_t v) { return static_cast<uint8_t>(v); });
        break;
    }
    if (bytes.empty() && expected > 0) return t;  // declared without data (e.g. a stripped model)
    if (static_cast<int64_t>(bytes.size()) != expected) {
      setError(where + " holds " + std::to_string(bytes.size()) + " bytes of typed data, its shape needs " +
               std::to_string(expected));
      return t;
    }
    t.data = TensorBytes::owned(std::move(bytes));
    return t;
  }

  void importExternal(const onnx::TensorProto& tp, Tensor& t, const std::string& where, int64_t expected) {
    ExternalLocation ext;
    bool haveLength = false;
    for (const auto& kv : tp.external_data()) {
      const std::string& k = kv.key();
      try {
        if (k == "location") ext.location = kv.value();
        else if (k == "offset") ext.offset = std::stoll(kv.value());
        else if (k == "length") { ext.length = std::stoll(kv.value()); haveLength = true; }
        else ext.extra.emplace_back(k, kv.value());
      } catch (const std::exception&) {
        setError(where + ": external data field '" + k + "' is not a number: '" + kv.value() + "'");
        return;
      }
    }
    if (ext.location.empty()) return setError(where + " is stored externally but names no location");
    if (ext.offset < 0 || (haveLength && ext.length < 0)) return setError(where + ": negative external data offset or length");
    auto path = resolveLocation(ext.location, where);
    if (!path) return;
    auto& file = m_mapped[path->string()];
    if (!file) {
      auto mf = MappedFile::open(*path);
      if (!mf) return setError(where + ": " + mf.error().message + " (" + ext.location + ")");
      file = *mf;
    }
    const int64_t fileSize = static_cast<int64_t>(file->size());
    int64_t length = haveLength ? ext.length : fileSize - ext.offset;
    if (ext.offset > fileSize || length > fileSize - ext.offset)
      return setError(where + ": external data [" + std::to_string(ext.offset) + ", +" + std::to_string(length) +
                      ") lies beyond the end of '" + ext.location + "' (" + std::to_string(fileSize) + " bytes)");
    if (t.dtype != DType::String && length != expected)
      return setError(where + ": external data holds " + std::to_string(length) + " bytes, its shape needs " +
                      std::to_string(expected));
    t.data = TensorBytes::mapped(file, static_cast<size_t>(ext.offset), static_cast<size_t>(length));
    t.external = std::move(ext);
  }

  std::optional<fs::path> resolveLocation(const std::string& location, const std::string& where) {
    fs::path loc(location);
    auto refuse = [&](const std::string& why) {
      setError(where + ": external data location '" + location + "' " + why + "; refused");
      return std::nullopt;
    };
    if (m_baseDir.empty()) return refuse("cannot be resolved without the model's folder");
    if (loc.is_absolute() || location.find('\0') != std::string::npos) return refuse("is an absolute path");
    for (const auto& part : loc)
      if (part == "..") return refuse("leaves the model's folder");
    std::error_code ec;
    fs::path base = fs::weakly_canonical(m_baseDir, ec);
    fs::path full = fs::weakly_canonical(m_baseDir / loc, ec);
    if (ec) return refuse("cannot be resolved");
    auto rel = full.lexically_relative(base);
    if (rel.empty() || *rel.begin() == "..") return refuse("resolves (through a link) outside the model's folder");
    return full;
  }

  std::string m_label;
  fs::path m_baseDir;
  std::map<std::string, std::shared_ptr<const MappedFile>> m_mapped;
  std::optional<Error> m_error;
};

Result<Model> importProto(onnx::ModelProto& mp, const fs::path& baseDir, const std::string& label) {
  try {
    return Importer(label, baseDir).run(mp);
  } catch (const std::exception& e) {
    return Error::model(std::string("import failed: ") + e.what(), label);
  }
}

}  // namespace

Result<Tensor> fromProto(onnx::TensorProto& tp, const fs::path& baseDir, const std::string& label) {
  try {
    return Importer(label, baseDir).runTensor(tp);
  } catch (const std::exception& e) {
    return Error::model(std::string("tensor import failed: ") + e.what(), label);
  }
}

TypeInfo fromProto(const onnx::TypeProto& tp) {
  TypeInfo t;
  t.denotation = tp.denotation();
  if (tp.has_tensor_type() || tp.has_sparse_tensor_type()) {
    t.kind = tp.has_tensor_type() ? TypeInfo::Kind::Tensor : TypeInfo::Kind::SparseTensor;
    const auto& tt = tp.has_tensor_type() ? tp.tensor_type().elem_type() : tp.sparse_tensor_type().elem_type();
    t.elem = static_cast<DType>(tt);
    bool hasShape = tp.has_tensor_type() ? tp.tensor_type().has_shape() : tp.sparse_tensor_type().has_shape();
    if (hasShape) {
      const auto& sp = tp.has_tensor_type() ? tp.tensor_type().shape() : tp.sparse_tensor_type().shape();
      Shape s;
      for (const auto& d : sp.dim()) {
        Dim dim;
        if (d.has_dim_value() && d.dim_value() >= 0) dim.value = d.dim_value();
        else if (d.has_dim_param()) dim.param = d.dim_param();
        s.dims.push_back(std::move(dim));
      }
      t.shape = std::move(s);
    }
    if (t.kind == TypeInfo::Kind::SparseTensor) tp.SerializeToString(&t.raw);
    return t;
  }
  if (tp.has_sequence_type()) t.kind = TypeInfo::Kind::Sequence;
  else if (tp.has_map_type()) t.kind = TypeInfo::Kind::Map;
  else if (tp.has_optional_type()) t.kind = TypeInfo::Kind::Optional;
  else if (tp.value_case() != onnx::TypeProto::VALUE_NOT_SET) t.kind = TypeInfo::Kind::Other;
  if (t.kind != TypeInfo::Kind::None) tp.SerializeToString(&t.raw);
  return t;
}

Result<Model> loadModel(const fs::path& path) {
  const std::string label = path.string();
  std::error_code ec;
  if (fs::is_directory(path, ec)) return Error::model("is a directory, not an ONNX file", label);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error::model(std::string("cannot open: ") + std::strerror(errno), label);
  auto size = fs::file_size(path, ec);
  if (ec || size == 0) {
    ::close(fd);
    return Error::model("the file is empty", label);
  }
  if (size > static_cast<uintmax_t>(INT_MAX)) {
    ::close(fd);
    return Error::model("the file is larger than 2 GB, the protobuf limit; large models keep their weights as "
                        "external data",
                        label);
  }
  onnx::ModelProto mp;
  bool parsed;
  {
    google::protobuf::io::FileInputStream in(fd, 1 << 20);
    google::protobuf::io::CodedInputStream coded(&in);
    coded.SetTotalBytesLimit(INT_MAX);
    parsed = mp.ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage();
  }
  ::close(fd);
  if (!parsed) return Error::model("not a valid ONNX model (the protobuf does not parse)", label);
  fs::path base = path.parent_path();
  if (base.empty()) base = ".";
  auto m = importProto(mp, base, label);
  if (m) m->path = path;
  return m;
}

Result<Model> loadModelFromBytes(std::string_view bytes, const fs::path& baseDir, const std::string& label) {
  onnx::ModelProto mp;
  if (bytes.size() > static_cast<size_t>(INT_MAX)) return Error::model("larger than 2 GB", label);
  google::protobuf::io::ArrayInputStream in(bytes.data(), static_cast<int>(bytes.size()));
  google::protobuf::io::CodedInputStream coded(&in);
  coded.SetTotalBytesLimit(INT_MAX);
  if (bytes.empty() || !mp.ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage())
    return Error::model("not a valid ONNX model (the protobuf does not parse)", label);
  return importProto(mp, baseDir, label);
}

}  // namespace msa
