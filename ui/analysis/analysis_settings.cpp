#include "analysis/analysis_settings.h"

#include <QFileInfo>
#include <QSettings>
#include <algorithm>

#include "cost/device_profile.h"
#include "i18n/language.h"

namespace msa::ui {

QStringList AnalysisSettings::dimArguments() const {
  QStringList out;
  for (auto it = dims.cbegin(); it != dims.cend(); ++it)
    out << QStringLiteral("--dim") << it.key() + QLatin1Char('=') + QString::number(it.value());
  return out;
}

Result<std::map<std::string, GivenInput, std::less<>>> AnalysisSettings::givenInputs() const {
  std::map<std::string, GivenInput, std::less<>> out;
  for (auto it = inputValues.cbegin(); it != inputValues.cend(); ++it) {
    const QString v = it.value().trimmed();
    if (v.isEmpty()) continue;
    GivenInput g;
    bool number = false;
    const double x = v.toDouble(&number);
    if (number) g.fill = x;
    else if (QFileInfo(v).isFile()) g.file = v.toStdString();
    else
      return Error::usage("input '" + it.key().toStdString() + "': '" + v.toStdString() +
                          "' is neither a number nor an existing .npy/.pb file");
    out[it.key().toStdString()] = std::move(g);
  }
  return out;
}

AnalysisSettings AnalysisSettings::load() {
  AnalysisSettings s;
  QSettings q;
  q.beginGroup(QStringLiteral("analysis"));
  const QString device = q.value(QStringLiteral("device"), QStringLiteral("cpu")).toString();
  s.device = device == QLatin1String("ascend")     ? Device::Ascend
             : device == QLatin1String("estimate") ? Device::Estimate
                                                   : Device::Cpu;
  s.deviceProfile = q.value(QStringLiteral("deviceProfile"), s.deviceProfile).toString();
  s.goal = q.value(QStringLiteral("goal")).toString() == QLatin1String("throughput") ? Goal::Throughput : Goal::Latency;
  s.scenario = q.value(QStringLiteral("scenario")).toString() == QLatin1String("datacenter") ? Scenario::Datacenter
                                                                                               : Scenario::Edge;
  s.iterations = std::clamp(q.value(QStringLiteral("iterations"), s.iterations).toInt(), 1, 100000);
  s.threads = std::clamp(q.value(QStringLiteral("threads"), s.threads).toInt(), 0, 1024);
  s.topN = std::clamp(q.value(QStringLiteral("top"), s.topN).toInt(), 1, 1000);
  s.timeoutSeconds = std::clamp(q.value(QStringLiteral("timeoutSeconds"), s.timeoutSeconds).toInt(), kMinTimeoutSeconds,
                                kMaxTimeoutSeconds);
  const QVariantMap dims = q.value(QStringLiteral("dims")).toMap();
  for (auto it = dims.cbegin(); it != dims.cend(); ++it)
    if (const qint64 v = it.value().toLongLong(); v > 0) s.dims.insert(it.key(), v);
  return s;
}

void AnalysisSettings::save() const {
  QSettings q;
  q.beginGroup(QStringLiteral("analysis"));
  q.setValue(QStringLiteral("device"), device == Device::Ascend     ? QStringLiteral("ascend")
                                       : device == Device::Estimate ? QStringLiteral("estimate")
                                                                    : QStringLiteral("cpu"));
  q.setValue(QStringLiteral("deviceProfile"), deviceProfile);
  q.setValue(QStringLiteral("goal"), goal == Goal::Throughput ? QStringLiteral("throughput") : QStringLiteral("latency"));
  q.setValue(QStringLiteral("scenario"),
             scenario == Scenario::Datacenter ? QStringLiteral("datacenter") : QStringLiteral("edge"));
  q.setValue(QStringLiteral("iterations"), iterations);
  q.setValue(QStringLiteral("threads"), threads);
  q.setValue(QStringLiteral("top"), topN);
  q.setValue(QStringLiteral("timeoutSeconds"), timeoutSeconds);
  QVariantMap m;
  for (auto it = dims.cbegin(); it != dims.cend(); ++it) m.insert(it.key(), it.value());
  q.setValue(QStringLiteral("dims"), m);
}

QList<std::pair<QString, QString>> estimateDevices() {
  QList<std::pair<QString, QString>> out;
  for (const std::string& id : builtinDevices()) {
    auto d = loadDevice(id);
    out.push_back({QString::fromStdString(id), d ? deviceTitle(*d) : QString::fromStdString(id)});
  }
  return out;
}

}  // namespace msa::ui
