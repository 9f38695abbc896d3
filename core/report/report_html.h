#pragma once
// The report as one self-contained HTML file: inline CSS and SVG charts, no script, no external
// resource (it opens offline and survives being mailed around).
#include <string>

#include "advisor/advisor.h"
#include "report/report_json.h"

namespace msa {

std::string reportToHtml(const Report& r, const ReportOptions& options = {});

}  // namespace msa
