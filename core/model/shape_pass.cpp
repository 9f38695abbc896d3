#include "model/shape_pass.h"

#include <deque>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <onnx/defs/schema.h>
#include <onnx/defs/tensor_proto_util.h>
#include <onnx/shape_inference/implementation.h>

#include "model/name_table.h"
#include "model/onnx_proto.h"
#include "model/shape_values.h"

namespace msa {
namespace {

constexpr int64_t kStripAbove = 64 * 1024;  // as shape_inference.cpp: larger weights are no shape arithmetic
constexpr size_t kFoldElements = 1024;      // values folded into constants, as foldKnownValues

namespace si = onnx::shape_inference;

// ONNX's SymbolTableImpl: "unk__N" for dims inference cannot name, never one the graph uses.
class Symbols final : public onnx::SymbolTable {
 public:
  void addFromGraph(const onnx::GraphProto&) override {}  // seeded from the IR instead (no subgraphs here)
  std::string createNew(const std::string& prefix) override {
    std::string s;
    do {
      s = prefix + std::to_string(m_next++);
    } while (m_existing.count(s) > 0);
    m_existing.insert(s);
    return s;
  }
  void add(const onnx::TypeProto& t) {  // as SymbolTableImpl::AddExistingSymbolicDims
    switch (t.value_case()) {
      case onnx::TypeProto::kTensorType: addShape(t.tensor_type()); break;
      case onnx::TypeProto::kSparseTensorType: addShape(t.sparse_tensor_type()); break;
      case onnx::TypeProto::kSequenceType: add(t.sequence_type().elem_type()); break;
      case onnx::TypeProto::kOptionalType: add(t.optional_type().elem_type()); break;
      case onnx::TypeProto::kMapType: add(t.map_type().value_type()); break;
      default: break;
    }
  }

 private:
  template <typename T>
  void addShape(const T& t) {
    if (!t.has_shape()) return;
    for (const auto& d : t.shape().dim())
      if (d.has_dim_param()) m_existing.insert(d.dim_param());
  }
  unsigned m_next = 0;
  std::unordered_set<std::string> m_existing;
};

// What the pass knows about one value name.
struct Slot {
  onnx::TypeProto* type = nullptr;       // ONNX's value_types_by_name entry
  onnx::TypeProto* untyped = nullptr;    // a declaration without a type (undefined_value_types_by_name)
  const Tensor* tensor = nullptr;        // an initializer small enough, or a Constant's value: its data
  const onnx::TensorProto* data = nullptr;  // input_data_by_name: initializer, Constant, folded value
  std::unique_ptr<onnx::TensorShapeProto> symbolic;  // generated_shape_data_by_name
  bool typedForQuarantine = false;
  bool defined = false;  // SSA: produced or declared once
  int created = -1;      // index into Pass::m_created when inference created its entry
  bool shapeCached = false;
  std::optional<Shape> shape;  // of `type`, for the evaluator
};

class Pass;

// ONNX's InferenceContextImpl over the pass's slots.
class NodeContext final : public onnx::InferenceContext {
 public:
  NodeContext(Pass& pass, const Node& node, const onnx::NodeProto& proto);
  const onnx::AttributeProto* getAttribute(const std::string& name) const override;
  size_t getNumInputs() const override { return m_node.inputs.size(); }
  const onnx::TypeProto* getInputType(size_t i) const override;
  const onnx::TensorProto* getInputData(size_t i) const override;
  size_t getNumOutputs() const override { return m_outputs.size(); }
  onnx::TypeProto* getOutputType(size_t i) override {
    if (i >= m_outputs.size()) fail_type_inference("Output ", i, " is out of bounds.");
    return &m_outputs[i];
  }
  onnx::GraphInferencer* getGraphAttributeInferencer(const std::string&) override {
    fail_type_inference("GraphProto attribute inferencing is not enabled in this InferenceContextImpl instance.");
  }
  const onnx::SparseTensorProto* getInputSparseData(size_t) const override { return nullptr; }
  const onnx::TensorShapeProto* getSymbolicInput(size_t i) const override;

