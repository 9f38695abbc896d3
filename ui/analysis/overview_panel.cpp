#include "analysis/overview_panel.h"

#include <QGridLayout>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QStackedWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "advisor/advisor.h"
#include "advisor/profile_only.h"
#include "analysis/findings_model.h"
#include "graph/graph_overlays.h"
#include "i18n/language.h"
#include "profile/profile_remap.h"
#include "report/report_format.h"
#include "report/training_report.h"

namespace msa::ui {
namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }
}  // namespace

OverviewPanel::OverviewPanel(QWidget* parent) : QWidget(parent) {
  m_stack = new QStackedWidget(this);
  auto* empty = m_empty = new QLabel(this);
  empty->setAlignment(Qt::AlignCenter);
  empty->setWordWrap(true);
  empty->setMargin(16);
  empty->setStyleSheet(QStringLiteral("color: #6b7280;"));
  m_stack->addWidget(empty);

  auto* page = new QWidget(this);
  page->setObjectName(QStringLiteral("overviewPage"));
  auto* grid = new QGridLayout(page);
  grid->setContentsMargins(14, 12, 14, 12);
  grid->setHorizontalSpacing(14);
  grid->setVerticalSpacing(2);
  // Captions are set again on a language switch (retranslate), a report or not.
  auto caption = [&](const char* text) {
    auto* l = new QLabel(page);
    m_captions.append({l, text});
    l->setStyleSheet(QStringLiteral("color: #6b7280; font-size: 8pt; font-weight: 600; letter-spacing: 0.5px;"));
    return l;
  };
  auto note = [&](const QString& name) {
    QLabel* l = figure(name);
    l->setStyleSheet(QStringLiteral("color: #6b7280;"));
    l->setWordWrap(true);
    return l;
  };
  m_latency = figure(QStringLiteral("latencyValue"));
  m_latencyNote = note(QStringLiteral("latencyNote"));
  m_optimum = figure(QStringLiteral("optimumValue"));
  m_optimumNote = note(QStringLiteral("optimumNote"));
  m_gap = figure(QStringLiteral("gapValue"));
  m_gapNote = note(QStringLiteral("gapNote"));
  m_after = figure(QStringLiteral("afterFixesValue"));
  m_afterNote = note(QStringLiteral("afterFixesNote"));
  for (QLabel* l : {m_latency, m_optimum, m_gap, m_after})
    l->setStyleSheet(QStringLiteral("color: #111827; font-size: 15pt; font-weight: 600;"));
  m_gap->setStyleSheet(QStringLiteral("color: #b45309; font-size: 15pt; font-weight: 600;"));
  m_after->setStyleSheet(QStringLiteral("color: #15803d; font-size: 15pt; font-weight: 600;"));
  m_headline = figure(QStringLiteral("headlineText"));
  m_headline->setWordWrap(true);
  m_headline->setStyleSheet(QStringLiteral("color: #111827; font-size: 11pt; font-weight: 600;"));
  m_gapBar = figure(QStringLiteral("gapBar"));
  m_gapBar->setTextFormat(Qt::RichText);  // a bar drawn as a table of our own: no name from the model in it
  m_context = note(QStringLiteral("contextText"));
  m_context->setStyleSheet(QStringLiteral("color: #374151;"));
  m_priorities = figure(QStringLiteral("prioritiesText"));
  m_priorities->setTextFormat(Qt::RichText);
  m_job = figure(QStringLiteral("jobText"));
  m_job->setTextFormat(Qt::RichText);  // a table of our own: numbers and the catalog's labels

  int row = 0;
  // The report in one line first: the run it describes, its share of the optimum, what is left.
  grid->addWidget(m_headline, row++, 0, 1, 2);
  grid->setRowMinimumHeight(row++, 8);
  // Two figures per row: caption, big value, a note below it.
  auto addFigure = [&](int col, const char* title, QLabel* value, QLabel* n) {
    grid->addWidget(caption(title), row, col);
    grid->addWidget(value, row + 1, col);
    grid->addWidget(n, row + 2, col, Qt::AlignTop);
  };
  addFigure(0, QT_TR_NOOP("Latency"), m_latency, m_latencyNote);
  addFigure(1, QT_TR_NOOP("Theoretical optimum"), m_optimum, m_optimumNote);
  row += 3;
  grid->setRowMinimumHeight(row++, 10);
  addFigure(0, QT_TR_NOOP("Gap"), m_gap, m_gapNote);
  addFigure(1, QT_TR_NOOP("After safe fixes"), m_after, m_afterNote);
  row += 3;
  grid->setRowMinimumHeight(row++, 6);
  grid->addWidget(m_gapBar, row++, 0, 1, 2);
  grid->setRowMinimumHeight(row++, 10);
  grid->addWidget(caption(QT_TR_NOOP("Findings")), row++, 0, 1, 2);
  grid->addWidget(m_priorities, row++, 0, 1, 2);
  grid->setRowMinimumHeight(row++, 8);
  grid->addWidget(caption(QT_TR_NOOP("Analysed")), row++, 0, 1, 2);
  grid->addWidget(m_context, row++, 0, 1, 2);
  grid->setRowMinimumHeight(row++, 8);
  grid->addWidget(m_job, row++, 0, 1, 2);
  grid->setRowStretch(row, 1);
  grid->setColumnStretch(0, 1);
  grid->setColumnStretch(1, 1);
  auto* scroll = m_scroll = new QScrollArea(this);
  scroll->setWidget(page);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  // Never scrolled sideways: the headline wraps at the width shown, and the panel is never
  // narrower than its two columns of figures (fitWidth).
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  m_stack->addWidget(scroll);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(m_stack);
  retranslate();
  connect(LanguageNotifier::instance(), &LanguageNotifier::languageChanged, this, &OverviewPanel::retranslate);
}

