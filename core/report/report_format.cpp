#include "report/report_format.h"

#include "rules/family_registry.h"

#include <cmath>
#include <algorithm>
#include <cstdio>

#include "advisor/profile_only.h"

namespace msa::report {

std::string fmtFixed(double v, int decimals) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}


bool fromJobSummary(const Report& r) {
  return r.job && std::find(r.notes.begin(), r.notes.end(), "cluster_summary") != r.notes.end();
}

ReportSubject reportSubject(const Report& r, Lang lang) {
  if (fromJobSummary(r) && r.nodeCount == 0)  // no model: the summary's folder and its ranks
    return {uiText("report.profile_run", lang), r.profilePath.empty() ? r.model : r.profilePath,
            std::to_string(r.job->ranks.size()) + " " + uiText("report.ranks_unit", lang)};
  if (r.model.empty() && r.profileOnly)  // a device's run without its model: its kernels, not nodes
    return {uiText("report.profile_run", lang), r.profilePath, std::to_string(r.nodeCount) + " " + uiText("report.kernels_unit", lang)};
  return {uiText("report.model", lang), r.model, std::to_string(r.nodeCount) + " " + uiText("report.nodes_unit", lang)};
}

std::string gapText(const Report& r, Lang lang) {
  if (fromJobSummary(r)) return uiText("report.gap_job_summary", lang);
  if (r.optimumAboveLatency)
    return uiText("report.gap_above", lang, {{"optimum", formatSignificant(r.optimumMs)}, {"latency", formatSignificant(r.latencyMs)}});
  // Without a model there are no dims to bind: the kernels without a price are said as such.
  if (r.gapRatio <= 0)
    return uiText(r.profileOnly ? "report.gap_unknown_kernels" : "report.gap_unknown", lang,
                  {{"count", std::to_string(r.profileOnly ? r.profileOnly->priced.unpriced.size() : r.optimum.unknownNodes)}});
  // Without a model the gap is the kernels' (measured / roofline), not the step's: the step also
  // holds communication and idle time that have no roofline, so say which times are compared.
  if (r.profileOnly)
    return uiText("report.gap_text_kernels", lang,
                  {{"ratio", formatRatio(r.gapRatio)},
                   {"percent", formatPercent(r.percentOfOptimum / 100)},
                   {"measured", formatSignificant(r.profileOnly->pricedMs)},
                   {"step", formatSignificant(r.latencyMs)}});
  return uiText("report.gap_text", lang, {{"ratio", formatRatio(r.gapRatio)}, {"percent", formatPercent(r.percentOfOptimum / 100)}});
}

int findingsLeftAboveP2(const Report& r) {
  return static_cast<int>(std::count_if(r.findings.begin(), r.findings.end(), [](const Finding& f) {
    return f.appliedBy.empty() && f.priority != Priority::P2;
  }));
}

const Measurement* headlineMeasurement(const Report& r) {
  const ProfileData* p = r.latencyRun == "deployed" && r.runtimeProfile ? &*r.runtimeProfile
                         : r.profile                                     ? &*r.profile
                                                                         : nullptr;
  return p && p->measurement.measured ? &p->measurement : nullptr;
}

std::string busyText(const Measurement& m, Lang lang) {
  if (!m.measured || !m.contended) return {};
  return uiText("measurement.busy", lang, {{"share", formatPercent(m.cpuShare)}});
}

std::string measurementText(const Measurement& m, Lang lang) {
  if (!m.measured) return {};
  std::string s = uiText("measurement.threads", lang,
                         {{"threads", std::to_string(m.threads)},
                          {"basis", uiText("measurement.threads_basis." + (m.threadsBasis.empty() ? std::string("default") : m.threadsBasis), lang)}});
  s += uiText("measurement.share", lang, {{"share", formatPercent(m.cpuShare)}, {"load", fmtFixed(m.load, 2)}});
  if (m.stealShare >= 0.01) s += uiText("measurement.steal", lang, {{"steal", formatPercent(m.stealShare)}});
  if (m.blocksSetAside > 0)
    s += uiText("measurement.set_aside", lang, {{"count", std::to_string(m.blocksSetAside)}, {"blocks", std::to_string(m.blocks)}});
  if (m.contended) s += uiText("measurement.estimate." + m.uncontendedBasis, lang, {{"ms", formatSignificant(m.uncontendedMs)}});
  return s;
}

