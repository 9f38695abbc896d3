// Time to first paint of the graph view for transformer-like graphs of ~3,000 and ~10,000 nodes,
// next to the `dot` binary (`dot -Tplain`) on the same graph, measured in the same run; then the
// generated language models (tests/tools) from the file on: open -> first paint, block expand and
// collapse, expand all, pan and zoom frames, and the longest the GUI thread's event loop was held.
//
//   bench_graph_paint [NODES...] [--llama N,N...]   (default: 3000 10000 --llama 10000,50000)
//   MSA_BENCH_DOT_TIMEOUT=seconds        cap for each dot run (default 300)
//
// Rows per graph:
//   first paint, cold     model in memory -> ViewGraph -> default collapse -> layout -> scene -> painted
//   first paint, reopen   the same with the layout cache on disk from the previous session
//   dot -Tplain, collapsed the `dot` binary on the graph first paint lays out (same attributes)
//   full graph, ours      every block open, laid out in process with our tuned attributes
//   scene items           building the scene for the full graph (GUI thread)
//   repaint, full graph   one frame of the view with every box in the scene (level of detail)
//   dot -Tplain, tuned    the `dot` binary on the full graph with those attributes
//   dot -Tplain, defaults the `dot` binary on the full graph as a plain viewer would run it
#include <sys/resource.h>

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <cstdio>

#include "graph/graph_layout.h"
#include "graph/graph_scene.h"
#include "graph/graph_view.h"
#include "graph/graph_widget.h"
#include "graph/layout_cache.h"
#include "graph/compound_layout.h"
#include "graph/model_document.h"
#include "graph/view_graph.h"
#include "graph/visible_graph.h"
#include "event_loop_probe.h"
#include "large_models.h"
#include "synthetic_graphs.h"

using namespace msa;
using namespace msa::ui;

namespace {

struct DotRun {
  double seconds = 0;
  bool finished = false;
  QString note;
};

// Runs `dot -Tplain` on a file with the same stack allowance our layout thread has.
DotRun runDot(const QString& file, int timeoutSeconds) {
  QProcess p;
  p.setChildProcessModifier([] {
    rlimit rl{1024ul << 20, 1024ul << 20};
    setrlimit(RLIMIT_STACK, &rl);
  });
  p.setStandardOutputFile(QProcess::nullDevice());
  QElapsedTimer t;
  t.start();
  p.start(QStringLiteral("dot"), {QStringLiteral("-Tplain"), file});
  if (!p.waitForStarted(10000)) return {0, false, QStringLiteral("dot not found")};
  DotRun r;
  r.finished = p.waitForFinished(timeoutSeconds * 1000);
  r.seconds = static_cast<double>(t.nsecsElapsed()) / 1e9;
  if (!r.finished) {
    p.kill();
    p.waitForFinished();
    r.note = QStringLiteral("> %1 s, stopped").arg(timeoutSeconds);
  } else if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
    r.finished = false;
    r.note = QStringLiteral("failed (exit %1): %2").arg(p.exitCode()).arg(QString::fromLocal8Bit(p.readAllStandardError()).left(120));
  }
  return r;
}

void writeFile(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  if (f.open(QIODevice::WriteOnly)) f.write(bytes);
}

// The DOT a plain viewer would hand to Graphviz: the same nodes, sizes, clusters and edges
// without our tuning attributes.
QByteArray withDefaults(QByteArray dot) {
  const qsizetype a = dot.indexOf("graph [");
  const qsizetype b = dot.indexOf("];", a);
  return dot.replace(a, b - a + 2, "graph [rankdir=\"TB\"];");
}

struct Paint {
  double seconds = 0;
  double layoutSeconds = 0;
  bool fromCache = false;
  size_t boxes = 0;
};

