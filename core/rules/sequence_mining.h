#pragma once
// Repeated operator sequences in a step's work items: msprof-analyze's "fusible operator"
// analysis (advisor/rules/…/fusible_operator: sequences of 2–10 ops, ≥ 5 occurrences, ≥ 1 % of
// the time). Occurrences never overlap and never cross a step boundary; a sequence that is a
// repetition of a shorter one (ABAB of AB) is left to the shorter one. Selection is greedy by
// the time the occurrences cover, and an occurrence counts for one selected sequence only.
#include <string>
#include <vector>

namespace msa::training {

struct SequenceItem {
  int token = 0;        // the item's name, as an id
  double startUs = 0, endUs = 0;
  double gapUs = 0;     // idle time before the item
};

struct SequenceOptions {
  int minLength = 2, maxLength = 10;
  double minPerStep = 5;     // occurrences per step
  double minShare = 0.01;    // of the total step time
  int maxResults = 10;
};

struct RepeatedSequence {
  std::vector<int> tokens;
  std::vector<std::pair<int, int>> occurrences;  // (step, position of the first item)
  double perStep = 0;        // occurrences per step
  double spanUs = 0;         // total time covered: first start to last end, summed over occurrences
  double innerGapUs = 0;     // idle time between the members inside the occurrences, summed
};

std::vector<RepeatedSequence> findRepeatedSequences(const std::vector<std::vector<SequenceItem>>& steps, double totalStepUs,
                                                    const SequenceOptions& options = {});

}  // namespace msa::training
