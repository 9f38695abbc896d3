#include "model/graph.h"

#include <algorithm>
#include <cstdint>
#include <queue>
#include <unordered_map>
#include <unordered_set>

#include "model/name_table.h"

namespace msa {

bool Shape::fullyKnown() const {
  return std::all_of(dims.begin(), dims.end(), [](const Dim& d) { return d.known(); });
}

int64_t Shape::numElements() const {
  int64_t n = 1;
  bool saturated = false;
  for (const Dim& d : dims) {
    if (!d.known()) return -1;
    // Dims bound on the command line can multiply past int64: saturate (0 still wins).
    if (!saturated && __builtin_mul_overflow(n, d.value, &n)) saturated = true;
    if (d.value == 0) return 0;
  }
  return saturated ? INT64_MAX : n;
}

std::vector<int64_t> Shape::values() const {
  std::vector<int64_t> v;
  v.reserve(dims.size());
  for (const Dim& d : dims) v.push_back(d.value);
  return v;
}

std::string Shape::str() const {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) s += ',';
    const Dim& d = dims[i];
    s += d.known() ? std::to_string(d.value) : (d.param.empty() ? std::string("?") : d.param);
  }
  return s + "]";
}

Attribute Attribute::makeInt(std::string name, int64_t v) {
  Attribute a;
  a.name = std::move(name);
  a.type = AttrType::Int;
  a.i = v;
  return a;
}
Attribute Attribute::makeFloat(std::string name, float v) {
  Attribute a;
  a.name = std::move(name);
  a.type = AttrType::Float;
  a.f = v;
  return a;
}
Attribute Attribute::makeString(std::string name, std::string v) {
  Attribute a;
  a.name = std::move(name);
  a.type = AttrType::String;
  a.s = std::move(v);
  return a;
}
Attribute Attribute::makeInts(std::string name, std::vector<int64_t> v) {
  Attribute a;
  a.name = std::move(name);
  a.type = AttrType::Ints;
  a.ints = std::move(v);
  return a;
}
Attribute Attribute::makeFloats(std::string name, std::vector<float> v) {
  Attribute a;
  a.name = std::move(name);
  a.type = AttrType::Floats;
  a.floats = std::move(v);
  return a;
}
Attribute Attribute::makeTensor(std::string name, Tensor t) {
  Attribute a;
  a.name = std::move(name);
  a.type = AttrType::Tensor;
  a.tensors.push_back(std::move(t));
  return a;
}

const Attribute* Node::attr(std::string_view n) const {
  for (const Attribute& a : attributes)
    if (a.name == n) return &a;
  return nullptr;
}
Attribute* Node::attr(std::string_view n) {
  for (Attribute& a : attributes)
    if (a.name == n) return &a;
  return nullptr;
}
int64_t Node::attrInt(std::string_view n, int64_t dflt) const {
  const Attribute* a = attr(n);
  return a && a->type == AttrType::Int ? a->i : dflt;
}
float Node::attrFloat(std::string_view n, float dflt) const {
  const Attribute* a = attr(n);
  return a && a->type == AttrType::Float ? a->f : dflt;
}
std::string Node::attrString(std::string_view n, std::string dflt) const {
  const Attribute* a = attr(n);
  return a && a->type == AttrType::String ? a->s : dflt;
}
std::vector<int64_t> Node::attrInts(std::string_view n) const {
  const Attribute* a = attr(n);
  return a && a->type == AttrType::Ints ? a->ints : std::vector<int64_t>{};
}
void Node::setAttr(Attribute a) {
  if (Attribute* old = attr(a.name)) *old = std::move(a);
  else attributes.push_back(std::move(a));
}
bool Node::removeAttr(std::string_view n) {
  auto it = std::find_if(attributes.begin(), attributes.end(), [&](const Attribute& a) { return a.name == n; });
  if (it == attributes.end()) return false;
  attributes.erase(it);
  return true;
}
bool Node::hasSubgraphs() const {
  return std::any_of(attributes.begin(), attributes.end(), [](const Attribute& a) { return !a.graphs.empty(); });
}

std::string Graph::uniqueName(std::string_view base) const {
  std::unordered_set<std::string_view> used;
  for (const Node& n : nodes) {
    used.insert(n.name);
    for (const auto& o : n.outputs) used.insert(o);
  }
  for (const auto& v : inputs) used.insert(v.name);
  for (const auto& t : initializers) used.insert(t.name);
  std::string b(base);
  if (!b.empty() && !used.count(b)) return b;
  for (size_t i = 0;; ++i) {
    std::string cand = b + "_" + std::to_string(i);
    if (!used.count(cand)) return cand;
  }
}

Node& Graph::addNode(Node n) {
  n.id = nextNodeId++;
  if (n.name.empty()) {
    n.name = uniqueName(n.opType.empty() ? "node" : n.opType);
    n.generatedName = true;
  }
  nodes.push_back(std::move(n));
  return nodes.back();
}

void Graph::removeNodes(std::span<const NodeId> ids) {
  std::unordered_set<NodeId> drop(ids.begin(), ids.end());
  std::erase_if(nodes, [&](const Node& n) { return drop.count(n.id) != 0; });
}

