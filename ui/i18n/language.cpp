#include "i18n/language.h"

#include <QActionGroup>
#include <QCoreApplication>
#include <QLibraryInfo>
#include <QLocale>
#include <QMenu>
#include <QSettings>
#include <QTranslator>
#include <memory>

#include "advisor/advisor.h"
#include "advisor/report.h"
#include "cost/device_profile.h"
#include "report/report_format.h"

namespace msa::ui {
namespace {

struct Installed {
  std::unique_ptr<QTranslator> app, qt;
  QString language = QStringLiteral("en");
};
Installed& installed() {
  static Installed i;
  return i;
}

}  // namespace

QStringList uiLanguages() { return {QStringLiteral("en"), QStringLiteral("zh_CN")}; }

QString nativeLanguageName(const QString& language) {
  if (language == QLatin1String("zh_CN")) return QStringLiteral("简体中文");
  if (language == QLatin1String("en")) return QStringLiteral("English");
  return language;
}

QString languageSetting() { return QSettings().value(QLatin1String(kLanguageKey)).toString(); }

void setLanguageSetting(const QString& language) {
  QSettings s;
  if (language.isEmpty()) s.remove(QLatin1String(kLanguageKey));
  else s.setValue(QLatin1String(kLanguageKey), language);
}

QString resolveLanguage(const QString& setting, const QLocale& system) {
  if (uiLanguages().contains(setting)) return setting;
  for (const QString& name : system.uiLanguages()) {
    const QLocale l(name);
    if (l.language() == QLocale::Chinese)
      return l.script() == QLocale::TraditionalChineseScript || l.territory() == QLocale::Taiwan || l.territory() == QLocale::HongKong
                 ? QStringLiteral("en")
                 : QStringLiteral("zh_CN");
    if (l.language() == QLocale::English) return QStringLiteral("en");
  }
  return QStringLiteral("en");
}

bool installTranslators(const QString& language) {
  Installed& in = installed();
  const QString before = in.language;
  for (auto* t : {in.app.get(), in.qt.get()})
    if (t) QCoreApplication::removeTranslator(t);
  in.app.reset();
  in.qt.reset();
  in.language = QStringLiteral("en");

  auto app = std::make_unique<QTranslator>();
  if (!app->load(QStringLiteral(":/i18n/msadvisor_%1.qm").arg(language))) return false;
  QCoreApplication::installTranslator(app.get());
  in.app = std::move(app);
  const bool changed = before != language;
  in.language = language;
  // Dates, sizes and numbers that Qt formats (the file dialog's "5 Dec") in the same language.
  QLocale::setDefault(QLocale(language));
  // Qt's own strings (standard dialogs, context menus); absent when qt6-translations-l10n is not installed.
  auto qt = std::make_unique<QTranslator>();
  if (qt->load(QLocale(language), QStringLiteral("qtbase"), QStringLiteral("_"), QLibraryInfo::path(QLibraryInfo::TranslationsPath))) {
    QCoreApplication::installTranslator(qt.get());
    in.qt = std::move(qt);
  }
  if (changed) emit LanguageNotifier::instance()->languageChanged();
  return true;
}

QString currentLanguage() { return installed().language; }

Lang coreLanguage() { return currentLanguage().startsWith(QLatin1String("zh")) ? Lang::Zh : Lang::En; }

// The metric names the UI creates (model_document.cpp, ui/analysis), for lupdate.
[[maybe_unused]] const char* const kMetricNames[] = {
    QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "Estimated time"),       QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "FLOPs"),
    QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "Memory traffic"),       QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "Parameters"),
    QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "Measured time"),        QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "Measured time share"),
    QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "Efficiency"),           QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "Estimated time share"),
    QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "Deployed time"),        QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "Deployed time share"),
};

// Qt's own strings its zh_CN catalogue lacks (Qt 6.4): the type column of every file dialog.
// Qt asks its translators in turn, so ours answers where qtbase's has no entry.
struct QtText {
  const char* source;
  const char* comment;
};
[[maybe_unused]] const QtText kQtFileTypes[] = {
    QT_TRANSLATE_NOOP3("QAbstractFileIconProvider", "Folder", "All other platforms"),
    QT_TRANSLATE_NOOP3("QAbstractFileIconProvider", "Shortcut", "All other platforms"),
    {QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "Drive"), nullptr},
    {QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "File"), nullptr},
    {QT_TRANSLATE_NOOP("QAbstractFileIconProvider", "Unknown"), nullptr},
};

QString metricTitle(const QString& name) {
  const QByteArray utf8 = name.toUtf8();
  return QCoreApplication::translate("msa::ui::NodeMetric", utf8.constData());
}

