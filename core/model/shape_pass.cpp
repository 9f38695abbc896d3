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
  std::string_view name;
  onnx::TypeProto* type = nullptr;       // ONNX's value_types_by_name entry
  onnx::TypeProto* untyped = nullptr;    // a declaration without a type (undefined_value_types_by_name)
  const Tensor* tensor = nullptr;        // an initializer small enough, or a Constant's value: its data
  const Tensor* typeOf = nullptr;        // an initializer whose type is made when first asked for
  const onnx::TensorProto* data = nullptr;  // input_data_by_name: initializer, Constant, folded value
  std::unique_ptr<onnx::TensorShapeProto> symbolic;  // generated_shape_data_by_name
  bool typedForQuarantine = false;
  bool defined = false;   // SSA: produced or declared once
  bool created = false;   // inference created its value_info entry
  bool quarantined = false;
  bool hasValue = false;  // the evaluator knows its value
  int producer = -1;      // the first node that outputs it
  bool shapeCached = false;
  std::optional<Shape> shape;  // of `type`, for the evaluator
};

class Pass;

// ONNX's InferenceContextImpl over the pass's slots.
class NodeContext final : public onnx::InferenceContext {
 public:
  // `outputs` is a buffer the pass keeps, cleared here for this node.
  NodeContext(Pass& pass, const onnx::NodeProto& proto, Slot* const* in, size_t ins, std::vector<onnx::TypeProto>& outputs,
              size_t outs)
      : m_pass(pass), m_proto(proto), m_in(in), m_ins(ins), m_outputs(outputs) {
    if (m_outputs.size() < outs) m_outputs.resize(outs);
    for (size_t k = 0; k < outs; ++k) m_outputs[k].Clear();
    m_count = outs;
  }
  const onnx::AttributeProto* getAttribute(const std::string& name) const override;
  size_t getNumInputs() const override { return m_ins; }
  const onnx::TypeProto* getInputType(size_t i) const override;
  const onnx::TensorProto* getInputData(size_t i) const override;
  size_t getNumOutputs() const override { return m_count; }
  onnx::TypeProto* getOutputType(size_t i) override {
    if (i >= m_count) fail_type_inference("Output ", i, " is out of bounds.");
    return &m_outputs[i];
  }
  onnx::GraphInferencer* getGraphAttributeInferencer(const std::string&) override {
    fail_type_inference("GraphProto attribute inferencing is not enabled in this InferenceContextImpl instance.");
  }
  const onnx::SparseTensorProto* getInputSparseData(size_t) const override { return nullptr; }
  const onnx::TensorShapeProto* getSymbolicInput(size_t i) const override;

 private:
  Pass& m_pass;
  const onnx::NodeProto& m_proto;
  Slot* const* m_in;
  size_t m_ins;
  std::vector<onnx::TypeProto>& m_outputs;
  size_t m_count = 0;
};

// ONNX's DataPropagationContextImpl over the pass's slots.
class PropagationContext final : public onnx::DataPropagationContext {
 public:
  PropagationContext(Pass& pass, const onnx::NodeProto& proto, Slot* const* in, size_t ins, Slot* const* out, size_t outs)
      : m_pass(pass), m_proto(proto), m_in(in), m_ins(ins), m_out(out), m_outputs(outs) {}
  const onnx::AttributeProto* getAttribute(const std::string& name) const override;
  size_t getNumInputs() const override { return m_ins; }
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
  const onnx::NodeProto& m_proto;
  Slot* const* m_in;
  size_t m_ins;
  Slot* const* m_out;
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

