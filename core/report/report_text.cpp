// The plain-text check-up sheet and the focused category tables.
#include "report/training_report.h"
#include "report/report_text.h"

#include <algorithm>
#include <cctype>

#include "report/report_format.h"

namespace msa {

using namespace report;

namespace {

constexpr size_t kWidth = 100;

std::string ruler() { return std::string(kWidth, '=') + "\n"; }

std::string heading(std::string_view key, Lang lang, const std::map<std::string, std::string>& p = {}) {
  std::string h = uiText(key, lang, p);
  if (lang == Lang::En)
    for (char& c : h) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return "\n" + h + "\n" + std::string(std::min(kWidth, displayWidth(h)), '-') + "\n";
}

// "  Label                    value", the value wrapped under itself.
std::string labelledField(std::string_view label, std::string_view value) {
  std::string lines = wrapText(value, kWidth - 27, std::string(27, ' '));
  return "  " + fitColumn(label, 24) + " " + lines.substr(std::min<size_t>(27, lines.size()));
}
std::string field(std::string_view key, Lang lang, std::string_view value) { return labelledField(uiText(key, lang), value); }

// A duration in a table column: a zero reads in the unit of the column's largest figure ("0 µs"
// under "30.4 µs", not "0 ms"); `largestMs` is the first row's, the tables being sorted.
std::string columnDuration(double ms, double largestMs) {
  return formatQuantity(ms, "ms", ms == 0 ? largestMs : std::numeric_limits<double>::quiet_NaN());
}

std::string bar(double fraction, size_t width) {
  const size_t n = static_cast<size_t>(std::clamp(fraction, 0.0, 1.0) * static_cast<double>(width) + 0.5);
  std::string s;
  for (size_t i = 0; i < n; ++i) s += "█";
  return s;
}

size_t utf8Length(std::string_view s, size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  const size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 1;
  return std::min(n, s.size() - i);
}

// A character that takes two columns (CJK): a line may break before or after it.
bool isWideAt(std::string_view s, size_t i) { return displayWidth(s.substr(i, utf8Length(s, i))) == 2; }

int countPriority(const Report& r, Priority p) {
  return static_cast<int>(std::count_if(r.findings.begin(), r.findings.end(), [&](const Finding& f) { return f.priority == p; }));
}

}  // namespace

std::string wrapText(std::string_view raw, size_t width, std::string_view indent) {
  // Names inside the text come from files: never a control character or escape sequence.
  const std::string escaped = terminalText(raw);
  const std::string_view text = escaped;
  std::string out, line;
  size_t lineWidth = 0;
  size_t lastStart = 0;  // where the last token on the line starts (it may move down)
  auto flush = [&] {
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += std::string(indent) + line + "\n";
    line.clear();
    lineWidth = 0;
  };
  size_t i = 0;
  while (i < text.size()) {
    // The next token: a run of ASCII non-spaces, one space, or one multi-byte character.
    size_t j = i;
    if (text[i] == ' ') j = i + 1;
    else if (isWideAt(text, i))
      j = i + utf8Length(text, i);
    else
      while (j < text.size() && text[j] != ' ' && !isWideAt(text, j)) j += utf8Length(text, j);
    std::string_view tok = text.substr(i, j - i);
    const size_t w = displayWidth(tok);
    if (tok == " ") {
      if (lineWidth > 0) {
        line += ' ';
        ++lineWidth;
      }
    } else {
      // No line starts with closing punctuation: the token before it moves down too.
      static constexpr std::string_view kClosing[] = {"）", "，", "。", "；", "：", "、", "！", "？", "」", "』", "》", ")", ",", "."};
      const bool closing = std::find(std::begin(kClosing), std::end(kClosing), tok) != std::end(kClosing);
      if (lineWidth + w > width && lineWidth > 0) {
        std::string carried;
        if (closing && lastStart > 0 && lastStart < line.size()) {
          carried = line.substr(lastStart);
          line.resize(lastStart);
        }
        flush();
        line = carried;
        lineWidth = displayWidth(carried);
      }
      lastStart = line.size();
      line += tok;
      lineWidth += w;
    }
    i = j;
  }
  if (!line.empty()) flush();
  return out;
}

std::string reportToText(const Report& r, const ReportOptions& o) {
  const Lang L = o.lang;
  std::string s;
  s += ruler();
  s += "  msadvisor · " + uiText("report.title", L) + "\n";
  s += ruler();
  const ReportSubject subject = reportSubject(r, L);
  s += labelledField(subject.label, subject.path + " (" + subject.count + ")");
  std::string inputs;
  for (const auto& [name, shape] : r.inputs) inputs += (inputs.empty() ? "" : ", ") + name + " " + shape;
  s += field("report.inputs", L, inputs.empty() ? "—" : inputs);
  s += field("report.device", L,
             deviceLabel(r, L));
  s += field("report.goal", L, goalScenarioLabel(r, L));

  s += heading("report.overview", L);
  s += field("report.headline_label", L, headlineText(r, L));
  {
    const std::string spread = latencySpreadText(r, L);
    s += field("report.latency", L,
               formatMilliseconds(r.latencyMs) + "  (" + uiText("source." + r.latencySource, L) + (spread.empty() ? "" : "; " + spread) + ")");
  }
  if (const Measurement* m = headlineMeasurement(r)) s += field("report.measurement", L, measurementText(*m, L));
  if (r.latencySource == "measured" && r.latencyMs > 0)
    s += field("report.node_time", L, nodeTimeText(r, L));
  if (r.latencyRun == "deployed" && r.unoptimizedLatencyMs > 0)
    s += field("report.unoptimized_latency", L, formatMilliseconds(r.unoptimizedLatencyMs));
  else if (r.runtimeLatencyMs > 0 && r.runtimeLatencyMs != r.latencyMs)
    s += field("report.runtime_latency", L, formatMilliseconds(r.runtimeLatencyMs));
  if (r.compiled) s += field("report.compiled", L, compiledText(r, L));
  s += field("report.optimum", L,
             formatMilliseconds(r.optimumMs) + "  " +
                 gapText(r, L));
  s += field("report.after_fixes", L,
             uiText("report.after_fixes_text", L,
                    {{"ms", formatSignificant(r.estimatedOptimizedMs)},
                     {"saved", formatSignificant(r.safeFixSavingMs)},
                     {"percent", formatPercent(r.latencyMs > 0 ? r.safeFixSavingMs / r.latencyMs : 0)}}));
  const int fixable = static_cast<int>(std::count_if(r.findings.begin(), r.findings.end(), [](const Finding& f) { return f.hasFix(); }));
  s += field("report.findings", L,
             uiText("report.findings_summary", L,
                    {{"count", std::to_string(r.findings.size())},
                     {"p0", std::to_string(countPriority(r, Priority::P0))},
                     {"p1", std::to_string(countPriority(r, Priority::P1))},
                     {"p2", std::to_string(countPriority(r, Priority::P2))},
                     {"fixable", std::to_string(fixable)}}));

  s += heading("report.top", L, {{"n", std::to_string(r.bottlenecks.size())}});
  if (r.bottlenecks.empty()) s += "  " + uiText("report.no_bottlenecks", L) + "\n";
  else
    s += "  " + fitColumn("#", 4) + fitColumn(uiText("col.priority", L), 6) + fitColumn(uiText("col.impact", L), 11, false, true) +
         " " + fitColumn(uiText("col.share", L), 7, false, true) + " " + fitColumn(uiText("col.local", L), 9, false, true) + "  " +
         uiText("col.title", L) + "\n";
  // Title and suggestion in a column of their own; a rule's suggestion is printed once.
  constexpr size_t kTextColumn = 43;  // 2 + the widths of the five figure columns above
  const std::string indent(kTextColumn, ' ');
  std::map<std::string, int> firstOfRule;
  int k = 0;
  for (const auto& id : r.bottlenecks) {
    const Finding* f = r.finding(id);
    if (!f) continue;
    const FindingText t = renderFinding(*f, L);
    ++k;
    const std::string title = wrapText(t.title, kWidth - kTextColumn, indent);
    s += "  " + fitColumn(std::to_string(k), 4) + fitColumn(std::string(priorityName(f->priority)), 6) +
         fitColumn(formatSignificant(f->impact.ms), 11, false, true) + " " + fitColumn(fmtGlobalShare(*f), 7, false, true) + " " +
         fitColumn(fmtLocalSpeedup(*f, L), 9, false, true) + "  " + title.substr(kTextColumn);
    const Assessment* a = r.assessment(id);
    if (a && a->impactP90Ms > a->impactP10Ms)
      s += indent + uiText("report.impact_spread", L, {{"lo", formatSignificant(a->impactP10Ms)}, {"hi", formatSignificant(a->impactP90Ms)}}) + "\n";
    if (a && !a->alike.empty()) s += wrapText(alikeText(r, *a, L), kWidth - kTextColumn, indent);
    if (a && a->priorityBorderline)
      s += wrapText(uiText("report.priority_borderline", L, {{"priority", std::string(priorityName(f->priority))}}), kWidth - kTextColumn, indent);
    auto [it, first] = firstOfRule.emplace(f->rule, k);
    if (first) s += wrapText("→ " + t.suggestion, kWidth - kTextColumn, indent);
    else s += indent + "→ " + uiText("report.same_fix", L, {{"n", std::to_string(it->second)}}) + "\n";
  }

  // What the runtime (or the graph engine) already applies: apart, labelled, never in the TOP list.
  if (r.appliedByRuntime > 0) {
    s += heading("report.applied_heading", L, {{"count", std::to_string(r.appliedByRuntime)}});
    s += wrapText(uiText("report.applied_intro", L), kWidth - 2, "  ");
    int shown = 0;
    for (const Finding& f : r.findings) {
      if (f.appliedBy.empty()) continue;
      if (++shown > 12) continue;
      s += wrapText("· " + uiText("report.applied_line", L,
                                 {{"title", renderTitle(f, L)}, {"who", appliedLabel(f, L)}, {"ms", formatSignificant(f.impact.rawMs)}}),
                    kWidth - 4, "  ");
    }
    if (shown > 12) s += "  " + uiText("report.more_applied", L, {{"count", std::to_string(shown - 12)}}) + "\n";
  }

  s += heading("report.by_rule", L);
  for (size_t i = 0; i < r.rules.size() && i < 12; ++i) {
    const RuleSummary& rs = r.rules[i];
    s += "  " + fitColumn(rs.rule, 30) + fitColumn("×" + std::to_string(rs.findings), 6, false, true) + "  " +
         fitColumn(columnDuration(rs.impactMs, r.rules.front().impactMs), 12, false, true) + " " + fitColumn(formatPercent(rs.share), 7, false, true) + "  " +
         uiText("report.best_priority", L, {{"priority", std::string(priorityName(rs.best))}}) + "\n";
  }
  if (r.rules.size() > 12) s += "  " + uiText("report.more_rules", L, {{"count", std::to_string(r.rules.size() - 12)}}) + "\n";

  s += heading("report.by_category", L);
  for (const CategorySummary& c : r.categories) {
    s += "  " + fitColumn(categoryLabel(c.category, L), 20) + fitColumn(std::to_string(c.findings), 5, false, true) + "  " +
         fitColumn(columnDuration(c.impactMs, r.categories.front().impactMs), 12, false, true) + " " + fitColumn(formatPercent(c.share), 7, false, true) + "   P0 " +
         std::to_string(c.byPriority[0]) + " · P1 " + std::to_string(c.byPriority[1]) + " · P2 " + std::to_string(c.byPriority[2]) +
         "\n";
    if (const Finding* top = r.finding(c.top))
      s += wrapText(uiText("report.category_top", L, {{"title", renderTitle(*top, L)}}), kWidth - 8, "        ");
  }
  if (r.categories.empty()) s += "  " + uiText("report.no_findings", L) + "\n";

  if (!r.timeByOpType.empty()) s += heading("report.by_op_type", L);
  for (size_t i = 0; i < r.timeByOpType.size() && i < 12; ++i) {
    const OpTypeTime& t = r.timeByOpType[i];
    s += "  " + fitColumn(t.opType, 22) + fitColumn(std::to_string(t.count), 5, false, true) + "  " +
         fitColumn(columnDuration(t.ms, r.timeByOpType.front().ms), 12, false, true) + " " + fitColumn(formatPercent(t.share), 7, false, true) + "  " +
         bar(t.share, 40) + "\n";
  }

  if (r.job && !r.job->ranks.empty()) s += "\n" + training::jobRanksText(r, L);

  if (!r.notes.empty()) {
    s += heading("report.notes", L);
    for (const auto& key : r.notes) s += wrapText("- " + noteText(r, key, L), kWidth - 4, "  ");
  }
  const ResourceWeights w = resourceWeights(r.goal, r.scenario);
  s += "\n" + wrapText(uiText("report.goal_weights", L,
                              {{"goal_scenario", goalScenarioLabel(r, L)},
                               {"overhead", fmtFixed(w.overhead, 2)},
                               {"memory", fmtFixed(w.memory, 2)},
                               {"compute", fmtFixed(w.compute, 2)}}),
                       kWidth - 2, "  ");
  s += wrapText(uiText("report.optimum", L) + ": " + uiText("report.definition_optimum", L), kWidth - 2, "  ");
  return s;
}

std::string categoryToText(const Report& r, Category category, const ReportOptions& o) {
  const Lang L = o.lang;
  std::string s = categoryLabel(category, L) + " — " + terminalText(r.model) + " · " + terminalText(r.device) + " · " +
                  uiText("report.latency", L) + " " + formatMilliseconds(r.latencyMs) + " (" + uiText("source." + r.latencySource, L) +
                  ")\n\n";
  std::map<std::string, const NodeReport*> nodes;
  for (const NodeReport& n : r.nodes) nodes[n.name] = &n;
  const bool kernel = category == Category::Kernel || category == Category::Alignment;
  // One line of figures per finding, its title (wrapped) below: node names are long.
  s += "  " + fitColumn("#", 4) + fitColumn(uiText("col.priority", L), 6) + fitColumn(uiText("col.impact", L), 11, false, true) + " " +
       fitColumn(uiText("col.share", L), 7, false, true) + " " + fitColumn(uiText("col.local", L), 9, false, true) + "  " +
       fitColumn(uiText("col.legal", L), 6) + (kernel ? uiText("col.efficiency", L) : uiText("col.fix", L)) + "\n";
  int k = 0;
  double total = 0;
  for (size_t i = 0; i < r.findings.size(); ++i) {
    const Finding& f = r.findings[i];
    if (f.category != category) continue;
    total += f.impact.ms;
    const FindingText t = renderFinding(f, L);
    std::string extra;
    if (kernel) {
      auto it = f.nodes.empty() ? nodes.end() : nodes.find(f.nodes.front());
      extra = it != nodes.end() && it->second->efficiency >= 0 ? formatPercent(it->second->efficiency) + " " + boundLabel(it->second->bound, L)
                                                              : boundLabel(it != nodes.end() ? it->second->bound : "unknown", L);
      if (it != nodes.end() && it->second->predictedMs > 0)
        extra += " · " + uiText("report.predicted", L, {{"ms", formatSignificant(it->second->predictedMs)}});
    } else if (!f.appliedBy.empty()) {
      extra = appliedLabel(f, L);  // nothing left to do where the model is deployed
    } else {
      extra = f.hasFix() ? f.fixPass + (f.safeFix ? " ✓" : "") : f.fixPass.empty() ? uiText("finding.advice_only", L) : "(" + f.fixPass + ")";
    }
    s += "  " + fitColumn(std::to_string(++k), 4) + fitColumn(std::string(priorityName(f.priority)), 6) +
         fitColumn(formatSignificant(f.impact.ms), 11, false, true) + " " + fitColumn(fmtGlobalShare(f), 7, false, true) + " " +
         fitColumn(fmtLocalSpeedup(f, L), 9, false, true) + "  " +
         fitColumn(f.legal ? uiText("report.yes", L) : uiText("report.no", L), 6) + extra + "\n";
    s += wrapText(t.title, kWidth - 6, "      ");
    for (const auto& b : f.blockers) s += wrapText("✗ " + renderBlocker(b, L), kWidth - 8, "        ");
    if (!f.runtimeNodes.empty()) {
      std::string rn;
      for (const auto& n : f.runtimeNodes) rn += (rn.empty() ? "" : ", ") + n;
      s += wrapText(uiText("finding.runtime_nodes", L) + ": " + rn, kWidth - 8, "        ");
    }
  }
  if (k == 0) s += "  " + uiText("report.no_findings", L) + "\n";
  else
    s += "\n  " + uiText("report.category_total", L,
                         {{"count", std::to_string(k)}, {"ms", formatSignificant(total)}, {"percent", formatPercent(r.latencyMs > 0 ? total / r.latencyMs : 0)}}) +
         "\n";
  return s;
}

}  // namespace msa
