#pragma once
// Number and text formatting shared by the report writers (text, Markdown, HTML).
#include "util/text_escape.h"  // htmlText, markdownText, markdownCode, terminalText: every writer escapes with them
#include <string>
#include <string_view>

#include "advisor/advisor.h"
#include "rules/finding.h"
#include "rules/texts.h"
#include "util/units.h"  // formatSignificant, formatPercent, formatQuantity: every writer's figures

namespace msa::report {

// "the model runs ×3.84 slower than the optimum (26% …)", or why the gap is not computed.
std::string gapText(const Report& r, Lang lang);
// What the report is of, for its first line: a model and its node count, a device's run and its
// kernels, or a job known from its cluster summary alone and its ranks.
struct ReportSubject {
  std::string label, path, count;  // "Profile", "run/", "179 kernels"
};
ReportSubject reportSubject(const Report& r, Lang lang);
// A job known from msprof-analyze's cluster summary alone: its ranks' steps, no kernel, no optimum.
bool fromJobSummary(const Report& r);
std::string fmtSpeedup(double local, Lang lang);
// A finding's local speedup and its share of the run, or "–" when it saves nothing: a speedup of
// a part nobody gains from is noise in a list an engineer scans.
std::string fmtLocalSpeedup(const Finding& f, Lang lang);
std::string fmtGlobalShare(const Finding& f);
// The report in one line: "With ONNX Runtime's optimizer: 18.5 ms, 96 % of the optimum; 2 findings
// left above P2" (the run the headline describes, its share of the optimum, what is left to do).
std::string headlineText(const Report& r, Lang lang);
int findingsLeftAboveP2(const Report& r);  // P0/P1 findings nobody applies for the user
// How the headline was timed (the deployed run's, else the only run's); null when nothing was
// measured here (an estimate, an imported profile).
const Measurement* headlineMeasurement(const Report& r);
// "Measured on a busy machine: the runtime's threads got 41 % of the CPU; figures are not the
// model's"; empty when the measurement was not contended.
std::string busyText(const Measurement& m, Lang lang);
// "2 intra-op threads (the runtime's default: one per physical core); the threads got 98 % of the
// CPU, load 1.4; 3 of 40 blocks of runs set aside (the machine was busy)".
std::string measurementText(const Measurement& m, Lang lang);
// "operators 53.2 ms, between operators / framework 5.2 ms (of 58.4 ms)": the node times as
// reconciled with the headline.
std::string nodeTimeText(const Report& r, Lang lang);
// A measured speedup, or "within noise (±4.1 %)" when its interval holds 1.
std::string speedupText(double speedup, double noise, Lang lang);
// "applied by ONNX Runtime at load" / "applied by the graph engine" / "left for you".
std::string appliedLabel(const Finding& f, Lang lang);
// "p10–p90 17.9–19.2 ms, 212 runs" for the headline; empty without a measured spread.
std::string latencySpreadText(const Report& r, Lang lang);  // "2.50×", "removed" for an infinite one
std::string fmtFixed(double v, int decimals);

// Terminal columns a UTF-8 string takes (East Asian wide characters count 2).
size_t displayWidth(std::string_view s);
// Shown escaped for a terminal, cut to `width` columns with "…" (keeping the end when `keepEnd`),
// then padded with spaces.
std::string fitColumn(std::string_view s, size_t width, bool keepEnd = false, bool alignRight = false);


std::string categoryLabel(Category c, Lang lang);
std::string priorityLabel(Priority p, Lang lang);  // "P0 must fix"
std::string sourceLabel(ImpactSource s, Lang lang);
std::string boundLabel(std::string_view bound, Lang lang);
std::string noteText(const Report& r, std::string_view key, Lang lang);
// "74 fused kernels by ATC's graph engine (simulated): 219 → 98 launches; as written 0.95 ms";
// empty without a compiled graph.
std::string compiledText(const Report& r, Lang lang);
// "latency · edge" in the report's language.
std::string goalScenarioLabel(const Report& r, Lang lang);
// "cpu-host — <display name>", or with a calibration the measured figures instead.
std::string deviceLabel(const Report& r, Lang lang);
std::string deviceDetail(const Report& r, Lang lang);  // the part after the id: the device's name in `lang`
// Axis labels at powers of ten: 0.01, 0.1, 1, 10, 100, 1k, 10k / 1 G, 10 G, 100 G, 1 T.
std::string decadeLabel(double v);
// The shortest readable name of a finding's place: its anchor node.
std::string anchorOf(const Finding& f);
// "and 9 more alike, 0.247 ms together: /a/Conv, /b/Conv, /c/Conv and 6 more" for a TOP-N finding
// that stands for the same problem elsewhere (Assessment::alike); empty when it stands alone.
std::string alikeText(const Report& r, const Assessment& a, Lang lang);

}  // namespace msa::report