// The metric descriptions the UI creates, for lupdate.
[[maybe_unused]] const char* const kMetricDescriptions[] = {
    QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "roofline, %1"),
    QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "cost model; a multiply-add counts 2"),
    QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "cost model: bytes read + written"),
    QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "weight elements each node reads"),
    QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "share of the measured operator time, %1"),
    QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "median per run, %1"),
    QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "share of the deployed run (the runtime's optimizer on), %1"),
    QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "median per run, the runtime's optimizer on, %1"),
    QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "share of the operator time, the runtime's optimizer off, %1"),
    QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "roofline time / measured time, %1"),
    QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "share of the roofline estimate, %1"),
    QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "B − A per node, %1"),
    QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "Time change"),
    QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "Time saved by the variant"),
    QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "predicted per layer, %1"),
    QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "Accuracy cost of quantizing"),
    QT_TRANSLATE_NOOP("msa::ui::NodeMetric", "relative RMS error each int8 layer adds alone, %1"),
};

QString metricDescription(const NodeMetric& m) {
  if (m.description.isEmpty()) return {};
  const QByteArray utf8 = m.description.toUtf8();
  const QString text = QCoreApplication::translate("msa::ui::NodeMetric", utf8.constData());
  const QString& where = coreLanguage() == Lang::Zh && !m.whereZh.isEmpty() ? m.whereZh : m.where;
  return where.isEmpty() ? text : text.arg(where);
}

QString opCategoryTitle(OpCategory c) {
  switch (c) {
    case OpCategory::Convolution: return QCoreApplication::translate("msa::ui::OpCategory", "convolution");
    case OpCategory::Linear: return QCoreApplication::translate("msa::ui::OpCategory", "matrix multiply");
    case OpCategory::Activation: return QCoreApplication::translate("msa::ui::OpCategory", "activation");
    case OpCategory::Normalization: return QCoreApplication::translate("msa::ui::OpCategory", "normalization");
    case OpCategory::Pooling: return QCoreApplication::translate("msa::ui::OpCategory", "pooling");
    case OpCategory::Elementwise: return QCoreApplication::translate("msa::ui::OpCategory", "elementwise");
    case OpCategory::Reduction: return QCoreApplication::translate("msa::ui::OpCategory", "reduction");
    case OpCategory::Shape: return QCoreApplication::translate("msa::ui::OpCategory", "shape / data movement");
    case OpCategory::Conversion: return QCoreApplication::translate("msa::ui::OpCategory", "type conversion");
    case OpCategory::Control: return QCoreApplication::translate("msa::ui::OpCategory", "control flow");
    case OpCategory::Io: return QCoreApplication::translate("msa::ui::OpCategory", "graph input/output");
    case OpCategory::Other: break;
  }
  return QCoreApplication::translate("msa::ui::OpCategory", "other");
}

// Domain terms are core's (resources/rules/report.json), the words the reports and the CLI use.
QString goalTitle(Goal g) { return QString::fromStdString(uiText("goal." + std::string(goalName(g)), coreLanguage())); }

QString scenarioTitle(Scenario s) {
  return QString::fromStdString(uiText("scenario." + std::string(scenarioName(s)), coreLanguage()));
}

