// The check-up sheet in Markdown: for a pull request, a wiki page or an issue.
#include <algorithm>
#include <map>

#include "report/report_format.h"
#include "report/report_text.h"

namespace msa {

using namespace report;

std::string reportToMarkdown(const Report& r, const ReportOptions& o) {
  const Lang L = o.lang;
  // Text from a file (names inside a finding's texts) never becomes markup; names are code spans.
  auto cell = [](std::string_view s) { return markdownText(s); };
  auto code = [](std::string_view s) { return markdownCode(s); };
  std::string s = "# msadvisor · " + uiText("report.title", L) + "\n\n";
  std::string inputs;
  for (const auto& [name, shape] : r.inputs) inputs += (inputs.empty() ? "" : ", ") + code(name + " " + shape);
  s += "| | |\n|---|---|\n";
  const ReportSubject subject = reportSubject(r, L);
  s += "| " + cell(subject.label) + " | " + code(subject.path) + " (" + cell(subject.count) + ") |\n";
  s += "| " + uiText("report.inputs", L) + " | " + (inputs.empty() ? "—" : inputs) + " |\n";
  s += "| " + uiText("report.device", L) + " | " + cell(deviceLabel(r, L)) + " |\n";
  s += "| " + uiText("report.goal", L) + " | " + goalScenarioLabel(r, L) + " |\n";
  s += "| " + uiText("report.headline_label", L) + " | **" + cell(headlineText(r, L)) + "** |\n";
  {
    const std::string spread = latencySpreadText(r, L);
    s += "| " + uiText("report.latency", L) + " | **" + formatQuantity(r.latencyMs, "ms") + "** (" + uiText("source." + r.latencySource, L) +
         (spread.empty() ? "" : "; " + spread) + ") |\n";
  }
  if (const Measurement* m = headlineMeasurement(r))
    s += "| " + uiText("report.measurement", L) + " | " + cell(measurementText(*m, L)) + " |\n";
  if (r.latencySource == "measured" && r.latencyMs > 0)
    s += "| " + uiText("report.node_time", L) + " | " + cell(nodeTimeText(r, L)) + " |\n";
  if (r.latencyRun == "deployed" && r.unoptimizedLatencyMs > 0)
    s += "| " + uiText("report.unoptimized_latency", L) + " | " + formatQuantity(r.unoptimizedLatencyMs, "ms") + " |\n";
  else if (r.runtimeLatencyMs > 0 && r.runtimeLatencyMs != r.latencyMs)
    s += "| " + uiText("report.runtime_latency", L) + " | " + formatQuantity(r.runtimeLatencyMs, "ms") + " |\n";
  if (r.compiled) s += "| " + uiText("report.compiled", L) + " | " + markdownText(compiledText(r, L)) + " |\n";
  s += "| " + uiText("report.optimum", L) + " | " + formatQuantity(r.optimumMs, "ms") + " — " +
       gapText(r, L) + " |\n";
  s += "| " + uiText("report.after_fixes", L) + " | " +
       uiText("report.after_fixes_text", L,
              {{"ms", formatSignificant(r.estimatedOptimizedMs)},
               {"saved", formatSignificant(r.safeFixSavingMs)},
               {"percent", formatPercent(r.latencyMs > 0 ? r.safeFixSavingMs / r.latencyMs : 0)}}) +
       " |\n\n";

  s += "## " + uiText("report.top", L, {{"n", std::to_string(r.bottlenecks.size())}}) + "\n\n";
  if (r.bottlenecks.empty()) s += uiText("report.no_bottlenecks", L) + "\n\n";
  else {
    s += "| # | " + uiText("col.priority", L) + " | " + uiText("col.impact", L) + " | " + uiText("col.share", L) + " | " +
         uiText("col.local", L) + " | " + uiText("col.title", L) + " | " + uiText("col.suggestion", L) + " |\n";
    s += "|---:|---|---:|---:|---:|---|---|\n";
    int k = 0;
    std::map<std::string, int> firstOfRule;  // a rule's suggestion is written once
    for (const auto& id : r.bottlenecks) {
      const Finding* f = r.finding(id);
      if (!f) continue;
      const FindingText t = renderFinding(*f, L);
      auto [it, first] = firstOfRule.emplace(f->rule, ++k);
      const std::string suggestion = first ? cell(t.suggestion) : uiText("report.same_fix", L, {{"n", std::to_string(it->second)}});
      const std::string alikeLine = alikeText(r, *r.assessment(id), L);
      const std::string alike = alikeLine.empty() ? "" : "<br>" + cell(alikeLine);
      s += "| " + std::to_string(k) + " | " + std::string(priorityName(f->priority)) + " | " + formatSignificant(f->impact.ms) + " | " +
           fmtGlobalShare(*f) + " | " + fmtLocalSpeedup(*f, L) + " | " + cell(t.title) + alike + " | " + suggestion + " |\n";
    }
    s += "\n";
  }

  if (r.appliedByRuntime > 0) {
    s += "## " + uiText("report.applied_heading", L, {{"count", std::to_string(r.appliedByRuntime)}}) + "\n\n" +
         uiText("report.applied_intro", L) + "\n\n";
    for (const Finding& f : r.findings)
      if (!f.appliedBy.empty())
        s += "- " + cell(uiText("report.applied_line", L,
                                {{"title", renderTitle(f, L)}, {"who", appliedLabel(f, L)}, {"ms", formatSignificant(f.impact.rawMs)}})) +
             "\n";
    s += "\n";
  }

  s += "## " + uiText("report.by_category", L) + "\n\n";
  if (r.categories.empty()) s += uiText("report.no_findings", L) + "\n\n";
  for (const CategorySummary& c : r.categories) {
    s += "### " + categoryLabel(c.category, L) + " — " + formatQuantity(c.impactMs, "ms") + " (" + formatPercent(c.share) + ")\n\n";
    s += "| " + uiText("col.priority", L) + " | " + uiText("col.impact", L) + " | " + uiText("col.title", L) + " | " +
         uiText("col.fix", L) + " |\n|---|---:|---|---|\n";
    int shown = 0;
    for (const Finding& f : r.findings) {
      if (f.category != c.category || shown++ >= 100) continue;  // the JSON has every finding
      const FindingText t = renderFinding(f, L);
      std::string fix = f.hasFix() ? code(f.fixPass) + (f.safeFix ? " ✓" : "") : f.fixPass.empty() ? uiText("finding.advice_only", L) : "—";
      std::string title = cell(t.title);
      for (const auto& b : f.blockers) title += "<br>✗ " + cell(renderBlocker(b, L));
      s += "| " + std::string(priorityName(f.priority)) + " | " + formatSignificant(f.impact.ms) + " | " + title + " | " + fix + " |\n";
    }
    if (shown > 100) s += "\n" + uiText("report.more_findings", L, {{"count", std::to_string(shown - 100)}}) + "\n";
    s += "\n";
  }

  // The TOP-N in full: what is wrong, what to do, why.
  if (!r.bottlenecks.empty()) {
    s += "## " + uiText("report.details", L) + "\n\n";
    for (const auto& id : r.bottlenecks) {
      const Finding* f = r.finding(id);
      if (!f) continue;
      const FindingText t = renderFinding(*f, L);
      s += "### " + std::string(priorityName(f->priority)) + " · " + cell(t.title) + "\n\n";
      s += "- **" + uiText("finding.hazard", L) + "**: " + cell(t.hazard) + "\n";
      s += "- **" + uiText("finding.mitigation", L) + "**: " + cell(t.mitigation) + "\n";
      s += "- **" + uiText("finding.help", L) + "**: " + cell(t.help) + "\n";
      s += "- **" + uiText("finding.impact_method", L) + "**: " + formatQuantity(f->impact.ms, "ms") + " (" + sourceLabel(f->impact.source, L) +
           "; " + cell(renderValue(f->impact.method, L)) + ")\n";
      std::string nodes;
      for (size_t i = 0; i < f->nodes.size() && i < 12; ++i) nodes += (i ? ", " : "") + code(f->nodes[i]);
      if (f->nodes.size() > 12) nodes += ", …";
      s += "- **" + uiText("finding.nodes", L) + "**: " + (nodes.empty() ? "—" : nodes) + "\n\n";
    }
  }

  s += "## " + uiText("report.by_op_type", L) + "\n\n| " + uiText("col.op_type", L) + " | " + uiText("col.count", L) + " | " +
       uiText("col.time", L) + " | " + uiText("col.share", L) + " |\n|---|---:|---:|---:|\n";
  for (size_t i = 0; i < r.timeByOpType.size() && i < 15; ++i) {
    const OpTypeTime& t = r.timeByOpType[i];
    s += "| " + cell(t.opType) + " | " + std::to_string(t.count) + " | " + formatSignificant(t.ms) + " | " + formatPercent(t.share) + " |\n";
  }
  if (!r.notes.empty()) {
    s += "\n## " + uiText("report.notes", L) + "\n\n";
    for (const auto& key : r.notes) s += "- " + cell(noteText(r, key, L)) + "\n";
  }
  s += "\n> " + uiText("report.optimum", L) + ": " + uiText("report.definition_optimum", L) + "\n";
  return s;
}

}  // namespace msa
