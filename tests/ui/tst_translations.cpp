// Translations: with the zh_CN translator installed the main window's menus come out in
// Chinese (Qt's own strings too), every source string of the .ts has a finished, non-empty
// zh_CN translation, the .ts holds every tr() string of ui/ and app/gui/ (lupdate run here into
// a temporary file), and the language follows the system unless set.
#include <QAction>
#include <QAbstractProxyModel>
#include <QApplication>
#include <QFileSystemModel>
#include <QFile>
#include <QLibraryInfo>
#include <QLocale>
#include <QRegularExpression>
#include <QMenuBar>
#include <QProcess>
#include <fstream>
#include <QSet>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include "i18n/language.h"
#include "profile_file_dialog.h"
#include "analysis/analysis_controller.h"
#include "charts/charts_panel.h"
#include "mainwindow.h"
#include "test_paths.h"

using namespace msa::ui;

namespace {

struct TsMessage {
  QString context, source;
  QStringList translations;  // one, or the numerus forms
  bool unfinished = false;
};

QList<TsMessage> readTs(const QString& path, QString* error) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return *error = path + QStringLiteral(": cannot open"), QList<TsMessage>{};
  QList<TsMessage> out;
  QXmlStreamReader x(&f);
  QString context;
  TsMessage m;
  while (!x.atEnd()) {
    x.readNext();
    if (!x.isStartElement()) continue;
    if (x.name() == QLatin1String("name")) context = x.readElementText();
    else if (x.name() == QLatin1String("message")) m = TsMessage{context, {}, {}, false};
    else if (x.name() == QLatin1String("source")) m.source = x.readElementText();
    else if (x.name() == QLatin1String("translation")) {
      m.unfinished = x.attributes().value(QLatin1String("type")) == QLatin1String("unfinished");
      // Numerus forms are <numerusform> children; otherwise the text itself.
      QString text;
      QStringList forms;
      while (!(x.isEndElement() && x.name() == QLatin1String("translation")) && !x.atEnd()) {
        x.readNext();
        if (x.isStartElement() && x.name() == QLatin1String("numerusform")) forms << x.readElementText();
        else if (x.isCharacters()) text += x.text();
      }
      m.translations = forms.isEmpty() ? QStringList{text} : forms;
      out << m;
    }
  }
  if (x.hasError()) *error = path + QStringLiteral(": ") + x.errorString();
  return out;
}

QString tsPath(const char* lang) {
  return QString::fromStdString((msa::test::sourceDir() / "translations").string()) + QStringLiteral("/msadvisor_%1.ts").arg(QLatin1String(lang));
}

QStringList menuTitles(const QMainWindow& w) {
  QStringList out;
  for (QAction* a : w.menuBar()->actions()) out << a->text();
  return out;
}

}  // namespace

class TstTranslations : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QCoreApplication::setOrganizationName(QStringLiteral("msadvisor-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_translations"));
  }
  void cleanup() { installTranslators(QStringLiteral("en")); }
  void menusInChinese();
  void menusInEnglish();
  void everyStringTranslated();
  void tsIsUpToDate();
  void resolveLanguage_data();
  void resolveLanguage();
  void settingRoundTrip();
  void progressStagesInChinese();
  void qtsOwnTextsFollowTheLanguage();
};

