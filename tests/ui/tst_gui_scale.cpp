// The main window with a generated 10,000-node language model (tests/tools): the first view
// shows its structure (the run of identical decoder layers drawn once, "×N", one layer open),
// blocks open and close, everything opens, an Ascend estimate runs, and through all of it the
// GUI thread never holds its event loop longer than 50 ms. The hold is measured in the GUI
// thread's own CPU time between the ticks of a 4 ms timer (event_loop_probe.h), so a machine
// busy with other work does not count against the application.
#include <QSignalSpy>
#include <QTest>

#include "advisor/advisor.h"
#include "analysis/analysis_settings.h"
#include "event_loop_probe.h"
#include "graph/graph_items.h"
#include "graph/graph_scene.h"
#include "graph/graph_view.h"
#include "graph/graph_widget.h"
#include "graph/model_document.h"
#include "large_models.h"
#include "mainwindow.h"
#include "sanitizers.h"
#include "test_paths.h"

using namespace msa;
using namespace msa::ui;

namespace {

// The holds are printed here; bench_graph_paint (tests/bench) measures them again with the paint
// benchmarks, for the 50 ms target. On a shared, loaded machine one event's CPU time varies
// by half (30-80 ms for the same analysis), and a unit test never carries a time limit. Set
// MSA_JUDGE_HOLDS=1 to judge them here too.
const bool kTimed = !test::kSanitized && qEnvironmentVariableIntValue("MSA_JUDGE_HOLDS") == 1;
constexpr double kMaxHoldMs = 50;

// Runs `action`, waits for `signal`, and returns the longest hold of the event loop meanwhile.
template <typename Signal, typename F>
double holdDuring(MainWindow* w, Signal signal, F&& action, int timeoutMs = 600000) {
  QSignalSpy spy(w, signal);
  test::EventLoopProbe probe;
  probe.start();
  action();
  const bool done = spy.wait(timeoutMs) || !spy.isEmpty();
  probe.stop();
  if (!done) return -1;
  qInfo("    held at most %.1f ms cpu (%.1f ms wall)", probe.maxCpuMs(), probe.maxWallMs());
  return probe.maxCpuMs();
}

void checkHold(double ms, const char* what) {
  QVERIFY2(ms >= 0, what);
  if (kTimed) QVERIFY2(ms <= kMaxHoldMs, qPrintable(QStringLiteral("%1: event loop held %2 ms").arg(QLatin1String(what)).arg(ms)));
}

}  // namespace