  // False (and nothing done) when the graph is not in execution order.
  bool run() {
    if (!resolve()) return false;
    if (!declare()) return true;
    for (const auto& o : m_model.opsets) m_opsets[o.domain] = static_cast<int>(o.version);
    std::map<std::string, int> quarantineOpsets;  // "" and "ai.onnx" alike, as quarantineUnsafe
    for (const auto& o : m_model.opsets) quarantineOpsets[o.domain == "ai.onnx" ? std::string() : o.domain] = static_cast<int>(o.version);
    m_evaluator = std::make_unique<ShapeEvaluator>(m_g, kFoldElements, [this](std::string_view name) { return shapeOf(name); });
    for (const Tensor& t : m_g.initializers)
      if (m_evaluator->holds(t.name)) slot(t.name).hasValue = true;
    onnx::NodeProto proto;
    ProtoOptions po;
    po.keepGeneratedNames = true;
    size_t skippedDownstream = 0;
    bool stopped = false;
    for (size_t i = 0; i < m_g.nodes.size(); ++i) {
      const Node& n = m_g.nodes[i];
      Slot* const* in = &m_io[m_ioStart[i]];
      Slot* const* out = in + n.inputs.size();
      proto.Clear();
      toProto(n, proto, po);
      // Quarantine, as quarantineUnsafe: nodes libonnx would crash on are not handed over.
      std::string why = onnxCrashRisk(proto);
      bool downstream = false;
      for (size_t k = 0; k < n.inputs.size(); ++k)
        if (why.empty() && in[k] && !in[k]->typedForQuarantine) {
          why = "input '" + n.inputs[k] + "' has no type at this point";
          downstream = in[k]->quarantined;
        }
      for (size_t k = 0; k < n.outputs.size(); ++k)
        if (why.empty() && out[k] && out[k]->defined) why = "output '" + n.outputs[k] + "' is defined twice";
      const onnx::OpSchema* qSchema = nullptr;
      const std::string qDomain = n.domain == "ai.onnx" ? std::string() : n.domain;
      if (auto v = quarantineOpsets.find(qDomain); v != quarantineOpsets.end()) {
        auto key = std::make_pair(qDomain, n.opType);
        auto it = m_quarantineSchemas.find(key);
        if (it == m_quarantineSchemas.end())
          it = m_quarantineSchemas.emplace(key, onnx::OpSchemaRegistry::Schema(n.opType, v->second, qDomain)).first;
        qSchema = it->second;
      }
      if (why.empty() && qSchema) {
        try {
          qSchema->Verify(proto);
        } catch (const std::exception& e) {
          why = e.what();
          if (auto cut = why.find('\n'); cut != std::string::npos) why.resize(cut);
        }
      }
      if (why.empty()) why = rankCrashRisk(n, in);
      for (size_t k = 0; k < n.outputs.size(); ++k)
        if (out[k]) out[k]->defined = true;
      if (!why.empty()) {
        if (!downstream)
          m_warnings.push_back("node '" + n.name + "' (" + n.opType + "): " + why + "; its shapes are not inferred");
        else
          ++skippedDownstream;
        for (size_t k = 0; k < n.outputs.size(); ++k)
          if (out[k]) out[k]->quarantined = true;
        // Its outputs stay untyped unless value_info declares them, or its value is known
        // (foldKnownValues turns such a node into a constant ONNX then infers).
        if (!stopped && m_propagate) stopped = !fold(n, in, out);
        continue;
      }
      if (qSchema)
        for (size_t k = 0; k < n.outputs.size(); ++k)
          if (out[k]) out[k]->typedForQuarantine = true;
      if (stopped) continue;
      // A Constant's value is input data for its consumers (ONNX's preprocess).
      if (n.opType == "Constant" && n.outputs.size() == 1 && out[0])
        for (const Attribute& a : n.attributes)
          if (a.name == "value" && a.type == AttrType::Tensor && a.raw.empty() && !a.tensors.empty()) out[0]->tensor = &a.tensors[0];
      stopped = !infer(n, proto, in, out);
      if (!stopped && m_propagate) stopped = !fold(n, in, out);
    }
    if (skippedDownstream)
      m_warnings.push_back(std::to_string(skippedDownstream) + " more node(s) after those are not inferred either");
    writeBack();
    return true;
  }