 private:
  Pass& m_pass;
  const Node& m_node;
  const onnx::NodeProto& m_proto;
  std::vector<onnx::TypeProto> m_outputs;
};

// ONNX's DataPropagationContextImpl over the pass's slots.
class PropagationContext final : public onnx::DataPropagationContext {
 public:
  PropagationContext(Pass& pass, const Node& node, const onnx::NodeProto& proto)
      : m_pass(pass), m_node(node), m_proto(proto), m_outputs(node.outputs.size()) {}
  const onnx::AttributeProto* getAttribute(const std::string& name) const override;
  size_t getNumInputs() const override { return m_node.inputs.size(); }
  const onnx::TypeProto* getInputType(size_t i) const override;
  size_t getNumOutputs() const override { return m_outputs.size(); }
  const onnx::TypeProto* getOutputType(size_t i) const override {
    if (i >= m_outputs.size()) fail_type_inference("Output ", i, " is out of bounds.");
    return &m_outputs[i];
  }
  const onnx::TensorShapeProto* getInputData(size_t i) override;
  void addOutputData(size_t i, onnx::TensorShapeProto&& tsp) override;

 private:
  Pass& m_pass;
  const Node& m_node;
  const onnx::NodeProto& m_proto;
  std::vector<onnx::TypeProto> m_outputs;  // empty, as ONNX hands them to propagation
};

const onnx::AttributeProto* findAttribute(const onnx::NodeProto& proto, const std::string& name) {
  for (int k = proto.attribute_size(); k-- > 0;)  // a repeated name: the last one, as ONNX's map keeps
    if (proto.attribute(k).name() == name) return &proto.attribute(k);
  return nullptr;
}

bool hasType(const onnx::TypeProto& t) {  // a ValueInfoProto's has_type(), from the IR's type
  return t.value_case() != onnx::TypeProto::VALUE_NOT_SET;
}

class Pass {
 public:
  Pass(Model& model, bool dataPropagation, std::vector<std::string>& warnings)
      : m_model(model), m_g(model.graph), m_propagate(dataPropagation), m_warnings(warnings) {}

  void run() {
    if (!declare()) return;
    for (const auto& o : m_model.opsets) m_opsets[o.domain] = static_cast<int>(o.version);
    std::map<std::string, int> quarantineOpsets;  // "" and "ai.onnx" alike, as quarantineUnsafe
    for (const auto& o : m_model.opsets) quarantineOpsets[o.domain == "ai.onnx" ? std::string() : o.domain] = static_cast<int>(o.version);
    ShapeEvaluator evaluator(m_g, kFoldElements, [this](std::string_view name) { return shapeOf(name); });
    onnx::NodeProto proto;
    size_t skippedDownstream = 0;
    bool stopped = false;
    for (const Node& n : m_g.nodes) {
      proto.Clear();
      ProtoOptions po;
      po.keepGeneratedNames = true;
      toProto(n, proto, po);
      // Quarantine, as quarantineUnsafe: nodes libonnx would crash on are not handed over.
      std::string why = onnxCrashRisk(proto);
      bool downstream = false;
      for (const auto& in : n.inputs)
        if (why.empty() && !in.empty() && !slot(in).typedForQuarantine) {
          why = "input '" + in + "' has no type at this point";
          downstream = m_quarantined.count(in) != 0;
        }
      for (const auto& out : n.outputs)
        if (why.empty() && !out.empty() && slot(out).defined) why = "output '" + out + "' is defined twice";
      const std::string qDomain = n.domain == "ai.onnx" ? std::string() : n.domain;
      const onnx::OpSchema* qSchema = nullptr;
      if (auto v = quarantineOpsets.find(qDomain); v != quarantineOpsets.end())
        qSchema = onnx::OpSchemaRegistry::Schema(n.opType, v->second, qDomain);
      if (why.empty() && qSchema) {
        try {
          qSchema->Verify(proto);
        } catch (const std::exception& e) {
          why = e.what();
          if (auto cut = why.find('\n'); cut != std::string::npos) why.resize(cut);
        }
      }
      for (const auto& out : n.outputs)
        if (!out.empty()) slot(out).defined = true;
      if (!why.empty()) {
        if (!downstream)
          m_warnings.push_back("node '" + n.name + "' (" + n.opType + "): " + why + "; its shapes are not inferred");
        else
          ++skippedDownstream;
        for (const auto& out : n.outputs) m_quarantined.insert(out);
        // Its outputs stay untyped unless value_info declares them, or its value is known
        // (foldKnownValues turns such a node into a constant ONNX then infers).
        if (!stopped && m_propagate) stopped = !fold(n, evaluator);
        continue;
      }
      if (qSchema)
        for (const auto& out : n.outputs)
          if (!out.empty()) slot(out).typedForQuarantine = true;
      if (stopped) continue;
      // A Constant's value is input data for its consumers (ONNX's preprocess).
      if (n.opType == "Constant" && n.outputs.size() == 1)
        for (const Attribute& a : n.attributes)
          if (a.name == "value" && a.type == AttrType::Tensor && a.raw.empty() && !a.tensors.empty())
            slot(n.outputs[0]).tensor = &a.tensors[0];
      stopped = !infer(n, proto);
      if (!stopped && m_propagate) stopped = !fold(n, evaluator);
    }
    if (skippedDownstream)
      m_warnings.push_back(std::to_string(skippedDownstream) + " more node(s) after those are not inferred either");
    writeBack();
  }

