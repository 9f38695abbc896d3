#include "rules/sequence_mining.h"

#include <algorithm>
#include <unordered_map>

namespace msa::training {
namespace {

struct Candidate {
  int step = 0, pos = 0, length = 0;  // the first occurrence, to compare tokens on a hash hit
  std::vector<std::pair<int, int>> occurrences;
  int lastStep = -1, lastEnd = -1;  // non-overlapping counting
  double spanUs = 0;
};

// True when the sequence is k > 1 copies of a shorter unit (length ≥ 2, or all one token
// beyond length 2): the unit itself is the candidate to report.
bool periodic(const int* s, int n) {
  for (int p = 1; p < n; ++p) {
    if (n % p != 0) continue;
    if (p == 1 && n == 2) continue;  // "A A" is a candidate in its own right
    bool same = true;
    for (int i = p; i < n && same; ++i) same = s[i] == s[i - p];
    if (same) return true;
  }
  return false;
}

double spanOf(const std::vector<SequenceItem>& v, int pos, int n) {
  double lo = v[static_cast<size_t>(pos)].startUs, hi = 0;
  for (int i = pos; i < pos + n; ++i) hi = std::max(hi, v[static_cast<size_t>(i)].endUs);
  return hi - lo;
}

double innerGaps(const std::vector<SequenceItem>& v, int pos, int n) {
  double g = 0;
  for (int i = pos + 1; i < pos + n; ++i) g += v[static_cast<size_t>(i)].gapUs;
  return g;
}

}  // namespace

std::vector<RepeatedSequence> findRepeatedSequences(const std::vector<std::vector<SequenceItem>>& steps, double totalStepUs,
                                                    const SequenceOptions& o) {
  std::vector<RepeatedSequence> out;
  const double nSteps = static_cast<double>(steps.size());
  if (steps.empty() || totalStepUs <= 0) return out;
  const double minCount = o.minPerStep * nSteps;
  const double minSpan = o.minShare * totalStepUs;

  std::vector<Candidate> candidates;
  for (int n = o.minLength; n <= o.maxLength; ++n) {
    std::unordered_map<uint64_t, std::vector<size_t>> byHash;  // hash -> candidate indices (collisions)
    for (size_t s = 0; s < steps.size(); ++s) {
      const auto& v = steps[s];
      const int len = static_cast<int>(v.size());
      for (int i = 0; i + n <= len; ++i) {
        uint64_t h = 1469598103934665603ull;
        for (int k = i; k < i + n; ++k) h = (h ^ static_cast<uint64_t>(v[static_cast<size_t>(k)].token + 1)) * 1099511628211ull;
        auto& bucket = byHash[h];
        Candidate* c = nullptr;
        for (size_t idx : bucket) {
          const Candidate& cand = candidates[idx];
          const auto& first = steps[static_cast<size_t>(cand.step)];
          bool equal = true;
          for (int k = 0; k < n && equal; ++k)
            equal = first[static_cast<size_t>(cand.pos + k)].token == v[static_cast<size_t>(i + k)].token;
          if (equal) {
            c = &candidates[idx];
            break;
          }
        }
        if (!c) {
          bucket.push_back(candidates.size());
          candidates.push_back({static_cast<int>(s), i, n, {}, -1, -1, 0});
          c = &candidates.back();
        }
        if (c->lastStep == static_cast<int>(s) && i < c->lastEnd) continue;  // overlaps the previous occurrence
        c->occurrences.emplace_back(static_cast<int>(s), i);
        c->lastStep = static_cast<int>(s);
        c->lastEnd = i + n;
        c->spanUs += spanOf(v, i, n);
      }
    }
    // Drop what cannot qualify before the next length adds more.
    std::erase_if(candidates, [&](const Candidate& c) {
      if (c.length != n) return false;
      if (static_cast<double>(c.occurrences.size()) < minCount || c.spanUs < minSpan) return true;
      const auto& v = steps[static_cast<size_t>(c.step)];
      std::vector<int> toks;
      for (int k = 0; k < n; ++k) toks.push_back(v[static_cast<size_t>(c.pos + k)].token);
      return periodic(toks.data(), n);
    });
  }

  // Greedy: the candidate covering the most time first (the longer at a tie); occurrences
  // already taken by a selected sequence do not count again.
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    return a.spanUs != b.spanUs ? a.spanUs > b.spanUs : a.length > b.length;
  });
  std::vector<std::vector<uint8_t>> taken(steps.size());
  for (size_t s = 0; s < steps.size(); ++s) taken[s].assign(steps[s].size(), 0);
  for (const Candidate& c : candidates) {
    if (static_cast<int>(out.size()) >= o.maxResults) break;
    RepeatedSequence r;
    for (const auto& [s, pos] : c.occurrences) {
      const auto& t = taken[static_cast<size_t>(s)];
      bool free = true;
      for (int k = pos; k < pos + c.length && free; ++k) free = !t[static_cast<size_t>(k)];
      if (!free) continue;
      r.occurrences.emplace_back(s, pos);
      r.spanUs += spanOf(steps[static_cast<size_t>(s)], pos, c.length);
      r.innerGapUs += innerGaps(steps[static_cast<size_t>(s)], pos, c.length);
    }
    if (static_cast<double>(r.occurrences.size()) < minCount || r.spanUs < minSpan) continue;
    for (const auto& [s, pos] : r.occurrences)
      for (int k = pos; k < pos + c.length; ++k) taken[static_cast<size_t>(s)][static_cast<size_t>(k)] = 1;
    const auto& v = steps[static_cast<size_t>(c.step)];
    for (int k = 0; k < c.length; ++k) r.tokens.push_back(v[static_cast<size_t>(c.pos + k)].token);
    r.perStep = static_cast<double>(r.occurrences.size()) / nSteps;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace msa::training