// Model in memory -> pixels: what the user waits for after the file is read.
Paint firstPaint(const Model& model, std::shared_ptr<LayoutCache> cache) {
  QElapsedTimer t;
  t.start();
  GraphWidget w;
  w.setLayoutCache(std::move(cache));
  w.resize(1400, 900);
  w.show();
  QSignalSpy ready(&w, &GraphWidget::contentReady);
  QSignalSpy finished(&w, &GraphWidget::layoutFinished);
  w.setGraph(std::make_shared<const ViewGraph>(ViewGraph::build(model.graph)));
  if (!QTest::qWaitFor([&] { return !ready.isEmpty(); }, 1800 * 1000)) return {};
  (void)w.grab();  // the first paint of the view, minimap and legend
  Paint p;
  p.seconds = static_cast<double>(t.nsecsElapsed()) / 1e9;
  p.layoutSeconds = finished.at(0).at(0).toDouble();
  p.fromCache = finished.at(0).at(1).toBool();
  p.boxes = w.scene()->boxes().size();
  return p;
}

QString secs(double s) { return QString::number(s, 'f', s < 10 ? 2 : 1) + QStringLiteral(" s"); }

void row(const char* what, const QString& value, const QString& note = {}) {
  std::printf("  %-26s %14s   %s\n", what, qPrintable(value), qPrintable(note));
}

double cpuSeconds() {  // this process and its waited-for children (shape inference runs in one)
  double s = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage u{};
    getrusage(who, &u);
    s += static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
  }
  return s;
}

// One step of the view: from the request to the painted result, wall and CPU time, and how long
// the GUI thread held its event loop at most meanwhile.
struct Step {
  double seconds = 0, cpu = 0, holdMs = 0, holdWallMs = 0;
  size_t boxes = 0;
  bool ok = false;
};

template <typename F>
Step timedStep(GraphWidget& w, F&& action) {
  QSignalSpy ready(&w, &GraphWidget::contentReady);
  test::EventLoopProbe probe;
  QElapsedTimer t;
  const double c0 = cpuSeconds();
  t.start();
  probe.start();
  action();
  Step s;
  s.ok = ready.wait(600 * 1000) || !ready.isEmpty();
  (void)w.grab();
  probe.stop();
  s.seconds = static_cast<double>(t.nsecsElapsed()) / 1e9;
  s.cpu = cpuSeconds() - c0;
  s.holdMs = probe.maxCpuMs();
  s.holdWallMs = probe.maxWallMs();
  s.boxes = w.scene()->boxes().size();
  return s;
}

QString stepText(const Step& s) {
  return QStringLiteral("%1 boxes; cpu %2 s; event loop held <= %3 ms (wall %4 ms)")
      .arg(s.boxes)
      .arg(s.cpu, 0, 'f', 2)
      .arg(s.holdMs, 0, 'f', 0)
      .arg(s.holdWallMs, 0, 'f', 0);
}

// Frame times of the view: at fit, 30 % and 100 % (the mean of 5 after one to settle), a pan at
// each, and the zoom steps of a mouse wheel from fit to 100 % (mean and worst). The GUI thread's
// CPU time per frame next to the wall time: on a shared machine the wall time includes waiting
// for a core.
struct FrameTime {
  double wall = 0, cpu = 0;
};