void TstTranslations::menusInChinese() {
  QVERIFY(installTranslators(QStringLiteral("zh_CN")));
  QCOMPARE(currentLanguage(), QStringLiteral("zh_CN"));
  QCOMPARE(coreLanguage(), msa::Lang::Zh);
  MainWindow w(nullptr, false);
  const QStringList titles = menuTitles(w);
  QVERIFY2(titles.contains(QStringLiteral("文件(&F)")), qPrintable(titles.join(u' ')));
  QVERIFY2(titles.contains(QStringLiteral("视图(&V)")), qPrintable(titles.join(u' ')));
  QVERIFY2(titles.contains(QStringLiteral("帮助(&H)")), qPrintable(titles.join(u' ')));
  for (const QString& t : titles) QVERIFY2(!t.contains(QRegularExpression(QStringLiteral("^&?[A-Za-z]"))), qPrintable(t));
  QCOMPARE(w.charts()->parentWidget()->windowTitle(), QStringLiteral("图表"));
  // A collapsed block's count (the walk saw "layer1 14 nodes" in the Chinese window).
  QCOMPARE(QCoreApplication::translate("msa::ui::GraphScene", "%n node(s)", nullptr, 14), QStringLiteral("14 个节点"));
  // Qt's own translation (qtbase) is installed next to ours when the system has it.
  if (QFile::exists(QLibraryInfo::path(QLibraryInfo::TranslationsPath) + QStringLiteral("/qtbase_zh_CN.qm")))
    QCOMPARE(QCoreApplication::translate("QPlatformTheme", "Cancel"), QStringLiteral("取消"));
}

void TstTranslations::menusInEnglish() {
  QVERIFY(installTranslators(QStringLiteral("en")));
  MainWindow w(nullptr, false);
  const QStringList titles = menuTitles(w);
  QVERIFY2(titles.contains(QStringLiteral("&File")), qPrintable(titles.join(u' ')));
  QVERIFY(titles.contains(QStringLiteral("&View")));
  QCOMPARE(coreLanguage(), msa::Lang::En);
  QCOMPARE(QCoreApplication::translate("msa::ui::OpTimeChart", "other (%n types)", nullptr, 1), QStringLiteral("other (1 type)"));
  QCOMPARE(QCoreApplication::translate("msa::ui::GraphScene", "%n node(s)", nullptr, 1), QStringLiteral("1 node"));
  QCOMPARE(QCoreApplication::translate("msa::ui::GraphScene", "%n node(s)", nullptr, 14), QStringLiteral("14 nodes"));
  QVERIFY(!installTranslators(QStringLiteral("fr")));  // no such translation: English source texts
  QCOMPARE(currentLanguage(), QStringLiteral("en"));
}

void TstTranslations::everyStringTranslated() {
  QString error;
  const QList<TsMessage> zh = readTs(tsPath("zh_CN"), &error);
  QVERIFY2(error.isEmpty(), qPrintable(error));
  QVERIFY(zh.size() > 150);
  QStringList missing;
  static const QRegularExpression placeholder(QStringLiteral("%(\\d|n)"));
  for (const TsMessage& m : zh) {
    bool empty = m.translations.isEmpty();
    for (const QString& t : m.translations) empty = empty || t.trimmed().isEmpty();
    if (m.unfinished || empty) {
      missing << m.context + QStringLiteral(": ") + m.source;
      continue;
    }
    // Every placeholder of the source survives in the translation.
    auto it = placeholder.globalMatch(m.source);
    while (it.hasNext()) {
      const QString p = it.next().captured(0);
      for (const QString& t : m.translations)
        if (!t.contains(p)) missing << m.context + QStringLiteral(": ") + m.source + QStringLiteral(" (lost ") + p + u')';
    }
  }
  QVERIFY2(missing.isEmpty(), qPrintable(QStringLiteral("%1 untranslated in msadvisor_zh_CN.ts (run scripts/update-translations.sh and translate):\n")
                                              .arg(missing.size()) + missing.join(u'\n')));
}

