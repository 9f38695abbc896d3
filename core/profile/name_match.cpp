#include "profile/name_match.h"

#include <algorithm>
#include <cctype>
#include <limits>

#include "profile/profile_data.h"

namespace msa {

namespace {

constexpr std::string_view kUbFusionSuffix = "_ub_fusion";

bool isSeparator(char c) { return c == '_' || c == '/' || c == ':' || c == '.' || c == '-'; }

}  // namespace

const char* matchKindName(MatchKind k) {
  switch (k) {
    case MatchKind::None: return "none";
    case MatchKind::Exact: return "exact";
    case MatchKind::FusionList: return "fusion-list";
    case MatchKind::Concatenated: return "concatenated";
    case MatchKind::FusedPrefix: return "fused-prefix";
    case MatchKind::Scoped: return "scoped";
    case MatchKind::Inserted: return "inserted";
  }
  return "none";
}

IrNameMatcher::IrNameMatcher(const Graph& graph) : m_graph(&graph), m_index(graph) {
  std::unordered_set<size_t> lengths;
  for (const Node& n : graph.nodes) {
    m_names.insert(std::string_view(n.name));
    lengths.insert(n.name.size());
  }
  m_nameLengths.assign(lengths.begin(), lengths.end());
  std::sort(m_nameLengths.rbegin(), m_nameLengths.rend());
}

bool IrNameMatcher::looksInserted(std::string_view name) {
  // GE names the conversions it inserts "trans_<OpType>_<counter>".
  if (!name.starts_with("trans_")) return false;
  std::string_view rest = name.substr(6);
  size_t us = rest.rfind('_');
  if (us == std::string_view::npos || us == 0 || us + 1 >= rest.size()) return false;
  for (char c : rest.substr(us + 1))
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

std::vector<std::string> IrNameMatcher::decompose(std::string_view name, std::vector<std::string>* implied) const {
  // Fewest pieces such that every piece is an IR node name (dynamic programming from the end).
  const size_t n = name.size();
  constexpr int kInf = std::numeric_limits<int>::max();
  std::vector<int> best(n + 1, kInf);
  std::vector<size_t> nextLen(n + 1, 0);
  best[n] = 0;
  for (size_t p = n; p-- > 0;) {
    for (size_t len : m_nameLengths) {
      if (len == 0 || p + len > n || best[p + len] == kInf) continue;
      if (!m_names.count(name.substr(p, len))) continue;
      if (best[p + len] + 1 < best[p]) {
        best[p] = best[p + len] + 1;
        nextLen[p] = len;
      }
    }
  }
  if (best[0] == kInf || best[0] < 2) return {};
  std::vector<std::string> pieces;
  for (size_t p = 0; p < n; p += nextLen[p]) pieces.emplace_back(name.substr(p, nextLen[p]));
  // A fused kernel is a connected chain: every member after the first is reached from an
  // earlier one, directly or through one node the compiler folded first (Conv -> BN -> Relu).
  std::vector<std::string> between;
  for (size_t i = 1; i < pieces.size(); ++i) {
    std::optional<std::vector<std::string>> path;
    for (size_t j = i; j-- > 0 && !path;) path = pathBetween(pieces[j], pieces[i], 2);
    if (!path) return {};
    for (auto& b : *path)
      if (std::find(pieces.begin(), pieces.end(), b) == pieces.end() &&
          std::find(between.begin(), between.end(), b) == between.end())
        between.push_back(std::move(b));
  }
  if (implied) *implied = std::move(between);
  return pieces;
}

std::optional<std::vector<std::string>> IrNameMatcher::pathBetween(const std::string& from, const std::string& to,
                                                                   int maxHops) const {
  long s = m_index.indexOfName(from), t = m_index.indexOfName(to);
  if (s < 0 || t < 0) return std::nullopt;
  // Breadth-first over successors, remembering parents to recover the path.
  std::unordered_map<size_t, size_t> parent;
  std::vector<size_t> frontier{static_cast<size_t>(s)};
  parent.emplace(static_cast<size_t>(s), static_cast<size_t>(s));
  for (int hop = 0; hop < maxHops && !frontier.empty(); ++hop) {
    std::vector<size_t> next;
    for (size_t u : frontier)
      for (size_t v : m_index.successors(u)) {
        if (!parent.emplace(v, u).second) continue;
        if (static_cast<long>(v) == t) {
          std::vector<std::string> mid;
          for (size_t w = parent[v]; w != static_cast<size_t>(s); w = parent[w])
            mid.push_back(m_graph->nodes[w].name);
          std::reverse(mid.begin(), mid.end());
          return mid;
        }
        next.push_back(v);
      }
    frontier = std::move(next);
  }
  return std::nullopt;
}

bool IrNameMatcher::feeds(const std::string& producer, const std::string& consumer) const {
  long p = m_index.indexOfName(producer), c = m_index.indexOfName(consumer);
  if (p < 0 || c < 0) return false;
  for (size_t s : m_index.successors(static_cast<size_t>(p)))
    if (static_cast<long>(s) == c) return true;
  return false;
}

NameMatch IrNameMatcher::match(std::string_view runtimeName, std::string_view opType,
                               const std::map<std::string, std::vector<std::string>>* fusions) const {
  NameMatch m;
  std::string name(runtimeName);
  // A fusion list names every member, even for a kernel that kept one member's name.
  if (fusions) {
    auto it = fusions->find(name);
    if (it != fusions->end()) {
      for (const auto& orig : it->second)
        if (m_names.count(orig) && std::find(m.irNodes.begin(), m.irNodes.end(), orig) == m.irNodes.end())
          m.irNodes.push_back(orig);
      if (!m.irNodes.empty()) {
        m.kind = MatchKind::FusionList;
        return m;
      }
    }
  }
  if (m_names.count(runtimeName)) {
    m.kind = MatchKind::Exact;
    m.irNodes = {name};
    return m;
  }
  // ONNX has no TransData: whatever its name, the compiler inserted it.
  if (looksInserted(runtimeName) || opType == "TransData" || opType == "TransDataRNN") {
    m.kind = MatchKind::Inserted;
    return m;
  }
  if (auto pieces = decompose(runtimeName, &m.implied); !pieces.empty()) {
    m.kind = MatchKind::Concatenated;
    m.irNodes = std::move(pieces);
    return m;
  }
  if (runtimeName.ends_with(kUbFusionSuffix)) {
    std::string_view first = runtimeName.substr(0, runtimeName.size() - kUbFusionSuffix.size());
    if (m_names.count(first)) {
      m.kind = MatchKind::FusedPrefix;
      m.irNodes = {std::string(first)};
      return m;
    }
  }
  // Longest IR name that is a prefix followed by a separator.
  for (size_t len : m_nameLengths) {
    if (len == 0 || len >= runtimeName.size() || !isSeparator(runtimeName[len])) continue;
    std::string_view prefix = runtimeName.substr(0, len);
    if (m_names.count(prefix)) {
      m.kind = MatchKind::Scoped;
      m.irNodes = {std::string(prefix)};
      return m;
    }
  }
  return m;
}

namespace {

// Ascend's "heavy" formats: the blocked layouts the cube and vector units compute in.
bool heavyFormat(const std::string& f) {
  return f.starts_with("NC1HWC0") || f.starts_with("FRACTAL") || f.starts_with("NDC1HWC0") || f == "C1HWNCoC0";
}

bool anyHeavy(const std::vector<std::string>& formats) {
  return std::any_of(formats.begin(), formats.end(), heavyFormat);
}

}  // namespace

void IrNameMatcher::assignNeighbours(std::vector<NodeProfile>& order) const {
  auto isAnchor = [](const NodeProfile& n) { return !n.inserted && !n.irNodes.empty(); };
  for (size_t i = 0; i < order.size(); ++i) {
    NodeProfile& ins = order[i];
    if (!ins.inserted) continue;
    const NodeProfile* prev = nullptr;
    const NodeProfile* next = nullptr;
    for (size_t j = i; j-- > 0;)
      if (isAnchor(order[j])) {
        prev = &order[j];
        break;
      }
    for (size_t j = i + 1; j < order.size(); ++j)
      if (isAnchor(order[j])) {
        next = &order[j];
        break;
      }
    ins.producerIrNode.clear();
    ins.consumerIrNode.clear();
    // Best case: the neighbours are joined by an edge and the conversion sits on it.
    if (prev && next)
      for (const auto& p : prev->irNodes)
        for (const auto& c : next->irNodes)
          if (ins.consumerIrNode.empty() && feeds(p, c)) {
            ins.producerIrNode = p;
            ins.consumerIrNode = c;
          }
    if (!ins.consumerIrNode.empty()) continue;

    // Leaving a heavy format (5HD/NZ -> 4D/ND): the producer's output is converted for a
    // consumer that cannot take it, often an op that ran no task of its own (Flatten, Reshape).
    const bool leaving = anyHeavy(ins.inputFormats) && !ins.outputFormats.empty() && !anyHeavy(ins.outputFormats);
    if ((leaving || !next) && prev) {
      ins.producerIrNode = prev->irNodes.back();
      long pi = m_index.indexOfName(ins.producerIrNode);
      if (pi >= 0) {
        std::vector<size_t> succ = m_index.successors(static_cast<size_t>(pi));
        std::string toward;
        if (next)  // the successor that leads to the next executed op
          for (size_t s : succ)
            if (toward.empty() && (m_graph->nodes[s].name == next->irNodes.front() ||
                                   pathBetween(m_graph->nodes[s].name, next->irNodes.front(), 3)))
              toward = m_graph->nodes[s].name;
        if (toward.empty() && succ.size() == 1) toward = m_graph->nodes[succ.front()].name;
        ins.consumerIrNode = toward;
      }
      continue;
    }
    if (next) {
      // Entering a format or converting a precision: the conversion prepares an input of the
      // next op. Its producer is whoever makes that input (none for a graph input).
      const std::string& c = next->irNodes.front();
      ins.consumerIrNode = c;
      long ci = m_index.indexOfName(c);
      if (ci >= 0)
        for (const auto& in : m_graph->nodes[static_cast<size_t>(ci)].inputs) {
          if (in.empty() || m_index.initializer(in) || m_index.constant(in)) continue;
          if (const Node* pn = m_index.producerNode(in)) ins.producerIrNode = pn->name;
          break;
        }
    }
  }
}

}  // namespace msa