  // Input ranks libonnx 1.12 indexes without checking them (a read past the end: SIGSEGV in the
  // inference child, and every shape lost). Only the one pass knows the ranks before the call.
  std::string rankCrashRisk(const Node& n, Slot* const* in) {
    if (!n.isDefaultDomain()) return {};
    auto rank = [&](size_t k) -> int {
      const onnx::TypeProto* t = k < n.inputs.size() ? type(in[k]) : nullptr;
      if (!t || !t->has_tensor_type() || !t->tensor_type().has_shape()) return -1;
      return t->tensor_type().shape().dim_size();
    };
    if (n.opType == "ConvTranspose") {  // reads W's dims 1 .. rank(X)-1
      const int x = rank(0), w = rank(1);
      if (x >= 0 && w >= 0 && (w != x || w < 3))
        return "weight rank " + std::to_string(w) + " does not match input rank " + std::to_string(x);
    }
    if (n.opType == "Gemm") {  // before opset 7: dims 0 and 1 of A and B, unchecked
      const Op* o = op(n);
      if (o && o->schema && o->schema->SinceVersion() < 7)
        for (size_t k = 0; k < 2; ++k)
          if (const int r = rank(k); r >= 0 && r != 2)
            return "input '" + n.inputs[k] + "' has rank " + std::to_string(r) + ", not 2";
    }
    return {};
  }

  // ONNX's value_types_by_name entry; an initializer's is made on first use (most are weights
  // read once, and making 5,000 types up front costs more than inferring their consumers).
  onnx::TypeProto* type(Slot* s) {
    if (!s) return nullptr;
    if (!s->type && s->typeOf) {
      s->type = own(tensorType(static_cast<int>(s->typeOf->dtype), s->typeOf->dims));
      s->typeOf = nullptr;
    }
    return s->type;
  }

  const onnx::TensorProto* data(Slot* s) {
    if (!s) return nullptr;
    if (!s->data && s->tensor) {
      auto& tp = m_tensors.emplace_back();
      toProto(*s->tensor, tp);
      s->data = &tp;
    }
    return s->data;
  }

  // DataPropagationContextImpl::getInputData: generated data, else a scalar or 1-D integer
  // initializer or constant converted (and kept as generated data).
  const onnx::TensorShapeProto* propagationInput(Slot* s) {
    if (!s) return nullptr;
    if (s->symbolic) return s->symbolic.get();
    // Only integer scalars and vectors are shape data: a weight is not copied to find out.
    if (const Tensor* t = s->data ? nullptr : s->tensor;
        t && (t->dims.size() > 1 || (t->dtype != DType::Int64 && t->dtype != DType::Int32)))
      return nullptr;
    const onnx::TensorProto* d = data(s);
    if (!d || d->dims_size() > 1) return nullptr;
    onnx::TensorShapeProto tsp;
    if (d->data_type() == onnx::TensorProto::INT64) {
      for (int64_t v : onnx::ParseData<int64_t>(d)) tsp.add_dim()->set_dim_value(v);
    } else if (d->data_type() == onnx::TensorProto::INT32) {
      for (int32_t v : onnx::ParseData<int32_t>(d)) tsp.add_dim()->set_dim_value(v);
    } else {
      return nullptr;
    }
    s->symbolic = std::make_unique<onnx::TensorShapeProto>(std::move(tsp));
    return s->symbolic.get();
  }

 private:
  Slot& slot(std::string_view name) {
    const uint32_t k = m_names.insert(name);
    if (k >= m_slots.size()) {
      m_slots.resize(k + 1);
      m_slots.back().name = name;
    }
    return m_slots[k];
  }
  Slot* find(std::string_view name) {
    const long k = m_names.find(name);
    return k < 0 ? nullptr : &m_slots[static_cast<size_t>(k)];
  }

