#include "graph/view_graph.h"

#include <QSet>
#include <algorithm>
#include <functional>

#include "model/graph_index.h"

namespace msa::ui {
namespace {

// Blocks smaller than this are dissolved into their parent: a box that hides two nodes saves
// nothing and a frame around them only adds noise.
constexpr int kMinBlockNodes = 3;

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

bool isNumber(QStringView s) {
  if (s.isEmpty()) return false;
  return std::all_of(s.begin(), s.end(), [](QChar c) { return c.isDigit(); });
}

struct TmpBlock {
  QString path, label;
  int parent = -1;
  std::vector<int> children, nodes;
  bool alive = true;
  int total = 0;
  bool body = false;  // a control-flow body
  int repeat = 0;
};

quint64 mix(quint64 h, quint64 v) { return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2)); }

// Consecutive sibling blocks with the same structure become a run (a block of kind repeat
// holding them): the same op types in node order, held by the same children, with the same
// edges between them by position. Names do not count.
void findRuns(std::vector<TmpBlock>& tmp, const std::vector<ViewNode>& nodes, const std::vector<ViewEdge>& edges) {
  const size_t count = tmp.size();
  std::vector<int> owner(nodes.size(), 0);
  for (size_t b = 0; b < count; ++b)
    if (tmp[b].alive)
      for (int n : tmp[b].nodes) owner[static_cast<size_t>(n)] = static_cast<int>(b);
  std::vector<std::vector<int>> members(count);  // every node inside, in node order
  std::function<void(int)> collect = [&](int b) {
    auto& m = members[static_cast<size_t>(b)];
    m = tmp[static_cast<size_t>(b)].nodes;
    for (int c : tmp[static_cast<size_t>(b)].children) {
      collect(c);
      m.insert(m.end(), members[static_cast<size_t>(c)].begin(), members[static_cast<size_t>(c)].end());
    }
    std::sort(m.begin(), m.end());
  };
  collect(0);
  auto pos = [&](size_t b, int n) {
    const auto& m = members[b];
    return static_cast<quint64>(std::lower_bound(m.begin(), m.end(), n) - m.begin());
  };
  std::vector<quint64> ops(count, 0), links(count, 0);
  for (size_t b = 1; b < count; ++b) {
    if (!tmp[b].alive) continue;
    quint64 h = members[b].size();
    for (int n : members[b]) {
      int slot = -1;  // which child holds the node
      for (int x = owner[static_cast<size_t>(n)]; x != static_cast<int>(b) && x > 0; x = tmp[static_cast<size_t>(x)].parent)
        if (tmp[static_cast<size_t>(x)].parent == static_cast<int>(b)) {
          const auto& ch = tmp[b].children;
          slot = static_cast<int>(std::find(ch.begin(), ch.end(), x) - ch.begin());
        }
      h = mix(mix(h, qHash(nodes[static_cast<size_t>(n)].opType)), static_cast<quint64>(slot + 1));
    }
    ops[b] = h;
  }
  std::vector<int> chain;
  for (const ViewEdge& e : edges) {
    chain.clear();
    for (int x = owner[static_cast<size_t>(e.to)]; x > 0; x = tmp[static_cast<size_t>(x)].parent) chain.push_back(x);
    for (int x = owner[static_cast<size_t>(e.from)]; x > 0; x = tmp[static_cast<size_t>(x)].parent)
      if (std::find(chain.begin(), chain.end(), x) != chain.end())
        links[static_cast<size_t>(x)] = mix(links[static_cast<size_t>(x)], (pos(static_cast<size_t>(x), e.from) << 32) ^ pos(static_cast<size_t>(x), e.to));
  }
  for (size_t p = 0; p < count; ++p) {
    if (!tmp[p].alive || tmp[p].children.size() < 2) continue;
    const std::vector<int> children = tmp[p].children;
    std::vector<int> kept;
    auto same = [&](int a, int b) {
      return ops[static_cast<size_t>(a)] == ops[static_cast<size_t>(b)] &&
             links[static_cast<size_t>(a)] == links[static_cast<size_t>(b)] &&
             members[static_cast<size_t>(a)].size() == members[static_cast<size_t>(b)].size();
    };
    for (size_t i = 0; i < children.size();) {
      size_t j = i + 1;
      while (j < children.size() && same(children[i], children[j])) ++j;
      if (j - i < 2) {
        kept.push_back(children[i++]);
        continue;
      }
      TmpBlock run;
      const TmpBlock& first = tmp[static_cast<size_t>(children[i])];
      const TmpBlock& last = tmp[static_cast<size_t>(children[j - 1])];
      run.repeat = static_cast<int>(j - i);
      run.path = first.path + QStringLiteral(" ×%1").arg(run.repeat);
      run.label = QStringLiteral("%1 … %2  ×%3").arg(first.label, last.label).arg(run.repeat);
      run.parent = static_cast<int>(p);
      run.children.assign(children.begin() + static_cast<long>(i), children.begin() + static_cast<long>(j));
      const int r = static_cast<int>(tmp.size());
      for (int c : run.children) tmp[static_cast<size_t>(c)].parent = r;
      tmp.push_back(std::move(run));
      kept.push_back(r);
      i = j;
    }
    tmp[p].children = std::move(kept);
  }
}


}  // namespace