const Node* Graph::findNode(NodeId id) const {
  for (const Node& n : nodes)
    if (n.id == id) return &n;
  return nullptr;
}
Node* Graph::findNode(NodeId id) {
  for (Node& n : nodes)
    if (n.id == id) return &n;
  return nullptr;
}
const Node* Graph::findNodeByName(std::string_view nm) const {
  for (const Node& n : nodes)
    if (n.name == nm) return &n;
  return nullptr;
}
const Tensor* Graph::findInitializer(std::string_view nm) const {
  for (const Tensor& t : initializers)
    if (t.name == nm) return &t;
  return nullptr;
}
bool Graph::isGraphOutput(std::string_view value) const {
  return std::any_of(outputs.begin(), outputs.end(), [&](const ValueInfo& v) { return v.name == value; });
}
bool Graph::isGraphInput(std::string_view value) const {
  return std::any_of(inputs.begin(), inputs.end(), [&](const ValueInfo& v) { return v.name == value; });
}

std::vector<size_t> Graph::topologicalOrder() const {
  const size_t n = nodes.size();
  NameTable names;  // each value's first producer
  std::vector<size_t> producerOf;
  names.reserve(n * 2);
  producerOf.reserve(n * 2);
  for (size_t i = 0; i < n; ++i)
    for (const auto& o : nodes[i].outputs)
      if (!o.empty() && names.insert(o) == producerOf.size()) producerOf.push_back(i);

  // Implicit inputs: values a subgraph reads from this graph count as edges too.
  auto forEachInput = [&](const Node& node, auto&& f) {
    for (const auto& in : node.inputs)
      if (!in.empty()) f(std::string_view(in));
    for (const Attribute& a : node.attributes)
      for (const Graph& g : a.graphs)
        g.forEachGraph([&](const Graph& sub, int) {
          for (const Node& sn : sub.nodes)
            for (const auto& in : sn.inputs)
              if (!in.empty()) f(std::string_view(in));
        });
  };

  // Edges producer -> consumer, one per pair. When each goes forward the file order is the
  // order (the common case, without the queue below).
  std::vector<std::pair<size_t, size_t>> edges;
  edges.reserve(n * 2);
  std::vector<size_t> seenBy(n, SIZE_MAX);  // the consumer that last recorded an edge from it
  bool forward = true;
  for (size_t i = 0; i < n; ++i)
    forEachInput(nodes[i], [&](std::string_view in) {
      const long k = names.find(in);
      if (k < 0) return;
      const size_t p = producerOf[static_cast<size_t>(k)];
      if (p == i || seenBy[p] == i) return;
      seenBy[p] = i;
      edges.push_back({p, i});
      forward = forward && p < i;
    });
  std::vector<size_t> order;
  order.reserve(n);
  if (forward) {
    for (size_t i = 0; i < n; ++i) order.push_back(i);
    return order;
  }
  std::vector<size_t> indegree(n, 0), firstUser(n + 1, 0), users(edges.size());
  for (const auto& [from, to] : edges) {
    ++firstUser[from + 1];
    ++indegree[to];
  }
  for (size_t i = 0; i < n; ++i) firstUser[i + 1] += firstUser[i];
  std::vector<size_t> fill(firstUser.begin(), firstUser.end() - 1);
  for (const auto& [from, to] : edges) users[fill[from]++] = to;
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
  for (size_t i = 0; i < n; ++i)
    if (indegree[i] == 0) ready.push(i);
  while (!ready.empty()) {
    size_t i = ready.top();
    ready.pop();
    order.push_back(i);
    for (size_t k = firstUser[i]; k < firstUser[i + 1]; ++k)
      if (--indegree[users[k]] == 0) ready.push(users[k]);
  }
  // A cycle leaves nodes out; append them in file order so callers still see every node.
  if (order.size() < n) {
    std::vector<bool> placed(n, false);
    for (size_t i : order) placed[i] = true;
    for (size_t i = 0; i < n; ++i)
      if (!placed[i]) order.push_back(i);
  }
  return order;
}

bool Graph::isTopologicallySorted() const {
  auto order = topologicalOrder();
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i] != i) return false;
  return true;
}

void Graph::sortTopologically() {
  auto order = topologicalOrder();
  std::vector<Node> sorted;
  sorted.reserve(nodes.size());
  for (size_t i : order) sorted.push_back(std::move(nodes[i]));
  nodes = std::move(sorted);
}

size_t Graph::totalNodeCount() const {
  size_t total = 0;
  forEachGraph([&](const Graph& g, int) { total += g.nodes.size(); });
  return total;
}

int64_t Model::opset(std::string_view d) const {
  for (const auto& o : opsets) {
    bool dflt = d.empty() || d == "ai.onnx";
    bool odflt = o.domain.empty() || o.domain == "ai.onnx";
    if ((dflt && odflt) || o.domain == d) return o.version;
  }
  return 0;
}

void Model::setOpset(std::string_view d, int64_t version) {
  bool dflt = d.empty() || d == "ai.onnx";
  for (auto& o : opsets) {
    bool odflt = o.domain.empty() || o.domain == "ai.onnx";
    if ((dflt && odflt) || o.domain == d) {
      o.version = version;
      return;
    }
  }
  opsets.push_back({std::string(d), version});
}

std::string Model::metadataValue(std::string_view key) const {
  for (const auto& [k, v] : metadata)
    if (k == key) return v;
  return {};
}

}  // namespace msa
