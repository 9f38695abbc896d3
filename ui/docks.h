#pragma once
// The main window's docks, declared as data: an id (the object name the window state is saved
// under), a title, where it goes, the tab group it joins, whether it waits for an analysis, and
// the factory of its content. A new dock is one entry in dockTable(); the window creates, places,
// titles (in the UI language) and lists them in View ▸ Panels.
#include <QString>
#include <functional>
#include <vector>

#include "analysis/findings_model.h"

class QWidget;

namespace msa::ui {

class AnalysisWorkspace;
class GraphWidget;

// What a dock's content may subscribe to.
class HeatmapChooser;

struct DockContext {
  AnalysisWorkspace* workspace = nullptr;
  GraphWidget* graph = nullptr;
  HeatmapChooser* heatmap = nullptr;
};

struct DockSpec {
  QString id;                                    // "overviewDock"; its content is "<id without Dock>Panel"
  const char* title = nullptr;                   // QT_TRANSLATE_NOOP("msa::ui::Docks", …)
  Qt::DockWidgetArea area = Qt::RightDockWidgetArea;
  QString tabGroup;                              // docks of one group share tabs (empty: alone)
  bool afterAnalysis = false;                    // hidden until the first analysis arrives
  std::function<QWidget*(const DockContext&, QWidget* parent)> factory;
  bool onDemand = false;                         // hidden until its content is asked for (Compare)
};

// Every dock, in the order they are created (and tabbed: the first of a group is raised).
const std::vector<DockSpec>& dockTable();
QString dockTitle(const DockSpec& spec);

// A findings dock: the TOP list (`bottlenecks`) or every finding of `categories`; `emptyText`
// (QT_TRANSLATE_NOOP("msa::ui::Docks", …)) shows before an analysis.
std::function<QWidget*(const DockContext&, QWidget*)> findingsDock(const QString& panelId, FindingsModel::Filter filter,
                                                                   const char* emptyText);

}  // namespace msa::ui
