// The main window on real models (offscreen): open, properties of a selected node, errors that
// name the file, and `msadvisor --screenshot` as a process.
#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileInfo>
#include <QMimeData>
#include <QSettings>
#include <QStandardPaths>
#include <QUrl>
#include <cmath>
#include <csignal>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QSet>
#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>

#include "graph/find_bar.h"
#include "graph/graph_scene.h"
#include "graph/graph_view.h"
#include "graph/graph_widget.h"
#include "mainwindow.h"
#include "test_paths.h"
#include "main_window_support.h"

using namespace msa;
using namespace msa::ui;

namespace {

// Every "key\tvalue" row of the properties tree.
QStringList rows(const QTreeWidget* t) {
  QStringList out;
  for (int i = 0; i < t->topLevelItemCount(); ++i) {
    const QTreeWidgetItem* s = t->topLevelItem(i);
    for (int j = 0; j < s->childCount(); ++j) out << s->child(j)->text(0) + QLatin1Char('\t') + s->child(j)->text(1);
  }
  return out;
}

}  // namespace

class TstMainWindow : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    if (!test::hasCorpus()) QSKIP("no model corpus");
  }
  void opensAndShowsProperties();
  void heatmapChoices();
  void loadErrorsNameTheFile_data();
  void loadErrorsNameTheFile();
  void menusDriveTheGraph();
  void dropAndRecentFiles();
  void settingsSurviveACrash();
  void screenshot_data();
  void screenshot();
  void screenshotFailsCleanly();
};

void TstMainWindow::opensAndShowsProperties() {
  MainWindow w(nullptr, false);
  w.setInteractive(false);
  w.resize(1400, 900);
  w.show();
  QSignalSpy ready(&w, &MainWindow::ready);
  w.openFile(test::corpusPath("resnet18.onnx"));
  QVERIFY(ready.wait(120000));
  QVERIFY(w.windowTitle().startsWith(QStringLiteral("resnet18.onnx")));
  auto* props = qobject_cast<QTreeWidget*>(w.panel(MainWindow::Panel::Properties)->widget());
  QVERIFY(props);
  QVERIFY(rows(props).join(QLatin1Char('\n')).contains(QStringLiteral("parameters\t11.7\u202fM")));
  // Selecting a node shows its attributes and the dtype and shape of inputs and outputs.
  w.graphWidget()->selectNodes({QStringLiteral("/layer1/layer1.0/conv1/Conv")});
  const QString text = rows(props).join(QLatin1Char('\n'));
  QVERIFY2(text.contains(QStringLiteral("op type\tConv")), qPrintable(text));
  QVERIFY2(text.contains(QStringLiteral("kernel_shape\t[3, 3]")), qPrintable(text));
  QVERIFY2(text.contains(QStringLiteral("#1\tweight float [64×64×3×3]  ·  layer1.0.conv1.weight")), qPrintable(text));
  QVERIFY2(text.contains(QStringLiteral("#0\tfloat [1×64×56×56]  ·  /maxpool/MaxPool_output_0")), qPrintable(text));
  // Two nodes: a summary by op type.
  w.graphWidget()->selectNodes({QStringLiteral("/layer1/layer1.0/conv1/Conv"), QStringLiteral("/layer1/layer1.0/relu/Relu")});
  QVERIFY(rows(props).contains(QStringLiteral("Conv\t1")));
}

