#include "docks.h"

#include <QCoreApplication>

#include "analysis/analysis_workspace.h"
#include "analysis/compare_panel.h"
#include "analysis/whatif_panel.h"
#include "analysis/findings_panel.h"
#include "analysis/overview_panel.h"
#include "charts/charts_panel.h"
#include "graph/graph_widget.h"
#include "graph/node_properties.h"
#include "i18n/language.h"
#include "rules/family_registry.h"

namespace msa::ui {

QString dockTitle(const DockSpec& spec) {
  if (!spec.findingDock.empty())
    for (const FindingDock& d : findingDocks())
      if (d.id == spec.findingDock) return QString::fromStdString(d.title.in(coreLanguage()));
  return QCoreApplication::translate("msa::ui::Docks", spec.title);
}

std::function<QWidget*(const DockContext&, QWidget*)> findingsDock(const QString& panelId, FindingsModel::Filter filter,
                                                                   const char* emptyText) {
  return [panelId, filter, emptyText](const DockContext& c, QWidget* parent) -> QWidget* {
    FindingsPanel* p = c.workspace->createFindingsPanel(panelId, filter, QCoreApplication::translate("msa::ui::Docks", emptyText), parent);
    QObject::connect(LanguageNotifier::instance(), &LanguageNotifier::languageChanged, p,
                     [p, emptyText] { p->setEmptyText(QCoreApplication::translate("msa::ui::Docks", emptyText)); });
    return p;
  };
}

namespace {

QWidget* propertiesDock(const DockContext& c, QWidget* parent) {
  auto* p = new NodeProperties(parent);
  p->setObjectName(QStringLiteral("propertiesPanel"));
  // One state at a time: the document and its analysis, as the hub says (never one behind).
  QObject::connect(c.workspace, &AnalysisWorkspace::documentChanged, p,
                   [p, ws = c.workspace](std::shared_ptr<const ModelDocument> doc, bool edited) {
                     p->setDocument(doc, edited);
                     p->setReport(ws->report());
                   });
  QObject::connect(c.workspace, &AnalysisWorkspace::analysisChanged, p,
                   [p](std::shared_ptr<const AnalysisResult> r) { p->setReport(r ? r->report : nullptr); });
  QObject::connect(c.graph, &GraphWidget::selectionChanged, p, &NodeProperties::showNodes);
  // A profile without its model has no graph to select on: a finding shows its kernels directly.
  QObject::connect(c.workspace, &AnalysisWorkspace::findingSelected, p, [p](const QString& id) {
    const auto report = p->report();
    if (p->document() || !report || !report->profileOnly) return;
    QStringList kernels;
    if (const Finding* f = report->finding(id.toStdString()))
      for (const std::string& n : f->nodes) kernels << QString::fromStdString(n);
    p->showNodes(kernels);
  });
  QObject::connect(LanguageNotifier::instance(), &LanguageNotifier::languageChanged, p, [p] { p->showNodes(p->shownNodes()); });
  return p;
}

QWidget* chartsDock(const DockContext& c, QWidget* parent) {
  auto* p = new ChartsPanel(parent);
  p->setObjectName(QStringLiteral("chartsPanel"));
  QObject::connect(c.workspace, &AnalysisWorkspace::analysisChanged, p, [p](std::shared_ptr<const AnalysisResult> r) {
    if (r && r->report) p->setReport(*r->report);
    else p->clear();
  });
  QObject::connect(c.graph, &GraphWidget::selectionChanged, p, &ChartsPanel::selectNodes);
  QObject::connect(p, &ChartsPanel::nodeActivated, c.graph, [g = c.graph](const QString& n) {
    g->selectNodes({n});
    g->frameNodes({n});
  });
  return p;
}

QWidget* compareDock(const DockContext& c, QWidget* parent) {
  auto* p = new ComparePanel(c.workspace, c.heatmap, parent);
  p->setObjectName(QStringLiteral("comparePanel"));
  QObject::connect(p, &ComparePanel::nodeActivated, c.graph, [g = c.graph](const QString& n) {
    if (!g->graph() || g->graph()->nodeIndex(n) < 0) return;  // a node only B has
    g->selectNodes({n});
    g->frameNodes({n});
  });
  return p;
}

QWidget* whatIfDock(const DockContext& c, QWidget* parent) {
  auto* p = new WhatIfPanel(c.workspace, c.heatmap, parent);
  p->setObjectName(QStringLiteral("whatIfPanel"));
  return p;
}

// A dock listing every finding whose category the families put in `dock`, its empty text in
// the UI language.
DockSpec categoryDock(const FindingDock& dock) {
  FindingsModel::Filter filter{false, {}};
  for (const CategoryInfo& c : categoryInfos())
    if (c.dock == dock.id) filter.categories << c.category;
  const QString id = QString::fromStdString(dock.id);
  auto empty = [texts = dock.empty] { return QString::fromStdString(texts.in(coreLanguage())); };
  const QString panelId = id + QStringLiteral("Panel");
  auto factory = [panelId, filter, empty](const DockContext& c, QWidget* parent) -> QWidget* {
    FindingsPanel* p = c.workspace->createFindingsPanel(panelId, filter, empty(), parent);
    QObject::connect(LanguageNotifier::instance(), &LanguageNotifier::languageChanged, p,
                     [p, empty] { p->setEmptyText(empty()); });
    return p;
  };
  DockSpec spec{id + QStringLiteral("Dock"), nullptr, Qt::BottomDockWidgetArea, QStringLiteral("findings"), true,
                factory};
  spec.findingDock = dock.id;
  return spec;
}

}  // namespace

std::vector<DockSpec> dockTable() {
  using Filter = FindingsModel::Filter;
  std::vector<DockSpec> table{
      {QStringLiteral("overviewDock"), QT_TRANSLATE_NOOP("msa::ui::Docks", "Overview"), Qt::RightDockWidgetArea, {}, true,
       [](const DockContext& c, QWidget* parent) -> QWidget* { return c.workspace->createOverview(parent); }},
      {QStringLiteral("propertiesDock"), QT_TRANSLATE_NOOP("msa::ui::Docks", "Properties"), Qt::RightDockWidgetArea, {}, false,
       propertiesDock},
      {QStringLiteral("bottlenecksDock"), QT_TRANSLATE_NOOP("msa::ui::Docks", "Bottlenecks"), Qt::BottomDockWidgetArea,
       QStringLiteral("findings"), true,
       findingsDock(QStringLiteral("bottlenecksPanel"), Filter{true, {}},
                    QT_TRANSLATE_NOOP("msa::ui::Docks", "The ranked list of what to fix appears here after Analyze."))},
  };
  for (const FindingDock& d : findingDocks()) table.push_back(categoryDock(d));
  table.push_back({QStringLiteral("chartsDock"), QT_TRANSLATE_NOOP("msa::ui::Docks", "Charts"),
                   Qt::BottomDockWidgetArea, QStringLiteral("findings"), true, chartsDock});
  table.push_back({QStringLiteral("compareDock"), QT_TRANSLATE_NOOP("msa::ui::Docks", "Compare"),
                   Qt::BottomDockWidgetArea, QStringLiteral("findings"), false, compareDock, true});
  table.push_back({QStringLiteral("whatIfDock"), QT_TRANSLATE_NOOP("msa::ui::Docks", "What If"),
                   Qt::BottomDockWidgetArea, QStringLiteral("findings"), false, whatIfDock, true});
  return table;
}

}  // namespace msa::ui