void OverviewPanel::retranslate() {
  m_empty->setText(tr("Latency, theoretical optimum and the gap appear here after Analyze (Ctrl+R)."));
  for (const auto& [label, source] : std::as_const(m_captions)) label->setText(tr(source).toUpper());
  fitWidth();
}

QLabel* OverviewPanel::figure(const QString& objectName) {
  auto* l = new QLabel(this);
  l->setObjectName(objectName);
  l->setTextFormat(Qt::PlainText);  // names from the model (inputs, the headline's) are text, never markup
  l->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return l;
}

QSize OverviewPanel::sizeHint() const { return QSize(360, 390); }

QString OverviewPanel::latencyText() const { return m_stack->currentIndex() == 1 ? m_latency->text() : QString(); }

void OverviewPanel::setReport(std::shared_ptr<const Report> report, double seconds) {
  if (!report) {
    m_stack->setCurrentIndex(0);
    m_stack->setMinimumHeight(0);
    return;
  }
  const Report& r = *report;
  const bool measured = r.latencySource == "measured";
  m_headline->setText(qs(report::headlineText(r, coreLanguage())));
  m_latency->setText(durationText(r.latencyMs));
  // Which run the figure is, and how it was obtained: a run carried over to an edited model
  // (after Apply) is an estimate, not a measurement.
  const ProfileData* run = r.latencyRun == "deployed" && r.runtimeProfile ? &*r.runtimeProfile
                           : r.profile                                     ? &*r.profile
                                                                           : nullptr;
  QString how = measured ? tr("measured") : tr("estimated (roofline)");
  if (measured && run && isRemapped(*run)) {
    how = tr("estimated for the edited model\nfrom the measured run");
  } else if (measured) {
    if (r.latencyRun == "deployed" && r.deployedBy == "onnxruntime")
      how = tr("measured with ONNX Runtime's optimizer,\nmedian of %1 runs").arg(r.latencySamples);
    else if (r.latencySamples > 0)
      how = tr("measured, median of %1 runs").arg(r.latencySamples);
    if (r.latencySamples > 1) how += QLatin1Char('\n') + tr("p10–p90 %1–%2").arg(durationText(r.latencyP10Ms), durationText(r.latencyP90Ms));
  }
  if (r.latencyRun == "deployed" && r.unoptimizedLatencyMs > 0)
    how += QLatin1Char('\n') + tr("%1 without the runtime's optimizer").arg(durationText(r.unoptimizedLatencyMs));
  // Threads, the CPU share the runtime's threads got, blocks set aside: the core's own sentence.
  const Measurement* measurement = run && !isRemapped(*run) ? report::headlineMeasurement(r) : nullptr;
  if (measurement) how += QLatin1Char('\n') + qs(report::measurementText(*measurement, coreLanguage()));
  // A busy machine's figures are the moment's: the headline says so, in amber.
  m_headline->setStyleSheet(measurement && measurement->contended
                                ? QStringLiteral("color: #b45309; font-size: 11pt; font-weight: 600;")
                                : QStringLiteral("color: #111827; font-size: 11pt; font-weight: 600;"));
  if (!measured && r.compiled)  // an Ascend estimate prices what ATC compiles (docs/ascend-fusion.md)
    how = tr("estimated on the graph ATC compiles:\n%1 → %2 launches, %3 fused kernels")
              .arg(r.compiled->launchesWritten)
              .arg(r.compiled->launchesCompiled)
              .arg(r.compiled->fusedKernels);
  if (r.profileOnly && r.profile) {  // a device's step: where the profiler's figure comes from
    const std::string& source = r.profile->stepSource;
    how = source == "step_trace" ? tr("one step, from the profiler's step record")
          : source == "excerpt"  ? tr("the rows' own time: an excerpt of a longer run")
          : r.step               ? tr("one step, the median of the timeline's steps")
                                 : tr("the kernels' span");
  }
  m_latencyNote->setText(how);
  m_optimum->setText(r.optimumMs > 0 ? durationText(r.optimumMs) : QStringLiteral("–"));
  QString optimumHow = !(r.optimumMs > 0) ? tr("not computed: no operator\nof known cost")
                       : r.profileOnly    ? tr("the priced kernels at their rooflines;\ncommunication and idle time have none")
                                          : tr("each op at its roofline,\nideal fusion, no launches");
  // The host's figure was below what the run itself reached: the optimum is priced at the run's
  // rate (advisor/rates_from_run.h); the whole sentence on hover.
  if (!r.ratesFromRun.empty())
    optimumHow += QLatin1Char('\n') + tr("at the %1 the run itself reached").arg(qs(formatQuantity(r.ratesFromRun.front().flopsPerSecond, "FLOP/s")));
  m_optimumNote->setText(optimumHow);
  m_optimumNote->setToolTip(r.ratesFromRun.empty() ? QString() : qs(report::noteText(r, "rate_from_run", coreLanguage())));
  if (r.gapRatio > 0) {
    m_gap->setText(QString::fromStdString(formatRatio(r.gapRatio)));
    QString note = tr("running at %1 of the optimum").arg(percentText(r.percentOfOptimum / 100));
    // Without a model the gap compares the priced kernels with their rooflines, not the step
    // with the optimum beside it: say so in the CLI's words (report.gap_text_kernels).
    if (r.profileOnly) note = qs(report::gapText(r, coreLanguage()));
    else if (r.optimum.knownTimeShare < 0.995)
      note += QLatin1Char('\n') + tr("over the %1 of the run of known cost").arg(percentText(r.optimum.knownTimeShare));
    m_gapNote->setText(note);
  } else if (r.optimumAboveLatency) {
    m_gap->setText(QStringLiteral("–"));
    m_gapNote->setText(r.recalibrated ? tr("none: the run is faster than the optimum,\nalso after recalibrating (cache effects)")
                                      : tr("none: the run is faster than the optimum\nthe device figures give (cache effects)"));
  } else if (report::fromJobSummary(r)) {  // the job's ranks without their kernels: the CLI's words
    m_gap->setText(QStringLiteral("–"));
    m_gapNote->setText(qs(report::gapText(r, coreLanguage())));
  } else {
    m_gap->setText(QStringLiteral("–"));
    m_gapNote->setText(tr("not computed: most of the run is\nin operators of unknown cost"));
  }
  // A bar: the share of the run the optimum would take, the part safe fixes win, the rest.
  const double total = std::max(r.latencyMs, 1e-12);
  const int opt = std::clamp(static_cast<int>(r.optimumMs / total * 100), 0, 100);
  const int safe = std::clamp(static_cast<int>(r.safeFixSavingMs / total * 100), 0, 100 - opt);
  m_gapBar->setText(QStringLiteral(
                        "<table width='100%' cellspacing='0' cellpadding='0' style='margin:0'><tr>"
                        "<td width='%1%' style='background:#16a34a;height:8px'></td>"
                        "<td width='%2%' style='background:#60a5fa'></td>"
                        "<td style='background:#e5e7eb'></td></tr></table>")
                        .arg(std::max(opt, 1))
                        .arg(safe));
  m_gapBar->setToolTip(tr("green: the theoretical optimum; blue: what the safe fixes win; grey: the rest of the gap"));
  m_after->setText(durationText(r.estimatedOptimizedMs));
  const double saved = r.latencyMs > 0 ? (r.latencyMs - r.estimatedOptimizedMs) / r.latencyMs : 0;
  // Nothing to save is said as such, not as "−0.0%" (the runtime may do the safe fixes itself),
  // and a small saving keeps its digits (3.5 µs of 9.2 ms is −0.04%, not −0.0%).
  m_afterNote->setText(r.safeFixSavingMs > 0 ? tr("%1 (estimated),\n%2 saved").arg(percentText(-saved)).arg(durationText(r.safeFixSavingMs))
                                             : tr("no safe fix saves time in this run"));

  int counts[3] = {0, 0, 0};
  for (const Finding& f : r.findings) ++counts[static_cast<int>(f.priority)];
  QString pills;
  for (int p = 0; p < 3; ++p) {
    const QColor c = FindingsModel::priorityColor(static_cast<Priority>(p));
    pills += QStringLiteral("<span style='background:%1;color:white;font-weight:600'>&nbsp;P%2&nbsp;</span>"
                            "&nbsp;<b>%3</b>&nbsp;&nbsp;&nbsp;")
                 .arg(c.name())
                 .arg(p)
                 .arg(counts[p]);
  }
  pills += tr("<span style='color:#6b7280'>%1 in the TOP list</span>").arg(r.bottlenecks.size());
  if (r.appliedByRuntime > 0)
    pills += QStringLiteral("<br><span style='color:#6b7280'>") +
             tr("%n applied by the runtime itself (not counted as time to gain)", nullptr, r.appliedByRuntime) +
             QStringLiteral("</span>");
  m_priorities->setText(pills);

  QString ctx = tr("%1 · goal %2 · %3")
                    .arg(deviceTitle(r), goalTitle(r.goal), scenarioTitle(r.scenario));
  // A profile alone has no graph: what it holds is the device's tasks.
  if (r.profileOnly && r.profile) ctx += QLatin1Char('\n') + tr("%n device task(s)", nullptr, r.profile->tasks);
  else if (report::fromJobSummary(r)) ctx += QLatin1Char('\n') + qs(report::reportSubject(r, coreLanguage()).count);
  else ctx += QLatin1Char('\n') + tr("%1 nodes").arg(r.nodeCount);
  if (!r.inputs.empty()) {
    QStringList in;
    for (const auto& [name, shape] : r.inputs) in << qs(name) + QLatin1Char(' ') + qs(shape);
    ctx += QStringLiteral(" · ") + in.join(QStringLiteral(", "));
  }
  if (seconds > 0) ctx += QLatin1Char('\n') + tr("analysis took %1").arg(durationText(seconds * 1e3));
  m_context->setText(ctx);
  m_job->setText(r.job && !r.job->ranks.empty() ? jobTable(r) : QString());
  m_job->setVisible(r.job && !r.job->ranks.empty());
  m_stack->setCurrentIndex(1);
  // Enough for the figures and the bar without scrolling (a dock's share follows its minimum).
  m_stack->setMinimumHeight(300);
  fitWidth();
}