void TstMainWindow::heatmapChoices() {
  MainWindow w(nullptr, false);
  w.setInteractive(false);
  w.show();
  QSignalSpy ready(&w, &MainWindow::ready);
  w.openFile(test::corpusPath("squeezenet1_1.onnx"));
  QVERIFY(ready.wait(120000));
  // The cost model's time estimate is the default heatmap; every Conv has a value.
  QVERIFY(w.graphWidget()->metric());
  QCOMPARE(w.graphWidget()->metric()->name, QStringLiteral("Estimated time"));
  QCOMPARE(w.graphWidget()->metric()->unit, QStringLiteral("ms"));
  const QString conv = QStringLiteral("/features/features.0/Conv");
  QVERIFY(w.graphWidget()->metric()->values.value(conv) > 0);
  QVERIFY(w.graphWidget()->scene()->boxOfNode(conv)->heat());
  QVERIFY(w.selectHeatmap(QStringLiteral("FLOPs")));
  // 3x3 conv, 3 -> 64 channels, stride 2 on 224x224 (111x111 out): 2 * 64*111*111 * 27 FLOPs + bias.
  const double flops = w.graphWidget()->metric()->values.value(conv);
  QVERIFY2(std::abs(flops - 2.0 * 64 * 111 * 111 * 27) / flops < 0.03, qPrintable(QString::number(flops)));
  QVERIFY(w.selectHeatmap(QStringLiteral("Parameters")));
  QVERIFY(w.graphWidget()->metric());
  QCOMPARE(w.graphWidget()->metric()->name, QStringLiteral("Parameters"));
  int hot = 0;
  for (BoxItem* b : w.graphWidget()->scene()->boxes()) hot += b->heat().has_value();
  QCOMPARE(hot, 26);  // 26 Convs read weights in SqueezeNet 1.1
  QVERIFY(!w.selectHeatmap(QStringLiteral("no such metric")));
  NodeMetric est{QStringLiteral("Estimated time"), QStringLiteral("ms"), {{QStringLiteral("/features/features.0/Conv"), 0.8}}, {}};
  w.addHeatmapMetric(est, true);
  QCOMPARE(w.graphWidget()->metric()->name, QStringLiteral("Estimated time"));
  QVERIFY(w.selectHeatmap(QStringLiteral("none")));
  QVERIFY(!w.graphWidget()->metric());
}

namespace {
QAction* action(QWidget* w, const QString& text) {
  for (QAction* a : w->findChildren<QAction*>())
    if (a->text().remove(QLatin1Char('&')) == text) return a;
  return nullptr;
}
}  // namespace

void TstMainWindow::menusDriveTheGraph() {
  MainWindow w(nullptr, false);
  w.setInteractive(false);
  w.resize(1400, 900);
  w.show();
  QSignalSpy ready(&w, &MainWindow::ready);
  w.openFile(test::corpusPath("resnet18.onnx"));
  QVERIFY(ready.wait(120000));
  const size_t open = w.graphWidget()->scene()->boxes().size();
  QAction* collapseAll = action(&w, QStringLiteral("Collapse All Blocks"));
  QVERIFY(collapseAll && collapseAll->isEnabled());
  collapseAll->trigger();
  QVERIFY(ready.wait(60000));
  QVERIFY(w.graphWidget()->scene()->boxes().size() < open / 3);  // stem, four layers, head
  // Expand Block applies to the selection: select a node hidden in a block, open it.
  w.graphWidget()->selectNodes({QStringLiteral("/layer2/layer2.1/conv2/Conv")});
  QAction* expand = action(&w, QStringLiteral("Expand Block"));
  QVERIFY(expand->isEnabled());
  expand->trigger();
  QVERIFY(ready.wait(60000));
  QCOMPARE(w.graphWidget()->scene()->boxOfNode(QStringLiteral("/layer2/layer2.1/conv2/Conv"))->kind(), BoxItem::Kind::Op);
  QAction* collapse = action(&w, QStringLiteral("Collapse Block"));
  QVERIFY(collapse->isEnabled());
  collapse->trigger();
  QVERIFY(ready.wait(60000));
  QCOMPARE(w.graphWidget()->scene()->boxOfNode(QStringLiteral("/layer2/layer2.1/conv2/Conv"))->kind(), BoxItem::Kind::Block);
  // Show Shapes and Find.
  QAction* shapes = action(&w, QStringLiteral("Show Shapes"));
  shapes->setChecked(false);
  QVERIFY(!w.graphWidget()->showShapes());
  shapes->setChecked(true);
  QVERIFY(w.graphWidget()->showShapes());
  action(&w, QStringLiteral("Find…"))->trigger();
  QVERIFY(w.graphWidget()->findBar()->isVisible());
  // Zoom actions change the zoom; Fit brings the whole graph in view.
  const double z = w.graphWidget()->view()->zoom();
  action(&w, QStringLiteral("Zoom In"))->trigger();
  QVERIFY(w.graphWidget()->view()->zoom() > z);
  action(&w, QStringLiteral("Fit to Window"))->trigger();
  const QRectF visible = w.graphWidget()->view()->mapToScene(w.graphWidget()->view()->viewport()->rect()).boundingRect();
  QVERIFY(visible.contains(w.graphWidget()->scene()->itemsBoundingRect().adjusted(2, 2, -2, -2)));
}