  Slot& slot(std::string_view name) {
    const uint32_t k = m_names.insert(name);
    if (k >= m_slots.size()) m_slots.resize(k + 1);
    return m_slots[k];
  }
  Slot* find(std::string_view name) {
    const long k = m_names.find(name);
    return k < 0 ? nullptr : &m_slots[static_cast<size_t>(k)];
  }

  const onnx::TensorProto* data(std::string_view name) {
    Slot* s = name.empty() ? nullptr : find(name);
    if (!s) return nullptr;
    if (!s->data && s->tensor) {
      auto& tp = m_tensors.emplace_back();
      toProto(*s->tensor, tp);
      s->data = &tp;
    }
    return s->data;
  }

  const onnx::TypeProto* type(std::string_view name) {
    Slot* s = name.empty() ? nullptr : find(name);
    return s ? s->type : nullptr;
  }

  onnx::TensorShapeProto* symbolic(std::string_view name) {
    Slot* s = name.empty() ? nullptr : find(name);
    return s ? s->symbolic.get() : nullptr;
  }

  // DataPropagationContextImpl::getInputData: generated data, else a scalar or 1-D integer
  // initializer or constant converted (and kept as generated data).
  const onnx::TensorShapeProto* propagationInput(std::string_view name) {
    if (name.empty()) return nullptr;
    Slot& s = slot(name);
    if (s.symbolic) return s.symbolic.get();
    const onnx::TensorProto* d = data(name);
    if (!d || d->dims_size() > 1) return nullptr;
    onnx::TensorShapeProto tsp;
    if (d->data_type() == onnx::TensorProto::INT64) {
      for (int64_t v : onnx::ParseData<int64_t>(d)) tsp.add_dim()->set_dim_value(v);
    } else if (d->data_type() == onnx::TensorProto::INT32) {
      for (int32_t v : onnx::ParseData<int32_t>(d)) tsp.add_dim()->set_dim_value(v);
    } else {
      return nullptr;
    }
    s.symbolic = std::make_unique<onnx::TensorShapeProto>(std::move(tsp));
    return s.symbolic.get();
  }

 private:
  const onnx::TensorProto* keep(onnx::TensorProto t) {
    m_tensors.push_back(std::move(t));
    return &m_tensors.back();
  }
  onnx::TypeProto* own(onnx::TypeProto t) {
    m_types.push_back(std::move(t));
    return &m_types.back();
  }

  // value_types_by_name and input_data_by_name as ONNX's process(GraphProto) fills them.
  bool declare() {
    m_valueInfo.reserve(m_g.valueInfo.size());
    m_outputs.reserve(m_g.outputs.size());
    m_names.reserve(m_g.valueInfo.size() + m_g.inputs.size() + m_g.initializers.size() + m_g.nodes.size() * 2);
    auto declareOne = [&](const ValueInfo& v) -> onnx::TypeProto* {
      onnx::TypeProto t;
      if (v.type.kind != TypeInfo::Kind::None) toProto(v.type, t);
      onnx::TypeProto* p = own(std::move(t));
      m_symbols.add(*p);
      Slot& s = slot(v.name);
      if (hasType(*p)) s.type = p;
      else s.untyped = p;
      return p;
    };
    for (const ValueInfo& v : m_g.valueInfo) m_valueInfo.push_back(declareOne(v));
    std::unordered_set<std::string_view> inputs;
    for (const ValueInfo& v : m_g.inputs) {
      if (!inputs.insert(v.name).second) {
        m_warnings.push_back("graph input '" + v.name + "' is declared twice; the second is ignored");
        continue;
      }
      declareOne(v);
      Slot& s = slot(v.name);
      s.defined = true;
      s.typedForQuarantine = true;  // quarantineUnsafe: a top-level input counts once it has a type
      if (!s.type) s.typedForQuarantine = false;
    }
    for (const ValueInfo& v : m_g.outputs) m_outputs.push_back(declareOne(v));
    for (const ValueInfo& v : m_g.valueInfo)
      if (v.type.kind != TypeInfo::Kind::None) slot(v.name).typedForQuarantine = true;
    for (const ValueInfo& v : m_g.outputs)
      if (v.type.kind != TypeInfo::Kind::None) slot(v.name).typedForQuarantine = true;
    for (const Tensor& t : m_g.initializers) {
      Slot& s = slot(t.name);
      s.typedForQuarantine = s.defined = true;
      onnx::TypeProto it = tensorType(static_cast<int>(t.dtype), t.dims);
      if (t.byteSize() > kStripAbove) {  // handed over as a typed input without data
        if (!inputs.count(t.name)) s.type = own(std::move(it));
        continue;
      }
      s.tensor = &t;
      if (s.type) {
        try {
          si::checkShapesAndTypes(it, *s.type);
        } catch (const std::exception& e) {
          m_warnings.push_back(std::string("shape inference stopped early: ") + e.what());
          return false;
        }
      } else if (m_model.irVersion >= 4) {
        s.type = own(std::move(it));
      }
    }
    return true;
  }