std::string nodeTimeText(const Report& r, Lang lang) {
  // A device's run: its step's own split, not operators against the framework.
  if (r.step && r.step->stepRecord)
    return uiText("report.step_split_record", lang,
                  {{"computing", formatSignificant(r.step->computeMs)}, {"communication", formatSignificant(r.step->notOverlappedMs)}, {"free", formatSignificant(r.step->idleMs)}});
  if (r.step)
    return uiText("report.step_split_timeline", lang,
                  {{"computing", formatSignificant(r.step->computeMs)},
                   {"communication", formatSignificant(r.step->collectiveExposedMs + r.step->p2pExposedMs)},
                   {"loading", formatSignificant(r.step->dataLoadingMs)},
                   {"free", formatSignificant(r.step->idleMs)}});
  if (r.profileOnly)
    return uiText("report.kernel_time_text", lang, {{"kernels", formatSignificant(r.measuredNodeSumMs)}, {"latency", formatSignificant(r.latencyMs)}});
  // On a busy machine the time no operator accounts for is mostly the threads waiting for a core.
  const Measurement* m = headlineMeasurement(r);
  return uiText(m && m->contended ? "report.node_time_text_busy" : "report.node_time_text", lang,
                {{"operators", formatSignificant(std::max(0.0, r.latencyMs - r.betweenOperatorsMs))},
                 {"between", formatSignificant(r.betweenOperatorsMs)},
                 {"latency", formatSignificant(r.latencyMs)}});
}

std::string speedupText(double speedup, double noise, Lang lang) {
  if (!(std::fabs(speedup - 1.0) > noise))
    return std::isfinite(noise) ? uiText("speedup.within_noise", lang, {{"noise", formatPercent(noise)}})
                                : uiText("speedup.noise_unknown", lang);
  return formatRatio(speedup);
}

std::string headlineText(const Report& r, Lang lang) {
  // A device's run without its model: the figure is a step, and its optimum covers the priced
  // kernels only (communication and idle time have no roofline), so the percentage says whose.
  const std::string run = r.profileOnly || fromJobSummary(r)                           ? "device_step"
                          : r.latencyRun == "deployed" && r.deployedBy == "onnxruntime" ? "onnxruntime"
                          : r.latencyRun.empty()                                      ? "estimated"
                                                                                      : r.latencyRun;
  const std::string percentKey = r.profileOnly ? "headline.percent_kernels" : "headline.percent";
  std::string optimum;
  if (r.optimumAboveLatency) optimum = uiText("headline.above", lang, {{"optimum", formatSignificant(r.optimumMs)}});
  else if (r.percentOfOptimum > 0) optimum = uiText(percentKey, lang, {{"percent", formatPercent(r.percentOfOptimum / 100)}});
  else optimum = uiText("headline.no_optimum", lang);
  const int left = findingsLeftAboveP2(r);
  const std::string leftText = left == 0   ? uiText("headline.left_none", lang)
                               : left == 1 ? uiText("headline.left_one", lang)
                                           : uiText("headline.left", lang, {{"count", std::to_string(left)}});
  // A busy machine is said first, with the best uncontended estimate beside the figure.
  if (const Measurement* m = headlineMeasurement(r); m && m->contended)
    return uiText("report.headline_busy", lang,
                  {{"busy", busyText(*m, lang)},
                   {"run", uiText("headline.run." + run, lang)},
                   {"ms", formatSignificant(r.latencyMs)},
                   {"estimate", uiText("measurement.estimate_short." + m->uncontendedBasis, lang, {{"ms", formatSignificant(m->uncontendedMs)}})},
                   {"optimum", optimum},
                   {"left", leftText}});
  return uiText("report.headline", lang,
                {{"run", uiText("headline.run." + run, lang)}, {"ms", formatSignificant(r.latencyMs)}, {"optimum", optimum}, {"left", leftText}});
}

std::string appliedLabel(const Finding& f, Lang lang) {
  if (!f.appliedBy.empty()) return uiText("finding.applied." + f.appliedBy, lang);
  if (!f.fixDoneBy.empty()) return uiText("finding.left_fix_done." + f.fixDoneBy, lang);
  if (!f.notAppliedBy.empty()) return uiText("finding.not_applied." + f.notAppliedBy, lang);
  return uiText("finding.left_for_you", lang);
}

