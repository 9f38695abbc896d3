#include "model/shape_inference.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include "model/name_table.h"
#include "model/onnx_proto.h"
#include "model/shape_pass.h"
#include "model/shape_values.h"

namespace msa {
namespace {

constexpr int64_t kStripAbove = 64 * 1024;  // weights bigger than this are never shape arithmetic
const std::string kQuarantined = "MsadvisorUnsafe";  // op type prefix no schema has
constexpr int kChildTimeoutSeconds = 120;  // a hang in libonnx, not a big model

void bindDims(Graph& g, const ShapeOptions& o, std::set<std::string>& used) {
  auto bind = [&](ValueInfo& v) {
    if (!v.type.shape) return;
    for (size_t axis = 0; axis < v.type.shape->dims.size(); ++axis) {
      Dim& d = v.type.shape->dims[axis];
      if (d.known()) continue;
      std::string byAxis = v.name + ":" + std::to_string(axis);
      auto it = o.dims.find(byAxis);
      if (it == o.dims.end() && !d.param.empty()) it = o.dims.find(d.param);
      if (it == o.dims.end()) continue;
      used.insert(it->first);
      d.value = it->second;
    }
  };
  for (auto& v : g.inputs) bind(v);
  for (auto& v : g.outputs) bind(v);
  for (auto& v : g.valueInfo) bind(v);
}

void readBack(const onnx::GraphProto& gp, Graph& g) {
  // Each name's last entry; the vector never reallocates here, so names can be viewed.
  g.valueInfo.reserve(g.valueInfo.size() + static_cast<size_t>(gp.value_info_size()));
  NameTable names;
  std::vector<size_t> pos;
  names.reserve(g.valueInfo.size() + static_cast<size_t>(gp.value_info_size()));
  for (size_t i = 0; i < g.valueInfo.size(); ++i) {
    const uint32_t k = names.insert(g.valueInfo[i].name);
    if (k == pos.size()) pos.push_back(i);
    else pos[k] = i;
  }
  for (const auto& vp : gp.value_info()) {
    const long k = names.find(vp.name());
    if (k < 0) {
      names.insert(vp.name());
      pos.push_back(g.valueInfo.size());
      g.valueInfo.push_back({vp.name(), fromProto(vp.type()), {}, {}});
      continue;
    }
    TypeInfo t = fromProto(vp.type());
    if (moreKnown(t, g.valueInfo[pos[static_cast<size_t>(k)]].type)) g.valueInfo[pos[static_cast<size_t>(k)]].type = std::move(t);
  }
  for (const auto& op : gp.output())
    for (auto& v : g.outputs)
      if (v.name == op.name()) {
        TypeInfo t = fromProto(op.type());
        if (v.type.kind == TypeInfo::Kind::None || moreKnown(t, v.type)) v.type = std::move(t);
      }
  // Subgraphs sit at the same positions in the proto and in the IR.
  for (int n = 0; n < gp.node_size() && n < static_cast<int>(g.nodes.size()); ++n) {
    const auto& np = gp.node(n);
    for (int a = 0; a < np.attribute_size() && a < static_cast<int>(g.nodes[n].attributes.size()); ++a) {
      const auto& ap = np.attribute(a);
      auto& graphs = g.nodes[n].attributes[a].graphs;
      if (ap.has_g() && !graphs.empty()) readBack(ap.g(), graphs[0]);
      for (int k = 0; k < ap.graphs_size() && k < static_cast<int>(graphs.size()); ++k) readBack(ap.graphs(k), graphs[k]);
    }
  }
}

bool hasType(const onnx::ValueInfoProto& v) {  // or another kind: sequences, maps, optionals
  if (!v.has_type() || v.type().value_case() == onnx::TypeProto::VALUE_NOT_SET) return false;
  return !v.type().has_tensor_type() || v.type().tensor_type().elem_type() != 0;
}

bool producesShapeData(const onnx::GraphProto& g) {
  for (const auto& n : g.node()) {
    if (n.op_type() == "Shape" || n.op_type() == "Size") return true;
    for (const auto& a : n.attribute()) {
      if (a.has_g() && producesShapeData(a.g())) return true;
      for (const auto& sub : a.graphs())
        if (producesShapeData(sub)) return true;
    }
  }
  return false;
}

// libonnx 1.12's data propagation dereferences the type of every input it looks at: a value
// without a tensor type (never produced, or the output of an op whose schema ONNX does not know,
// such as a custom-domain op) crashes the process. Returns the first such input, by node.
// Names are views into the proto, which outlives the sets.
using NameSet = std::unordered_set<std::string_view>;

std::string untypedInput(const onnx::GraphProto& g, NameSet typed) {
  for (const auto& v : g.input())
    if (hasType(v)) typed.insert(v.name());
  for (const auto& t : g.initializer()) typed.insert(t.name());
  for (const auto& v : g.value_info())
    if (hasType(v)) typed.insert(v.name());
  for (const auto& v : g.output())
    if (hasType(v)) typed.insert(v.name());
  for (const auto& n : g.node()) {
    if (n.op_type().rfind(kQuarantined, 0) == 0) continue;  // ONNX skips it
    for (const auto& in : n.input())
      if (!in.empty() && !typed.count(in)) return "value '" + in + "' (input of node '" + n.name() + "') has no type";
    for (const auto& a : n.attribute()) {
      std::string w;
      if (a.has_g()) w = untypedInput(a.g(), typed);
      for (int k = 0; w.empty() && k < a.graphs_size(); ++k) w = untypedInput(a.graphs(k), typed);
      if (!w.empty()) return w;
    }
  }
  return {};
}

// Hides unsafe nodes from ONNX (in the protobuf copy only): an op type no schema has is skipped,
// and its outputs stay untyped. Unsafe, because several libonnx 1.12 inference functions crash
// (not throw) on them: attribute values it divides by; anything the op's schema check refuses (a
// missing required attribute, a wrong attribute type, too few inputs); an input that has no type
// when ONNX reaches the node (never produced, produced further down, produced by an op ONNX
// does not know and not declared in value_info); an output that redefines a value (not SSA).
// `typed` holds the values with a type at this point: declared ones and outputs of nodes handed
// over so far, outer scopes included.
void quarantineUnsafe(onnx::GraphProto& g, const std::map<std::string, int>& opsets, NameSet typed,
                      bool isSubgraph, std::vector<std::string>& warnings) {
  NameSet defined;      // SSA: every name defined once in this graph
  NameSet quarantined;  // outputs of nodes kept from ONNX
  size_t skippedDownstream = 0;
  // Later duplicates of a graph input are dropped: ONNX would merge their types.
  for (int i = 0; i < g.input_size();) {
    if (!defined.insert(g.input(i).name()).second) {
      warnings.push_back("graph input '" + g.input(i).name() + "' is declared twice; the second is ignored");
      g.mutable_input()->DeleteSubrange(i, 1);
      continue;
    }
    // A subgraph's inputs get their types from the node that runs it.
    if (isSubgraph || g.input(i).has_type()) typed.insert(g.input(i).name());
    ++i;
  }
  for (const auto& t : g.initializer()) typed.insert(t.name()), defined.insert(t.name());
  for (const auto& v : g.value_info())
    if (hasType(v)) typed.insert(v.name());
  for (const auto& v : g.output())
    if (hasType(v)) typed.insert(v.name());

  for (auto& n : *g.mutable_node()) {
    std::string why = onnxCrashRisk(n);
    bool downstream = false;  // of a node already reported: counted, not reported again
    for (const auto& in : n.input())
      if (why.empty() && !in.empty() && !typed.count(in)) {
        why = "input '" + in + "' has no type at this point";
        downstream = quarantined.count(in) != 0;
      }
    for (const auto& out : n.output())
      if (why.empty() && !out.empty() && defined.count(out)) why = "output '" + out + "' is defined twice";
    const std::string domain = n.domain() == "ai.onnx" ? std::string() : n.domain();
    const onnx::OpSchema* schema = nullptr;
    if (auto v = opsets.find(domain); v != opsets.end())
      schema = onnx::OpSchemaRegistry::Schema(n.op_type(), v->second, domain);
    if (why.empty() && schema) {
      try {
        schema->Verify(n);
      } catch (const std::exception& e) {
        why = e.what();
        if (auto cut = why.find("\n"); cut != std::string::npos) why.resize(cut);
      }
    }
    for (const auto& out : n.output()) defined.insert(out);
    if (!why.empty()) {
      if (!downstream)
        warnings.push_back("node '" + n.name() + "' (" + n.op_type() + "): " + why + "; its shapes are not inferred");
      else
        ++skippedDownstream;
      for (const auto& out : n.output()) quarantined.insert(out);
      n.set_op_type(kQuarantined + n.op_type());
      continue;  // its outputs stay untyped unless value_info declares them
    }
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_g()) quarantineUnsafe(*a.mutable_g(), opsets, typed, true, warnings);
      for (auto& sub : *a.mutable_graphs()) quarantineUnsafe(sub, opsets, typed, true, warnings);
    }
    if (schema)
      for (const auto& out : n.output()) typed.insert(out);
  }
  if (skippedDownstream)
    warnings.push_back(std::to_string(skippedDownstream) + " more node(s) after those are not inferred either");
}

