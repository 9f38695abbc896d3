#pragma once
// The UI language: Simplified Chinese or English through Qt Linguist. The .qm files are built
// from translations/*.ts and embedded under :/i18n. The language follows the system locale
// unless the user chose one (QSettings "ui/language"); a choice applies at once.
#include <QObject>
#include <QString>
#include <QStringList>

#include "graph/graph_overlays.h"
#include "graph/view_graph.h"
#include "rules/rule.h"
#include "rules/texts.h"

class QCoreApplication;
class QLocale;
class QMenu;
class QWidget;

namespace msa {
struct DeviceProfile;
struct Report;
}  // namespace msa

namespace msa::ui {

inline constexpr const char* kLanguageKey = "ui/language";

// Languages with a translation, as locale names: "en", "zh_CN".
QStringList uiLanguages();
// The language name in its own script: "English", "简体中文".
QString nativeLanguageName(const QString& language);

// The setting: "" = follow the system.
QString languageSetting();
void setLanguageSetting(const QString& language);

// The language to load for a setting on a system: the setting if it is one of ours, else the
// first of the system's UI languages we have (zh_TW and zh_HK fall back to English), else "en".
QString resolveLanguage(const QString& setting, const QLocale& system);

// Installs msadvisor's and Qt's own (qtbase) translators for `language` into the application,
// replacing those installed earlier. Returns false when msadvisor's translation is missing.
bool installTranslators(const QString& language);
// The language installTranslators() loaded last ("en" before).
QString currentLanguage();
// The language for texts rendered by core (finding titles, report labels).
Lang coreLanguage();

// A heatmap metric's name ("Estimated time", "FLOPs"…: NodeMetric::name, an identifier) in the
// UI language, for display only.
QString metricTitle(const QString& name);
// A metric's description (graph_overlays.h) in the UI language, its `where` filled in.
QString metricDescription(const NodeMetric& m);

// An op category in the UI language (opCategoryName is the untranslated name).
QString opCategoryTitle(OpCategory c);
// The goal and scenario an analysis weighed ("latency", "edge"), in the UI language.
QString goalTitle(Goal g);
QString scenarioTitle(Scenario s);
// A device by its name in the UI language: the profile's display name (display_name_zh in
// Chinese); an analysis's device as the report names it (a calibrated host by its figures).
QString deviceTitle(const DeviceProfile& d);
QString deviceTitle(const Report& r);
// The same without the details after the name ("Huawei Ascend 910B", "本机 CPU").
QString shortDeviceTitle(const Report& r);
// A stage core's Progress reports ("shapes", "latency", "comparing outputs"…: identifiers) in
// the UI language; empty for a stage not worth naming, so no identifier reaches the status bar.
QString progressStageTitle(const QString& stage);
// "measured" or "estimated" (Report::latencySource) in the UI language.
QString latencySourceTitle(const std::string& source);
// A roof of the roofline as the report names it ("cube float16", "vector float16", "all
// float32"): the compute unit in the UI language, the data type as is.
QString roofTitle(const QString& label);

// A "Language" menu: System default, then each language; a choice is saved and applied at once
// (installTranslators, then languageChanged: the whole window renders in it, no restart).
QMenu* createLanguageMenu(QWidget* parent);

// Tells the parts that render text (the main window, docks, panels) that the UI language
// changed at run time, after installTranslators() installed it. (Qt's LanguageChange events
// reach widgets too; this also reaches objects that are not widgets, once, in order.)
class LanguageNotifier : public QObject {
  Q_OBJECT
 public:
  static LanguageNotifier* instance();
 signals:
  void languageChanged();
};

}  // namespace msa::ui
