// IR -> ONNX. Weights are written inline or streamed to an external data file; every file is
// written to a temporary name and renamed into place, never over the model it came from.

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <set>

#include <google/protobuf/io/zero_copy_stream_impl.h>

#include "model/onnx_io.h"
#include "model/onnx_proto.h"
#include "util/atomic_file.h"

namespace fs = std::filesystem;

namespace msa {
namespace {

void restoreUnknown(google::protobuf::Message& m, const std::string& bytes) {
  if (!bytes.empty()) m.MergeFromString(bytes);
}

void writeValueInfo(const ValueInfo& v, onnx::ValueInfoProto& out) {
  out.set_name(v.name);
  if (!v.docString.empty()) out.set_doc_string(v.docString);
  if (v.type.kind != TypeInfo::Kind::None) toProto(v.type, *out.mutable_type());
  restoreUnknown(out, v.unknownFields);
}

Status writeTensor(const Tensor& t, onnx::TensorProto& out, const ProtoOptions& o) {
  if (o.externalWriter && t.dtype != DType::String && t.data) {
    auto loc = o.externalWriter(t);
    if (!loc) return loc.error();
    if (!loc->location.empty()) {
      out.set_name(t.name);
      out.set_data_type(static_cast<int>(t.dtype));
      for (int64_t d : t.dims) out.add_dims(d);
      if (!t.docString.empty()) out.set_doc_string(t.docString);
      out.set_data_location(onnx::TensorProto::EXTERNAL);
      auto add = [&](const std::string& k, const std::string& v) {
        auto* e = out.add_external_data();
        e->set_key(k);
        e->set_value(v);
      };
      add("location", loc->location);
      add("offset", std::to_string(loc->offset));
      add("length", std::to_string(loc->length));
      restoreUnknown(out, t.unknownFields);
      return Ok{};
    }
  }
  toProto(t, out);
  return Ok{};
}

Status writeGraph(const Graph& g, onnx::GraphProto& out, const ProtoOptions& o);

Status writeAttribute(const Attribute& a, onnx::AttributeProto& out, const ProtoOptions& o) {
  if (!a.raw.empty()) {
    out.ParseFromString(a.raw);
    return Ok{};
  }
  out.set_name(a.name);
  out.set_type(static_cast<onnx::AttributeProto::AttributeType>(a.type));
  if (!a.docString.empty()) out.set_doc_string(a.docString);
  if (!a.refAttrName.empty()) out.set_ref_attr_name(a.refAttrName);
  switch (a.type) {
    case AttrType::Float: out.set_f(a.f); break;
    case AttrType::Int: out.set_i(a.i); break;
    case AttrType::String: out.set_s(a.s); break;
    case AttrType::Floats: for (float v : a.floats) out.add_floats(v); break;
    case AttrType::Ints: for (int64_t v : a.ints) out.add_ints(v); break;
    case AttrType::Strings: for (const auto& v : a.strings) out.add_strings(v); break;
    case AttrType::Tensor:
      if (!a.tensors.empty()) toProto(a.tensors[0], *out.mutable_t());
      break;
    case AttrType::Tensors: for (const auto& t : a.tensors) toProto(t, *out.add_tensors()); break;
    case AttrType::Graph:
      if (!a.graphs.empty())
        if (auto s = writeGraph(a.graphs[0], *out.mutable_g(), o); !s) return s;
      break;
    case AttrType::Graphs:
      for (const auto& g : a.graphs)
        if (auto s = writeGraph(g, *out.add_graphs(), o); !s) return s;
      break;
    default: break;
  }
  return Ok{};
}

Status writeNode(const Node& n, onnx::NodeProto& np, const ProtoOptions& o) {
  if (!n.generatedName || o.keepGeneratedNames) np.set_name(n.name);
  np.set_op_type(n.opType);
  if (!n.domain.empty()) np.set_domain(n.domain);
  for (const auto& i : n.inputs) np.add_input(i);
  for (const auto& x : n.outputs) np.add_output(x);
  for (const auto& a : n.attributes)
    if (auto s = writeAttribute(a, *np.add_attribute(), o); !s) return s;
  if (!n.docString.empty()) np.set_doc_string(n.docString);
  restoreUnknown(np, n.unknownFields);
  return Ok{};
}

Status writeGraph(const Graph& g, onnx::GraphProto& out, const ProtoOptions& o) {
  out.set_name(g.name);
  if (!g.docString.empty()) out.set_doc_string(g.docString);
  out.mutable_node()->Reserve(static_cast<int>(g.nodes.size()));
  for (const Node& n : g.nodes)
    if (auto s = writeNode(n, *out.add_node(), o); !s) return s;
  std::set<std::string> declaredInputs;
  for (const auto& v : g.inputs) {
    writeValueInfo(v, *out.add_input());
    declaredInputs.insert(v.name);
  }
  for (const auto& v : g.outputs) writeValueInfo(v, *out.add_output());
  for (const auto& v : g.valueInfo) writeValueInfo(v, *out.add_value_info());
  for (const Tensor& t : g.initializers) {
    if (o.stripInitializersAbove >= 0 && t.byteSize() > o.stripInitializersAbove) {
      if (!declaredInputs.count(t.name)) {
        ValueInfo v{t.name, TypeInfo::tensor(t.dtype, Shape::of(t.dims)), {}, {}};
        writeValueInfo(v, *out.add_input());
      }
      continue;
    }
    if (auto s = writeTensor(t, *out.add_initializer(), o); !s) return s;
  }
  for (const auto& s : g.sparseInitializers) out.add_sparse_initializer()->ParseFromString(s);
  for (const auto& q : g.quantizationAnnotations) out.add_quantization_annotation()->ParseFromString(q);
  restoreUnknown(out, g.unknownFields);
  return Ok{};
}

}  // namespace

void toProto(const TypeInfo& t, onnx::TypeProto& out) {
  if (t.kind != TypeInfo::Kind::Tensor) {
    if (!t.raw.empty()) out.ParseFromString(t.raw);
    return;
  }
  auto* tt = out.mutable_tensor_type();
  tt->set_elem_type(static_cast<int>(t.elem));
  if (t.shape) {
    auto* sp = tt->mutable_shape();
    for (const Dim& d : t.shape->dims) {
      auto* dp = sp->add_dim();
      if (d.known()) dp->set_dim_value(d.value);
      else if (!d.param.empty()) dp->set_dim_param(d.param);
    }
  }
  if (!t.denotation.empty()) out.set_denotation(t.denotation);
}

void toProto(const Tensor& t, onnx::TensorProto& out) {
  out.set_name(t.name);
  out.set_data_type(static_cast<int>(t.dtype));
  for (int64_t d : t.dims) out.add_dims(d);
  if (!t.docString.empty()) out.set_doc_string(t.docString);
  if (t.dtype == DType::String) {
    for (const auto& s : t.strings) out.add_string_data(s);
  } else if (t.data) {
    std::string_view b = t.raw();
    out.set_raw_data(b.data(), b.size());
  }
  restoreUnknown(out, t.unknownFields);
}

void toProto(const Graph& g, onnx::GraphProto& out, const ProtoOptions& o) { (void)writeGraph(g, out, o); }
void toProto(const Node& n, onnx::NodeProto& out, const ProtoOptions& o) { (void)writeNode(n, out, o); }

Status toProto(const Model& m, onnx::ModelProto& out, const ProtoOptions& o) {
  out.set_ir_version(m.irVersion);
  for (const auto& op : m.opsets) {
    auto* p = out.add_opset_import();
    p->set_domain(op.domain);
    p->set_version(op.version);
  }
  if (!m.producerName.empty()) out.set_producer_name(m.producerName);
  if (!m.producerVersion.empty()) out.set_producer_version(m.producerVersion);
  if (!m.domain.empty()) out.set_domain(m.domain);
  if (m.modelVersion) out.set_model_version(m.modelVersion);
  if (!m.docString.empty()) out.set_doc_string(m.docString);
  for (const auto& [k, v] : m.metadata) {
    auto* e = out.add_metadata_props();
    e->set_key(k);
    e->set_value(v);
  }
  for (const auto& f : m.functions) out.add_functions()->ParseFromString(f);
  for (const auto& t : m.trainingInfo) out.add_training_info()->ParseFromString(t);
  if (auto s = writeGraph(m.graph, *out.mutable_graph(), o); !s) return s;
  restoreUnknown(out, m.unknownFields);
  return Ok{};
}

Result<std::string> serializeModel(const Model& model, const SaveOptions& options) {
  onnx::ModelProto mp;
  ProtoOptions po;
  po.keepGeneratedNames = options.keepGeneratedNames;
  if (options.detach)
    po.externalWriter = [&](const Tensor& t) -> Result<ExternalLocation> {
      return options.detach(t).value_or(ExternalLocation{});
    };
  if (auto s = toProto(model, mp, po); !s) return s.error();
  if (mp.ByteSizeLong() > static_cast<size_t>(INT_MAX))
    return Error::model("the model exceeds the 2 GB protobuf limit; save it with external data", model.path.string());
  std::string out;
  if (!mp.SerializeToString(&out)) return Error::model("serialization failed", model.path.string());
  return out;
}

namespace {

struct SavePlan {
  bool external = false;
  std::string dataName;  // the generated external data file's name, beside `out`
};

SavePlan planSave(const Model& model, const fs::path& out, const SaveOptions& options) {
  bool anyExternal = false;
  int64_t totalBytes = 0;
  model.graph.forEachGraph([&](const Graph& g, int) {
    for (const Tensor& t : g.initializers) {
      totalBytes += t.byteSize();
      anyExternal = anyExternal || t.external.has_value();
    }
  });
  SavePlan plan;
  plan.external = options.external == SaveOptions::External::Always ||
                  (options.external == SaveOptions::External::Auto && (anyExternal || totalBytes > (int64_t(1) << 30)));
  plan.dataName = options.externalFileName.empty() ? out.filename().string() + ".data" : options.externalFileName;
  return plan;
}

fs::path folderOf(const fs::path& out) { return out.parent_path().empty() ? fs::path(".") : out.parent_path(); }

}  // namespace

void addModelFiles(ReadFiles& reads, const Model& model) {
  if (model.path.empty()) return;
  reads.add(model.path, "the model");
  std::set<std::string_view> locations;  // a few files behind thousands of weights
  model.graph.forEachGraph([&](const Graph& g, int) {
    for (const Tensor& t : g.initializers)
      if (t.external && locations.insert(t.external->location).second)
        reads.add(model.path.parent_path() / t.external->location, "the model's external data");
  });
}

std::vector<PlannedOutput> savedFiles(const Model& model, const fs::path& out, const SaveOptions& options,
                                      const std::string& what) {
  std::vector<PlannedOutput> files{{what, out}};
  const SavePlan plan = planSave(model, out, options);
  if (plan.external) files.push_back({what + "'s external data", folderOf(out) / plan.dataName});
  return files;
}

Status saveModel(const Model& model, const fs::path& out, const SaveOptions& options) {
  std::error_code ec;
  if (out.empty()) return Error::usage("no output file given");
  if (fs::is_directory(out, ec)) return Error::model("is a directory", out.string());
  const SavePlan plan = planSave(model, out, options);
  if (plan.external && fs::path(plan.dataName).has_parent_path())
    return Error::usage("the external data file name must not contain a folder");
  // Neither the model nor the data file it generates may land on a file the model reads from.
  ReadFiles reads;
  addModelFiles(reads, model);
  if (auto s = checkOutputs(reads, savedFiles(model, out, options, "the optimized model")); !s)
    return Error::model(s.error().message, out.string());
  const bool external = plan.external;
  const std::string& dataName = plan.dataName;
  const fs::path dir = folderOf(out);

  ProtoOptions po;
  po.keepGeneratedNames = options.keepGeneratedNames;
  std::optional<AtomicFile> data;
  if (external) {
    data.emplace(dir / dataName);
    if (auto s = data->open(); !s) return s;
    po.externalWriter = [&](const Tensor& t) -> Result<ExternalLocation> {
      std::string_view b = t.raw();
      if (static_cast<int64_t>(b.size()) < options.externalMinBytes) return ExternalLocation{};
      // Keep each tensor page-aligned so a reader can map it directly.
      int64_t pad = (4096 - data->written() % 4096) % 4096;
      if (auto s = data->write(std::string(static_cast<size_t>(pad), '\0')); !s) return s.error();
      ExternalLocation loc{dataName, data->written(), static_cast<int64_t>(b.size()), {}};
      if (auto s = data->write(b); !s) return s.error();
      return loc;
    };
  }
  onnx::ModelProto mp;
  if (auto s = toProto(model, mp, po); !s) return s;
  if (mp.ByteSizeLong() > static_cast<size_t>(INT_MAX))
    return Error::model("the model exceeds the 2 GB protobuf limit even with external data", out.string());

  AtomicFile file(out);
  if (auto s = file.open(); !s) return s;
  {
    google::protobuf::io::FileOutputStream stream(file.fd());
    if (!mp.SerializeToZeroCopyStream(&stream) || !stream.Flush()) {
      // A failed write (disk full, a file-size limit) says why; the temporary is removed.
      if (stream.GetErrno() == 0) return Error::model("serialization failed", out.string());
      errno = stream.GetErrno();
      return Error::model(std::string("write failed: ") + std::strerror(errno) +
                              "; nothing was written, the old file (if any) is intact",
                          out.string());
    }
  }
  if (data)
    if (auto s = data->commit(); !s) return s;
  return file.commit();
}

}  // namespace msa