// ONNX's inference. Careful order: without data propagation first (safe on any input); then,
// when Shape/Size arithmetic can add something and every consumed value has a type, again with
// it (libonnx 1.12 crashes on an untyped input while propagating). `direct`: one pass with data
// propagation straight away, for a child process whose crash is caught (and then retried in the
// careful order) on a graph in execution order (a second pass adds nothing there).
void runOnnxInference(onnx::ModelProto& mp, bool dataPropagation, bool direct, std::vector<std::string>& warnings) {
  const bool propagate = dataPropagation && producesShapeData(mp.graph());
  if (!direct || !propagate) {
    try {
      onnx::ShapeInferenceOptions so(false, 0, false);
      onnx::shape_inference::InferShapes(mp, onnx::OpSchemaRegistry::Instance(), so);
    } catch (const std::exception& e) {
      warnings.push_back(std::string("shape inference stopped early: ") + e.what());
      return;
    }
    if (!propagate) return;
    if (std::string why = untypedInput(mp.graph(), {}); !why.empty()) {
      warnings.push_back("shape arithmetic not propagated: " + why);
      return;
    }
  }
  try {
    onnx::ShapeInferenceOptions so(false, 0, true);
    onnx::shape_inference::InferShapes(mp, onnx::OpSchemaRegistry::Instance(), so);
  } catch (const std::exception& e) {
    warnings.push_back(std::string("shape inference stopped early: ") + e.what());
  }
}

