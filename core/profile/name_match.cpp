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

std::vector<std::string> IrNameMatcher::decompose(std::string_view name) const {
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
  // A fused kernel is a connected chain: every member after the first is fed by an earlier one.
  for (size_t i = 1; i < pieces.size(); ++i) {
    bool fed = false;
    for (size_t j = 0; j < i && !fed; ++j) fed = feeds(pieces[j], pieces[i]);
    if (!fed) return {};
  }
  return pieces;
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
  (void)opType;
  NameMatch m;
  std::string name(runtimeName);
  if (m_names.count(runtimeName)) {
    m.kind = MatchKind::Exact;
    m.irNodes = {name};
    return m;
  }
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
  if (looksInserted(runtimeName)) {
    m.kind = MatchKind::Inserted;
    return m;
  }
  if (auto pieces = decompose(runtimeName); !pieces.empty()) {
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
    // Best case: the neighbours are joined by an edge, the conversion sits on it.
    if (prev && next) {
      for (const auto& p : prev->irNodes)
        for (const auto& c : next->irNodes)
          if (ins.consumerIrNode.empty() && feeds(p, c)) {
            ins.producerIrNode = p;
            ins.consumerIrNode = c;
          }
      if (!ins.consumerIrNode.empty()) continue;
    }
    if (next) {
      // The conversion prepares an input of the next op: name the op that produces that
      // input (none when it is a graph input).
      const std::string& c = next->irNodes.front();
      ins.consumerIrNode = c;
      long ci = m_index.indexOfName(c);
      if (ci >= 0) {
        for (const auto& in : m_graph->nodes[static_cast<size_t>(ci)].inputs) {
          if (in.empty() || m_index.initializer(in) || m_index.constant(in)) continue;
          if (const Node* pn = m_index.producerNode(in)) ins.producerIrNode = pn->name;
          break;
        }
      }
      continue;
    }
    if (prev) {
      // Trailing conversion (e.g. fp16 -> fp32 of a graph output).
      ins.producerIrNode = prev->irNodes.back();
    }
  }
}

}  // namespace msa