void frameRows(GraphView& view) {
  auto timeIt = [](auto&& f, int n) {
    QElapsedTimer ft;
    const double c0 = test::EventLoopProbe::threadCpuMs();
    ft.start();
    for (int i = 0; i < n; ++i) f(i);
    return FrameTime{static_cast<double>(ft.nsecsElapsed()) / n / 1e6, (test::EventLoopProbe::threadCpuMs() - c0) / n};
  };
  auto still = [&] {
    (void)view.grab();
    return timeIt([&](int) { (void)view.grab(); }, 5);
  };
  auto pan = [&] {
    return timeIt([&](int i) {
      view.translate(i % 2 ? 90 : -120, i % 2 ? 60 : -80);
      (void)view.grab();
    }, 10);
  };
  view.fitAll();
  const FrameTime fit = still(), fitPan = pan();
  view.setZoom(0.3);
  const FrameTime mid = still(), midPan = pan();
  view.setZoom(1.0);
  const FrameTime near = still(), nearPan = pan();
  view.fitAll();
  (void)view.grab();
  FrameTime worst, sum;
  int steps = 0;
  const GraphView::FarImageStats before = view.farImageStats();
  while (view.zoom() < 1.0) {
    const FrameTime t = timeIt([&](int) {
      view.zoomBy(1.2);
      (void)view.grab();
    }, 1);
    // The next notch of a wheel a frame later: what the event loop does in between (a worker's
    // far image landing) is not the step's.
    QElapsedTimer gap;
    gap.start();
    while (gap.elapsed() < 16) QCoreApplication::processEvents(QEventLoop::AllEvents, 4);
    worst.wall = std::max(worst.wall, t.wall);
    worst.cpu = std::max(worst.cpu, t.cpu);
    sum.wall += t.wall;
    sum.cpu += t.cpu;
    ++steps;
  }
  auto ms = [](const FrameTime& t) { return QStringLiteral("%1 ms (cpu %2)").arg(t.wall, 0, 'f', 1).arg(t.cpu, 0, 'f', 1); };
  const double worstStill = std::max({fit.cpu, mid.cpu, near.cpu}), worstPan = std::max({fitPan.cpu, midPan.cpu, nearPan.cpu});
  row("frame: fit / 30% / 100%", QStringLiteral("%1 ms cpu").arg(worstStill, 0, 'f', 1),
      QStringLiteral("fit %1, 30 % %2, 100 % %3 (target 16 ms)").arg(ms(fit), ms(mid), ms(near)));
  row("frame: pan", QStringLiteral("%1 ms cpu").arg(worstPan, 0, 'f', 1),
      QStringLiteral("fit %1, 30 % %2, 100 % %3").arg(ms(fitPan), ms(midPan), ms(nearPan)));
  row("frame: wheel zoom", QStringLiteral("%1 ms cpu").arg(sum.cpu / std::max(1, steps), 0, 'f', 1),
      QStringLiteral("%1 steps fit -> 100 %, mean %2 ms wall; worst %3; far images: %4 on the GUI thread, %5 by a worker")
          .arg(steps).arg(sum.wall / std::max(1, steps), 0, 'f', 1).arg(ms(worst))
          .arg(view.farImageStats().onGuiThread - before.onGuiThread).arg(view.farImageStats().inBackground - before.inBackground));
}

