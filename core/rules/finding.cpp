#include "rules/finding.h"

namespace msa {

std::string_view categoryName(Category c) {
  switch (c) {
    case Category::Fusion: return "fusion";
    case Category::Format: return "format";
    case Category::Kernel: return "kernel";
    case Category::Alignment: return "alignment";
    case Category::SmallOps: return "small_ops";
    case Category::Precision: return "precision";
    case Category::Graph: return "graph";
    case Category::Host: return "host";
  }
  return "graph";
}

std::string_view priorityName(Priority p) {
  switch (p) {
    case Priority::P0: return "P0";
    case Priority::P1: return "P1";
    case Priority::P2: return "P2";
  }
  return "P2";
}

std::string_view impactSourceName(ImpactSource s) {
  switch (s) {
    case ImpactSource::Measured: return "measured";
    case ImpactSource::Estimated: return "estimated";
    case ImpactSource::Both: return "both";
  }
  return "estimated";
}

}  // namespace msa