OpCategory opCategory(const QString& op) {
  static const QHash<QString, OpCategory> table = [] {
    QHash<QString, OpCategory> t;
    auto add = [&](OpCategory c, std::initializer_list<const char*> ops) {
      for (const char* o : ops) t.insert(QString::fromLatin1(o), c);
    };
    add(OpCategory::Convolution, {"Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "DeformConv"});
    add(OpCategory::Linear, {"MatMul", "Gemm", "Einsum", "MatMulInteger", "QLinearMatMul", "FusedMatMul", "Attention",
                             "MultiHeadAttention"});
    add(OpCategory::Activation, {"Relu", "LeakyRelu", "PRelu", "Elu", "Selu", "Celu", "Gelu", "FastGelu", "BiasGelu",
                                 "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Erf", "Softplus", "Softsign", "Mish",
                                 "Clip", "ThresholdedRelu", "Swish", "QuickGelu"});
    add(OpCategory::Normalization, {"BatchNormalization", "LayerNormalization", "InstanceNormalization",
                                    "GroupNormalization", "LpNormalization", "SkipLayerNormalization",
                                    "SimplifiedLayerNormalization", "RMSNormalization", "MeanVarianceNormalization",
                                    "LRN"});
    add(OpCategory::Pooling, {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "LpPool", "MaxRoiPool",
                              "RoiAlign", "MaxUnpool", "GlobalLpPool"});
    add(OpCategory::Elementwise, {"Add", "Sub", "Mul", "Div", "Pow", "Sqrt", "Exp", "Log", "Neg", "Abs", "Reciprocal",
                                  "Floor", "Ceil", "Round", "Min", "Max", "Mean", "Sum", "Mod", "Sign", "Where",
                                  "Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual", "Not", "And", "Or",
                                  "Xor", "BitShift", "Sin", "Cos", "IsNaN", "IsInf"});
    add(OpCategory::Reduction, {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1",
                                "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare", "Softmax",
                                "LogSoftmax", "ArgMax", "ArgMin", "TopK", "CumSum", "Hardmax"});
    add(OpCategory::Shape, {"Reshape", "Transpose", "Concat", "Split", "Slice", "Gather", "GatherElements",
                            "GatherND", "Scatter", "ScatterND", "ScatterElements", "Squeeze", "Unsqueeze", "Flatten",
                            "Expand", "Tile", "Pad", "Shape", "Size", "ConstantOfShape", "Range", "Identity",
                            "DepthToSpace", "SpaceToDepth", "Resize", "Upsample", "NonZero", "OneHot", "Trilu",
                            "Dropout", "ReorderInput", "ReorderOutput", "TransData"});
    add(OpCategory::Conversion, {"Cast", "CastLike", "QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear"});
    add(OpCategory::Control, {"If", "Loop", "Scan", "SequenceConstruct", "SequenceAt", "SequenceInsert",
                              "SplitToSequence", "ConcatFromSequence"});
    return t;
  }();
  return table.value(op, OpCategory::Other);
}

QString opCategoryName(OpCategory c) {
  switch (c) {
    case OpCategory::Convolution: return QStringLiteral("convolution");
    case OpCategory::Linear: return QStringLiteral("matrix multiply");
    case OpCategory::Activation: return QStringLiteral("activation");
    case OpCategory::Normalization: return QStringLiteral("normalization");
    case OpCategory::Pooling: return QStringLiteral("pooling");
    case OpCategory::Elementwise: return QStringLiteral("elementwise");
    case OpCategory::Reduction: return QStringLiteral("reduction");
    case OpCategory::Shape: return QStringLiteral("shape / data movement");
    case OpCategory::Conversion: return QStringLiteral("type conversion");
    case OpCategory::Control: return QStringLiteral("control flow");
    case OpCategory::Io: return QStringLiteral("graph input/output");
    case OpCategory::Other: break;
  }
  return QStringLiteral("other");
}

QStringList nameScope(const QString& name) {
  QStringList parts;
  if (name.contains(QLatin1Char('/'))) {
    parts = name.split(QLatin1Char('/'), Qt::SkipEmptyParts);
  } else if (name.contains(QLatin1Char('.'))) {
    // Dotted module paths: "layers.3" is one scope, so numeric parts join the previous one.
    for (const QString& p : name.split(QLatin1Char('.'), Qt::SkipEmptyParts)) {
      if (isNumber(p) && !parts.isEmpty()) parts.back() += QLatin1Char('.') + p;
      else parts.push_back(p);
    }
  }
  if (!parts.isEmpty()) parts.removeLast();  // the node's own name
  return parts;
}

QString formatShape(const Shape* shape) {
  if (!shape) return {};
  if (shape->dims.empty()) return QStringLiteral("scalar");
  QString out;
  for (size_t i = 0; i < shape->dims.size(); ++i) {
    if (i) out += QChar(0x00D7);
    const Dim& d = shape->dims[i];
    // ONNX shape inference names the dims it cannot resolve "unk__N": those are just unknown.
    const bool anonymous = d.param.empty() || d.param.rfind("unk__", 0) == 0;
    out += d.known() ? QString::number(d.value) : (anonymous ? QStringLiteral("?") : qs(d.param));
  }
  return out;
}

const Node* irNodeOf(const Graph& top, const ViewNode& n) {
  if (n.kind != ViewNode::Kind::Op || n.irIndex < 0) return nullptr;
  const Graph* g = &top;
  for (const auto& [node, attr] : n.bodyPath) {
    if (node < 0 || static_cast<size_t>(node) >= g->nodes.size()) return nullptr;
    const Node& owner = g->nodes[static_cast<size_t>(node)];
    if (attr < 0 || static_cast<size_t>(attr) >= owner.attributes.size()) return nullptr;
    const Attribute& a = owner.attributes[static_cast<size_t>(attr)];
    if (a.graphs.empty()) return nullptr;
    g = &a.graphs.front();
  }
  return static_cast<size_t>(n.irIndex) < g->nodes.size() ? &g->nodes[static_cast<size_t>(n.irIndex)] : nullptr;
}

ViewGraph ViewGraph::build(const Graph& graph) {
  ViewGraph vg;
  GraphIndex index(graph);
  std::vector<QStringList> scopes;
  QSet<QString> opNames, topNames, bodyParts;
  for (const Node& node : graph.nodes) topNames.insert(qs(node.name));
  graph.forEachGraph([&](const Graph& g, int) {
    for (const Node& node : g.nodes) opNames.insert(qs(node.name));
  });
  // The values each graph level sees (value -> the view node producing it): the top level, then
  // each body, which also sees what its enclosing levels produce.
  struct Level {
    int parent = -1;
    QHash<QString, int> produced;
  };
  std::vector<Level> levels(1);
  std::vector<const Node*> irOf;  // per view node: the IR node (null for inputs and outputs)
  std::vector<int> levelOf;       // per view node: the level its inputs are looked up in
  auto resolve = [&](const QString& value, int level) {
    for (int l = level; l >= 0; l = levels[static_cast<size_t>(l)].parent)
      if (auto it = levels[static_cast<size_t>(l)].produced.constFind(value); it != levels[static_cast<size_t>(l)].produced.constEnd())
        return *it;
    return -1;
  };

  for (const ValueInfo& in : graph.inputs) {
    if (graph.findInitializer(in.name)) continue;  // old-style models list weights as inputs
    ViewNode n;
    n.kind = ViewNode::Kind::Input;
    n.id = qs(in.name);
    n.opType = QStringLiteral("Input");
    n.label = n.id;
    n.category = OpCategory::Io;
    const QString shape = in.type.shape ? formatShape(&*in.type.shape) : QString();
    n.detail = qs(dtypeName(in.type.elem)) + (shape.isEmpty() ? QString() : QLatin1Char(' ') + shape);
    levels[0].produced.insert(qs(in.name), static_cast<int>(vg.m_nodes.size()));
    vg.add(std::move(n), opNames);
    scopes.emplace_back();
    irOf.push_back(nullptr);
    levelOf.push_back(0);
  }
  struct BodyOutputs {
    int level;
    const Graph* body;
  };
  std::vector<ViewEdge> bodyEdges;
  // One graph level in execution order; the bodies of a node come right before it.
  std::function<void(const Graph&, int, const QStringList&, const std::vector<std::pair<int, int>>&)> addLevel =
      [&](const Graph& g, int level, const QStringList& enclosing, const std::vector<std::pair<int, int>>& path) {
        for (size_t i : g.topologicalOrder()) {
          const Node& node = g.nodes[i];
          // Constants are values, not work: drawing them doubles the node count of exported models.
          if (node.is("Constant") && node.inputs.empty()) {
            ++vg.m_hidden;
            continue;
          }
          const QStringList scope = enclosing + (node.generatedName ? QStringList() : nameScope(qs(node.name)));
          std::vector<BodyOutputs> bodies;
          for (size_t k = 0; k < node.attributes.size(); ++k) {
            const Attribute& a = node.attributes[k];
            if (a.graphs.empty()) continue;
            const QString part = qs(node.name) + QStringLiteral(" ▸ ") + qs(a.name);
            bodyParts.insert(part);
            const int bodyLevel = static_cast<int>(levels.size());
            levels.push_back({level, {}});
            auto inner = path;
            inner.emplace_back(static_cast<int>(i), static_cast<int>(k));
            addLevel(a.graphs.front(), bodyLevel, scope + QStringList{part}, inner);
            bodies.push_back({bodyLevel, &a.graphs.front()});
          }
          ViewNode n;
          n.id = qs(node.name);
          // Bodies may reuse names (both branches of an If, or a top-level node's): the top level
          // keeps its names, later body nodes get their body's name.
          for (int k = 2; level > 0 && (vg.m_byId.contains(n.id) || topNames.contains(n.id)); ++k)
            n.id = qs(node.name) + QStringLiteral(" (%1)").arg(k == 2 ? enclosing.back() : enclosing.back() + QString::number(k));
          n.opType = qs(node.opType);
          n.domain = qs(node.domain);
          n.category = opCategory(n.opType);
          n.irIndex = static_cast<int>(i);
          n.bodyPath = path;
          const int v = static_cast<int>(vg.m_nodes.size());
          if (level > 0) ++vg.m_bodyNodes;
          vg.add(std::move(n), opNames);
          scopes.push_back(scope);
          irOf.push_back(&node);
          levelOf.push_back(level);
          for (const std::string& o : node.outputs)
            if (!o.empty()) levels[static_cast<size_t>(level)].produced.insert(qs(o), v);
          // What a body returns is what its node hands on.
          for (const BodyOutputs& b : bodies)
            for (const ValueInfo& out : b.body->outputs)
              if (const int from = resolve(qs(out.name), b.level); from >= 0)
                bodyEdges.push_back({from, v, qs(out.name), out.type.shape ? formatShape(&*out.type.shape) : QString()});
        }
      };
  addLevel(graph, 0, {}, {});
  // Edges in node order: one per (tensor, consumer), Constants and initializers left out.
  for (size_t v = 0; v < vg.m_nodes.size(); ++v) {
    const Node* node = irOf[v];
    if (!node) continue;
    const bool top = levelOf[v] == 0;
    QSet<QString> seen;
    for (const std::string& in : node->inputs) {
      if (in.empty()) continue;
      const QString tensor = qs(in);
      const int from = resolve(tensor, levelOf[v]);
      if (from < 0 || seen.contains(tensor)) continue;
      seen.insert(tensor);
      vg.m_edges.push_back({from, static_cast<int>(v), tensor, top ? formatShape(index.shape(in)) : QString()});
    }
  }
  vg.m_edges.insert(vg.m_edges.end(), bodyEdges.begin(), bodyEdges.end());
  for (const ValueInfo& out : graph.outputs) {
    const int from = resolve(qs(out.name), 0);
    ViewNode n;
    n.kind = ViewNode::Kind::Output;
    n.id = qs(out.name);
    n.opType = QStringLiteral("Output");
    n.label = qs(out.name);
    n.category = OpCategory::Io;
    const Shape* s = out.type.shape ? &*out.type.shape : index.shape(out.name);
    const QString shape = formatShape(s);
    const DType dt = out.type.elem != DType::Undefined ? out.type.elem : index.dtype(out.name);
    n.detail = qs(dtypeName(dt)) + (shape.isEmpty() ? QString() : QLatin1Char(' ') + shape);
    const int to = static_cast<int>(vg.m_nodes.size());
    vg.add(std::move(n), opNames);
    scopes.emplace_back();
    if (from >= 0) vg.m_edges.push_back({from, to, qs(out.name), shape});
  }
  vg.buildScopes(scopes, bodyParts);
  return vg;
}

void ViewGraph::indexRuns() {
  m_memberIndex.assign(m_blocks.size(), -1);
  m_memberNodes.assign(m_blocks.size(), {});
  for (const ScopeBlock& run : m_blocks) {
    if (run.repeat <= 0) continue;
    for (size_t k = 0; k < run.children.size(); ++k) {
      const int member = run.children[k];
      m_memberIndex[static_cast<size_t>(member)] = static_cast<int>(k);
      m_memberNodes[static_cast<size_t>(member)] = nodesInBlock(member);
    }
  }
}

int ViewGraph::twinInFirstMember(int node, int member) const {
  const int run = m_blocks[static_cast<size_t>(member)].parent;
  if (run < 0 || m_blocks[static_cast<size_t>(run)].repeat <= 0) return node;
  const auto& mine = m_memberNodes[static_cast<size_t>(member)];
  const auto& first = m_memberNodes[static_cast<size_t>(m_blocks[static_cast<size_t>(run)].children.front())];
  const auto it = std::lower_bound(mine.begin(), mine.end(), node);
  if (it == mine.end() || *it != node || first.size() != mine.size()) return node;
  return first[static_cast<size_t>(it - mine.begin())];
}

void ViewGraph::buildScopes(const std::vector<QStringList>& scopes, const QSet<QString>& bodyParts) {
  // 1. A trie of scope paths; tmp[0] is the top level. Blocks are found by their parts (inside a
  // body, names of both styles meet in one block); the path keeps the names' own separator.
  std::vector<TmpBlock> tmp(1);
  QHash<QString, int> byKey;
  for (size_t i = 0; i < m_nodes.size(); ++i) {
    int cur = 0;
    QString key, lookup;
    const bool slash = m_nodes[i].id.startsWith(QLatin1Char('/')) || m_nodes[i].id.contains(QLatin1Char('/'));
    const QChar sep = slash ? QLatin1Char('/') : QLatin1Char('.');
    if (m_nodes[i].bodyPath.empty()) lookup = m_nodes[i].id.startsWith(QLatin1Char('/')) ? QStringLiteral("/") : QStringLiteral(".");
    for (const QString& part : scopes[i]) {
      key = key.isEmpty() ? (m_nodes[i].id.startsWith(QLatin1Char('/')) ? QLatin1Char('/') + part : part)
                          : key + sep + part;
      lookup += QChar(0x1f) + part;
      int b = byKey.value(lookup, -1);
      if (b < 0) {
        b = static_cast<int>(tmp.size());
        tmp.push_back({key, part, cur, {}, {}, true, 0, bodyParts.contains(part)});
        tmp[static_cast<size_t>(cur)].children.push_back(b);
        byKey.insert(lookup, b);
      }
      cur = b;
    }
    tmp[static_cast<size_t>(cur)].nodes.push_back(static_cast<int>(i));
  }
  auto T = [&](int b) -> TmpBlock& { return tmp[static_cast<size_t>(b)]; };
  // Moves b's content into its parent where b stood, keeping node order roughly stable.
  auto dissolve = [&](int b) {
    TmpBlock& blk = T(b);
    TmpBlock& par = T(blk.parent);
    auto it = std::find(par.children.begin(), par.children.end(), b);
    it = par.children.erase(it);
    par.children.insert(it, blk.children.begin(), blk.children.end());
    for (int c : blk.children) T(c).parent = blk.parent;
    par.nodes.insert(par.nodes.end(), blk.nodes.begin(), blk.nodes.end());
    std::sort(par.nodes.begin(), par.nodes.end());
    blk.alive = false;
  };
  // 2. Totals, dissolving blocks too small to be worth a box (post-order).
  std::function<int(int)> total = [&](int b) {
    int n = static_cast<int>(T(b).nodes.size());
    for (int c : std::vector<int>(T(b).children)) n += total(c);
    T(b).total = n;
    if (b != 0 && n < kMinBlockNodes) dissolve(b);
    return n;
  };
  total(0);
  // 3. A block holding only one block is that block: merge the chain under one label.
  std::function<void(int)> merge = [&](int b) {
    while (b != 0 && T(b).nodes.empty() && T(b).children.size() == 1) {
      const int c = T(b).children.front();
      T(b).label += QLatin1Char('/') + T(c).label;
      T(b).path = T(c).path;
      T(b).body = T(b).body || T(c).body;
      T(b).children = T(c).children;
      T(b).nodes = T(c).nodes;
      for (int cc : T(b).children) T(cc).parent = b;
      T(c).alive = false;
    }
    for (int c : std::vector<int>(T(b).children)) merge(c);
  };
  merge(0);
  // 4. A top level that is one block (everything under "/model/…" or "p2o.…") gains nothing from it.
  auto opNodesAtTop = [&] {
    return std::count_if(T(0).nodes.begin(), T(0).nodes.end(),
                         [&](int n) { return m_nodes[static_cast<size_t>(n)].kind == ViewNode::Kind::Op; });
  };
  while (T(0).children.size() == 1 && opNodesAtTop() == 0) dissolve(T(0).children.front());
  findRuns(tmp, m_nodes, m_edges);

  // 5. Final blocks in pre-order, parents before children.
  std::function<void(int, int, int)> emitBlock = [&](int b, int parent, int depth) {
    const int idx = static_cast<int>(m_blocks.size());
    ScopeBlock sb;
    sb.path = T(b).path;
    sb.label = T(b).label;
    sb.parent = parent;
    sb.depth = depth;
    sb.nodes = T(b).nodes;
    sb.body = T(b).body;
    sb.repeat = T(b).repeat;
    m_blocks.push_back(std::move(sb));
    m_blockByPath.insert(T(b).path, idx);
    if (parent >= 0) m_blocks[static_cast<size_t>(parent)].children.push_back(idx);
    else m_topBlocks.push_back(idx);
    for (int n : T(b).nodes) m_nodes[static_cast<size_t>(n)].block = idx;
    for (int c : T(b).children) emitBlock(c, idx, depth + 1);
  };
  for (int c : T(0).children) emitBlock(c, -1, 0);
  m_topNodes = T(0).nodes;
  for (auto it = m_blocks.rbegin(); it != m_blocks.rend(); ++it) {
    it->totalNodes += static_cast<int>(it->nodes.size());
    if (it->parent >= 0) m_blocks[static_cast<size_t>(it->parent)].totalNodes += it->totalNodes;
  }
  indexRuns();
  // Labels relative to the innermost block keep boxes narrow: "self_attn/MatMul" not the full path.
  for (ViewNode& n : m_nodes) {
    if (n.kind != ViewNode::Kind::Op) continue;
    n.label = n.id;
    if (n.block >= 0) {
      const QString& p = m_blocks[static_cast<size_t>(n.block)].path;
      if (n.id.startsWith(p) && n.id.size() > p.size() + 1) n.label = n.id.mid(p.size() + 1);
    } else if (n.label.startsWith(QLatin1Char('/'))) {
      n.label = n.label.mid(1);
    }
  }
}

void ViewGraph::add(ViewNode n, const QSet<QString>& reserved) {
  // Ids are unique and op nodes keep their names: a graph input or output sharing its name
  // with a node gets a suffix.
  if (n.kind != ViewNode::Kind::Op && (m_byId.contains(n.id) || reserved.contains(n.id))) {
    const QString base = n.id + (n.kind == ViewNode::Kind::Output ? QStringLiteral(" (output)") : QStringLiteral(" (input)"));
    n.id = base;
    for (int k = 2; m_byId.contains(n.id) || reserved.contains(n.id); ++k) n.id = base + QString::number(k);
  }
  m_byId.insert(n.id, static_cast<int>(m_nodes.size()));
  m_nodes.push_back(std::move(n));
}

std::vector<int> ViewGraph::nodesInBlock(int b) const {
  std::vector<int> out;
  std::function<void(int)> walk = [&](int x) {
    const ScopeBlock& blk = m_blocks[static_cast<size_t>(x)];
    out.insert(out.end(), blk.nodes.begin(), blk.nodes.end());
    for (int c : blk.children) walk(c);
  };
  walk(b);
  std::sort(out.begin(), out.end());
  return out;
}

bool ViewGraph::blockContains(int a, int b) const {
  for (int x = b; x >= 0; x = m_blocks[static_cast<size_t>(x)].parent)
    if (x == a) return true;
  return false;
}

}  // namespace msa::ui