bool fullyKnown(const TypeInfo& t) { return t.isTensor() && t.shape && t.shape->fullyKnown(); }

// After folding: does a folded value feed a node whose output type is still open? Only there
// can another inference pass find something (nested folds: assumed yes).
bool foldingCanHelp(const Graph& g, const std::vector<std::string>& folded) {
  std::unordered_set<std::string_view> values;
  for (const auto& v : folded) {
    if (v.empty()) return true;
    values.insert(v);
  }
  std::unordered_map<std::string_view, const TypeInfo*> types;
  for (const auto& v : g.valueInfo) types[v.name] = &v.type;
  for (const auto& v : g.outputs)
    if (v.type.kind != TypeInfo::Kind::None) types[v.name] = &v.type;
  for (const Node& n : g.nodes) {
    if (std::none_of(n.inputs.begin(), n.inputs.end(), [&](const std::string& in) { return values.count(in) != 0; }))
      continue;
    for (const auto& out : n.outputs) {
      auto it = types.find(out);
      if (!out.empty() && (it == types.end() || !fullyKnown(*it->second))) return true;
    }
  }
  return false;
}

// Shape inference proper, on `model` in place: ONNX's inference, read back into the IR's value
// types, then the shape-arithmetic rounds. The protobuf copy of the graph lives only here.
// `mp` receives the protobuf copy (the caller decides when it is freed).
// How to infer: in one pass over the IR (shape_pass.h), ONNX's whole-graph inference with data
// propagation straight away, or in the careful order (after a crash).
enum class Mode { OnePass, Direct, Careful };

