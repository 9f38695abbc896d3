// The text summary `msadvisor-cli training` prints: step time, breakdown, top operators and
// kernels, the TOP findings. Labels in English or Chinese; finding texts from the catalog.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "util/text_escape.h"
#include "report/report_format.h"
#include "report/training_report.h"

namespace msa::training {
namespace {

struct Labels {
  std::string trace, steps, stepsFrom, stepTime, median, breakdown, timelineDevice, timelineHost, busy, memory, loading,
      idle, phases, forward, backward, optimizer, items, perStep, shortItems, gapsBefore, topOps, op, calls, selfMs,
      deviceMs, share, shapes, topKernels, kernel, ms, findings, noFindings, notes, impact, none, communication,
      exposed, copies, p2p, collectives, pricedOn, pricedModel, computeKernels, priced, roofline, stepRecord, computing,
      notOverlapped, overlapped, free;
};

// The labels in the report's language (training.json "_ui", training.label.*).
Labels labels(Lang lang) {
  auto t = [lang](const char* key) { return uiText(std::string("training.label.") + key, lang); };
  return {
      t("trace"),           t("steps"),         t("steps_from"), t("step_time"),   t("median"),    t("breakdown"),
      t("timeline_device"), t("timeline_host"), t("busy"),       t("memory"),      t("loading"),   t("idle"),
      t("phases"),          t("forward"),       t("backward"),   t("optimizer"),   t("items"),     t("per_step"),
      t("short_items"),     t("gaps_before"),   t("top_ops"),    t("op"),          t("calls"),     t("self_ms"),
      t("device_ms"),       t("share"),         t("shapes"),     t("top_kernels"), t("kernel"),    t("ms"),
      t("findings"),        t("no_findings"),   t("notes"),      t("impact"),      t("none"),      t("communication"),
      t("exposed"),         t("copies"),        t("p2p"),        t("collectives"), t("priced_on"), t("priced_model"),
      t("compute_kernels"), t("priced"),        t("roofline"),    t("step_record"), t("computing"), t("not_overlapped"),
      t("overlapped"),      t("free")};
}

std::string f(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}



// Cuts to at most `width` bytes without splitting a UTF-8 sequence.
std::string cut(const std::string& s, size_t width) {
  if (s.size() <= width) return s;
  size_t n = width > 1 ? width - 1 : 0;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return s.substr(0, n) + "…";
}

// Pads to `width` terminal columns (a narrow space or a CJK character is not one byte wide).
std::string pad(const std::string& s, size_t width) {
  const size_t w = report::displayWidth(s);
  return w >= width ? s : s + std::string(width - w, ' ');
}


}  // namespace

bool slowRankReported(const Report& r) {
  return std::any_of(r.findings.begin(), r.findings.end(), [](const Finding& f) { return f.rule.starts_with("training.slow_rank"); });
}

std::string jobRanksText(const Report& r, Lang lang) {
  const ClusterView& c = *r.job;
  const bool marked = slowRankReported(r);
  auto t = [lang](const char* key) { return uiText(std::string("training.label.") + key, lang); };
  std::string o;
  auto line = [&](const std::string& s) { o += terminalText(s) + "\n"; };
  line(t("ranks"));
  line("  " + pad(t("rank"), 6) + pad(t("stage"), 7) + pad(t("step_time"), 11) + pad(t("computing"), 11) + pad(t("comm_exposed"), 15) +
       t("idle"));
  for (size_t i = 0; i < c.ranks.size(); ++i) {
    const RankStep& k = c.ranks[i];
    const bool slow = marked && static_cast<int>(i) == c.slowRank;
    line("  " + pad(std::to_string(k.rank), 6) + pad(k.stage >= 0 ? std::to_string(k.stage + 1) : "-", 7) + pad(formatSignificant(k.stepMs), 11) +
         pad(formatSignificant(k.computeMs), 11) + pad(formatSignificant(k.stepRecord ? k.notOverlappedMs : k.collectiveExposedMs + k.p2pExposedMs), 15) +
         pad(formatSignificant(k.idleMs), 10) + (slow ? t(c.slowCause == "host" ? "slow_host" : "slow_device") : std::string()));
  }
  if (c.stages.size() > 1) {
    std::string stages;
    for (const StageCompute& s : c.stages) stages += (stages.empty() ? "" : " · ") + std::to_string(s.stage + 1) + ": " + formatMilliseconds(s.computeMs);
    line("  " + t("stages") + "  " + stages);
  }
  return o;
}

std::string trainingReportText(const TrainingReport& r, const TrainingReportFormat& fmt) {
  const Labels L = labels(fmt.lang);
  const TrainingProfile& p = r.profile;
  // One step for every figure: the one the report decided (the profiler's step record first).
  const double step = r.latencyMs > 0 ? r.latencyMs : p.stepMs > 0 ? p.stepMs : 1;
  std::string o;
  // Every line is one line: names from the trace (control characters, escape sequences, newlines)
  // are shown escaped, never acted on by the terminal.
  auto line = [&](const std::string& s) { o += terminalText(s) + "\n"; };

  line(std::string(L.trace) + "  " + r.path);
  // A kernel table without a timeline (an op_summary, a lone kernel_details.csv): its step is the
  // table's own (its step record, its span, or the rows' time for an excerpt); nothing to break down.
  const ProfileData* table = p.steps.empty() && r.report.profile ? &*r.report.profile : nullptr;
  const ProfileData* kernels = r.report.profile ? &*r.report.profile : nullptr;
  const bool stepRecord = kernels && r.stepSource == "step_trace";  // the report's step is the record's
  const Stats s = table || stepRecord
                      ? kernels->latencyMs
                      : Stats{p.stepMs, p.stepP10Ms, p.stepP90Ms, 0, p.stepMinMs, p.stepMaxMs, static_cast<int>(p.steps.size())};
  // A job known from its cluster summary alone: the slow rank's step, the ranks below; no timeline.
  const bool summaryOnly = report::fromJobSummary(r.report);
  if (summaryOnly) {
    line("  " + r.format + " · " + r.device);
    line(std::string(L.stepTime) + "  " + formatMilliseconds(r.latencyMs) + " (" + L.stepRecord + ")");
  } else {
    line("  " + r.format + " · " + r.device + " · " + std::to_string(s.count) + " " + L.steps + " (" + L.stepsFrom + " " +
         r.stepSource + ")");
    line(std::string(L.stepTime) + "  " + formatMilliseconds(s.median) + " " + L.median + "  (p10 " + formatSignificant(s.p10) +
         ", p90 " + formatSignificant(s.p90) + "; min " + formatSignificant(s.min) + ", max " + formatSignificant(s.max) + ")");
  }
  auto row = [&](const std::string& label, double ms) {
    line("  " + pad(label, 30) + pad(formatMilliseconds(ms), 14) + percentColumn(ms / step));
  };
  // The profiler's own split of its step (step_trace_time.csv, an msprof step trace), medians.
  if (stepRecord && kernels->stepBreakdownMs.count("computing")) {
    const auto& split = kernels->stepBreakdownMs;
    line("");
    line(std::string(L.breakdown) + " (" + L.stepRecord + ")");
    auto at = [&](const char* k) { return split.count(k) ? split.at(k) : 0.0; };
    row(L.computing, at("computing"));
    row(L.notOverlapped, at("communication_not_overlapped"));
    line("    " + pad(L.overlapped, 28) + pad(formatMilliseconds(at("overlapped")), 14) + percentColumn(at("overlapped") / step));
    row(L.free, at("free"));
  }
  if (!table && !summaryOnly) {
    line("");
    line(std::string(L.breakdown) + " (" + (p.timeline == "device" ? L.timelineDevice : L.timelineHost) + ")");
    if (!stepRecord) {  // the step record's split above says what busy and idle would
      row(L.busy, p.median.busyMs);
      if (p.timeline == "device") row(L.memory, p.median.memoryMs);
      row(L.loading, p.median.dataLoadingMs);
      row(L.idle, p.median.idleMs);
    }
    if (p.timeline == "device" && p.median.commMs > 0)
      line("  " + pad(L.communication, 30) + pad(formatMilliseconds(p.median.commMs), 14) + percentColumn(p.median.commMs / step) +
           "   (" + formatMilliseconds(p.median.commExposedMs) + " " + L.exposed + ")");
    if (p.timeline == "device" && p.median.p2pMs > 0 && p.median.collectiveMs > 0)  // both kinds: each on its own
      for (const auto& [label, ms, exposed] : {std::tuple{L.p2p, p.median.p2pMs, p.median.p2pExposedMs},
                                               std::tuple{L.collectives, p.median.collectiveMs, p.median.collectiveExposedMs}})
        line("    " + pad(label, 28) + pad(formatMilliseconds(ms), 14) + percentColumn(ms / step) + "   (" + formatMilliseconds(exposed) + " " +
             L.exposed + ")");
    if (p.timeline == "device" && p.median.copies > 0)
      line("  " + pad(L.copies, 30) + pad(formatMilliseconds(p.median.h2dMs + p.median.d2hMs), 14) +
           percentColumn((p.median.h2dMs + p.median.d2hMs) / step) + "   (H2D " + formatMilliseconds(p.median.h2dMs) + ", D2H " +
           formatMilliseconds(p.median.d2hMs) + "; " + formatMilliseconds(p.median.copyExposedMs) + " " + L.exposed + ")");
    line("  " + pad(L.phases, 30) + L.forward + " " + formatMilliseconds(p.median.forwardMs) + " · " + L.backward + " " +
         formatMilliseconds(p.median.backwardMs) + " · " + L.optimizer + " " + formatMilliseconds(p.median.optimizerMs));
  }
  if (const auto& pr = r.pricing; pr && pr->computeMs > 0) {
    line(std::string(L.pricedOn) + " " + pr->device + " (" + L.pricedModel + ")");
    line("  " + std::string(L.computeKernels) + " " + formatMilliseconds(pr->computeMs) + " · " + L.priced + " " + formatMilliseconds(pr->pricedMs) + " (" +
         formatPercent(pr->knownTimeShare()) + ") · " + L.roofline + " " + formatMilliseconds(pr->rooflineMs) +
         (pr->rooflineMs > 0 ? " (×" + f("%.2f", pr->pricedMs / pr->rooflineMs) + ")" : std::string()));
  }
  if (!table && !summaryOnly)
    line(std::string(L.items) + "  " + std::to_string(p.median.items) + " " + L.perStep + ", " + std::to_string(p.median.shortItems) +
         " " + L.shortItems + " (< " + withUnit(f("%.0f", p.thresholds.shortItemUs), "µs") + "): " + formatMilliseconds(p.median.shortMs) + " + " +
         formatMilliseconds(p.median.shortGapMs) + " " + L.gapsBefore);

  if (r.report.job && !r.report.job->ranks.empty()) {
    line("");
    o += jobRanksText(r.report, fmt.lang);
  }

  const bool device = p.timeline == "device";
  auto opMs = [&](const OpTime& op) { return device ? op.deviceMs : op.selfMs; };
  if (!p.ops.empty() && opMs(p.ops.front()) > 0) {  // a kernel table alone has no operators
    line("");
    line(std::string(L.topOps) + " (" + (device ? L.deviceMs : L.selfMs) + ", " + L.perStep + ")");
    line("  " + pad(L.op, 44) + pad(L.calls, 8) + pad(device ? L.deviceMs : L.selfMs, 10) + pad(L.share, 8) + L.shapes);
    for (size_t i = 0; i < p.ops.size() && static_cast<int>(i) < fmt.topN; ++i) {
      const OpTime& op = p.ops[i];
      const double t = opMs(op);
      if (t <= 0) break;
      std::string shapes = op.signatures.empty() ? "" : op.signatures.front().dims + "  " + op.signatures.front().types;
      line("  " + pad(cut(op.name, 43), 44) + pad(f("%.1f", op.calls), 8) + pad(formatSignificant(t), 10) + pad(formatPercent(op.share), 8) +
           cut(shapes, 60));
    }
  }
  if (!p.kernels.empty()) {
    line("");
    line(std::string(L.topKernels) + " (" + L.perStep + ")");
    line("  " + pad(L.kernel, 44) + pad(L.calls, 8) + pad(L.ms, 10) + pad(L.share, 8));
    for (size_t i = 0; i < p.kernels.size() && static_cast<int>(i) < fmt.topN; ++i) {
      const KernelTime& k = p.kernels[i];
      line("  " + pad(cut(k.shortName, 43), 44) + pad(f("%.1f", k.calls), 8) + pad(formatSignificant(k.ms), 10) +
           pad(formatPercent(k.share), 8) + k.taskType);
    }
  }

  line("");
  line(std::string(L.findings) + " (" + std::to_string(r.report.findings.size()) + ")");
  if (r.report.findings.empty()) line(std::string("  ") + L.noFindings);
  int shown = 0;
  for (size_t k = 0; k < r.report.findings.size() && shown < fmt.topN; ++k, ++shown) {
    const Finding& fi = r.report.findings[k];
    const FindingText t = renderFinding(fi, fmt.lang);
    line(f("%3.0f. ", static_cast<double>(k + 1)) + std::string(priorityName(fi.priority)) + "  " + pad(formatMilliseconds(fi.impact.ms), 12) +
         pad(formatPercent(fi.speedupGlobal), 8) + t.title);
    line("       " + t.suggestion);
  }
  if (!r.notes.empty()) {
    line("");
    line(L.notes);
    for (const auto& n : r.notes) line("  - " + report::noteText(r.report, n, fmt.lang));
  }
  return o;
}

}  // namespace msa::training
