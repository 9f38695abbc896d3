// ONNX Runtime writes the graph it would run at ORT_ENABLE_ALL (SessionOptions'
// optimized_model_filepath) and that graph replaces the model's. It holds every fusion the runtime
// knows and its NCHWc layout (com.microsoft.nchwc Conv/ReorderInput/ReorderOutput with this
// CPU's block size): runtime-, version- and machine-specific, so the result is labelled with all
// three in its metadata. Aggressive level only; it runs last, once.
#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <limits>
#include <unistd.h>

#include "model/onnx_io.h"
#include "optimize/passes/pass_util.h"
#include "profile/ort_session.h"

namespace fs = std::filesystem;

namespace msa {
namespace {

constexpr int64_t kInlineLimit = int64_t(1800) << 20;  // under protobuf's 2 GB per message

std::string cpuName() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  return "unknown CPU";
}

// A private folder for the runtime's output, removed with everything in it.
class ScratchDir {
 public:
  ScratchDir() {
    std::error_code ec;
    fs::path base = fs::temp_directory_path(ec);
    for (int k = 0; k < 100 && m_path.empty(); ++k) {
      fs::path p = base / ("msadvisor-ort-opt-" + std::to_string(::getpid()) + "-" + std::to_string(k));
      if (fs::create_directory(p, ec)) m_path = p;
    }
  }
  ~ScratchDir() {
    std::error_code ec;
    if (!m_path.empty()) fs::remove_all(m_path, ec);
  }
  const fs::path& path() const { return m_path; }

 private:
  fs::path m_path;
};

void dropExternal(Graph& g) {
  for (Tensor& t : g.initializers) t.external.reset();
  for (Node& n : g.nodes)
    for (Attribute& a : n.attributes) {
      for (Tensor& t : a.tensors) t.external.reset();
      for (Graph& sub : a.graphs) dropExternal(sub);
    }
}

// Removes the second of two initializers with one name in the same graph when both hold the same
// value; returns the name of one that differs (nothing removed then), else "".
std::string dropDuplicateInitializers(Graph& g) {
  std::map<std::string, const Tensor*> seen;
  std::vector<size_t> drop;
  for (size_t i = 0; i < g.initializers.size(); ++i) {
    const Tensor& t = g.initializers[i];
    auto [it, fresh] = seen.emplace(t.name, &t);
    if (fresh) continue;
    const Tensor& first = *it->second;
    if (first.dtype != t.dtype || first.dims != t.dims || first.raw() != t.raw()) return t.name;
    drop.push_back(i);
  }
  for (size_t k = drop.size(); k-- > 0;) g.initializers.erase(g.initializers.begin() + static_cast<std::ptrdiff_t>(drop[k]));
  for (Node& n : g.nodes)
    for (Attribute& a : n.attributes)
      for (Graph& sub : a.graphs)
        if (std::string d = dropDuplicateInitializers(sub); !d.empty()) return d;
  return {};
}

// The runtime writes value_info for values its fusions removed (and for values of inlined
// functions): keep one entry per value the graph still defines.
void dropStaleValueInfo(Graph& g) {
  std::set<std::string> defined;
  for (const ValueInfo& v : g.inputs) defined.insert(v.name);
  for (const Tensor& t : g.initializers) defined.insert(t.name);
  for (const Node& n : g.nodes) defined.insert(n.outputs.begin(), n.outputs.end());
  std::set<std::string> seen;
  std::erase_if(g.valueInfo, [&](const ValueInfo& v) { return !defined.count(v.name) || !seen.insert(v.name).second; });
  for (Node& n : g.nodes)
    for (Attribute& a : n.attributes)
      for (Graph& sub : a.graphs) dropStaleValueInfo(sub);
}

// The runtime's graph computes exactly what `a` does, node for node: nothing to replace. (Names of
// the nodes may differ; what they compute, from which values, may not.)
bool sameGraph(const Graph& a, const Graph& b) {
  if (a.nodes.size() != b.nodes.size() || a.initializers.size() != b.initializers.size()) return false;
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const Node& x = a.nodes[i];
    const Node& y = b.nodes[i];
    if (x.opType != y.opType || x.isDefaultDomain() != y.isDefaultDomain() || (!x.isDefaultDomain() && x.domain != y.domain) ||
        x.inputs != y.inputs || x.outputs != y.outputs || x.attributes.size() != y.attributes.size() || x.hasSubgraphs())
      return false;
  }
  std::set<std::string> names;
  for (const Tensor& t : a.initializers) names.insert(t.name);
  for (const Tensor& t : b.initializers)
    if (!names.count(t.name)) return false;
  return true;
}

class OrtOfflineOptimize final : public Pass {
 public:
  const PassInfo& info() const override { return m_info; }