Status inferInPlace(Model& model, bool dataPropagation, Mode mode, std::vector<std::string>& warnings,
                    onnx::ModelProto& mp, bool inChild = false) {
  if (mode == Mode::OnePass && onePassApplies(model) && inferOnePass(model, dataPropagation, warnings, inChild)) return Ok{};
  const bool direct = mode != Mode::Careful;
  ProtoOptions po;
  po.keepGeneratedNames = true;
  // Weights are handed to ONNX as typed inputs without their bytes. Smaller float tensors stay:
  // stripping them too lost shapes (ONNX backend tests of expanded LayerNormalization).
  po.stripInitializersAbove = kStripAbove;
  if (auto s = toProto(model, mp, po); !s) return s.error();
  std::map<std::string, int> opsets;
  for (const auto& o : mp.opset_import())
    opsets[o.domain() == "ai.onnx" ? std::string() : o.domain()] = static_cast<int>(o.version());
  quarantineUnsafe(*mp.mutable_graph(), opsets, {}, false, warnings);
  runOnnxInference(mp, dataPropagation, direct && model.graph.isTopologicallySorted(), warnings);
  readBack(mp.graph(), model.graph);
  // Shape arithmetic ONNX's data propagation does not follow (Div, Where…): evaluate it, show
  // inference the results as constants and infer again until nothing new resolves.
  for (int round = 0; round < 10 && dataPropagation; ++round) {
    std::vector<std::string> folded;
    if (foldKnownValues(*mp.mutable_graph(), model.graph, 1024, &folded) == 0 || !foldingCanHelp(model.graph, folded))
      break;
    try {
      onnx::ShapeInferenceOptions so(false, 0, true);
      onnx::shape_inference::InferShapes(mp, onnx::OpSchemaRegistry::Instance(), so);
    } catch (const std::exception& e) {
      warnings.push_back(std::string("shape inference (after folding shape arithmetic) stopped early: ") + e.what());
    }
    readBack(mp.graph(), model.graph);
  }
  return Ok{};
}

