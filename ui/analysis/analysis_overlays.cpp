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
  if (measured) {
    NodeMetric share{kMeasuredShareMetric, QStringLiteral("%"), {}, NodeMetric::Aggregate::Sum,
                     QStringLiteral("share of the measured operator time, %1"), where, whereZh};
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
    // Nodes inside If/Loop/Scan bodies, from their profile entries, scaled as their top-level
    // owner's time was (capped at what the run leaves it): a body never reads more than its node.
    if (r.profile) {
      QHash<QString, double> ownerScale;
      for (const NodeReport& n : r.nodes)
        if (const NodeProfile* e = n.measuredMs >= 0 ? r.profile->find(n.name) : nullptr; e && e->timeMs.median > 0)
          ownerScale.insert(qs(n.name), n.measuredMs / e->timeMs.median);
      // Only a top-level node's direct body nodes: a nested If's own span already holds its body.
      QHash<QString, QList<std::pair<QString, double>>> byOwner;
      for (const NodeProfile& e : r.profile->nodes)
        if (!e.parent.empty() && ownerScale.contains(qs(e.parent)))
          byOwner[qs(e.parent)].append({qs(e.irNodes.empty() ? e.name : e.irNodes.front()), e.timeMs.median});
      for (auto it = byOwner.cbegin(); it != byOwner.cend(); ++it) {
        double sum = 0;
        for (const auto& [name, ms] : it.value()) sum += ms;
        const double ownerMs = ownerScale.value(it.key()) * r.profile->find(it.key().toStdString())->timeMs.median;
        const double scale = sum > 0 ? std::min(ownerScale.value(it.key()), ownerMs / sum) : 0;
        for (const auto& [name, ms] : it.value()) {
          time.values.insert(name, ms * scale);
          share.values.insert(name, ms * scale / r.measuredNodeSumMs * 100);
        }
      }
    }
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
    const QString why = qs(renderFinding(f, Lang::En).title);
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