std::string latencySpreadText(const Report& r, Lang lang) {
  if (r.latencySamples < 2 || r.latencySource != "measured") return {};
  return uiText("report.spread", lang,
                {{"lo", formatSignificant(r.latencyP10Ms)}, {"hi", formatSignificant(r.latencyP90Ms)}, {"count", std::to_string(r.latencySamples)}});
}

std::string fmtSpeedup(double local, Lang lang) {
  if (std::isinf(local)) return uiText("finding.removed", lang);
  return formatRatio(local);
}

std::string fmtLocalSpeedup(const Finding& f, Lang lang) {
  return f.impact.ms > 0 ? fmtSpeedup(f.speedupLocal, lang) : "–";
}

std::string fmtGlobalShare(const Finding& f) { return f.impact.ms > 0 ? formatPercent(f.speedupGlobal) : "–"; }

namespace {

// Decodes one UTF-8 code point at s[i]; advances i.
char32_t decodeUtf8(std::string_view s, size_t& i) {
  const auto c = static_cast<unsigned char>(s[i]);
  int len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 1;
  if (i + static_cast<size_t>(len) > s.size()) len = 1;
  char32_t cp = len == 1 ? c : len == 2 ? (c & 0x1f) : len == 3 ? (c & 0x0f) : (c & 0x07);
  for (int k = 1; k < len; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + static_cast<size_t>(k)]) & 0x3f);
  i += static_cast<size_t>(len);
  return cp;
}

bool wide(char32_t cp) {
  return (cp >= 0x1100 && cp <= 0x115f) || (cp >= 0x2e80 && cp <= 0xa4cf) || (cp >= 0xac00 && cp <= 0xd7a3) ||
         (cp >= 0xf900 && cp <= 0xfaff) || (cp >= 0xfe30 && cp <= 0xfe4f) || (cp >= 0xff00 && cp <= 0xff60) ||
         (cp >= 0xffe0 && cp <= 0xffe6) || (cp >= 0x20000 && cp <= 0x3fffd);
}

}  // namespace

size_t displayWidth(std::string_view s) {
  size_t w = 0;
  for (size_t i = 0; i < s.size();) w += wide(decodeUtf8(s, i)) ? 2 : 1;
  return w;
}

std::string fitColumn(std::string_view raw, size_t width, bool keepEnd, bool alignRight) {
  const std::string escaped = terminalText(raw);  // a name in a column is shown, never acted on
  const std::string_view s = escaped;
  std::string out(s);
  if (displayWidth(s) > width && width >= 2) {
    // Collect code point boundaries, then keep as many as fit next to the ellipsis.
    std::vector<std::pair<size_t, size_t>> cps;  // (byte offset, columns)
    for (size_t i = 0; i < s.size();) {
      size_t start = i;
      cps.push_back({start, wide(decodeUtf8(s, i)) ? 2u : 1u});
    }
    size_t budget = width - 1, used = 0;
    if (keepEnd) {
      size_t k = cps.size();
      while (k > 0 && used + cps[k - 1].second <= budget) used += cps[--k].second;
      out = "…" + std::string(s.substr(k < cps.size() ? cps[k].first : s.size()));
    } else {
      size_t k = 0;
      while (k < cps.size() && used + cps[k].second <= budget) used += cps[k++].second;
      out = std::string(s.substr(0, k < cps.size() ? cps[k].first : s.size())) + "…";
    }
  }
  const size_t w = displayWidth(out);
  if (w < width) out = alignRight ? std::string(width - w, ' ') + out : out + std::string(width - w, ' ');
  return out;
}

std::string compiledText(const Report& r, Lang lang) {
  if (!r.compiled) return {};
  const CompiledGraph& c = *r.compiled;
  return uiText("report.compiled_text", lang,
                {{"kernels", std::to_string(c.fusedKernels)},
                 {"source", uiText("compiled.source." + c.source, lang)},
                 {"launches_written", std::to_string(c.launchesWritten)},
                 {"launches", std::to_string(c.launchesCompiled)},
                 {"written_ms", formatSignificant(c.writtenMs)}});
}

std::string categoryLabel(Category c, Lang lang) { return categoryTitle(c, lang); }

