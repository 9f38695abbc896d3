#include "report/report_html.h"

#include <algorithm>
#include <numeric>

#include "report/report_charts.h"
#include "report/report_format.h"

namespace msa {

using namespace report;

namespace {

constexpr const char* kCss = R"css(
.headline{font-size:1.15em;margin:.6em 0 .2em}
:root{--fg:#1f2933;--muted:#616e7c;--line:#e4e7eb;--bg:#f5f7fa;--card:#fff;--accent:#1f5fa8}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Sans CJK SC","Noto Sans SC","PingFang SC","Microsoft YaHei",sans-serif}
main{max-width:1180px;margin:0 auto;padding:28px 28px 48px}
header{display:flex;justify-content:space-between;align-items:flex-end;gap:24px;border-bottom:3px solid var(--accent);padding-bottom:14px;margin-bottom:22px}
header h1{margin:2px 0 0;font-size:26px;letter-spacing:.2px;word-break:break-all}
header .kicker{color:var(--accent);font-weight:650;font-size:13px;text-transform:uppercase;letter-spacing:1px}
header .sub{color:var(--muted);margin-top:4px;word-break:break-all}
header .meta{text-align:right;font-size:12.5px;max-width:46%;line-height:1.6}
h2{font-size:17px;margin:30px 0 12px;padding-left:10px;border-left:4px solid var(--accent)}
h3{font-size:15px;margin:18px 0 8px}
.kpis{display:grid;grid-template-columns:repeat(4,1fr);gap:14px}
.kpi{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 16px}
.kpi .label{color:var(--muted);font-size:12px;text-transform:uppercase;letter-spacing:.6px}
.kpi .value{font-size:27px;font-weight:650;margin:2px 0;font-variant-numeric:tabular-nums}
.kpi .value small{font-size:14px;font-weight:500;color:var(--muted)}
.kpi .detail{color:var(--muted);font-size:12.5px}
.kpi.gap .value{color:#b3541e}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:14px 16px}
.grid2{display:grid;grid-template-columns:1fr 1fr;gap:14px}
.pill{display:inline-block;border-radius:10px;padding:0 8px;font-size:12px;font-weight:600;color:#fff;line-height:19px;white-space:nowrap}
.p0{background:#c0392b}.p1{background:#e67e22}.p2{background:#5d7fa3}
.tag{display:inline-block;border:1px solid var(--line);border-radius:4px;padding:0 6px;font-size:12px;color:var(--muted);white-space:nowrap}
.tag.fix{border-color:#2b8a3e;color:#2b8a3e}.tag.bad{border-color:#c0392b;color:#c0392b}
table{border-collapse:collapse;width:100%;font-size:13px}
a{color:var(--accent);text-decoration:none}a:hover{text-decoration:underline}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
th,td{padding:6px 8px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
th{color:var(--muted);font-weight:600;font-size:12px;background:#fafbfc}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.name{word-break:break-all;min-width:300px;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
td.nowrap{white-space:nowrap}
.sharebar{display:inline-block;height:8px;background:var(--accent);border-radius:2px;vertical-align:middle;margin-right:6px;opacity:.75}
details.finding{background:var(--card);border:1px solid var(--line);border-radius:6px;margin:6px 0}
details.finding>summary{cursor:pointer;padding:8px 12px;display:grid;grid-template-columns:52px 1fr 96px 72px 190px;gap:10px;align-items:center;list-style:none}
details.finding>summary::-webkit-details-marker{display:none}
details.finding[open]>summary{border-bottom:1px solid var(--line)}
details.finding .body{padding:10px 14px 12px 74px}
details.finding .body p{margin:4px 0}
details.finding .body b{color:var(--muted);font-weight:600}
.summary-title{font-weight:550}
.impact{text-align:right;font-variant-numeric:tabular-nums}
.catsum{color:var(--muted);font-size:13px;margin:-4px 0 8px}
.chart{display:block;font-size:12px}
.chart .lbl{fill:#323f4b;font-size:12px}.chart .val{fill:#52606d;font-size:11.5px}
.chart .plot{fill:#fbfcfd;stroke:#cbd2d9}.chart .grid{stroke:#e4e7eb}
.chart .axis{fill:#616e7c;font-size:11px}.chart .axis-title{fill:#3e4c59;font-size:12px}
.chart .roof{fill:none;stroke:#1f2933;stroke-width:1.6}.chart .roof-label{fill:#1f2933;font-size:11px}
.chart .pt{fill-opacity:.62;stroke:#fff;stroke-width:.8}.chart .legend{fill:#3e4c59;font-size:11.5px}
.chart .opt{stroke:#1f2933;stroke-width:2;stroke-dasharray:3 2}
.notes li{margin:3px 0;color:#3e4c59}
.muted{color:var(--muted)}
footer{margin-top:36px;color:var(--muted);font-size:12px;border-top:1px solid var(--line);padding-top:10px}
@media (max-width:900px){.kpis{grid-template-columns:1fr 1fr}.grid2{grid-template-columns:1fr}}
@media print{body{background:#fff}details.finding{break-inside:avoid}}
)css";

constexpr int kFindingsPerCategory = 100;

std::string esc(std::string_view s) { return htmlText(s); }

std::string pill(Priority p) {
  const std::string name(priorityName(p));
  std::string cls = name;
  cls[0] = 'p';
  return "<span class=\"pill " + cls + "\">" + name + "</span>";
}

int countPriority(const Report& r, Priority p) {
  return static_cast<int>(std::count_if(r.findings.begin(), r.findings.end(), [&](const Finding& f) { return f.priority == p; }));
}

std::string kpi(std::string_view cls, const std::string& label, const std::string& value, const std::string& detail) {
  return "<div class=\"kpi " + std::string(cls) + "\"><div class=\"label\">" + esc(label) + "</div><div class=\"value\">" + value +
         "</div><div class=\"detail\">" + detail + "</div></div>";
}

// `alike`: the same problem elsewhere (alikeText), for a TOP-N finding that stands for it.
std::string findingBlock(const Finding& f, const Assessment& a, Lang L, bool open, const std::string& alike = {}) {
  const FindingText t = renderFinding(f, L);
  std::string fix;
  if (f.hasFix()) fix = "<span class=\"tag fix\">" + esc(f.fixPass) + (f.safeFix ? " ✓" : "") + "</span>";
  else if (!f.legal) fix = "<span class=\"tag bad\">" + esc(uiText("finding.blocked", L)) + "</span>";
  else fix = "<span class=\"tag\">" + esc(uiText("finding.advice_only", L)) + "</span>";
  std::string s = std::string("<details class=\"finding\" id=\"") + esc(f.id) + "\"" + (open ? " open" : "") + "><summary>" +
                  pill(f.priority) + "<span class=\"summary-title\">" + esc(t.title) + "</span><span class=\"impact\">" +
                  formatQuantity(f.impact.ms, "ms") + "</span><span class=\"impact\">" + fmtGlobalShare(f) + "</span><span>" + fix +
                  "</span></summary><div class=\"body\">";
  if (!alike.empty()) s += "<p class=\"muted\">" + esc(alike) + "</p>";
  s += "<p><b>" + esc(uiText("col.suggestion", L)) + ":</b> " + esc(t.suggestion) + "</p>";
  if (!t.hazard.empty()) s += "<p><b>" + esc(uiText("finding.hazard", L)) + ":</b> " + esc(t.hazard) + "</p>";
  if (!t.mitigation.empty()) s += "<p><b>" + esc(uiText("finding.mitigation", L)) + ":</b> " + esc(t.mitigation) + "</p>";
  if (!t.help.empty()) s += "<p><b>" + esc(uiText("finding.help", L)) + ":</b> " + esc(t.help) + "</p>";
  for (const auto& b : f.blockers) s += "<p><span class=\"tag bad\">✗</span> " + esc(renderBlocker(b, L)) + "</p>";
  s += "<p class=\"muted\"><b>" + esc(uiText("finding.impact_method", L)) + ":</b> " + formatQuantity(f.impact.ms, "ms") + " · " +
       esc(uiText("col.local", L)) + " " + esc(fmtLocalSpeedup(f, L)) + " · " + esc(sourceLabel(f.impact.source, L)) +
       (f.impact.method.empty() ? "" : " — " + esc(renderValue(f.impact.method, L)));
  if (a.overlapMs > 1e-9)
    s += " · " + esc(uiText("finding.overlap", L, {{"ms", formatSignificant(a.overlapMs)}}));
  s += "</p>";
  std::string nodes;
  for (size_t i = 0; i < f.nodes.size() && i < 16; ++i) nodes += (i ? ", " : "") + esc(f.nodes[i]);
  if (f.nodes.size() > 16) nodes += ", … (" + std::to_string(f.nodes.size()) + ")";
  for (const auto& rn : f.runtimeNodes) nodes += (nodes.empty() ? "" : ", ") + std::string("<i>") + esc(rn) + "</i>";
  s += "<p class=\"muted\"><b>" + esc(uiText("finding.nodes", L)) + ":</b> <span class=\"name\">" + (nodes.empty() ? "—" : nodes) +
       "</span> · <code>" + esc(f.rule) + "</code></p>";
  return s + "</div></details>";
}

}  // namespace

std::string reportToHtml(const Report& r, const ReportOptions& o) {
  const Lang L = o.lang;
  std::string modelName = r.model;
  if (auto slash = modelName.find_last_of('/'); slash != std::string::npos) modelName = modelName.substr(slash + 1);
  std::string h = "<!DOCTYPE html>\n<html lang=\"" + std::string(L == Lang::Zh ? "zh-CN" : "en") +
                  "\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
                  "<meta name=\"generator\" content=\"" + esc(o.generator) + "\"><title>" +
                  esc(modelName + " · " + uiText("report.title", L) + " · msadvisor") + "</title><style>" + kCss +
                  "</style></head><body><main>";

  // Header: what was analysed, where, for what.
  std::string inputs;
  for (const auto& [name, shape] : r.inputs) inputs += (inputs.empty() ? "" : ", ") + esc(name) + " " + esc(shape);
  h += "<header><div><div class=\"kicker\">msadvisor · " + esc(uiText("report.title", L)) + "</div><h1>" + esc(modelName) +
       "</h1><div class=\"sub\">" + esc(r.model) + " · " + std::to_string(r.nodeCount) + " " + esc(uiText("report.nodes_unit", L)) +
       (inputs.empty() ? "" : " · " + inputs) + "</div></div><div class=\"meta\"><div><span class=\"muted\">" +
       esc(uiText("report.device", L)) + "</span> <b>" + esc(r.device) + "</b></div><div>" +
       esc(deviceDetail(r, L)) + "</div><div><span class=\"muted\">" +
       esc(uiText("report.goal", L)) + "</span> " + esc(goalScenarioLabel(r, L)) + "</div></div></header>";

  // Overview.
  const int fixable = static_cast<int>(std::count_if(r.findings.begin(), r.findings.end(), [](const Finding& f) { return f.hasFix(); }));
  h += "<p class=\"headline\"><b>" + esc(headlineText(r, L)) + "</b></p>";
  h += "<section class=\"kpis\">";
  {
    const std::string spread = latencySpreadText(r, L);
    std::string sub = esc(uiText("source." + r.latencySource, L)) + (spread.empty() ? "" : " · " + esc(spread));
    if (r.latencyRun == "deployed" && r.unoptimizedLatencyMs > 0)
      sub += "<br>" + esc(uiText("report.unoptimized_latency", L)) + " " + formatQuantity(r.unoptimizedLatencyMs, "ms");
    else if (r.runtimeLatencyMs > 0 && r.runtimeLatencyMs != r.latencyMs)
      sub += " · " + esc(uiText("report.runtime_latency", L)) + " " + formatQuantity(r.runtimeLatencyMs, "ms");
    if (r.compiled) sub += "<br>" + esc(compiledText(r, L));
    if (const Measurement* m = headlineMeasurement(r)) sub += "<br>" + esc(measurementText(*m, L));
    if (r.latencySource == "measured" && r.latencyMs > 0) sub += "<br>" + esc(nodeTimeText(r, L));
    h += kpi("", uiText("report.latency", L), formatSignificant(r.latencyMs) + " <small>ms</small>", sub);
  }
  h += kpi("gap", uiText("report.optimum", L), formatSignificant(r.optimumMs) + " <small>ms</small>",
           esc(gapText(r, L)));
  h += kpi("", uiText("report.after_fixes", L), formatSignificant(r.estimatedOptimizedMs) + " <small>ms</small>",
           "−" + formatQuantity(r.safeFixSavingMs, "ms") + " (" + formatPercent(r.latencyMs > 0 ? r.safeFixSavingMs / r.latencyMs : 0) + ")");
  h += kpi("", uiText("report.findings", L), std::to_string(r.findings.size()),
           pill(Priority::P0) + " " + std::to_string(countPriority(r, Priority::P0)) + " &nbsp;" + pill(Priority::P1) + " " +
               std::to_string(countPriority(r, Priority::P1)) + " &nbsp;" + pill(Priority::P2) + " " +
               std::to_string(countPriority(r, Priority::P2)) + "<br>" +
               esc(uiText("report.fixable", L, {{"count", std::to_string(fixable)}})));
  h += "</section>";
  h += "<h2>" + esc(uiText("chart.where_time_goes", L)) + "</h2><div class=\"card\">" + svgLatencyBar(r, L, 1100) + "</div>";

  // TOP-N with impact bars.
  h += "<h2>" + esc(uiText("report.top", L, {{"n", std::to_string(r.bottlenecks.size())}})) + "</h2>";
  if (r.bottlenecks.empty()) h += "<p class=\"muted\">" + esc(uiText("report.no_bottlenecks", L)) + "</p>";
  else {
    std::vector<BarItem> bars;
    for (const auto& id : r.bottlenecks)
      if (const Finding* f = r.finding(id)) {
        const FindingText t = renderFinding(*f, L);
        bars.push_back({std::string(priorityName(f->priority)) + "  " + t.title, f->impact.ms,
                        formatQuantity(f->impact.ms, "ms") + " · " + fmtGlobalShare(*f), priorityColor(f->priority), t.suggestion});
      }
    h += "<div class=\"card\">" + svgBars(bars, 1100, 560) + "</div>";
    for (const auto& id : r.bottlenecks)
      if (const Finding* f = r.finding(id)) h += findingBlock(*f, *r.assessment(id), L, false, alikeText(r, *r.assessment(id), L));
  }

  // What the runtime already applies: apart and labelled, never in the TOP list.
  if (r.appliedByRuntime > 0) {
    h += "<h2>" + esc(uiText("report.applied_heading", L, {{"count", std::to_string(r.appliedByRuntime)}})) +
         "</h2><p class=\"muted\">" + esc(uiText("report.applied_intro", L)) + "</p><div class=\"card\"><ul>";
    for (const Finding& f : r.findings)
      if (!f.appliedBy.empty())
        h += "<li>" + esc(uiText("report.applied_line", L,
                                 {{"title", renderTitle(f, L)}, {"who", appliedLabel(f, L)}, {"ms", formatSignificant(f.impact.rawMs)}})) +
             "</li>";
    h += "</ul></div>";
  }

  // The same findings by rule: one pass usually fixes every instance of a pattern.
  if (!r.rules.empty()) {
    h += "<h2>" + esc(uiText("report.by_rule", L)) + "</h2><div class=\"card\"><table><thead><tr><th>" + esc(uiText("col.rule", L)) +
         "</th><th>" + esc(uiText("col.category", L)) + "</th><th class=\"num\">" + esc(uiText("col.count", L)) +
         "</th><th class=\"num\">" + esc(uiText("col.impact", L)) + "</th><th>" + esc(uiText("col.share", L)) + "</th><th>" +
         esc(uiText("col.priority", L)) + "</th><th>" + esc(uiText("col.example", L)) + "</th></tr></thead><tbody>";
    const double maxShare = r.rules.front().share;
    for (const RuleSummary& rs : r.rules) {
      const Finding* top = r.finding(rs.top);
      h += "<tr><td><code>" + esc(rs.rule) + "</code></td><td>" + esc(categoryLabel(rs.category, L)) + "</td><td class=\"num\">" +
           std::to_string(rs.findings) + "</td><td class=\"num\">" + formatSignificant(rs.impactMs) + "</td><td class=\"num\"><span class=\"sharebar\" style=\"width:" +
           fmtFixed(maxShare > 0 ? 80 * rs.share / maxShare : 0, 1) + "px\"></span>" + formatPercent(rs.share) + "</td><td>" + pill(rs.best) +
           "</td><td><a href=\"#" + esc(rs.top) + "\">" + esc(top ? renderTitle(*top, L) : rs.top) + "</a></td></tr>";
    }
    h += "</tbody></table></div>";
  }

  // Charts.
  h += "<div class=\"grid2\"><div><h2>" + esc(uiText("report.by_op_type", L)) + "</h2><div class=\"card\">";
  std::vector<BarItem> ops;
  for (size_t i = 0; i < r.timeByOpType.size() && i < 14; ++i) {
    const OpTypeTime& t = r.timeByOpType[i];
    ops.push_back({t.opType + " ×" + std::to_string(t.count), t.ms, formatQuantity(t.ms, "ms") + " · " + formatPercent(t.share), "#1f5fa8", {}});
  }
  h += svgBars(ops, 540, 170) + "</div></div><div><h2>" + esc(uiText("report.roofline", L)) + "</h2><div class=\"card\">" +
       svgRoofline(r, L, 540, 360) + "</div></div></div>";

  // Every finding, by category.
  h += "<h2>" + esc(uiText("report.by_category", L)) + "</h2>";
  if (r.categories.empty()) h += "<p class=\"muted\">" + esc(uiText("report.no_findings", L)) + "</p>";
  for (const CategorySummary& c : r.categories) {
    h += "<h3 id=\"cat-" + std::string(categoryName(c.category)) + "\">" + esc(categoryLabel(c.category, L)) + "</h3>";
    h += "<div class=\"catsum\">" +
         esc(uiText("report.category_line", L,
                    {{"count", std::to_string(c.findings)},
                     {"ms", formatSignificant(c.impactMs)},
                     {"percent", formatPercent(c.share)},
                     {"fixable", std::to_string(c.withFix)}})) +
         "</div>";
    // A page an engineer can scroll: the first findings of each category, the rest in the JSON.
    int shown = 0;
    for (size_t k = 0; k < r.findings.size(); ++k)
      if (r.findings[k].category == c.category && shown++ < kFindingsPerCategory)
        h += findingBlock(r.findings[k], r.assessments[k], L, false);
    if (shown > kFindingsPerCategory)
      h += "<p class=\"muted\">" + esc(uiText("report.more_findings", L, {{"count", std::to_string(shown - kFindingsPerCategory)}})) + "</p>";
  }

  // The operators that take the time.
  std::vector<size_t> order(r.nodes.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return r.nodes[a].share > r.nodes[b].share; });
  const size_t rows = std::min(order.size(), static_cast<size_t>(std::max(0, o.nodeRows)));
  // The kernel-time model's prediction, where it covers the kernels (an Ascend profile).
  const bool predicted = std::any_of(r.nodes.begin(), r.nodes.end(), [](const NodeReport& n) { return n.predictedMs > 0; });
  h += "<h2>" + esc(uiText("report.nodes", L)) + "</h2><div class=\"card\"><table><thead><tr><th>" + esc(uiText("col.node", L)) +
       "</th><th>" + esc(uiText("col.op_type", L)) + "</th><th class=\"num\">" + esc(uiText("col.measured", L)) +
       "</th><th class=\"num\">" + esc(uiText("col.estimated", L)) +
       (predicted ? "</th><th class=\"num\">" + esc(uiText("col.predicted", L)) : std::string()) +
       "</th><th class=\"num\">" + esc(uiText("col.optimum", L)) +
       "</th><th class=\"num\">FLOPs</th><th class=\"num\">" + esc(uiText("col.bytes", L)) + "</th><th class=\"num\">FLOP/B</th><th class=\"num\">" +
       esc(uiText("col.efficiency", L)) + "</th><th>" + esc(uiText("col.bound", L)) + "</th><th>" + esc(uiText("col.share", L)) +
       "</th></tr></thead><tbody>";
  const double maxShare = order.empty() ? 0 : r.nodes[order[0]].share;
  for (size_t k = 0; k < rows; ++k) {
    const NodeReport& nd = r.nodes[order[k]];
    h += "<tr><td class=\"name\">" + esc(nd.name) + "</td><td>" + esc(nd.opType) + "</td><td class=\"num\">" +
         (nd.measuredMs >= 0 ? formatSignificant(nd.measuredMs) : "—") + "</td><td class=\"num\">" + formatSignificant(nd.estimatedMs) +
         (predicted ? "</td><td class=\"num\">" + (nd.predictedMs > 0 ? formatSignificant(nd.predictedMs) : std::string("—")) : std::string()) +
         "</td><td class=\"num\">" + formatSignificant(nd.optimumMs) + "</td><td class=\"num\">" + formatQuantity(nd.flops, "") + "</td><td class=\"num\">" +
         formatQuantity(nd.bytes, "") + "</td><td class=\"num\">" + fmtFixed(nd.intensity, 1) + "</td><td class=\"num\">" +
         (nd.efficiency >= 0 ? formatPercent(nd.efficiency) : "—") + "</td><td class=\"nowrap\"><span style=\"color:" + boundColor(nd.bound) + "\">●</span> " +
         esc(boundLabel(nd.bound, L)) + "</td><td class=\"num\"><span class=\"sharebar\" style=\"width:" +
         fmtFixed(maxShare > 0 ? 60 * nd.share / maxShare : 0, 1) + "px\"></span>" + formatPercent(nd.share) + "</td></tr>";
  }
  h += "</tbody></table>";
  if (rows < order.size())
    h += "<p class=\"muted\">" + esc(uiText("report.more_nodes", L, {{"count", std::to_string(order.size() - rows)}})) + "</p>";
  h += "</div>";

  // How to read it.
  const ResourceWeights w = resourceWeights(r.goal, r.scenario);
  h += "<h2>" + esc(uiText("report.notes", L)) + "</h2><ul class=\"notes\">";
  for (const auto& key : r.notes) h += "<li>" + esc(noteText(r, key, L)) + "</li>";
  h += "<li>" + esc(uiText("report.optimum", L)) + ": " + esc(uiText("report.definition_optimum", L)) + "</li>";
  h += "<li>" + esc(uiText("report.priority_policy", L)) + "</li>";
  h += "<li>" + esc(uiText("report.goal_weights", L,
                           {{"goal_scenario", goalScenarioLabel(r, L)},
                            {"overhead", fmtFixed(w.overhead, 2)},
                            {"memory", fmtFixed(w.memory, 2)},
                            {"compute", fmtFixed(w.compute, 2)}})) +
       "</li></ul>";
  h += "<footer>" + esc(uiText("report.generated", L, {{"generator", o.generator}})) + " · schema " +
       std::to_string(Report::kSchemaVersion) + "</footer></main></body></html>\n";
  return h;
}

}  // namespace msa