void TstTranslations::tsIsUpToDate() {
  const QString lupdate = QStringLiteral(MSA_LUPDATE);
  if (!QFile::exists(lupdate)) QSKIP("lupdate not found");
  QTemporaryDir tmp;
  const QString src = QString::fromStdString(msa::test::sourceDir().string());
  const QString out = tmp.filePath(QStringLiteral("fresh.ts"));
  QProcess p;
  p.setWorkingDirectory(src);
  p.start(lupdate, {QStringLiteral("-silent"), QStringLiteral("-locations"), QStringLiteral("none"), QStringLiteral("-extensions"),
                    QStringLiteral("cpp,h"), QStringLiteral("ui"), QStringLiteral("app/gui"), QStringLiteral("-ts"), out});
  QVERIFY(p.waitForFinished(120000));
  QCOMPARE(p.exitCode(), 0);
  QString error;
  QSet<QString> fresh, committed;
  for (const TsMessage& m : readTs(out, &error)) fresh << m.context + u'\x1f' + m.source;
  QVERIFY2(error.isEmpty(), qPrintable(error));
  for (const TsMessage& m : readTs(tsPath("zh_CN"), &error)) committed << m.context + u'\x1f' + m.source;
  QStringList notInTs;
  for (const QString& k : fresh)
    if (!committed.contains(k)) notInTs << QString(k).replace(u'\x1f', QStringLiteral(": "));
  QVERIFY2(notInTs.isEmpty(), qPrintable(QStringLiteral("strings missing from the .ts (run scripts/update-translations.sh):\n") + notInTs.join(u'\n')));
}

void TstTranslations::resolveLanguage_data() {
  QTest::addColumn<QString>("setting");
  QTest::addColumn<QString>("system");
  QTest::addColumn<QString>("expected");
  QTest::newRow("system zh_CN") << QString() << QStringLiteral("zh_CN") << QStringLiteral("zh_CN");
  QTest::newRow("system zh_SG") << QString() << QStringLiteral("zh_SG") << QStringLiteral("zh_CN");
  QTest::newRow("system zh_TW") << QString() << QStringLiteral("zh_TW") << QStringLiteral("en");
  QTest::newRow("system en_US") << QString() << QStringLiteral("en_US") << QStringLiteral("en");
  QTest::newRow("system de_DE") << QString() << QStringLiteral("de_DE") << QStringLiteral("en");
  QTest::newRow("set en on zh") << QStringLiteral("en") << QStringLiteral("zh_CN") << QStringLiteral("en");
  QTest::newRow("set zh_CN on en") << QStringLiteral("zh_CN") << QStringLiteral("en_GB") << QStringLiteral("zh_CN");
  QTest::newRow("unknown setting") << QStringLiteral("fr") << QStringLiteral("zh_CN") << QStringLiteral("zh_CN");
}

void TstTranslations::resolveLanguage() {
  QFETCH(QString, setting);
  QFETCH(QString, system);
  QFETCH(QString, expected);
  QCOMPARE(msa::ui::resolveLanguage(setting, QLocale(system)), expected);
}

void TstTranslations::settingRoundTrip() {
  QSettings().remove(QLatin1String(kLanguageKey));
  QCOMPARE(languageSetting(), QString());
  setLanguageSetting(QStringLiteral("zh_CN"));
  QCOMPARE(languageSetting(), QStringLiteral("zh_CN"));
  setLanguageSetting(QString());
  QCOMPARE(languageSetting(), QString());
  QVERIFY(!QSettings().contains(QLatin1String(kLanguageKey)));
}

