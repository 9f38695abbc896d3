#include "optimize/passes/pass_util.h"

#include <cstring>

#include "model/rewrite.h"

namespace msa {

std::vector<Rewrite> rewriteUntilStable(Graph& g, const std::function<std::optional<Rewrite>(const GraphIndex&)>& rewriteFirst) {
  std::vector<Rewrite> done;
  for (;;) {
    std::optional<Rewrite> r;
    {
      const GraphIndex idx(g);
      r = rewriteFirst(idx);
    }
    if (!r) break;
    done.push_back(std::move(*r));
  }
  if (!done.empty()) removeDeadCode(g);
  return done;
}

bool anyAnchored(const PassContext& ctx, const Graph& g, std::span<const size_t> members) {
  if (ctx.anchors.empty()) return true;
  return std::any_of(members.begin(), members.end(), [&](size_t m) { return ctx.matches(g.nodes[m].name); });
}

std::unordered_set<std::string> subgraphReads(const Graph& g) {
  std::unordered_set<std::string> reads;
  for (const Node& nd : g.nodes)
    for (const Attribute& a : nd.attributes)
      for (const Graph& sub : a.graphs)
        sub.forEachGraph([&](const Graph& s, int) {
          for (const Node& sn : s.nodes)
            for (const auto& in : sn.inputs) reads.insert(in);
        });
  return reads;
}

std::vector<std::string> nodeNames(const Graph& g, std::span<const size_t> members) {
  std::vector<std::string> out;
  out.reserve(members.size());
  for (size_t m : members) out.push_back(g.nodes[m].name);
  return out;
}

Node& insertNode(Graph& g, size_t pos, Node n) {
  g.addNode(std::move(n));
  pos = std::min(pos, g.nodes.size() - 1);
  std::rotate(g.nodes.begin() + static_cast<long>(pos), g.nodes.end() - 1, g.nodes.end());
  return g.nodes[pos];
}

std::string replaceNodes(Graph& g, std::span<const NodeId> remove, Node replacement) {
  size_t last = 0;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (std::find(remove.begin(), remove.end(), g.nodes[i].id) != remove.end()) last = i + 1;
  std::string name = insertNode(g, last, std::move(replacement)).name;
  g.removeNodes(remove);
  return name;
}

std::string fusedNodeName(const Graph& g, std::span<const std::string> memberNames, std::string_view opType) {
  std::string prefix = memberNames.empty() ? std::string() : memberNames[0];
  for (const auto& n : memberNames) {
    size_t k = 0;
    while (k < prefix.size() && k < n.size() && prefix[k] == n[k]) ++k;
    prefix.resize(k);
  }
  size_t slash = prefix.rfind('/');
  prefix = slash == std::string::npos ? std::string() : prefix.substr(0, slash + 1);
  return g.uniqueName(prefix + std::string(opType));
}

void dropValueInfo(Graph& g, std::string_view value) {
  std::erase_if(g.valueInfo, [&](const ValueInfo& v) { return v.name == value; });
}

bool forwardOutput(Graph& g, NodeId id, const std::string& source) {
  Node* n = g.findNode(id);
  if (!n || n->inputs.empty() || n->outputs.empty()) return false;
  std::string saved = n->inputs[0];
  n->inputs[0] = source;
  if (bypassNode(g, id, 0, 0)) return true;
  if ((n = g.findNode(id))) n->inputs[0] = saved;
  // A graph output whose source others read too: the source takes the output's name, and
  // every reader follows it (bypassNode only renames a source nobody else reads).
  const std::string out = n ? n->outputs[0] : std::string();
  if (!n || !g.isGraphOutput(out) || g.isGraphInput(source) || g.isGraphOutput(source) || g.findInitializer(source))
    return false;
  Node* producer = nullptr;
  for (Node& p : g.nodes)
    if (std::find(p.outputs.begin(), p.outputs.end(), source) != p.outputs.end()) producer = &p;
  if (!producer || producer->id == id) return false;
  for (auto& o : producer->outputs)
    if (o == source) o = out;
  replaceAllUses(g, source, out);
  if (std::any_of(g.valueInfo.begin(), g.valueInfo.end(), [&](const ValueInfo& v) { return v.name == out; }))
    dropValueInfo(g, source);
  for (auto& v : g.valueInfo)
    if (v.name == source) v.name = out;
  NodeId drop[] = {id};
  g.removeNodes(drop);
  return true;
}


Tensor transposeTensor(const Tensor& t, std::span<const int64_t> perm) {
  const size_t rank = t.dims.size();
  const size_t esize = static_cast<size_t>(dtypeSize(t.dtype));
  Tensor r;
  r.dtype = t.dtype;
  if (perm.size() != rank || t.dtype == DType::Int4 || t.dtype == DType::UInt4) return r;  // no data: refused
  std::vector<bool> seen(rank, false);
  for (int64_t a : perm) {
    if (a < 0 || a >= static_cast<int64_t>(rank) || seen[static_cast<size_t>(a)]) return r;
    seen[static_cast<size_t>(a)] = true;
  }
  std::vector<int64_t> outDims(rank);
  for (size_t k = 0; k < rank; ++k) outDims[k] = t.dims[static_cast<size_t>(perm[k])];
  std::vector<size_t> inStride(rank, 1);
  for (size_t k = rank; k-- > 1;) inStride[k - 1] = inStride[k] * static_cast<size_t>(t.dims[k]);
  const size_t n = static_cast<size_t>(t.numElements());
  std::string_view src = t.raw();
  if (esize == 0 || src.size() < n * esize) return r;
  std::string out(n * esize, '\0');
  std::vector<size_t> pos(rank, 0);
  for (size_t i = 0; i < n; ++i) {
    size_t from = 0;
    for (size_t k = 0; k < rank; ++k) from += pos[k] * inStride[static_cast<size_t>(perm[k])];
    std::memcpy(out.data() + i * esize, src.data() + from * esize, esize);
    for (size_t k = rank; k-- > 0;) {
      if (++pos[k] < static_cast<size_t>(outDims[k])) break;
      pos[k] = 0;
    }
  }
  r.dims = std::move(outDims);
  r.data = TensorBytes::owned(std::move(out));
  return r;
}

Tensor int64Tensor(std::vector<int64_t> dims, const std::vector<int64_t>& values) {
  return Tensor::fromValues({}, DType::Int64, std::move(dims), values);
}

}  // namespace msa