// Wire format between the child and the parent: integers, and length-prefixed strings.
void putU64(std::string& out, uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
void putString(std::string& out, std::string_view s) {
  putU64(out, s.size());
  out.append(s);
}
bool getU64(std::string_view& in, uint64_t& v) {
  if (in.size() < sizeof v) return false;
  std::memcpy(&v, in.data(), sizeof v);
  in.remove_prefix(sizeof v);
  return true;
}
bool getString(std::string_view& in, std::string& s) {
  uint64_t n = 0;
  if (!getU64(in, n) || in.size() < n) return false;
  s.assign(in.substr(0, n));
  in.remove_prefix(n);
  return true;
}

void putType(std::string& out, const TypeInfo& t) {
  putU64(out, static_cast<uint64_t>(t.kind));
  putU64(out, static_cast<uint64_t>(static_cast<int64_t>(t.elem)));
  putU64(out, t.shape ? t.shape->dims.size() + 1 : 0);
  if (t.shape)
    for (const Dim& d : t.shape->dims) {
      putU64(out, static_cast<uint64_t>(d.value));
      putString(out, d.param);
    }
  putString(out, t.raw);
  putString(out, t.denotation);
}

bool getType(std::string_view& in, TypeInfo& t) {
  uint64_t kind = 0, elem = 0, rank = 0;
  if (!getU64(in, kind) || !getU64(in, elem) || !getU64(in, rank) || kind > static_cast<uint64_t>(TypeInfo::Kind::Other))
    return false;
  t.kind = static_cast<TypeInfo::Kind>(kind);
  t.elem = static_cast<DType>(static_cast<int64_t>(elem));
  t.shape.reset();
  if (rank > 0) {
    if (rank - 1 > in.size()) return false;
    t.shape.emplace();
    t.shape->dims.resize(rank - 1);
    for (Dim& d : t.shape->dims) {
      uint64_t v = 0;
      if (!getU64(in, v) || !getString(in, d.param)) return false;
      d.value = static_cast<int64_t>(v);
    }
  }
  return getString(in, t.raw) && getString(in, t.denotation);
}

// What inference changes in the IR: the value types and the outputs' types, and those of the
// subgraphs by node and attribute position.
void putTypes(std::string& out, const Graph& g) {
  putU64(out, g.valueInfo.size());
  for (const ValueInfo& v : g.valueInfo) {
    putString(out, v.name);
    putType(out, v.type);
  }
  putU64(out, g.outputs.size());
  for (const ValueInfo& v : g.outputs) putType(out, v.type);
  for (size_t n = 0; n < g.nodes.size(); ++n) {
    if (!g.nodes[n].hasSubgraphs()) continue;
    putU64(out, n + 1);
    for (const Attribute& a : g.nodes[n].attributes) {
      putU64(out, a.graphs.size());
      for (const Graph& sub : a.graphs) putTypes(out, sub);
    }
  }
  putU64(out, 0);
}

// The inverse, into the parent's IR, which differs from the child's only by them (entries keep
// their position; inference only appends). `apply` false only checks that the bytes describe
// this graph, so that a damaged tail never leaves the IR half updated.
bool getTypes(std::string_view& in, Graph& g, bool apply) {
  uint64_t n = 0;
  if (!getU64(in, n) || n < g.valueInfo.size() || n > in.size()) return false;
  const size_t declared = g.valueInfo.size();
  if (apply) g.valueInfo.reserve(n);
  std::string name;
  TypeInfo t;
  for (uint64_t i = 0; i < n; ++i) {
    if (!getString(in, name) || !getType(in, t)) return false;
    if (i < declared) {
      if (g.valueInfo[i].name != name) return false;
      if (apply) g.valueInfo[i].type = std::move(t);
    } else if (apply) {
      g.valueInfo.push_back({name, std::move(t), {}, {}});
    }
  }
  if (!getU64(in, n) || n != g.outputs.size()) return false;
  for (ValueInfo& v : g.outputs) {
    if (!getType(in, t)) return false;
    if (apply) v.type = std::move(t);
  }
  for (;;) {
    uint64_t node = 0;
    if (!getU64(in, node)) return false;
    if (node == 0) return true;
    if (node > g.nodes.size()) return false;
    for (Attribute& a : g.nodes[node - 1].attributes) {
      uint64_t graphs = 0;
      if (!getU64(in, graphs) || graphs != a.graphs.size()) return false;
      for (Graph& sub : a.graphs)
        if (!getTypes(in, sub, apply)) return false;
    }
  }
}

// Runs inferInPlace in a forked child and takes back only the types it found: libonnx 1.12
// crashes (not throws) on some malformed graphs, and a crash or a hang must cost the shapes, not
// the process (the same reason profiling runs out of process). The protobuf copy of the graph
// never exists in this process.
// `lost` says why the shapes were lost (a crash, a hang); `crashed` whether retrying in the
// careful order may help.
Status inferInChild(Model& model, bool dataPropagation, Mode mode, std::vector<std::string>& warnings,
                    std::string& lost, bool& crashed) {
  // The schema registry is built here, once per process, never half-way (and again) in the child.
  (void)onnx::OpSchemaRegistry::Schema("Add", 14, "");
  int fds[2];
  // The child's trouble costs the shapes (the caller warns); a model error is an error.
  crashed = false;
  lost.clear();
  auto loses = [&](const std::string& why) {
    lost = why;
    return Ok{};
  };
  if (::pipe2(fds, O_CLOEXEC) != 0) return loses(std::string("cannot create a pipe: ") + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return loses(std::string("cannot fork: ") + std::strerror(errno));
  }
  if (pid == 0) {  // the child: infer, send the result, leave without running any destructor
    ::close(fds[0]);
    std::string out;
    try {
      std::vector<std::string> w;
      // Protobuf objects are left to the exit: freeing 50,000 nodes costs as much as inferring them.
      Status s = inferInPlace(model, dataPropagation, mode, w, *new onnx::ModelProto, true);
      putString(out, s ? std::string() : s.error().message);
      putU64(out, w.size());
      for (const auto& x : w) putString(out, x);
      putTypes(out, model.graph);
    } catch (...) {
      ::_exit(3);
    }
    for (std::string_view rest = out; !rest.empty();) {
      ssize_t k = ::write(fds[1], rest.data(), rest.size());
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) ::_exit(4);
      rest.remove_prefix(static_cast<size_t>(k));
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string in;
  char buf[1 << 16];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kChildTimeoutSeconds);
  bool timedOut = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timedOut = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    int r = ::poll(&p, 1, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) continue;  // the deadline check above decides
    ssize_t k = ::read(fds[0], buf, sizeof buf);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    in.append(buf, static_cast<size_t>(k));
  }
  ::close(fds[0]);
  if (timedOut) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timedOut) return loses("ONNX shape inference did not finish in " + std::to_string(kChildTimeoutSeconds) + " s");
  crashed = true;
  if (WIFSIGNALED(status)) return loses("ONNX shape inference crashed (signal " + std::to_string(WTERMSIG(status)) + ")");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return loses("ONNX shape inference failed (exit status " + std::to_string(WEXITSTATUS(status)) + ")");
  crashed = false;
  std::string_view rest = in;
  std::string failure, s;
  uint64_t n = 0;
  bool ok = getString(rest, failure) && getU64(rest, n) && n <= rest.size();
  std::vector<std::string> w;
  for (uint64_t i = 0; ok && i < n; ++i) {
    ok = getString(rest, s);
    w.push_back(s);
  }
  if (!ok) return loses("ONNX shape inference sent back a damaged result");
  if (!failure.empty()) return Error::model(failure);
  // Checked whole before any of it is applied.
  if (std::string_view check = rest; !getTypes(check, model.graph, false))
    return loses("ONNX shape inference sent back the types of another graph");
  getTypes(rest, model.graph, true);
  warnings.insert(warnings.end(), w.begin(), w.end());
  return Ok{};
}

}  // namespace