// A generated Llama-like decoder, from the file on, as a user meets it.
void languageModel(int nodes, const QString& dir, int dotTimeout) {
  tools::WriteOptions o;
  const tools::LlamaSpec spec = tools::llamaFor({nodes, 0});
  const std::string file = (dir + QStringLiteral("/llama_%1.onnx").arg(nodes)).toStdString();
  auto written = tools::writeLlama(spec, o, file);
  if (!written) {
    std::printf("\nllama %d: cannot write: %s\n", nodes, written.error().describe().c_str());
    return;
  }
  std::printf("\nllama decoder, %d layers: %lld nodes, file %.0f MB\n", spec.layers, static_cast<long long>(written->nodes),
              static_cast<double>(written->modelFileBytes) / 1e6);
  // 1. Open -> first paint: file, shapes, drawable graph, metrics (worker), then layout and scene.
  QElapsedTimer t;
  t.start();
  const double c0 = cpuSeconds();
  auto doc = loadDocument(QString::fromStdString(file));
  const double loadSeconds = static_cast<double>(t.nsecsElapsed()) / 1e9, loadCpu = cpuSeconds() - c0;
  if (!doc) {
    std::printf("  load failed: %s\n", doc.error().describe().c_str());
    return;
  }
  GraphWidget w;
  w.setLayoutCache(std::make_shared<LayoutCache>());
  w.resize(1400, 900);
  w.show();
  clearLevelCache();
  const Step first = timedStep(w, [&] { w.setGraph(doc->graph); });
  row("open: load (worker)", secs(loadSeconds), QStringLiteral("cpu %1 s: import, shapes, view graph, cost metrics").arg(loadCpu, 0, 'f', 2));
  row("open: first paint", secs(loadSeconds + first.seconds),
      QStringLiteral("target 3 s; view %1 s, %2").arg(first.seconds, 0, 'f', 2).arg(stepText(first)));
  const ViewGraph& vg = *doc->graph;
  int run = -1;
  for (size_t b = 0; b < vg.blocks().size(); ++b)
    if (vg.blocks()[b].repeat > 0 && (run < 0 || vg.blocks()[b].totalNodes > vg.blocks()[static_cast<size_t>(run)].totalNodes))
      run = static_cast<int>(b);
  if (run >= 0) {
    const ScopeBlock& r = vg.blocks()[static_cast<size_t>(run)];
    std::printf("  repeated blocks: %s (%d nodes) drawn once\n", qPrintable(r.label), r.totalNodes);
    const int first = r.children.front();
    const int middle = r.children[r.children.size() / 2];
    const Step collapse = timedStep(w, [&] { w.setBlockCollapsed(first, true); });
    row("block collapse", QStringLiteral("%1 ms").arg(collapse.seconds * 1e3, 0, 'f', 0), stepText(collapse) + QStringLiteral(" (target 200 ms)"));
    const Step expand = timedStep(w, [&] { w.setBlockCollapsed(first, false); });
    row("block expand", QStringLiteral("%1 ms").arg(expand.seconds * 1e3, 0, 'f', 0), stepText(expand) + QStringLiteral(" (target 200 ms)"));
    const Step unfold = timedStep(w, [&] { w.setBlockCollapsed(run, false); });
    row("show every layer", QStringLiteral("%1 ms").arg(unfold.seconds * 1e3, 0, 'f', 0), stepText(unfold));
    const Step inner = timedStep(w, [&] { w.setBlockCollapsed(middle, false); });
    row("expand one layer among all", QStringLiteral("%1 ms").arg(inner.seconds * 1e3, 0, 'f', 0), stepText(inner) + QStringLiteral(" (target 200 ms)"));
    const Step back = timedStep(w, [&] { w.setBlockCollapsed(middle, true); });
    row("collapse it again", QStringLiteral("%1 ms").arg(back.seconds * 1e3, 0, 'f', 0), stepText(back) + QStringLiteral(" (target 200 ms)"));
  }
  if (nodes > 20000) return;  // everything open at 50k nodes is no target
  clearLevelCache();
  const Step all = timedStep(w, [&] { w.expandAll(); });
  const CompoundStats stats = lastCompoundStats();
  row("expand all", secs(all.seconds),
      QStringLiteral("target 2 s; %1; %2 levels, %3 by dot, %4 layered, %5 repeats from cache")
          .arg(stepText(all)).arg(stats.levels).arg(stats.byDot).arg(stats.layered).arg(stats.fromCache));
  {  // What the scene does by itself once shown (Qt indexes new items 2 s after the last change).
    test::EventLoopProbe probe;
    probe.start();
    QElapsedTimer idle;
    idle.start();
    while (idle.elapsed() < 2500) QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
    probe.stop();
    row("idle after expand all", QStringLiteral("%1 ms").arg(probe.maxCpuMs(), 0, 'f', 0),
        QStringLiteral("the event loop held at most this long in 2.5 s (wall %1 ms)").arg(probe.maxWallMs(), 0, 'f', 0));
  }
  frameRows(*w.view());
  // The dot binary on the same expanded graph, as a plain viewer runs it.
  VisibleGraph plain = VisibleGraph::project(vg, CollapseState(vg.blocks().size(), false), true);
  const QString plainDot = dir + QStringLiteral("/llama-plain-%1.dot").arg(nodes);
  writeFile(plainDot, withDefaults(toDot(w.scene()->layoutRequest(vg, plain))));
  const DotRun dot = runDot(plainDot, dotTimeout);
  row("dot -Tplain, defaults", dot.finished ? secs(dot.seconds) : QStringLiteral("–"), dot.note);
  const QString prefix = dot.finished ? QString() : QStringLiteral(">");
  std::printf("  ratio: plain dot / our expand all: %s%.0fx (target 50x)\n", qPrintable(prefix), dot.seconds / std::max(1e-9, all.seconds));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", qgetenv("QT_QPA_PLATFORM").isEmpty() ? QByteArray("offscreen") : qgetenv("QT_QPA_PLATFORM"));
  QApplication app(argc, argv);
  const int timeout = qEnvironmentVariableIntValue("MSA_BENCH_DOT_TIMEOUT") > 0 ? qEnvironmentVariableIntValue("MSA_BENCH_DOT_TIMEOUT") : 300;
  QList<int> sizes, llama;
  bool llamaGiven = false;
  for (int i = 1; i < argc; ++i) {
    const QString a = QString::fromLocal8Bit(argv[i]);
    if (a == QStringLiteral("--llama") && i + 1 < argc) {
      llamaGiven = true;
      for (const QString& n : QString::fromLocal8Bit(argv[++i]).split(QLatin1Char(','), Qt::SkipEmptyParts)) llama << n.toInt();
    } else {
      sizes << a.toInt();
    }
  }
  if (sizes.isEmpty() && !llamaGiven) sizes = {3000, 10000};
  if (!llamaGiven) llama = {10000, 50000};
  QTemporaryDir tmp;

  for (int target : sizes) {
    const bench::TransformerSpec spec = bench::transformerWithNodes(target);
    const Model model = bench::transformer(spec);
    std::printf("\ntransformer, %d layers: %zu nodes\n", spec.layers, model.graph.nodes.size());

    // 1. First paint, cold (a fresh disk cache) and on reopening (the cache from that run).
    const QString cacheDir = tmp.filePath(QStringLiteral("cache-%1").arg(target));
    const Paint cold = firstPaint(model, std::make_shared<LayoutCache>(cacheDir));
    const Paint warm = firstPaint(model, std::make_shared<LayoutCache>(cacheDir));
    row("first paint, cold", secs(cold.seconds),
        QStringLiteral("%1 boxes, Graphviz %2").arg(cold.boxes).arg(secs(cold.layoutSeconds)));
    row("first paint, reopen", secs(warm.seconds), warm.fromCache ? QStringLiteral("layout from the disk cache") : QStringLiteral("(cache missed!)"));

    // 2. The same collapsed graph through the dot binary.
    const ViewGraph vg = ViewGraph::build(model.graph);
    GraphScene scene;
    VisibleGraph collapsed = VisibleGraph::project(vg, defaultCollapse(vg), true);
    collapsed.cutLongEdges();
    const LayoutRequest collapsedReq = scene.layoutRequest(vg, collapsed);
    const QString collapsedDot = tmp.filePath(QStringLiteral("collapsed-%1.dot").arg(target));
    writeFile(collapsedDot, toDot(collapsedReq));
    const DotRun dotCollapsed = runDot(collapsedDot, timeout);
    row("dot -Tplain, collapsed", dotCollapsed.finished ? secs(dotCollapsed.seconds) : QStringLiteral("–"), dotCollapsed.note);

    // 3. The full graph: ours in process (tuned), the dot binary tuned and with its defaults.
    VisibleGraph full = VisibleGraph::project(vg, CollapseState(vg.blocks().size(), false), true);
    full.cutLongEdges();
    const LayoutRequest fullReq = scene.layoutRequest(vg, full);
    QElapsedTimer t;
    t.start();
    QString error;
    const LayoutPtr fullLayout = computeLayout(fullReq, nullptr, &error);
    const double ours = static_cast<double>(t.nsecsElapsed()) / 1e9;
    int stubs = 0;
    for (const VisibleEdge& e : full.edges) stubs += !e.routed;
    row("full graph, ours", fullLayout ? secs(ours) : QStringLiteral("–"),
        fullLayout ? QStringLiteral("%1 boxes, %2 clusters, %3 long edges as stubs").arg(full.items.size()).arg(full.clusters.size()).arg(stubs)
                   : error);
    if (fullLayout) {  // repaint cost with every box in the scene: what panning and zooming cost
      GraphScene fullScene;
      QElapsedTimer pt;
      pt.start();
      fullScene.populate(std::make_shared<const ViewGraph>(vg), std::make_shared<const VisibleGraph>(full), fullLayout);
      const double populate = static_cast<double>(pt.nsecsElapsed()) / 1e6;
      GraphView view;
      view.setScene(&fullScene);
      view.resize(1400, 900);
      view.show();
      auto inView = [&] { return view.items(view.viewport()->rect()).size(); };
      auto frame = [&] {
        QElapsedTimer ft;
        ft.start();
        for (int i = 0; i < 5; ++i) (void)view.grab();
        return static_cast<double>(ft.nsecsElapsed()) / 5e6;
      };
      view.fitAll();
      const double far = frame();
      const auto farItems = inView();
      view.setZoom(0.3);
      const double mid = frame();
      const auto midItems = inView();
      view.setZoom(1.0);
      const double near = frame();
      row("scene items, full graph", QStringLiteral("%1 ms").arg(populate, 0, 'f', 0),
          QStringLiteral("%1 boxes, %2 edges, %3 frames").arg(fullScene.boxes().size()).arg(fullScene.edgeItems().size()).arg(fullScene.frames().size()));
      row("repaint, full graph", QStringLiteral("%1 ms").arg(far, 0, 'f', 1),
          QStringLiteral("fit: %1 items in view; %2 ms at 30 % (%3 items), %4 ms at 100 %")
              .arg(farItems).arg(mid, 0, 'f', 1).arg(midItems).arg(near, 0, 'f', 1));
    }
    const QString tunedDot = tmp.filePath(QStringLiteral("full-tuned-%1.dot").arg(target));
    const QByteArray dotText = toDot(fullReq);
    writeFile(tunedDot, dotText);
    const DotRun dotTuned = runDot(tunedDot, timeout);
    row("dot -Tplain, tuned", dotTuned.finished ? secs(dotTuned.seconds) : QStringLiteral("–"), dotTuned.note);
    // A plain viewer keeps every edge and uses dot's defaults.
    VisibleGraph plain = VisibleGraph::project(vg, CollapseState(vg.blocks().size(), false), true);
    const QString plainDot = tmp.filePath(QStringLiteral("full-plain-%1.dot").arg(target));
    writeFile(plainDot, withDefaults(toDot(scene.layoutRequest(vg, plain))));
    const DotRun dotPlain = runDot(plainDot, timeout);
    row("dot -Tplain, defaults", dotPlain.finished ? secs(dotPlain.seconds) : QStringLiteral("–"), dotPlain.note);

    // Ratios (how many times faster); a ">" when dot was stopped at the timeout.
    auto ratio = [](const DotRun& d, double ours) {
      const QString prefix = d.finished ? QString() : QStringLiteral(">");
      return d.seconds > 0 && ours > 0 ? prefix + QString::number(d.seconds / ours, 'f', 1) + QStringLiteral("x") : QStringLiteral("–");
    };
    std::printf("  ratios: plain dot on the full graph / our first paint: cold %s, reopen %s\n",
                qPrintable(ratio(dotPlain, cold.seconds)), qPrintable(ratio(dotPlain, warm.seconds)));
    std::printf("          dot on the collapsed graph / our first paint, cold: %s\n", qPrintable(ratio(dotCollapsed, cold.seconds)));
    std::printf("          dot -Tplain tuned / ours in process, full graph: %s;  plain dot / ours, full graph: %s\n",
                qPrintable(ratio(dotTuned, ours)), qPrintable(ratio(dotPlain, ours)));
    std::fflush(stdout);
  }
  for (int n : llama) languageModel(n, tmp.path(), timeout);
  return 0;
}
