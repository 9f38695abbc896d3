#pragma once
// A report turned into what the graph view draws (graph_overlays.h): heatmap metrics from the
// measurement (time share, measured time, efficiency), fusion candidates as outlined groups
// coloured by priority, and format conversions as marked nodes. Pure functions of the report.
#include <QList>

#include "advisor/advisor.h"
#include "graph/graph_overlays.h"

namespace msa::ui {

struct AnalysisOverlays {
  QList<NodeMetric> metrics;  // the first is the one to show after analysis
  QList<NodeGroup> groups;
  QList<NodeMark> marks;
};

inline const QString kMeasuredShareMetric = QStringLiteral("Measured time share");
// The headline's run, when it is the runtime's optimized one: shown first after an analysis.
inline const QString kDeployedShareMetric = QStringLiteral("Deployed time share");

AnalysisOverlays buildOverlays(const Report& report);
// A fusion finding worth outlining: two or more nodes, and a fix or a time to gain.
bool drawnAsGroup(const Finding& f);

}  // namespace msa::ui