QString progressStageTitle(const QString& stage) {
  static const char* const kContext = "msa::ui::ProgressStage";
  static const std::pair<const char*, const char*> kStages[] = {
      // The GUI's own stages (the analysis worker's keys).
      {"profile-disabled", QT_TRANSLATE_NOOP("msa::ui::ProgressStage", "profiling on the CPU (per operator)")},
      {"profile-all", QT_TRANSLATE_NOOP("msa::ui::ProgressStage", "profiling on the CPU (runtime optimizations on)")},
      {"profile-acl", QT_TRANSLATE_NOOP("msa::ui::ProgressStage", "profiling on the Ascend NPU")},
      {"write-model", QT_TRANSLATE_NOOP("msa::ui::ProgressStage", "writing the edited model for the profiler")},
      {"calibrating", QT_TRANSLATE_NOOP("msa::ui::ProgressStage", "calibrating this CPU's roofline (first measured analysis; cached)")},
      // Core's.
      {"loading", QT_TRANSLATE_NOOP("msa::ui::ProgressStage", "reading the model")},
      {"shapes", QT_TRANSLATE_NOOP("msa::ui::ProgressStage", "inferring shapes")},
      {"cost", QT_TRANSLATE_NOOP("msa::ui::ProgressStage", "costing the operators")},
      {"analysis", QT_TRANSLATE_NOOP("msa::ui::ProgressStage", "running the rules")},
      {"ranking", QT_TRANSLATE_NOOP("msa::ui::ProgressStage", "ranking the findings")},
      {"profiling", QT_TRANSLATE_NOOP("msa::ui::ProgressStage", "profiling")},
      {"inputs", QT_TRANSLATE_NOOP("msa::ui::ProgressStage", "preparing inputs")},
      {"latency", QT_TRANSLATE_NOOP("msa::ui::ProgressStage", "timing end to end")},
      {"timing", QT_TRANSLATE_NOOP("msa::ui::ProgressStage", "timing end to end")},
      {"comparing outputs", QT_TRANSLATE_NOOP("msa::ui::ProgressStage", "comparing outputs")},
      {"verifying the result", QT_TRANSLATE_NOOP("msa::ui::ProgressStage", "comparing outputs")},
      {"import", QT_TRANSLATE_NOOP("msa::ui::ProgressStage", "importing the profile")},
      {"mapping", QT_TRANSLATE_NOOP("msa::ui::ProgressStage", "mapping the profile onto the graph")},
      {"matching names", QT_TRANSLATE_NOOP("msa::ui::ProgressStage", "mapping the profile onto the graph")},
  };
  const QString key = stage.startsWith(QLatin1String("calibrat")) ? QStringLiteral("calibrating") : stage;
  for (const auto& [id, text] : kStages)
    if (key == QLatin1String(id)) return QCoreApplication::translate(kContext, text);
  return {};
}

QString deviceTitle(const DeviceProfile& d) {
  return QString::fromStdString(coreLanguage() == Lang::Zh && !d.displayNameZh.empty() ? d.displayNameZh : d.displayName);
}

QString deviceTitle(const Report& r) {
  const std::string name = report::deviceDetail(r, coreLanguage());
  return QString::fromStdString(name.empty() ? r.device : name);
}

QString shortDeviceTitle(const Report& r) {
  QString name = deviceTitle(r);
  qsizetype cut = name.size();
  for (const QString& details : {QStringLiteral(" ("), QStringLiteral("（"), QStringLiteral(","), QStringLiteral("，")})
    if (const qsizetype at = name.indexOf(details); at > 0) cut = std::min(cut, at);
  return name.left(cut);
}

QString latencySourceTitle(const std::string& source) {
  const std::string key = "source." + source;  // the reports' own words (resources/rules/report.json)
  return QString::fromStdString(hasUiText(key, coreLanguage()) ? uiText(key, coreLanguage()) : source);
}

QString roofTitle(const QString& label) {
  const QString unit = label.section(QLatin1Char(' '), 0, 0), rest = label.section(QLatin1Char(' '), 1);
  QString title = unit;
  if (unit == QLatin1String("cube")) title = QCoreApplication::translate("msa::ui::Roof", "cube unit");
  else if (unit == QLatin1String("vector")) title = QCoreApplication::translate("msa::ui::Roof", "vector unit");
  else if (unit == QLatin1String("all")) title = QCoreApplication::translate("msa::ui::Roof", "all cores");
  return rest.isEmpty() ? title : title + QLatin1Char(' ') + rest;
}

QMenu* createLanguageMenu(QWidget* parent) {
  auto* menu = new QMenu(QCoreApplication::translate("msa::ui::Language", "&Language"), parent);
  auto* group = new QActionGroup(menu);
  const QString current = languageSetting();
  auto add = [&](const QString& text, const QString& language) {
    QAction* a = menu->addAction(text);
    a->setCheckable(true);
    a->setChecked(language == current);
    a->setData(language);
    group->addAction(a);
  };
  add(QCoreApplication::translate("msa::ui::Language", "System Default"), QString());
  menu->addSeparator();
  for (const QString& l : uiLanguages()) add(nativeLanguageName(l), l);
  QObject::connect(group, &QActionGroup::triggered, menu, [](QAction* a) {
    const QString language = a->data().toString();
    if (language == languageSetting()) return;
    setLanguageSetting(language);
    installTranslators(resolveLanguage(language, QLocale::system()));
  });
  // The menu's own texts in the new language.
  QObject::connect(LanguageNotifier::instance(), &LanguageNotifier::languageChanged, menu, [menu] {
    menu->setTitle(QCoreApplication::translate("msa::ui::Language", "&Language"));
    if (!menu->actions().isEmpty()) menu->actions().front()->setText(QCoreApplication::translate("msa::ui::Language", "System Default"));
  });
  return menu;
}

LanguageNotifier* LanguageNotifier::instance() {
  static LanguageNotifier* n = new LanguageNotifier;  // lives as long as the application
  return n;
}

}  // namespace msa::ui
