#pragma once
// The main window's docks, declared as data: an id (the object name the window state is saved
// under), a title, where it goes, the tab group it joins, whether it waits for an analysis, and
// the factory of its content. The window creates, places, titles (in the UI language) and lists
// them in View ▸ Panels. The findings docks of the categories come from the rule families'
// descriptions (rules/family_registry.h findingDocks()): a family that declares a new dock gets
// one without an edit here.
#include <QString>
#include <functional>
#include <string>
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
  std::string findingDock;  // a category findings dock (rules/family_registry.h): title from its family
};

// Every dock, in the order they are created (and tabbed: the first of a group is raised), with
// a findings dock per findingDocks() entry as the rule families describe them now.
std::vector<DockSpec> dockTable();
QString dockTitle(const DockSpec& spec);

// A findings dock: the TOP list (`bottlenecks`) or every finding of `categories`; `emptyText`
// (QT_TRANSLATE_NOOP("msa::ui::Docks", …)) shows before an analysis.
std::function<QWidget*(const DockContext&, QWidget*)> findingsDock(const QString& panelId, FindingsModel::Filter filter,
                                                                   const char* emptyText);

}  // namespace msa::ui
