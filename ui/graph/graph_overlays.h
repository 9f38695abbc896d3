#pragma once
#include <limits>
// What the analysis hands the graph view, as plain values keyed by ONNX node name: a per-node
// metric for the heatmap, groups of nodes to outline (fusion candidates) and nodes to mark
// (format conversions). The view never sees findings or profiles themselves.
#include <QColor>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

namespace msa::ui {

struct NodeMetric {
  enum class Aggregate { Sum, Max, Mean };  // how a collapsed block combines its members
  QString name;   // "Estimated time", "FLOPs", "Output bytes"
  QString unit;   // "ms", "FLOP", "B"; formatted with SI prefixes where it makes sense
  QHash<QString, double> values;  // node name -> value; missing = no value (drawn neutral)
  Aggregate aggregate = Aggregate::Sum;
  // Where the numbers come from, as an English source text translated when shown
  // (metricDescription(): "roofline, %1" with `where` = "Huawei Ascend 910B3", `whereZh` in 简体中文).
  QString description;
  QString where;
  QString whereZh;  // `where` in Chinese (a device's Chinese name); empty: `where`
  // Signed changes (a comparison's B − A): drawn on a diverging scale centred on zero, green
  // below (faster), red above (slower), whatever linear/log scale is chosen.
  bool diverging = false;
  // Symbolic input dims left unbound, when they are why nodes have no value (their shapes, and
  // so their cost, depend on them): the legend says so instead of a bare "no value".
  QStringList unboundDims;
  bool isEmpty() const { return values.isEmpty(); }
};

enum class HeatScale { Linear, Log, Diverging };

struct NodeGroup {
  QString id;     // stable id (a finding id)
  QString label;  // "Conv + BatchNorm + Relu"
  QStringList nodes;
  QColor color;   // invalid = the default outline colour
};

enum class MarkKind {
  FormatConversion,  // inverse Transposes, NCHWc reorders, TransData
  Warning,
  Note,
};

struct NodeMark {
  QString node;
  MarkKind kind = MarkKind::Note;
  QString text;  // tooltip: why it is marked
};

// Formats a metric value with its unit: "1.25 ms", "3.4 GFLOP", "12.0 MB".
// `scaleOf`: when finite, the unit and prefix are those of that value ("0 µs" beside "3.14 µs").
QString formatMetric(double value, const QString& unit, double scaleOf = std::numeric_limits<double>::quiet_NaN());
// A duration kept in milliseconds: "12.3 ms", "45.6 µs"; "0 ms" for none (a negative sentinel).
QString durationText(double ms);
// A share (0.223) as "22.3%": the one style of percentage (util/units.h), in every panel.
QString percentText(double fraction);
// A ratio or speedup: "3.84×"; "–" when not positive (nothing to compare).
QString ratioText(double x);
// A figure whose unit a column header or label gives: three significant digits ("0.0123", "165").
QString figureText(double v);

}  // namespace msa::ui