void TstMainWindow::dropAndRecentFiles() {
  // A persistent window, with settings and caches in Qt's test locations.
  QStandardPaths::setTestModeEnabled(true);
  QSettings().remove(QStringLiteral("recentFiles"));
  const QString model = test::corpusPath("squeezenet1_1.onnx");
  {
    MainWindow w;
    w.setInteractive(false);
    w.show();
    QSignalSpy loaded(&w, &MainWindow::documentLoaded);
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(model)});
    QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &drop);
    QVERIFY(loaded.wait(120000));
    QCOMPARE(loaded.at(0).at(0).toString(), QFileInfo(model).absoluteFilePath());
    // Not a model: refused.
    QMimeData text;
    text.setUrls({QUrl::fromLocalFile(QStringLiteral("/tmp/notes.txt"))});
    QDragEnterEvent other(QPoint(50, 50), Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
    other.setAccepted(false);
    QApplication::sendEvent(&w, &other);
    QVERIFY(!other.isAccepted());
    w.close();  // writes geometry and state
  }
  QCOMPARE(QSettings().value(QStringLiteral("recentFiles")).toStringList().value(0), QFileInfo(model).absoluteFilePath());
  QVERIFY(!QSettings().value(QStringLiteral("window/state")).toByteArray().isEmpty());
  MainWindow again;
  QAction* recent = action(&again, QStringLiteral("squeezenet1_1.onnx"));
  QVERIFY(recent);
  QSignalSpy loaded(&again, &MainWindow::documentLoaded);
  recent->trigger();
  QVERIFY(loaded.wait(120000));
  QStandardPaths::setTestModeEnabled(false);
}

// The recent-files list is on disk as soon as a model opened: a GUI killed afterwards (a crash,
// a power cut) loses nothing of it.
void TstMainWindow::settingsSurviveACrash() {
  const QString model = test::corpusPath("squeezenet1_1.onnx");
  test::TempDir dir("crash-settings");
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("XDG_CONFIG_HOME"), QString::fromStdString((dir / "config").string()));
  env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  QProcess gui;
  gui.setProcessEnvironment(env);
  gui.start(QStringLiteral(MSA_GUI_BINARY), {model});
  QVERIFY(gui.waitForStarted());
  const QString conf = QString::fromStdString((dir / "config" / "msadvisor" / "msadvisor.conf").string());
  const auto onDisk = [&] {
    QFile f(conf);
    return f.open(QIODevice::ReadOnly) && f.readAll().contains("squeezenet1_1.onnx");
  };
  QTRY_VERIFY_WITH_TIMEOUT(onDisk(), 120000);
  ::kill(static_cast<pid_t>(gui.processId()), SIGKILL);
  QVERIFY(gui.waitForFinished(30000));
  QCOMPARE(gui.exitStatus(), QProcess::CrashExit);
  QSettings written(conf, QSettings::IniFormat);
  QCOMPARE(written.value(QStringLiteral("recentFiles")).toStringList().value(0), QFileInfo(model).absoluteFilePath());
}