std::string priorityLabel(Priority p, Lang lang) {
  return std::string(priorityName(p)) + " " + uiText("priority." + std::string(priorityName(p)), lang);
}

std::string sourceLabel(ImpactSource s, Lang lang) { return uiText("source." + std::string(impactSourceName(s)), lang); }

std::string boundLabel(std::string_view bound, Lang lang) { return uiText("bound." + std::string(bound), lang); }

std::string noteText(const Report& r, std::string_view key, Lang lang) {
  std::map<std::string, std::string> p;
  p["count"] = std::to_string(key == "faster_than_roofline" ? r.fasterThanRoofline : r.optimum.unknownNodes);
  p["ms"] = formatSignificant(r.runtimeLatencyMs);
  p["unoptimized"] = formatSignificant(r.unoptimizedLatencyMs);
  p["optimum"] = formatSignificant(r.optimumMs);
  p["latency"] = formatSignificant(r.latencyMs);
  p["recalibrated"] = r.recalibrated ? uiText("note.recalibrated", lang) : std::string();
  if (key == "applied_by_runtime") p["count"] = std::to_string(r.appliedByRuntime);
  for (const auto& [k, v] : r.noteParams) p[k] = v;
  if (key == "rate_from_run" && !r.ratesFromRun.empty()) {
    const RateFromRun& best = r.ratesFromRun.front();
    p["rate"] = formatQuantity(best.flopsPerSecond, "FLOP/s");
    p["figure"] = formatQuantity(best.peakFlopsPerSecond, "FLOP/s");
    p["node"] = best.node;
    p["op"] = best.opType;
    p["type"] = std::string(dtypeName(best.type));
  }
  if (key == "ran_from_cache") {
    p["count"] = std::to_string(r.fasterFromCache);
    p["cache"] = formatQuantity(r.cacheBytes, "B");
  }
  // A profile without its model: no host to calibrate, the device's figures or the formulas are off.
  if (key == "faster_than_roofline" && r.profileOnly) return uiText("note.faster_than_roofline_kernels", lang, p);
  return uiText("note." + std::string(key), lang, p);
}

std::string goalScenarioLabel(const Report& r, Lang lang) {
  return uiText("goal." + std::string(goalName(r.goal)), lang) + " · " +
         uiText("scenario." + std::string(scenarioName(r.scenario)), lang);
}

std::string deviceDetail(const Report& r, Lang lang) {
  if (!r.deviceCalibrated) return lang == Lang::Zh && !r.deviceNameZh.empty() ? r.deviceNameZh : r.deviceName;
  double peak = 0;
  for (const auto& roof : r.roofs) peak = std::max(peak, roof.flopsPerSecond);
  return uiText("report.calibrated_figures", lang,
                {{"flops", formatQuantity(peak, "FLOP/s")}, {"bandwidth", formatQuantity(r.bandwidthBytesPerSecond, "B/s")}});
}

std::string deviceLabel(const Report& r, Lang lang) { return r.device + " — " + deviceDetail(r, lang); }

std::string decadeLabel(double v) {
  static const char* kSi[] = {"", " k", " M", " G", " T", " P", " E"};
  if (v < 1) return fmtFixed(v, static_cast<int>(std::ceil(-std::log10(v) - 1e-9)));
  int e = static_cast<int>(std::floor(std::log10(v) + 1e-9));
  const int group = std::min(6, e / 3);
  return std::to_string(static_cast<long long>(std::llround(std::pow(10.0, e - 3 * group)))) + kSi[group];
}

std::string anchorOf(const Finding& f) { return f.nodes.empty() ? std::string("—") : f.nodes.front(); }

std::string alikeText(const Report& r, const Assessment& a, Lang lang) {
  if (a.alike.empty()) return {};
  constexpr size_t kNamed = 3;
  std::string places;
  for (size_t k = 0; k < a.alike.size() && k < kNamed; ++k)
    if (const Finding* f = r.finding(a.alike[k])) places += (places.empty() ? "" : ", ") + anchorOf(*f);
  if (a.alike.size() > kNamed)
    places = uiText("report.alike_more", lang, {{"places", places}, {"count", std::to_string(a.alike.size() - kNamed)}});
  return uiText("report.alike", lang,
                {{"count", std::to_string(a.alike.size())}, {"ms", formatSignificant(a.alikeMs)}, {"places", places}});
}

}  // namespace msa::report
