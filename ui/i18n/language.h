#pragma once
// The UI language: Simplified Chinese or English through Qt Linguist. The .qm files are built
// from translations/*.ts and embedded under :/i18n. The language follows the system locale
// unless the user chose one (QSettings "ui/language"); a choice applies at once.
#include <QObject>
#include <QString>
#include <QStringList>

#include "graph/view_graph.h"
#include "rules/texts.h"

class QCoreApplication;
class QLocale;
class QMenu;
class QWidget;

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

// An op category in the UI language (opCategoryName is the untranslated name).
QString opCategoryTitle(OpCategory c);

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
