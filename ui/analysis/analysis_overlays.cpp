#include "analysis/analysis_overlays.h"

#include <QHash>
#include <QSet>
#include <algorithm>

#include "analysis/findings_model.h"
#include "i18n/language.h"
#include "report/report_format.h"
#include "rules/texts.h"

namespace msa::ui {
namespace {
QString qs(const std::string& s) { return QString::fromStdString(s); }

// A named pattern by its name ("rotary embedding", "SwiGLU", "GELU(tanh)"); otherwise "Conv +
// BatchNormalization + Relu", at most three op types.
std::string patternKey(const Finding& f) { return "pattern." + f.rule.substr(f.rule.find('.') + 1); }

QString groupLabel(const Finding& f, const QHash<QString, QString>& opOf) {
  const std::string key = patternKey(f);
  if (hasUiText(key, Lang::En)) {
    if (auto v = f.params.find("variant"); f.rule == "fusion.gelu" && v != f.params.end()) return qs(v->second);
    return qs(uiText(key, coreLanguage()));
  }
  QStringList ops;
  for (const std::string& n : f.nodes) {
    const QString op = opOf.value(qs(n));
    if (!op.isEmpty() && (ops.isEmpty() || ops.back() != op)) ops << op;
  }
  if (ops.isEmpty()) return qs(f.rule);
  if (ops.size() > 3) return ops.mid(0, 2).join(QStringLiteral(" + ")) + QStringLiteral(" + … (%1)").arg(f.nodes.size());
  return ops.join(QStringLiteral(" + "));
}

// Nodes inside If/Loop/Scan bodies, from `run`'s entries for them, scaled as their top-level
// owner's time was (capped at what the run leaves it): a body never reads more than its node.
// `time` holds the owners' times already; `sumMs` is what `share` is a share of.
void addBodyTimes(const ProfileData& run, double sumMs, NodeMetric& time, NodeMetric& share) {
  QHash<QString, double> ownerScale;
  for (const NodeProfile& e : run.nodes)
    if (e.parent.empty() && e.timeMs.median > 0)
      if (auto v = time.values.constFind(qs(e.name)); v != time.values.constEnd()) ownerScale.insert(qs(e.name), *v / e.timeMs.median);
  // Only a top-level node's direct body nodes: a nested If's own span already holds its body.
  // A body kernel the runtime fused from several IR nodes is split evenly over them.
  QHash<QString, QList<std::pair<QString, double>>> byOwner;
  for (const NodeProfile& e : run.nodes) {
    if (e.parent.empty() || !ownerScale.contains(qs(e.parent))) continue;
    auto& members = byOwner[qs(e.parent)];
    if (e.irNodes.empty()) members.append({qs(e.name), e.timeMs.median});
    for (const std::string& ir : e.irNodes) members.append({qs(ir), e.timeMs.median / static_cast<double>(e.irNodes.size())});
  }
  for (auto it = byOwner.cbegin(); it != byOwner.cend(); ++it) {
    double sum = 0;
    for (const auto& [name, ms] : it.value()) sum += ms;
    const double ownerMs = time.values.value(it.key());
    const double scale = sum > 0 ? std::min(ownerScale.value(it.key()), ownerMs / sum) : 0;
    for (const auto& [name, ms] : it.value()) {
      time.values[name] += ms * scale;
      share.values[name] += ms * scale / sumMs * 100;
    }
  }
}
}  // namespace

bool drawnAsGroup(const Finding& f) {
  // Explanations (a pipeline that cannot fuse) and zero-impact chains would only clutter. A
  // pattern known by name (SwiGLU, RMSNorm…) is outlined whenever it has a gain of its own, also
  // when the overlap accounting credits that gain to another finding (the small operators'
  // launches, counted once).
  if (f.category != Category::Fusion || f.nodes.size() < 2) return false;
  return f.impact.ms > 0 || f.hasFix() || (f.impact.rawMs > 0 && hasUiText(patternKey(f), Lang::En));
}

AnalysisOverlays buildOverlays(const Report& r) {
  AnalysisOverlays o;
  QHash<QString, QString> opOf;
  for (const NodeReport& n : r.nodes) opOf.insert(qs(n.name), qs(n.opType));

  const bool measured = r.latencySource == "measured" && r.measuredNodeSumMs > 0;
  // The device named in either language: the legend's subtitle follows a language switch.
  const QString where = qs(report::deviceDetail(r, Lang::En)), whereZh = qs(report::deviceDetail(r, Lang::Zh));
  // The deployed run first: the time the headline describes, a fused kernel's time split over
  // the nodes it ran, a folded node at zero.
  if (r.latencyRun == "deployed" && r.deployedNodeSumMs > 0) {
    NodeMetric share{kDeployedShareMetric, QStringLiteral("%"), {}, NodeMetric::Aggregate::Sum,
                     QStringLiteral("share of the deployed run (the runtime's optimizer on), %1"), where, whereZh};
    NodeMetric time{QStringLiteral("Deployed time"), QStringLiteral("ms"), {}, NodeMetric::Aggregate::Sum,
                    QStringLiteral("median per run, the runtime's optimizer on, %1"), where, whereZh};
    for (const NodeReport& n : r.nodes) {
      if (n.deployedMs < 0) continue;
      time.values.insert(qs(n.name), n.deployedMs);
      // Shares of the headline: with the time between operators they add up to the run.
      share.values.insert(qs(n.name), n.deployedMs / r.latencyMs * 100);
    }
    if (r.runtimeProfile) addBodyTimes(*r.runtimeProfile, r.latencyMs, time, share);
    o.metrics << share << time;
  }
  if (measured) {
    const bool optimizerOff = r.latencyRun == "deployed" || r.latencyRun == "unoptimized";
    NodeMetric share{kMeasuredShareMetric, QStringLiteral("%"), {}, NodeMetric::Aggregate::Sum,
                     optimizerOff ? QStringLiteral("share of the operator time, the runtime's optimizer off, %1")
                                  : QStringLiteral("share of the measured operator time, %1"),
                     where, whereZh};
    NodeMetric time{QStringLiteral("Measured time"), QStringLiteral("ms"), {}, NodeMetric::Aggregate::Sum,
                    QStringLiteral("median per run, %1"), where, whereZh};
    NodeMetric eff{QStringLiteral("Efficiency"), QStringLiteral("%"), {}, NodeMetric::Aggregate::Mean,
                   QStringLiteral("roofline time / measured time, %1"), where, whereZh};
    for (const NodeReport& n : r.nodes) {
      if (n.measuredMs < 0) continue;
      const QString name = qs(n.name);
      time.values.insert(name, n.measuredMs);
      share.values.insert(name, n.measuredMs / r.measuredNodeSumMs * 100);
      if (n.efficiency >= 0) eff.values.insert(name, n.efficiency * 100);
    }
    if (r.profile) addBodyTimes(*r.profile, r.measuredNodeSumMs, time, share);
    o.metrics << share << time;
    if (!eff.isEmpty()) o.metrics << eff;
  } else {
    NodeMetric est{QStringLiteral("Estimated time share"), QStringLiteral("%"), {}, NodeMetric::Aggregate::Sum,
                   QStringLiteral("share of the roofline estimate, %1"), where, whereZh};
    for (const NodeReport& n : r.nodes)
      if (n.share > 0) est.values.insert(qs(n.name), n.share * 100);
    if (!est.isEmpty()) o.metrics << est;
  }

  QSet<QString> marked;
  for (const Finding& f : r.findings) {
    if (drawnAsGroup(f)) {
      NodeGroup g;
      g.id = qs(f.id);
      g.label = groupLabel(f, opOf);
      for (const std::string& n : f.nodes) g.nodes << qs(n);
      g.color = FindingsModel::priorityColor(f.priority);
      o.groups << g;
    }
    if (f.category != Category::Format) continue;
    const QString why = qs(renderTitle(f, Lang::En));
    QStringList nodes;
    for (const std::string& n : f.nodes) nodes << qs(n);
    // Conversions the runtime inserted have no IR node: mark the IR nodes at their boundary.
    const ProfileData* rt = r.runtimeProfile ? &*r.runtimeProfile : nullptr;
    if (rt)
      for (const std::string& rn : f.runtimeNodes)
        if (const NodeProfile* p = rt->find(rn)) {
          for (const std::string* s : {&p->producerIrNode, &p->consumerIrNode})
            if (!s->empty() && opOf.contains(qs(*s))) nodes << qs(*s);
          for (const std::string& nb : p->neighbours)
            if (opOf.contains(qs(nb))) nodes << qs(nb);
        }
    for (const QString& n : nodes) {
      if (marked.contains(n)) continue;
      marked.insert(n);
      o.marks << NodeMark{n, MarkKind::FormatConversion, why};
    }
  }
  return o;
}

}  // namespace msa::ui