  // Every node's inputs and outputs as slots, once; false when a node reads a value a later
  // node (or itself) produces: not in execution order.
  bool resolve() {
    m_names.reserve(m_g.valueInfo.size() + m_g.inputs.size() + m_g.initializers.size() + m_g.nodes.size() * 2);
    m_ioStart.reserve(m_g.nodes.size() + 1);
    for (size_t i = 0; i < m_g.nodes.size(); ++i) {
      const Node& n = m_g.nodes[i];
      m_ioStart.push_back(m_io.size());
      for (const auto& in : n.inputs) m_io.push_back(in.empty() ? nullptr : &slot(in));
      for (const auto& out : n.outputs) {
        Slot* s = out.empty() ? nullptr : &slot(out);
        if (s && s->producer < 0) s->producer = static_cast<int>(i);
        m_io.push_back(s);
      }
    }
    m_ioStart.push_back(m_io.size());
    for (size_t i = 0; i < m_g.nodes.size(); ++i)
      for (size_t k = 0; k < m_g.nodes[i].inputs.size(); ++k)
        if (const Slot* s = m_io[m_ioStart[i] + k]; s && s->producer >= static_cast<int>(i)) return false;
    return true;
  }

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
      s.typedForQuarantine = s.type != nullptr;  // quarantineUnsafe: a top-level input counts once it has a type
    }
    for (const ValueInfo& v : m_g.outputs) m_outputs.push_back(declareOne(v));
    for (const ValueInfo& v : m_g.valueInfo)
      if (v.type.kind != TypeInfo::Kind::None) slot(v.name).typedForQuarantine = true;
    for (const ValueInfo& v : m_g.outputs)
      if (v.type.kind != TypeInfo::Kind::None) slot(v.name).typedForQuarantine = true;
    for (const Tensor& t : m_g.initializers) {
      Slot& s = slot(t.name);
      s.typedForQuarantine = s.defined = true;
      if (t.byteSize() > kStripAbove) {  // handed over as a typed input without data
        if (!inputs.count(t.name)) s.type = nullptr, s.typeOf = &t;  // overrides a value_info type, as ONNX sees an input
        continue;
      }
      s.tensor = &t;
      if (s.type) {
        try {
          si::checkShapesAndTypes(tensorType(static_cast<int>(t.dtype), t.dims), *s.type);
        } catch (const std::exception& e) {
          m_warnings.push_back(std::string("shape inference stopped early: ") + e.what());
          return false;
        }
      } else if (m_model.irVersion >= 4) {
        s.typeOf = &t;
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

  // A schema with its functions (the schema hands them out by value: copied once here).
  struct Op {
    const onnx::OpSchema* schema = nullptr;
    onnx::InferenceFunction infer;
    onnx::DataPropagationFunction propagate;
  };

  const Op* op(const Node& n) {
    auto dit = m_opsets.find(n.domain);
    if (dit == m_opsets.end() && n.domain.empty()) dit = m_opsets.find("ai.onnx");
    if (dit == m_opsets.end()) return nullptr;  // ONNX records an error and goes on
    auto key = std::make_pair(n.domain, n.opType);
    auto it = m_ops.find(key);
    if (it == m_ops.end()) {
      Op o;
      o.schema = onnx::OpSchemaRegistry::Instance()->GetSchema(n.opType, dit->second, n.domain);
      if (o.schema && o.schema->has_type_and_shape_inference_function()) o.infer = o.schema->GetTypeAndShapeInferenceFunction();
      if (o.schema && o.schema->has_data_propagation_function()) o.propagate = o.schema->GetDataPropagationFunction();
      it = m_ops.emplace(key, std::move(o)).first;
    }
    return it->second.schema ? &it->second : nullptr;
  }

  void stop(const onnx::NodeProto& proto, const std::runtime_error& err) {
    try {
      fail_shape_inference(si::GetErrorWithNodeInfo(proto, err));
    } catch (const std::exception& e) {
      m_warnings.push_back(std::string("shape inference stopped early: ") + e.what());
    }
  }

  // A value_info entry inference adds (ONNX's g.add_value_info()).
  void create(Slot& s, const onnx::TypeProto& first) {
    s.type = own(onnx::TypeProto());
    s.created = true;
    m_created.push_back(&s);
    if (s.untyped) *s.untyped = first;
  }

  // ONNX's updateType: name the unknown dims, merge into what is declared or known.
  void update(Slot& s, onnx::TypeProto& inferred) {
    if (inferred.value_case() == onnx::TypeProto::VALUE_NOT_SET) return;
    si::MaterializeSymbolicShape(&inferred, m_symbols);
    if (!type(&s)) create(s, inferred);
    si::mergeShapesAndTypes(inferred, s.type);
    s.shapeCached = false;
  }

  // ONNX's process(NodeProto&). False when inference must stop (as ONNX throws out of it).
  bool infer(const Node& n, const onnx::NodeProto& proto, Slot* const* in, Slot* const* out) {
    const Op* o = op(n);
    if (!o) return true;
    const onnx::OpSchema* sc = o->schema;
    NodeContext ctx(*this, proto, in, n.inputs.size(), m_outputBuffer, n.outputs.size());
    try {
      if (o->infer) {
        o->infer(ctx);
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
      for (size_t k = 0; k < n.outputs.size(); ++k)
        if (out[k]) update(*out[k], *ctx.getOutputType(k));
    } catch (const std::runtime_error& err) {  // inferred and declared types disagree: ONNX stops here
      stop(proto, err);
      return false;
    }
    if (m_propagate && o->propagate) {
      // libonnx 1.12's propagation dereferences every input's type: only typed inputs go in.
      bool typed = true;
      for (size_t k = 0; k < n.inputs.size(); ++k) typed = typed && (!in[k] || type(in[k]));
      if (typed) {
        PropagationContext pc(*this, proto, in, n.inputs.size(), out, n.outputs.size());
        try {
          o->propagate(pc);
        } catch (const std::runtime_error&) {
          // Propagation refuses what a folded value shows it (ONNX's pass after folding stopped
          // there, keeping what its first pass found): this node's value stays unknown, the rest goes on.
          for (size_t k = 0; k < n.outputs.size(); ++k)
            if (out[k]) out[k]->symbolic.reset();
        }
      }
    }
    return true;
  }

  // Whether the evaluator can know the node's value: every input's value is known (or, for
  // Shape and Size, the input's shape). Most nodes are skipped here without a lookup.
  bool evaluable(const Node& n, Slot* const* in, Slot* const* out) {
    if (n.opType == "Constant") return true;
    if (n.inputs.empty()) return false;
    if (n.opType == "Shape" || n.opType == "Size") {
      const Shape* s = in[0] ? shapeOf(*in[0]) : nullptr;
      return s && (n.opType == "Shape" || s->fullyKnown());
    }
    // A reshape keeps its input's values: an inferred output shape is all it needs besides.
    if (n.opType == "Reshape" || n.opType == "Unsqueeze" || n.opType == "Squeeze" || n.opType == "Flatten") {
      if (!in[0] || !in[0]->hasValue) return false;
      const Shape* s = out[0] ? shapeOf(*out[0]) : nullptr;
      if (s && s->fullyKnown()) return true;
    }
    for (size_t k = 0; k < n.inputs.size(); ++k)
      if (in[k] && !in[k]->hasValue) return false;
    return true;
  }

  // The shape arithmetic ONNX's propagation does not follow, evaluated here: a node whose value
  // is known becomes a constant for everything after it (as foldKnownValues rewrites it).
  bool fold(const Node& n, Slot* const* in, Slot* const* out) {
    if (n.outputs.empty() || !out[0] || !evaluable(n, in, out)) return true;
    const KnownValue* v = m_evaluator->evaluate(n);
    if (!v) return true;
    out[0]->hasValue = true;
    if (n.opType == "Constant" || n.outputs.size() != 1) return true;
    auto t = knownValueTensor(n.outputs[0], *v);
    if (!t) return true;
    onnx::TensorProto tp;
    toProto(*t, tp);
    Slot& s = *out[0];
    onnx::TypeProto constant = tensorType(tp.data_type(), t->dims);
    try {
      if (!type(&s)) create(s, constant);
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

  const Shape* shapeOf(Slot& s) {
    if (!type(&s)) return nullptr;
    if (!s.shapeCached) {
      s.shape = fromProto(*s.type).shape;
      s.shapeCached = true;
    }
    return s.shape ? &*s.shape : nullptr;
  }
  const Shape* shapeOf(std::string_view name) {
    Slot* s = find(name);
    return s ? shapeOf(*s) : nullptr;
  }

  // The IR takes what ONNX's value_info and outputs would hold, as readBack reads them.
  void writeBack() {
    for (size_t i = 0; i < m_valueInfo.size(); ++i) {
      TypeInfo t = fromProto(*m_valueInfo[i]);
      if (moreKnown(t, m_g.valueInfo[i].type)) m_g.valueInfo[i].type = std::move(t);
    }
    // Slot names and the name table view the declarations' strings: the vector grows only at the end.
    std::unordered_set<std::string_view> declaredNames;
    for (const ValueInfo& v : m_g.valueInfo) declaredNames.insert(v.name);
    std::vector<ValueInfo> added;
    added.reserve(m_created.size());
    for (const Slot* s : m_created) {
      TypeInfo t = fromProto(*s->type);
      if (declaredNames.count(s->name)) {  // declared without a type: every such entry takes it
        for (ValueInfo& v : m_g.valueInfo)
          if (v.name == s->name && moreKnown(t, v.type)) v.type = t;
        continue;
      }
      added.push_back({std::string(s->name), std::move(t), {}, {}});
    }
    m_g.valueInfo.insert(m_g.valueInfo.end(), std::make_move_iterator(added.begin()),
                         std::make_move_iterator(added.end()));
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
  std::deque<Slot> m_slots;         // stable addresses
  std::vector<Slot*> m_io;          // per node: its inputs, then its outputs (null: omitted)
  std::vector<size_t> m_ioStart;
  std::deque<onnx::TypeProto> m_types;
  std::deque<onnx::TensorProto> m_tensors;
  std::vector<onnx::TypeProto*> m_valueInfo, m_outputs;  // the declarations, as ONNX holds them
  std::vector<const Slot*> m_created;                    // value_info entries inference added
  std::unordered_map<std::string, int> m_opsets;
  std::map<std::pair<std::string, std::string>, Op> m_ops;
  std::map<std::pair<std::string, std::string>, const onnx::OpSchema*> m_quarantineSchemas;
  std::vector<onnx::TypeProto> m_outputBuffer;  // a node's inferred output types, reused
  std::unique_ptr<ShapeEvaluator> m_evaluator;
  Symbols m_symbols;
};

const onnx::AttributeProto* NodeContext::getAttribute(const std::string& name) const { return findAttribute(m_proto, name); }

const onnx::TypeProto* NodeContext::getInputType(size_t i) const {
  if (i >= m_ins) fail_type_inference("Input ", i, " is out of bounds.");
  return m_pass.type(m_in[i]);
}

const onnx::TensorProto* NodeContext::getInputData(size_t i) const {
  if (i >= m_ins) fail_type_inference("Input ", i, " is out of bounds.");
  return m_pass.data(m_in[i]);
}

const onnx::TensorShapeProto* NodeContext::getSymbolicInput(size_t i) const {
  if (i >= m_ins) fail_type_inference("Input ", i, " is out of bounds.");
  if (!m_in[i] || m_pass.data(m_in[i])) return nullptr;  // data wins, as InferenceContextImpl decides
  return m_in[i]->symbolic.get();
}

const onnx::AttributeProto* PropagationContext::getAttribute(const std::string& name) const {
  return findAttribute(m_proto, name);
}

const onnx::TypeProto* PropagationContext::getInputType(size_t i) const {
  if (i >= m_ins) fail_type_inference("Input ", i, " is out of bounds.");
  return m_pass.type(m_in[i]);
}

const onnx::TensorShapeProto* PropagationContext::getInputData(size_t i) {
  if (i >= m_ins) fail_type_inference("Input ", i, " is out of bounds.");
  return m_pass.propagationInput(m_in[i]);
}

void PropagationContext::addOutputData(size_t i, onnx::TensorShapeProto&& tsp) {
  if (i >= m_outputs.size()) fail_type_inference("Input ", i, " is out of bounds.");
  Slot* s = m_out[i];
  if (!s) return;
  if (s->symbolic) fail_shape_inference("Data for input  " + std::to_string(i) + " already exists.");
  s->symbolic = std::make_unique<onnx::TensorShapeProto>(std::move(tsp));
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
  return true;
}

bool inferOnePass(Model& model, bool dataPropagation, std::vector<std::string>& warnings, bool keepMemory) {
  auto pass = std::make_unique<Pass>(model, dataPropagation, warnings);
  const bool done = pass->run();
  if (keepMemory) (void)pass.release();  // a child about to exit: freeing costs as much as building
  return done;
}

bool moreKnown(const TypeInfo& a, const TypeInfo& b) {
  if (!a.shape) return false;
  if (!b.shape) return true;
  auto known = [](const Shape& s) {
    size_t k = 0;
    for (const Dim& d : s.dims) k += d.known();
    return k;
  };
  return known(*a.shape) > known(*b.shape);
}

}  // namespace msa