  static onnx::TypeProto tensorType(int elem, const std::vector<int64_t>& dims) {
    onnx::TypeProto t;
    auto* tt = t.mutable_tensor_type();
    tt->set_elem_type(elem);
    auto* shape = tt->mutable_shape();
    for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
    return t;
  }

  const onnx::OpSchema* schema(const Node& n, int& version) {
    auto dit = m_opsets.find(n.domain);
    if (dit == m_opsets.end() && n.domain.empty()) dit = m_opsets.find("ai.onnx");
    if (dit == m_opsets.end()) return nullptr;  // ONNX records an error and goes on
    version = dit->second;
    auto key = std::make_pair(n.domain, n.opType);
    auto it = m_schemas.find(key);
    if (it == m_schemas.end())
      it = m_schemas.emplace(key, onnx::OpSchemaRegistry::Instance()->GetSchema(n.opType, version, n.domain)).first;
    return it->second;
  }

  void stop(const onnx::NodeProto& proto, const std::runtime_error& err) {
    try {
      fail_shape_inference(si::GetErrorWithNodeInfo(proto, err));
    } catch (const std::exception& e) {
      m_warnings.push_back(std::string("shape inference stopped early: ") + e.what());
    }
  }

  // ONNX's updateType: name the unknown dims, merge into what is declared or known.
  void update(const std::string& name, onnx::TypeProto& inferred) {
    if (inferred.value_case() == onnx::TypeProto::VALUE_NOT_SET) return;
    si::MaterializeSymbolicShape(&inferred, m_symbols);
    Slot& s = slot(name);
    if (!s.type) {
      s.type = own(onnx::TypeProto());
      s.created = static_cast<int>(m_created.size());
      m_created.push_back(name);
      if (s.untyped) *s.untyped = inferred;
    }
    si::mergeShapesAndTypes(inferred, s.type);
    s.shapeCached = false;
  }

  // ONNX's process(NodeProto&). False when inference must stop (as ONNX throws out of it).
  bool infer(const Node& n, const onnx::NodeProto& proto) {
    int version = 0;
    const onnx::OpSchema* sc = schema(n, version);
    if (!sc) return true;
    NodeContext ctx(*this, n, proto);
    try {
      if (sc->has_type_and_shape_inference_function()) {
        sc->GetTypeAndShapeInferenceFunction()(ctx);
      } else if (sc->HasFunction()) {
        onnx::ShapeInferenceOptions options(false, 0, m_propagate);
        std::unordered_map<std::string, onnx::TensorShapeProto> scratch;
        si::InferShapeForFunctionNode(*sc->GetFunction(), onnx::OpSchemaRegistry::Instance(), ctx, options, {}, &m_symbols,
                                      &scratch);
      } else {
        return true;
      }
    } catch (const onnx::InferenceError&) {
      return true;  // ONNX notes it and goes on with the next node
    } catch (const std::exception& e) {
      m_warnings.push_back(std::string("shape inference stopped early: ") + e.what());
      return false;
    }
    try {
      for (size_t i = 0; i < n.outputs.size(); ++i)
        if (!n.outputs[i].empty()) update(n.outputs[i], *ctx.getOutputType(i));
      if (m_propagate && sc->has_data_propagation_function()) {
        // libonnx 1.12's propagation dereferences every input's type: only typed inputs go in.
        bool typed = true;
        for (const auto& in : n.inputs) typed = typed && (in.empty() || type(in));
        if (typed) {
          PropagationContext pc(*this, n, proto);
          sc->GetDataPropagationFunction()(pc);
        }
      }
    } catch (const std::runtime_error& err) {
      stop(proto, err);
      return false;
    }
    return true;
  }