Status parseDimBinding(const std::string& text, ShapeOptions& options) {
  auto eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0)
    return Error::usage("--dim expects NAME=VALUE (e.g. batch=1), got '" + text + "'");
  int64_t v = 0;
  const char* b = text.data() + eq + 1;
  const char* e = text.data() + text.size();
  auto [p, ec] = std::from_chars(b, e, v);
  if (ec != std::errc() || p != e || v <= 0 || v > (int64_t(1) << 31))
    return Error::usage("--dim " + text + ": the value must be a positive integer");
  options.dims[text.substr(0, eq)] = v;
  return Ok{};
}

Result<ShapeReport> inferShapes(Model& model, const ShapeOptions& options) {
  ShapeReport report;
  std::set<std::string> used;
  bindDims(model.graph, options, used);
  for (const auto& [name, v] : options.dims)
    if (!used.count(name)) report.warnings.push_back("no symbolic input dim named '" + name + "'");

  if (options.isolate) {
    // Straight to data propagation in a child; after a crash, again in the careful order.
    std::string lost;
    bool crashed = false;
    std::vector<std::string> warnings;
    const Mode first = options.onePass ? Mode::OnePass : Mode::Direct;
    Status s = inferInChild(model, options.dataPropagation, first, warnings, lost, crashed);
    if (s && crashed && options.dataPropagation) {
      warnings.clear();
      s = inferInChild(model, options.dataPropagation, Mode::Careful, warnings, lost, crashed);
    }
    if (!s) return s.error();
    report.warnings.insert(report.warnings.end(), warnings.begin(), warnings.end());
    if (!lost.empty()) report.warnings.push_back(lost + "; shapes come from the file only");
  } else {
    onnx::ModelProto mp;
    const Mode mode = options.onePass ? Mode::OnePass : Mode::Careful;
    if (auto s = inferInPlace(model, options.dataPropagation, mode, report.warnings, mp); !s) return s.error();
  }

  for (const auto& v : model.graph.inputs) {
    if (!v.type.shape || model.graph.findInitializer(v.name)) continue;
    for (size_t a = 0; a < v.type.shape->dims.size(); ++a) {
      const Dim& d = v.type.shape->dims[a];
      if (!d.known()) report.unboundDims.push_back(d.param.empty() ? v.name + ":" + std::to_string(a) : d.param);
    }
  }
  std::sort(report.unboundDims.begin(), report.unboundDims.end());
  report.unboundDims.erase(std::unique(report.unboundDims.begin(), report.unboundDims.end()), report.unboundDims.end());
  return report;
}

}  // namespace msa