class TstGuiScale : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    m_dir = std::make_unique<test::TempDir>("gui_scale");
    m_spec = tools::llamaFor({10000, 0});
    auto w = tools::writeLlama(m_spec, {}, *m_dir / "llama10k.onnx");
    QVERIFY2(w.ok(), w.ok() ? "" : w.error().describe().c_str());
    m_file = QString::fromStdString(w->model.string());
    m_window = std::make_unique<MainWindow>(nullptr, false);
    m_window->setInteractive(false);
    m_window->resize(1500, 950);
    m_window->show();
  }

  // Import, shapes, drawable graph (worker), then layout and scene: a few hundred boxes, the
  // layers as one run drawn once with its count, not one box for the whole model.
  void firstViewShowsStructure() {
    const double hold = holdDuring(m_window.get(), &MainWindow::ready, [&] { m_window->openFile(m_file); });
    checkHold(hold, "open");
    GraphWidget* g = m_window->graphWidget();
    const ViewGraph& vg = *g->graph();
    const size_t boxes = g->scene()->boxes().size();
    qInfo("    %zu nodes, first view %zu boxes", vg.nodes().size(), boxes);
    QVERIFY(boxes >= 30 && boxes <= 400);
    int run = -1;
    for (size_t b = 0; b < vg.blocks().size(); ++b)
      if (vg.blocks()[b].repeat == m_spec.layers) run = static_cast<int>(b);
    QVERIFY2(run >= 0, "the decoder layers are one run");
    QVERIFY(vg.blocks()[static_cast<size_t>(run)].label.contains(QStringLiteral("×%1").arg(m_spec.layers)));
    // Drawn as a frame holding the first layer, open; no other layer has a box.
    bool framed = false;
    for (const FrameItem* f : g->scene()->frames()) framed = framed || f->block() == run;
    QVERIFY(framed);
    const int first = vg.blocks()[static_cast<size_t>(run)].children.front();
    QVERIFY(!g->collapseState()[static_cast<size_t>(first)]);
    for (const BoxItem* b : g->scene()->boxes()) {
      const VisibleItem& it = g->scene()->visibleGraph()->items[static_cast<size_t>(b->itemIndex())];
      if (it.kind == VisibleItem::Kind::Block) QVERIFY(vg.memberIndex(it.index) <= 0);
    }
    m_run = run;
  }

  void blocksOpenAndClose() {
    QVERIFY(m_run >= 0);
    GraphWidget* g = m_window->graphWidget();
    const ViewGraph& vg = *g->graph();
    const ScopeBlock& run = vg.blocks()[static_cast<size_t>(m_run)];
    const size_t open = g->scene()->boxes().size();
    checkHold(holdDuring(m_window.get(), &MainWindow::ready, [&] { g->setBlockCollapsed(run.children.front(), true); }), "collapse");
    QVERIFY(g->scene()->boxes().size() < open);
    checkHold(holdDuring(m_window.get(), &MainWindow::ready, [&] { g->setBlockCollapsed(run.children.front(), false); }), "expand");
    QCOMPARE(g->scene()->boxes().size(), open);
    // Every layer as a box, then one in the middle opened among them.
    checkHold(holdDuring(m_window.get(), &MainWindow::ready, [&] { g->setBlockCollapsed(m_run, false); }), "show every layer");
    size_t layerBoxes = 0;
    for (const BoxItem* b : g->scene()->boxes()) {
      const VisibleItem& it = g->scene()->visibleGraph()->items[static_cast<size_t>(b->itemIndex())];
      layerBoxes += it.kind == VisibleItem::Kind::Block && vg.memberIndex(it.index) >= 0;
    }
    QCOMPARE(static_cast<int>(layerBoxes), m_spec.layers);
    const int middle = run.children[run.children.size() / 2];
    checkHold(holdDuring(m_window.get(), &MainWindow::ready, [&] { g->setBlockCollapsed(middle, false); }), "expand a layer");
    QVERIFY(g->scene()->visibleGraph()->clusterOfBlock[static_cast<size_t>(middle)] >= 0);
  }

  void everythingOpens() {
    GraphWidget* g = m_window->graphWidget();
    checkHold(holdDuring(m_window.get(), &MainWindow::ready, [&] { g->expandAll(); }), "expand all");
    QCOMPARE(g->scene()->boxes().size(), g->graph()->nodes().size());
    // Pan and zoom over 10,000 boxes.
    GraphView* v = g->view();
    v->fitAll();
    (void)v->grab();
    // A mouse wheel from fit to 100 %: far out, the frames come from one image of the scene. The
    // GUI thread painted the first; each one the zoom needs after it is painted by a worker while
    // the previous one is shown (a whole-scene image held a step 20-40 ms).
    const GraphView::FarImageStats atFit = v->farImageStats();
    QVERIFY(atFit.onGuiThread >= 1);
    while (v->zoom() < 1.0) {
      v->zoomBy(1.2);
      (void)v->grab();
      QTRY_VERIFY(!v->farImageRendering());
      QCoreApplication::processEvents();
    }
    QCOMPARE(v->farImageStats().onGuiThread, atFit.onGuiThread);
    QVERIFY(v->farImageStats().inBackground >= 3);
    // Once it has landed an image in range is kept: another frame at the same zoom asks for none.
    v->fitAll();
    for (int i = 0; i < 3; ++i) {
      v->zoomBy(1.2);
      (void)v->grab();
      QTRY_VERIFY(!v->farImageRendering());
      QCoreApplication::processEvents();
    }
    const int landed = v->farImageStats().inBackground;
    (void)v->grab();
    QCoreApplication::processEvents();
    QVERIFY(!v->farImageRendering());
    QCOMPARE(v->farImageStats().inBackground, landed);
  }

  void ascendEstimate() {
    AnalysisSettings s;
    s.device = AnalysisSettings::Device::Estimate;
    s.deviceProfile = QStringLiteral("ascend910b");
    s.dims = {{QStringLiteral("batch"), 1}, {QStringLiteral("sequence"), 128}};
    s.cliProgram = QStringLiteral("/nonexistent/msadvisor-cli");  // an estimate needs no child
    const double hold = holdDuring(m_window.get(), &MainWindow::analysisFinished, [&] { m_window->runAnalysis(s); });
    checkHold(hold, "analysis");
    QVERIFY(m_window->report());
    QVERIFY(!m_window->report()->findings.empty());
  }

  void cleanupTestCase() { m_window.reset(); }

 private:
  std::unique_ptr<test::TempDir> m_dir;
  tools::LlamaSpec m_spec;
  QString m_file;
  std::unique_ptr<MainWindow> m_window;
  int m_run = -1;
};

QTEST_MAIN(TstGuiScale)
#include "tst_gui_scale.moc"