  // The shape arithmetic ONNX's propagation does not follow, evaluated here: a node whose value
  // is known becomes a constant for everything after it (as foldKnownValues rewrites it).
  bool fold(const Node& n, ShapeEvaluator& evaluator) {
    const KnownValue* v = evaluator.evaluate(n);
    if (!v || n.opType == "Constant" || n.outputs.size() != 1) return true;
    auto t = knownValueTensor(n.outputs[0], *v);
    if (!t) return true;
    onnx::TensorProto tp;
    toProto(*t, tp);
    Slot& s = slot(n.outputs[0]);
    onnx::TypeProto constant = tensorType(tp.data_type(), t->dims);
    try {
      if (!s.type) {
        s.type = own(onnx::TypeProto());
        s.created = static_cast<int>(m_created.size());
        m_created.push_back(n.outputs[0]);
        if (s.untyped) *s.untyped = constant;
      }
      si::mergeShapesAndTypes(constant, s.type);
    } catch (const std::exception& e) {
      m_warnings.push_back(std::string("shape inference (after folding shape arithmetic) stopped early: ") + e.what());
      return false;
    }
    s.shapeCached = false;
    s.data = keep(std::move(tp));
    s.symbolic.reset();  // its consumers read the constant, as after ONNX's next pass
    return true;
  }

  const Shape* shapeOf(std::string_view name) {
    Slot* s = find(name);
    if (!s || !s->type) return nullptr;
    if (!s->shapeCached) {
      s->shape = fromProto(*s->type).shape;
      s->shapeCached = true;
    }
    return s->shape ? &*s->shape : nullptr;
  }

  static bool moreKnown(const TypeInfo& a, const TypeInfo& b) {  // as shape_inference.cpp's readBack
    if (!a.shape) return false;
    if (!b.shape) return true;
    auto known = [](const Shape& s) {
      size_t k = 0;
      for (const Dim& d : s.dims) k += d.known();
      return k;
    };
    return known(*a.shape) > known(*b.shape);
  }

  // The IR takes what ONNX's value_info and outputs would hold, as readBack reads them.
  void writeBack() {
    for (size_t i = 0; i < m_valueInfo.size(); ++i) {
      TypeInfo t = fromProto(*m_valueInfo[i]);
      if (moreKnown(t, m_g.valueInfo[i].type)) m_g.valueInfo[i].type = std::move(t);
    }
    const size_t declared = m_g.valueInfo.size();
    m_g.valueInfo.reserve(declared + m_created.size());
    std::unordered_set<std::string_view> declaredNames;
    for (size_t i = 0; i < declared; ++i) declaredNames.insert(m_g.valueInfo[i].name);
    for (const std::string& name : m_created) {
      const Slot& s = *find(name);
      if (declaredNames.count(name)) {  // an untyped declaration: it took the inferred type
        for (size_t i = 0; i < declared; ++i)
          if (m_g.valueInfo[i].name == name) {
            TypeInfo t = fromProto(*s.type);
            if (moreKnown(t, m_g.valueInfo[i].type)) m_g.valueInfo[i].type = std::move(t);
          }
        continue;
      }
      m_g.valueInfo.push_back({name, fromProto(*s.type), {}, {}});
    }
    for (size_t i = 0; i < m_outputs.size(); ++i) {
      ValueInfo& v = m_g.outputs[i];
      TypeInfo t = hasType(*m_outputs[i]) ? fromProto(*m_outputs[i]) : TypeInfo{};
      if (v.type.kind == TypeInfo::Kind::None || moreKnown(t, v.type)) v.type = std::move(t);
    }
  }