// A job's ranks side by side (per step, the report's figures), the slow one in bold with its cause.
QString OverviewPanel::jobTable(const Report& r) const {
  const training::ClusterView& job = *r.job;
  const bool marked = training::slowRankReported(r);
  const Lang lang = coreLanguage();
  auto label = [lang](const char* key) { return QString::fromStdString(uiText(std::string("training.label.") + key, lang)).toHtmlEscaped(); };
  QString html = QStringLiteral("<b>%1</b><table cellspacing='0' cellpadding='3'><tr>").arg(label("ranks"));
  for (const char* h : {"rank", "stage", "step_time", "computing", "comm_exposed", "idle"})
    html += QStringLiteral("<th align='right'>%1</th>").arg(label(h));
  html += QStringLiteral("</tr>");
  for (size_t i = 0; i < job.ranks.size(); ++i) {
    const training::RankStep& k = job.ranks[i];
    const bool slow = marked && static_cast<int>(i) == job.slowRank;
    const QString open = slow ? QStringLiteral("<b>") : QString(), close = slow ? QStringLiteral("</b>") : QString();
    html += QStringLiteral("<tr>");
    for (const QString& cell : {QString::number(k.rank), k.stage >= 0 ? QString::number(k.stage + 1) : QStringLiteral("–"), figureText(k.stepMs),
                                figureText(k.computeMs), figureText(k.stepRecord ? k.notOverlappedMs : k.collectiveExposedMs + k.p2pExposedMs),
                                figureText(k.idleMs)})
      html += QStringLiteral("<td align='right'>%1%2%3</td>").arg(open, cell, close);
    if (slow)
      html += QStringLiteral("<td style='color:#b45309'>%1</td>").arg(label(job.slowCause == "host" ? "slow_host" : "slow_device"));
    html += QStringLiteral("</tr>");
  }
  html += QStringLiteral("</table>");
  return html;
}

void OverviewPanel::fitWidth() {
  QWidget* page = m_scroll->widget();
  page->layout()->activate();
  setMinimumWidth(page->minimumSizeHint().width() + m_scroll->verticalScrollBar()->sizeHint().width());
}

}  // namespace msa::ui