// The stages core reports are identifiers: shown as they were, Verify read "正在与原模型对比验证…
// (comparing outputs)" and a measured analysis "正在 CPU 上采集性能数据（逐算子）· latency".
// Qt's own dialogs speak the session's language too: qtbase's translations and the default
// locale (the file dialog showed "Folder", "Cancel" and "5 Dec" in a Chinese session).
void TstTranslations::qtsOwnTextsFollowTheLanguage() {
  QVERIFY(installTranslators(QStringLiteral("zh_CN")));
  const QRegularExpression latin(QStringLiteral("[A-Za-z]"));
  const QString cancel = QCoreApplication::translate("QPlatformTheme", "Cancel");
  QVERIFY2(!cancel.contains(latin), qPrintable(cancel));
  const QString date = QLocale().toString(QDate(2026, 12, 5), QStringLiteral("d MMM"));
  QVERIFY2(!date.contains(latin), qPrintable(date));
  // The file dialog's type column (Qt 6.4's zh_CN catalogue lacks it: ours answers) and its dates,
  // which Qt's file model writes in the system's locale (the dialog showed "Folder" and "6 Dec").
  const QString folder = QCoreApplication::translate("QAbstractFileIconProvider", "Folder", "All other platforms");
  QVERIFY2(!folder.contains(latin), qPrintable(folder));
  {
    msa::test::TempDir dir("dialog_dates");
    std::filesystem::create_directories(dir / "rank0_ascend_pt");
    std::ofstream(dir / "model.onnx") << "x";  // Qt's MIME database calls it "unknown"
    // As Compare With opens it: models first (the profile filters would hide model.onnx).
    ProfileFileDialog dialog(nullptr, QStringLiteral("t"), QString::fromStdString(dir.path().string()),
                             QStringLiteral("ONNX 模型 (*.onnx)"));
    auto* model = dialog.proxyModel();
    QVERIFY(model);
    auto* files = qobject_cast<QFileSystemModel*>(model->sourceModel());
    QVERIFY(files);
    const QModelIndex root = files->index(QString::fromStdString(dir.path().string()));
    QTRY_VERIFY(files->rowCount(root) > 0);
    const QModelIndex modified = model->mapFromSource(files->index(0, 3, root));
    const QString shown = modified.data().toString();
    QVERIFY2(!shown.isEmpty() && !shown.contains(latin), qPrintable(shown));
    QTRY_COMPARE(files->rowCount(root), 2);
    for (int row = 0; row < 2; ++row) {
      const QString type = model->mapFromSource(files->index(row, 2, root)).data().toString();
      const QString name = files->index(row, 0, root).data().toString();
      QVERIFY2(!type.contains(latin) || type.startsWith(QLatin1String("ONNX")), qPrintable(name + ": " + type));
      if (name == QLatin1String("model.onnx")) QCOMPARE(type, QStringLiteral("ONNX 模型"));
    }
    // Each importer's filter is named in Chinese (its patterns and product names stay as they are).
    const QRegularExpression han(QStringLiteral("\\p{Han}"));
    for (const QString& filter : dialog.nameFilters()) {
      const QString label = filter.left(filter.lastIndexOf(QLatin1String(" (")));
      QVERIFY2(label.contains(han), qPrintable(filter));
    }
  }
  QVERIFY(installTranslators(QStringLiteral("en")));
  QCOMPARE(QCoreApplication::translate("QPlatformTheme", "Cancel"), QStringLiteral("Cancel"));
  QVERIFY(QLocale().toString(QDate(2026, 12, 5), QStringLiteral("d MMM")).contains(QLatin1String("Dec")));
}

void TstTranslations::progressStagesInChinese() {
  QVERIFY(installTranslators(QStringLiteral("zh_CN")));
  const QRegularExpression latin(QStringLiteral("[A-Za-z]"));
  for (const char* id : {"comparing outputs", "latency", "inputs", "shapes", "ranking", "analysis", "loading"}) {
    const QString t = progressStageTitle(QLatin1String(id));
    QVERIFY2(!t.isEmpty() && !t.contains(latin), qPrintable(QLatin1String(id) + QStringLiteral(": ") + t));
  }
  QCOMPARE(progressStageTitle(QStringLiteral("rank 3")), QString());  // not named rather than shown raw
  for (const char* phase : {"profile-disabled|latency", "profile-all|profiling", "ranking", "rank 3"}) {
    const QString t = AnalysisController::phaseText(QLatin1String(phase));
    QVERIFY2(!t.contains(latin) || t.contains(QStringLiteral("CPU")), qPrintable(t));
    QVERIFY2(!t.contains(QStringLiteral("latency")) && !t.contains(QStringLiteral("rank")), qPrintable(t));
  }
  QVERIFY(installTranslators(QStringLiteral("en")));
  QCOMPARE(progressStageTitle(QStringLiteral("comparing outputs")), QStringLiteral("comparing outputs"));
}

QTEST_MAIN(TstTranslations)
#include "tst_translations.moc"