  Model& m_model;
  Graph& m_g;
  bool m_propagate;
  std::vector<std::string>& m_warnings;
  NameTable m_names;
  std::vector<Slot> m_slots;
  std::deque<onnx::TypeProto> m_types;
  std::deque<onnx::TensorProto> m_tensors;
  std::vector<onnx::TypeProto*> m_valueInfo, m_outputs;  // the declarations, as ONNX holds them
  std::vector<std::string> m_created;                    // value_info entries inference added
  std::unordered_set<std::string> m_quarantined;
  std::unordered_map<std::string, int> m_opsets;
  std::map<std::pair<std::string, std::string>, const onnx::OpSchema*> m_schemas;
  Symbols m_symbols;
};

NodeContext::NodeContext(Pass& pass, const Node& node, const onnx::NodeProto& proto)
    : m_pass(pass), m_node(node), m_proto(proto), m_outputs(node.outputs.size()) {}

const onnx::AttributeProto* NodeContext::getAttribute(const std::string& name) const { return findAttribute(m_proto, name); }

const onnx::TypeProto* NodeContext::getInputType(size_t i) const {
  if (i >= m_node.inputs.size()) fail_type_inference("Input ", i, " is out of bounds.");
  return m_pass.type(m_node.inputs[i]);
}

const onnx::TensorProto* NodeContext::getInputData(size_t i) const {
  if (i >= m_node.inputs.size()) fail_type_inference("Input ", i, " is out of bounds.");
  return m_pass.data(m_node.inputs[i]);
}

const onnx::TensorShapeProto* NodeContext::getSymbolicInput(size_t i) const {
  if (i >= m_node.inputs.size()) fail_type_inference("Input ", i, " is out of bounds.");
  if (m_pass.data(m_node.inputs[i])) return nullptr;  // data wins, as InferenceContextImpl decides
  return m_pass.symbolic(m_node.inputs[i]);
}

const onnx::AttributeProto* PropagationContext::getAttribute(const std::string& name) const {
  return findAttribute(m_proto, name);
}

const onnx::TypeProto* PropagationContext::getInputType(size_t i) const {
  if (i >= m_node.inputs.size()) fail_type_inference("Input ", i, " is out of bounds.");
  return m_pass.type(m_node.inputs[i]);
}

const onnx::TensorShapeProto* PropagationContext::getInputData(size_t i) {
  if (i >= m_node.inputs.size()) fail_type_inference("Input ", i, " is out of bounds.");
  return m_pass.propagationInput(m_node.inputs[i]);
}

void PropagationContext::addOutputData(size_t i, onnx::TensorShapeProto&& tsp) {
  if (i >= m_node.outputs.size()) fail_type_inference("Input ", i, " is out of bounds.");
  Slot& s = m_pass.slot(m_node.outputs[i]);
  if (s.symbolic) fail_shape_inference("Data for input  " + std::to_string(i) + " already exists.");
  s.symbolic = std::make_unique<onnx::TensorShapeProto>(std::move(tsp));
}

}  // namespace

std::string onnxCrashRisk(const onnx::NodeProto& n) {
  static const std::set<std::string, std::less<>> convPool{
      "Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "MaxPool", "AveragePool", "LpPool", "MaxUnpool"};
  auto positiveInts = [&](const char* name) -> std::string {
    for (const auto& a : n.attribute()) {
      if (a.name() != name) continue;
      if (a.type() != onnx::AttributeProto::INTS) return std::string("'") + name + "' is not a list of ints";
      for (int64_t v : a.ints())
        if (v <= 0) return std::string("'") + name + "' holds " + std::to_string(v);
    }
    return {};
  };
  auto positiveInt = [&](const char* name) -> std::string {
    for (const auto& a : n.attribute())
      if (a.name() == name && (a.type() != onnx::AttributeProto::INT || a.i() <= 0))
        return std::string("'") + name + "' is not a positive int";
    return {};
  };
  if (!n.domain().empty() && n.domain() != "ai.onnx") return {};
  if (convPool.count(n.op_type())) {
    for (const char* a : {"strides", "dilations", "kernel_shape"})
      if (auto w = positiveInts(a); !w.empty()) return w;
    return positiveInt("group");
  }
  if (n.op_type() == "DepthToSpace" || n.op_type() == "SpaceToDepth") return positiveInt("blocksize");
  return {};
}

bool onePassApplies(const Model& model) {
  const Graph& g = model.graph;
  if (!model.functions.empty() || !g.sparseInitializers.empty()) return false;
  for (const Node& n : g.nodes)
    if (n.hasSubgraphs()) return false;
  return g.isTopologicallySorted();
}

void inferOnePass(Model& model, bool dataPropagation, std::vector<std::string>& warnings) {
  Pass(model, dataPropagation, warnings).run();
}

}  // namespace msa
