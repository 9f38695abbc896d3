#pragma once
// The analysis report as JSON: the `analyze` contract of DESIGN.md plus the details the
// GUI and the other writers use. Versioned by "schema_version"; the schema is
// docs/report-schema.json and the fields are described in docs/report.md.
#include <string>

#include <nlohmann/json.hpp>

#include "advisor/advisor.h"
#include "rules/texts.h"

namespace msa {

struct ReportOptions {
  Lang lang = Lang::En;
  std::string generator = "msadvisor";  // name and version of what wrote it
  int topN = 10;                        // rows of the TOP-N tables (the report's own list is shorter when fewer)
  int nodeRows = 40;                    // rows of the per-node table in text/Markdown/HTML (JSON has every node)
};

nlohmann::json reportToJson(const Report& r, const ReportOptions& options = {});
// A job's ranks side by side, its stages, its slow rank and links (the report's "job", the
// training block's "cluster").
nlohmann::json jobJson(const training::ClusterView& job);

}  // namespace msa
