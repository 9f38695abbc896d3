#pragma once
// How much of an untrusted profile msadvisor reads before it stops: a 5 MB gzip file can inflate
// to gigabytes, and a profile can hold more events than memory. Every reader counts against
// these limits and, when one is hit, refuses with a sentence that says which limit, its value
// and how to lift it (limitError). The process's limits come from the environment at first use
// (MSA_MAX_EVENTS, MSA_MAX_NAMES, MSA_MAX_INFLATE_RATIO, MSA_MAX_INFLATED_MB) and the CLI's
// --max-events and --max-names;
// docs/robustness.md ("Limits") gives the defaults and the memory they bound.
#include <cstdint>
#include <string>

#include "util/error.h"

namespace msa {

struct ReadLimits {
  // Events, rows, layers, runs, steps or names of one profile file — whatever a reader holds one
  // record of. Peak memory grows with it (about 0.5 KB per event through the whole analysis).
  uint64_t maxEvents = 2'000'000;
  // Distinct entries of one profile's kernel table (kernel, operator, layer or node names): each
  // becomes a row the rules and the report read, dearer than an event (MSA_MAX_NAMES, --max-names).
  uint64_t maxNames = 200'000;
  // A compressed file may inflate to this many times its size (real PyTorch traces: 10–15×)…
  double maxInflateRatio = 100;
  // …and never beyond this many bytes, nor below kInflateFloor for tiny files.
  uint64_t maxInflatedBytes = uint64_t(4) << 30;
  static constexpr uint64_t kInflateFloor = uint64_t(64) << 20;

  // What a compressed file of `compressedBytes` may inflate to.
  uint64_t inflateBudget(uint64_t compressedBytes) const;
};

// The process's limits: the defaults above, overridden by the environment at first use.
const ReadLimits& readLimits();
// Replaces them (the CLI's --max-events); not thread-safe against readers running meanwhile.
void setReadLimits(const ReadLimits& limits);
// The defaults with the environment applied; an error names the variable and its bad value.
Result<ReadLimits> readLimitsFromEnvironment();

// Which count a refusal is about: records held (events, rows, layers) or distinct names.
enum class CountLimit { Events, Names };

// The refusal when `file` holds more `what` ("events", "rows", "layers") than the limit allows.
Error countLimitError(const std::string& file, const std::string& what, CountLimit which);
// The refusal when a compressed `file` inflates beyond its budget.
Error inflateLimitError(const std::string& file, uint64_t compressedBytes);

// Counts records of one file against a limit: add() is false (and error() says why) once the
// count passes it.
class RecordBudget {
 public:
  RecordBudget(std::string file, std::string what, CountLimit which = CountLimit::Events)
      : m_file(std::move(file)), m_what(std::move(what)), m_which(which),
        m_limit(which == CountLimit::Names ? readLimits().maxNames : readLimits().maxEvents) {}
  bool add(uint64_t n = 1) {
    m_count += n;
    return m_count <= m_limit;
  }
  uint64_t count() const { return m_count; }
  Error error() const { return countLimitError(m_file, m_what, m_which); }

 private:
  std::string m_file, m_what;
  CountLimit m_which;
  uint64_t m_limit;
  uint64_t m_count = 0;
};

}  // namespace msa