  std::vector<Rewrite> run(Model& model, const PassContext& ctx) const override {
    if (!ctx.anchors.empty()) return {};  // a whole-graph rewrite: nothing to anchor
    ScratchDir dir;
    if (dir.path().empty()) return {};
    const fs::path out = dir.path() / "optimized.onnx";
    RuntimeOptions ro;
    ro.optimization = GraphOptimization::All;
    ro.optimizedModelPath = out;
    // Weights go inline: handed over from memory (AddExternalInitializers), ONNX Runtime 1.21
    // writes an optimized model whose outputs are wrong. So the pass stays below protobuf's limit.
    ro.detachAbove = std::numeric_limits<int64_t>::max();
    int64_t bytes = 0;
    model.graph.forEachGraph([&](const Graph& g, int) {
      for (const Tensor& t : g.initializers) bytes += std::max<int64_t>(0, t.byteSize());
    });
    if (bytes > kInlineLimit) {
      ctx.note("ort_offline_optimize: not applied: the weights exceed what can be handed to the runtime inline");
      return {};
    }
    {
      auto session = OrtSession::create(model, ro);
      if (!session) {
        ctx.note("ort_offline_optimize: not applied: " + session.error().message);
        return {};
      }
    }
    auto written = loadModel(out);
    if (!written) {
      ctx.note("ort_offline_optimize: not applied: " + written.error().describe());
      return {};
    }
    Model& m = *written;
    // The weights stay mapped after the scratch files are gone; they are no longer "external".
    dropExternal(m.graph);
    // ONNX Runtime 1.21 writes If/Loop branches that inlined a function with the same initializer
    // twice (silero VAD: "initializer name is not unique"); identical copies are dropped.
    if (std::string dup = dropDuplicateInitializers(m.graph); !dup.empty()) {
      ctx.note("ort_offline_optimize: not applied: the runtime's graph defines initializer '" + dup +
               "' twice with different values");
      return {};
    }
    // What the runtime writes, it must be able to read back.
    RuntimeOptions reload;
    reload.optimization = GraphOptimization::Disabled;
    reload.detachAbove = std::numeric_limits<int64_t>::max();
    if (auto again = OrtSession::create(m, reload); !again) {
      std::string why = again.error().message;
      std::replace(why.begin(), why.end(), '\n', ' ');
      if (why.size() > 600) why = why.substr(0, 597) + "...";
      ctx.note("ort_offline_optimize: not applied: " + ortVersion() + " cannot load the graph it wrote: " + why);
      return {};
    }
    if (sameGraph(model.graph, m.graph)) return {};  // the runtime changes nothing: no rewrite to report
    dropStaleValueInfo(m.graph);

    Rewrite r{std::string(m_info.id), {}, {}, {}, true, {}};
    for (const Node& n : model.graph.nodes) r.nodesBefore.push_back(n.name);
    for (const Node& n : m.graph.nodes) r.nodesAfter.push_back(n.name);
    const std::string target = ortVersion() + ", CPU execution provider, " + cpuName();
    r.note = "the graph ONNX Runtime runs at ORT_ENABLE_ALL (" + target +
             "): runtime-, version- and machine-specific (NCHWc layout for this CPU)";

    // What the file is, stays; what runs, is the runtime's.
    m.path = model.path;
    m.producerName = model.producerName;
    m.producerVersion = model.producerVersion;
    m.domain = model.domain;
    m.modelVersion = model.modelVersion;
    m.docString = model.docString;
    m.metadata = model.metadata;
    std::erase_if(m.metadata, [](const auto& kv) { return kv.first == "msadvisor.runtime_specific"; });
    m.functions = model.functions;
    m.trainingInfo = model.trainingInfo;
    m.metadata.emplace_back("msadvisor.runtime_specific", target);
    m.graph.name = model.graph.name;
    // Before IR 4 every initializer had to be a graph input too; the runtime writes the source's IR
    // version but lists only the real inputs, so the file would be invalid: raise it to 4.
    std::set<std::string> inputNames;
    for (const ValueInfo& v : m.graph.inputs) inputNames.insert(v.name);
    if (m.irVersion < 4 && std::any_of(m.graph.initializers.begin(), m.graph.initializers.end(),
                                       [&](const Tensor& t) { return !inputNames.count(t.name); })) {
      r.note += "; IR version raised from " + std::to_string(m.irVersion) + " to 4 (initializers that are not inputs)";
      m.irVersion = 4;
    }
    // The runtime imports every domain it knows; keep those the graph uses or the source imported.
    std::set<std::string> used;
    m.graph.forEachGraph([&](const Graph& g, int) {
      for (const Node& n : g.nodes) used.insert(n.isDefaultDomain() ? std::string() : n.domain);
    });
    std::erase_if(m.opsets, [&](const OpsetImport& o) {
      const std::string d = o.domain == "ai.onnx" ? std::string() : o.domain;
      return !used.count(d) && model.opset(o.domain) == 0 && !d.empty();
    });
    model = std::move(m);
    return {r};
  }

 private:
  PassInfo m_info{"ort_offline_optimize", OptLevel::Aggressive, true,
                  "replace the graph by the one ONNX Runtime runs at ORT_ENABLE_ALL (its fusions and this CPU's NCHWc "
                  "layout): runtime-, version- and machine-specific",
                  true, "com.microsoft and com.microsoft.nchwc operators"};
};

}  // namespace

std::unique_ptr<Pass> makeOrtOfflineOptimize() { return std::make_unique<OrtOfflineOptimize>(); }

}  // namespace msa