void TstMainWindow::loadErrorsNameTheFile_data() {
  QTest::addColumn<QByteArray>("content");  // empty: the file does not exist
  QTest::addColumn<QString>("fragment");
  QTest::newRow("missing") << QByteArray() << "missing.onnx";
  QTest::newRow("garbage") << QByteArray("this is not a protobuf \x01\x02\x03", 26) << "garbage.onnx";
}

void TstMainWindow::loadErrorsNameTheFile() {
  QFETCH(QByteArray, content);
  QFETCH(QString, fragment);
  test::TempDir dir(QTest::currentDataTag());
  const QString path = QString::fromStdString((dir / fragment.toStdString()).string());
  if (!content.isEmpty()) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(content);
  }
  MainWindow w(nullptr, false);
  w.setInteractive(false);
  QSignalSpy failed(&w, &MainWindow::loadFailed);
  w.openFile(path);
  QVERIFY(failed.wait(30000));
  QVERIFY2(failed.at(0).at(1).toString().contains(fragment), qPrintable(failed.at(0).at(1).toString()));
  QVERIFY(!w.document());
}

void TstMainWindow::screenshot_data() {
  QTest::addColumn<QString>("model");
  QTest::addColumn<QStringList>("extra");
  QTest::newRow("resnet18") << "resnet18.onnx" << QStringList{};
  QTest::newRow("vit heatmap") << "vit_ti_16.onnx" << QStringList{QStringLiteral("--heatmap"), QStringLiteral("FLOPs")};
}

void TstMainWindow::screenshot() {
  QFETCH(QString, model);
  QFETCH(QStringList, extra);
  test::TempDir dir(QTest::currentDataTag());
  const QString out = QString::fromStdString((dir / "shot.png").string());
  QProcess p;
  p.start(QStringLiteral(MSA_GUI_BINARY), QStringList{QStringLiteral("--screenshot"), out, QStringLiteral("--size"),
                                                      QStringLiteral("1200x800"), test::corpusPath(model.toLatin1().constData())} + extra);
  QVERIFY(p.waitForFinished(180000));
  QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
  const QImage img(out);
  QCOMPARE(img.size(), QSize(1200, 800));
  // Non-trivial: many colours (text, category bars, heat ramp), and far from a blank canvas.
  QSet<QRgb> colours;
  int background = 0;
  const QRgb bg = qRgb(0xf6, 0xf7, 0xf9);
  for (int y = 0; y < img.height(); y += 3)
    for (int x = 0; x < img.width(); x += 3) {
      const QRgb c = img.pixel(x, y);
      colours.insert(c);
      background += c == bg;
    }
  QVERIFY2(colours.size() > 300, qPrintable(QString::number(colours.size())));
  QVERIFY(background < img.width() * img.height() / 9 * 8 / 10);
}

void TstMainWindow::screenshotFailsCleanly() {
  QProcess p;
  p.start(QStringLiteral(MSA_GUI_BINARY), {QStringLiteral("--screenshot"), QStringLiteral("/nonexistent/out.png"),
                                           QStringLiteral("/nonexistent/model.onnx")});
  QVERIFY(p.waitForFinished(60000));
  QCOMPARE(p.exitCode(), 2);
  QVERIFY(p.readAllStandardError().contains("/nonexistent/model.onnx"));
  p.start(QStringLiteral(MSA_GUI_BINARY), {QStringLiteral("--screenshot"), QStringLiteral("x.png")});
  QVERIFY(p.waitForFinished(60000));
  QCOMPARE(p.exitCode(), 1);
}

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("msadvisor-tests"));
  QApplication::setApplicationName(QStringLiteral("tst_mainwindow"));
  TstMainWindow t;
  return QTest::qExec(&t, argc, argv);
}
#include "tst_mainwindow.moc"
