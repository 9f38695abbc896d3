// msadvisor: the desktop application. Thin: options, then the main window or a screenshot.
#include <QApplication>
#include <QCommandLineParser>
#include <QLocale>
#include <cstdio>
#include <csignal>
#include <cstring>

#include "i18n/language.h"
#include "mainwindow.h"
#include "mainwindow_screenshot.h"
#include "allocator_options.h"

int main(int argc, char** argv) {
  msa::app::fitAllocatorToLimits(argv);
  std::signal(SIGXFSZ, SIG_IGN);  // a file-size limit fails the write (reported), not the process
  bool screenshot = false;
  for (int i = 1; i < argc; ++i) screenshot = screenshot || std::strcmp(argv[i], "--screenshot") == 0;
  if (screenshot && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");

  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("msadvisor"));
  QApplication::setApplicationName(QStringLiteral("msadvisor"));
  QApplication::setApplicationVersion(QStringLiteral(MSA_VERSION));
  // The language follows the system unless chosen (View > Language, or --language for one run).
  QString language = msa::ui::languageSetting();
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], "--language") == 0) language = QString::fromLocal8Bit(argv[i + 1]);
  msa::ui::installTranslators(msa::ui::resolveLanguage(language, QLocale::system()));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Model optimization advisor for ONNX models"));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(QStringLiteral("model"), QStringLiteral("ONNX model, or a profile (a profiler's folder or file) to open"),
                               QStringLiteral("[MODEL]"));
  const QCommandLineOption shotOpt(QStringLiteral("screenshot"),
                                   QStringLiteral("Render the window offscreen after loading MODEL into OUT.png and exit."),
                                   QStringLiteral("OUT.png"));
  const QCommandLineOption sizeOpt(QStringLiteral("size"), QStringLiteral("Screenshot size (default 1600x1000)."),
                                   QStringLiteral("WxH"), QStringLiteral("1600x1000"));
  const QCommandLineOption heatOpt(QStringLiteral("heatmap"),
                                   QStringLiteral("Heatmap for the screenshot: \"Estimated time\" (default), \"FLOPs\", "
                                                  "\"Memory traffic\", \"Parameters\" or \"none\"."),
                                   QStringLiteral("METRIC"));
  const QCommandLineOption expandOpt(QStringLiteral("expand-all"), QStringLiteral("Screenshot with every block expanded."));
  const QCommandLineOption analyzeOpt(QStringLiteral("analyze"),
                                      QStringLiteral("Analyse MODEL as soon as it is drawn, with the last analysis settings (the "
                                                     "CPU, profiled by msadvisor-cli, on a first run); with --screenshot: "
                                                     "analyse on the CPU before capturing."));
  const QCommandLineOption selectOpt(QStringLiteral("select"),
                                     QStringLiteral("With --analyze: select a finding by id or by rank (1 = the top bottleneck)."),
                                     QStringLiteral("FINDING"));
  const QCommandLineOption iterOpt(QStringLiteral("iterations"), QStringLiteral("With --analyze: timed runs per profile (default 10)."),
                                   QStringLiteral("N"), QStringLiteral("10"));
  const QCommandLineOption langOpt(QStringLiteral("language"), QStringLiteral("UI language for this run: en or zh_CN."),
                                   QStringLiteral("LANG"));
  parser.addOptions({shotOpt, sizeOpt, heatOpt, expandOpt, analyzeOpt, selectOpt, iterOpt, langOpt});
  parser.process(app);
  const QStringList models = parser.positionalArguments();
  if (models.size() > 1) {
    std::fprintf(stderr, "msadvisor: one model at a time\n");
    return 1;
  }

  if (parser.isSet(shotOpt)) {
    msa::ui::ScreenshotOptions o;
    o.output = parser.value(shotOpt);
    if (models.isEmpty()) {
      std::fprintf(stderr, "msadvisor: --screenshot needs a MODEL\n");
      return 1;
    }
    o.model = models.front();
    const QStringList wh = parser.value(sizeOpt).split(QLatin1Char('x'));
    const int w = wh.value(0).toInt(), h = wh.value(1).toInt();
    if (wh.size() != 2 || w < 200 || h < 150 || w > 8000 || h > 8000) {
      std::fprintf(stderr, "msadvisor: --size expects WxH between 200x150 and 8000x8000\n");
      return 1;
    }
    o.size = QSize(w, h);
    o.heatmap = parser.value(heatOpt);
    o.expandAll = parser.isSet(expandOpt);
    o.analyze = parser.isSet(analyzeOpt);
    o.select = parser.value(selectOpt);
    if (!o.select.isEmpty() && !o.analyze) {
      std::fprintf(stderr, "msadvisor: --select needs --analyze\n");
      return 1;
    }
    bool iterOk = false;
    o.analysis.iterations = parser.value(iterOpt).toInt(&iterOk);
    if (!iterOk || o.analysis.iterations < 1 || o.analysis.iterations > 100000) {
      std::fprintf(stderr, "msadvisor: --iterations expects a positive number\n");
      return 1;
    }
    return msa::ui::runScreenshot(o);
  }

  msa::ui::MainWindow window;
  window.show();
  if (!models.isEmpty()) {
    // scripts/run-example.sh opens the example this way: the product's main job under way at once.
    if (parser.isSet(analyzeOpt))
      QObject::connect(&window, &msa::ui::MainWindow::ready, &window, [&window] { window.runAnalysis(window.analysisSettings()); },
                       Qt::SingleShotConnection);
    window.openFile(models.front());
  }
  return app.exec();
}
