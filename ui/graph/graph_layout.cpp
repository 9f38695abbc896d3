#include "graph/graph_layout.h"

#include <graphviz_version.h>
#include <gvc.h>

#include <QCryptographicHash>
#include <QDataStream>
#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QIODevice>
#include <QPromise>
#include <QThread>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>
#include <mutex>

#include "graph/compound_layout.h"
#include "graph/layout_cache.h"

namespace msa::ui {
namespace {

// Graphviz keeps global state (the error handler, the plugin context, static buffers inside
// dot): one layout at a time in this process.
// Never destroyed: a layout abandoned at shutdown may still be running while statics die.
std::mutex& graphvizMutex() {
  static auto* m = new std::mutex;
  return *m;
}

QString& errors() {  // written by Graphviz under graphvizMutex()
  static auto* e = new QString;
  return *e;
}

int collectError(char* message) {
  errors() += QString::fromLocal8Bit(message).trimmed() + QLatin1Char('\n');
  return 0;
}

// Graphviz recurses once per node of its auxiliary graphs (network simplex, DFS over virtual
// nodes of long edges): a 10,000-node transformer overflowed an 8 MB stack. Layouts run on one
// thread with a large reserved (not committed) stack.
constexpr uint kGraphvizStack = 1024u << 20;
thread_local bool t_onGraphvizThread = false;

QThreadPool* graphvizPool() {
  static QThreadPool* pool = [] {
    auto* p = new QThreadPool;  // intentionally never destroyed: owners wait for their layouts
    p->setMaxThreadCount(1);
    p->setStackSize(kGraphvizStack);
    p->setExpiryTimeout(-1);
    return p;
  }();
  return pool;
}

GVC_t* context() {  // under graphvizMutex(); kept for the life of the process
  static GVC_t* gvc = [] {
    agseterr(AGERR);  // warnings are not our user's business; errors are collected
    agseterrf(collectError);
    return gvContext();
  }();
  return gvc;
}

constexpr double kPointsPerInch = 72.0;

QByteArray inches(double points) { return QByteArray::number(points / kPointsPerInch, 'f', 4); }

// The graph attributes, shared by the in-process layout and toDot() so the benchmark measures
// the very same problem with the dot binary.
std::vector<std::pair<QByteArray, QByteArray>> graphAttributes(const LayoutRequest& r) {
  const DotSettings s = dotSettings(r.options, r.nodes.size());
  std::vector<std::pair<QByteArray, QByteArray>> a = {
      {"rankdir", "TB"},
      {"nodesep", inches(r.options.nodeSep)},
      {"ranksep", inches(r.options.rankSep)},
      {"splines", s.splines.toLatin1()},
      {"outputorder", "edgesfirst"},
  };
  auto opt = [&](const char* name, const QString& v) {
    if (!v.isEmpty()) a.emplace_back(name, v.toLatin1());
  };
  opt("nslimit", s.nslimit);
  opt("nslimit1", s.nslimit1);
  opt("mclimit", s.mclimit);
  opt("searchsize", s.searchsize);
  opt("remincross", s.remincross);
  return a;
}

// The cluster title is our own drawing; Graphviz only has to leave room for it. A label of one
// space at this font size reserves about the requested height.
QByteArray clusterFontSize(const LayoutOptions& o) { return QByteArray::number(o.clusterLabelHeight / 1.2, 'f', 1); }

char* cs(const QByteArray& b) { return const_cast<char*>(b.constData()); }

struct GraphHandle {  // gvFreeLayout + agclose as soon as the geometry is copied
  GVC_t* gvc;
  Agraph_t* g;
  bool laidOut = false;
  ~GraphHandle() {
    if (laidOut) gvFreeLayout(gvc, g);
    agclose(g);
  }
};

}  // namespace

DotSettings dotSettings(const LayoutOptions& options, size_t nodeCount) {
  using Q = LayoutOptions::Quality;
  const Q q = options.quality == Q::Auto ? (nodeCount > 800 ? Q::Fast : Q::Full) : options.quality;
  DotSettings s;
  s.splines = QStringLiteral("spline");
  if (q == Q::Fast) {
    // Measured with dot -v on a 3,000-node transformer graph (bench_graph_paint): the x-position
    // network simplex runs on an auxiliary graph of ~110,000 nodes (long residual and mask edges
    // become chains of virtual nodes) and took 95 s of 97 s with nslimit=2; capped at ~60
    // iterations it takes 1.8 s. Ranking and crossing reduction are bounded the same way.
    const double n = std::max<double>(1, static_cast<double>(nodeCount));
    s.nslimit = QString::number(std::max(0.005, 60.0 / n), 'f', 4);
    s.nslimit1 = QString::number(std::max(0.05, 600.0 / n), 'f', 4);
    s.mclimit = QStringLiteral("0.3");
    s.searchsize = QStringLiteral("20");
    s.remincross = QStringLiteral("false");
  }
  return s;
}

QByteArray LayoutRequest::key() const {
  QCryptographicHash h(QCryptographicHash::Sha1);
  QByteArray buf;
  QDataStream ds(&buf, QIODevice::WriteOnly);
  ds << QByteArrayLiteral("msadvisor-layout-4") << QByteArray(PACKAGE_VERSION);
  ds << static_cast<int>(options.quality) << options.nodeSep << options.rankSep << options.clusterLabelHeight;
  ds << options.wholeDotLimit << options.levelDotLimit;
  ds << static_cast<quint64>(nodes.size()) << static_cast<quint64>(edges.size()) << static_cast<quint64>(clusters.size());
  for (const Node& n : nodes) ds << n.id << n.size.width() << n.size.height() << n.cluster << static_cast<quint8>(n.pin);
  for (const Edge& e : edges) ds << e.from << e.to;
  for (const Cluster& c : clusters) ds << c.id << c.parent;
  h.addData(buf);
  return h.result().toHex();
}

QByteArray toDot(const LayoutRequest& r) {
  QByteArray out = "digraph g {\n  graph [";
  for (const auto& [k, v] : graphAttributes(r)) out += k + "=\"" + v + "\" ";
  out += "];\n  node [shape=box fixedsize=true label=\"\" margin=0];\n";
  std::vector<QByteArray> clusterBody(r.clusters.size());
  QByteArray top;
  for (size_t i = 0; i < r.nodes.size(); ++i) {
    const auto& n = r.nodes[i];
    QByteArray line = "  n" + QByteArray::number(qulonglong(i)) + " [width=" + inches(n.size.width()) +
                      " height=" + inches(n.size.height()) + "];\n";
    (n.cluster >= 0 ? clusterBody[static_cast<size_t>(n.cluster)] : top) += line;
  }
  // Nested clusters: emit children inside their parents, innermost first.
  for (size_t i = r.clusters.size(); i-- > 0;) {
    QByteArray sub = "subgraph cluster_" + QByteArray::number(qulonglong(i)) + " {\n  label=\" \" fontsize=" +
                     clusterFontSize(r.options) + " labeljust=l;\n" + clusterBody[i] + "}\n";
    const int p = r.clusters[i].parent;
    (p >= 0 ? clusterBody[static_cast<size_t>(p)] : top) += sub;
  }
  out += top;
  for (auto [pin, rank] : {std::pair(LayoutRequest::Node::Pin::First, "source"), std::pair(LayoutRequest::Node::Pin::Last, "sink")}) {
    QByteArray members;
    for (size_t i = 0; i < r.nodes.size(); ++i)
      if (r.nodes[i].pin == pin) members += " n" + QByteArray::number(qulonglong(i)) + ";";
    if (!members.isEmpty()) out += QByteArray("  { rank=") + rank + ";" + members + " }\n";
  }
  for (const auto& e : r.edges)
    out += "  n" + QByteArray::number(e.from) + " -> n" + QByteArray::number(e.to) + ";\n";
  out += "}\n";
  return out;
}

LayoutPtr computeLayout(const LayoutRequest& r, const std::atomic<bool>* stale, QString* error) {
  if (!t_onGraphvizThread) {
    QString err;
    LayoutPtr l = QtConcurrent::run(graphvizPool(), [&] {
                    t_onGraphvizThread = true;
                    return computeLayout(r, stale, &err);
                  }).result();
    if (error) *error = err;
    return l;
  }
  if (static_cast<int>(r.nodes.size()) > r.options.wholeDotLimit) return compoundLayout(r, stale, error);
  return dotLayout(r, stale, error);
}

LayoutPtr dotLayout(const LayoutRequest& r, const std::atomic<bool>* stale, QString* error) {
  std::lock_guard lock(graphvizMutex());
  if (stale && stale->load()) return nullptr;  // superseded while waiting for Graphviz
  for (const auto& e : r.edges) {
    if (e.from < 0 || e.to < 0 || static_cast<size_t>(e.from) >= r.nodes.size() ||
        static_cast<size_t>(e.to) >= r.nodes.size()) {
      if (error) *error = QStringLiteral("layout request has an edge to a missing node");
      return nullptr;
    }
  }
  QElapsedTimer timer;
  timer.start();
  errors().clear();
  GraphHandle h{context(), agopen(cs("g"), Agdirected, nullptr)};
  Agraph_t* g = h.g;
  for (const auto& [k, v] : graphAttributes(r)) agattr(g, AGRAPH, cs(k), cs(v));
  agattr(g, AGRAPH, cs("label"), cs(""));
  const QByteArray fontSize = clusterFontSize(r.options);
  Agsym_t* gFont = agattr(g, AGRAPH, cs("fontsize"), cs("14"));
  Agsym_t* gJust = agattr(g, AGRAPH, cs("labeljust"), cs("c"));
  agattr(g, AGNODE, cs("shape"), cs("box"));
  agattr(g, AGNODE, cs("fixedsize"), cs("true"));
  agattr(g, AGNODE, cs("label"), cs(""));
  agattr(g, AGNODE, cs("margin"), cs("0"));
  Agsym_t* wSym = agattr(g, AGNODE, cs("width"), cs("0.75"));
  Agsym_t* hSym = agattr(g, AGNODE, cs("height"), cs("0.5"));

  std::vector<Agraph_t*> clusters(r.clusters.size(), nullptr);
  for (size_t i = 0; i < r.clusters.size(); ++i) {  // parents precede children in the request
    const int p = r.clusters[i].parent;
    Agraph_t* parent = p >= 0 && static_cast<size_t>(p) < i ? clusters[static_cast<size_t>(p)] : g;
    const QByteArray name = "cluster_" + QByteArray::number(qulonglong(i));
    clusters[i] = agsubg(parent, cs(name), 1);
    agsafeset(clusters[i], cs("label"), cs(" "), cs(""));
    agxset(clusters[i], gFont, cs(fontSize));
    agxset(clusters[i], gJust, cs("l"));
  }
  std::vector<Agnode_t*> nodes(r.nodes.size());
  for (size_t i = 0; i < r.nodes.size(); ++i) {
    const QByteArray name = "n" + QByteArray::number(qulonglong(i));
    nodes[i] = agnode(g, cs(name), 1);
    agxset(nodes[i], wSym, cs(inches(r.nodes[i].size.width())));
    agxset(nodes[i], hSym, cs(inches(r.nodes[i].size.height())));
    const int c = r.nodes[i].cluster;
    if (c >= 0 && static_cast<size_t>(c) < clusters.size()) agsubnode(clusters[static_cast<size_t>(c)], nodes[i], 1);
  }
  for (auto [pin, rank] : {std::pair(LayoutRequest::Node::Pin::First, "source"), std::pair(LayoutRequest::Node::Pin::Last, "sink")}) {
    Agraph_t* sub = nullptr;
    for (size_t i = 0; i < r.nodes.size(); ++i) {
      if (r.nodes[i].pin != pin) continue;
      if (!sub) {
        sub = agsubg(g, cs(QByteArray("pin_") + rank), 1);
        agsafeset(sub, cs("rank"), cs(rank), cs(""));
      }
      agsubnode(sub, nodes[i], 1);
    }
  }
  std::vector<Agedge_t*> edges(r.edges.size());
  for (size_t i = 0; i < r.edges.size(); ++i)
    edges[i] = agedge(g, nodes[static_cast<size_t>(r.edges[i].from)], nodes[static_cast<size_t>(r.edges[i].to)], nullptr, 1);

  if (gvLayout(h.gvc, g, "dot") != 0) {
    if (error) *error = QStringLiteral("Graphviz could not lay out the graph: ") + errors().trimmed();
    return nullptr;
  }
  h.laidOut = true;

  // The one transform: Graphviz points, y up, origin at the bounding box's lower left ->
  // scene units, y down, origin at the top left. Everything below goes through it.
  const boxf bb = GD_bb(g);
  auto toScene = [&](pointf p) { return QPointF(p.x - bb.LL.x, bb.UR.y - p.y); };

  auto layout = std::make_shared<Layout>();
  layout->bounds = QRectF(0, 0, bb.UR.x - bb.LL.x, bb.UR.y - bb.LL.y);
  layout->nodeCentres.reserve(nodes.size());
  for (Agnode_t* n : nodes) {
    layout->nodeCentres.push_back(toScene(ND_coord(n)));
    layout->nodeSizes.emplace_back(ND_width(n) * kPointsPerInch, ND_height(n) * kPointsPerInch);
  }
  layout->edges.resize(edges.size());
  for (size_t i = 0; i < edges.size(); ++i) {
    const splines* spl = ED_spl(edges[i]);
    if (!spl || spl->size == 0) continue;
    Layout::Edge& out = layout->edges[i];
    for (int b = 0; b < spl->size; ++b) {  // several pieces only with concentrate=true
      const bezier& bz = spl->list[b];
      for (int k = (b == 0 ? 0 : 1); k < bz.size; ++k) out.points.push_back(toScene(bz.list[k]));
      if (bz.eflag) {
        out.hasArrow = true;
        out.arrowTip = toScene(bz.ep);
      }
    }
  }
  for (Agraph_t* c : clusters) {
    const boxf cb = GD_bb(c);
    const QPointF tl = toScene({cb.LL.x, cb.UR.y});
    const QPointF br = toScene({cb.UR.x, cb.LL.y});
    layout->clusterRects.emplace_back(tl, br);
    layout->clusterLabels.push_back(tl + QPointF(8, 3));
  }
  QStringList settings;
  for (const auto& [k, v] : graphAttributes(r)) settings << QString::fromLatin1(k + '=' + v);
  layout->settings = settings.join(QLatin1Char(' '));
  layout->seconds = static_cast<double>(timer.nsecsElapsed()) / 1e9;
  return layout;
}

// ---------------------------------------------------------------------------------------------

struct GraphLayouter::Job {
  QByteArray key;
  LayoutPtr layout;
  QString error;
  QPromise<void> done;
};

GraphLayouter::GraphLayouter(QObject* parent) : QObject(parent) {}

GraphLayouter::~GraphLayouter() {
  if (m_stale) m_stale->store(true);
  // Graphviz cannot be interrupted. Give a running layout a moment, then leave it: the job owns
  // everything it touches, and its result has nobody left to go to.
  QElapsedTimer t;
  t.start();
  for (auto& f : m_futures)
    while (!f.isFinished() && t.elapsed() < 2000) QThread::msleep(5);
}

void GraphLayouter::waitForIdle() {
  for (auto& f : m_futures) f.waitForFinished();
  m_futures.clear();
}

quint64 GraphLayouter::start(LayoutRequest request) {
  const int count = static_cast<int>(request.nodes.size());
  auto req = std::make_shared<LayoutRequest>(std::move(request));
  return start([req] { return std::move(*req); }, count);
}

quint64 GraphLayouter::start(std::function<LayoutRequest()> build, int count) {
  if (m_stale) m_stale->store(true);
  auto stale = std::make_shared<std::atomic<bool>>(false);
  m_stale = stale;
  const quint64 gen = ++m_generation;
  auto cache = m_cache;
  auto job = std::make_shared<Job>();
  QFuture<void> future = job->done.future();
  job->done.start();
  // Stage 1 on the shared pool: the request, and a cache hit never waits behind a running
  // Graphviz layout. Stage 2 on the Graphviz thread, only on a miss.
  (void)QtConcurrent::run([build = std::move(build), stale, cache, job] {
    if (stale->load()) {
      job->done.finish();
      return;
    }
    auto req = std::make_shared<const LayoutRequest>(build());
    if (!stale->load() && cache) {
      job->key = req->key();
      job->layout = cache->find(job->key);
    }
    if (job->layout || stale->load()) {
      job->done.finish();
      return;
    }
    (void)QtConcurrent::run(graphvizPool(), [req, stale, cache, job] {
      t_onGraphvizThread = true;
      job->layout = computeLayout(*req, stale.get(), &job->error);
      if (job->layout && cache) cache->insert(job->key.isEmpty() ? req->key() : job->key, job->layout);
      job->done.finish();
    });
  });
  m_futures.erase(std::remove_if(m_futures.begin(), m_futures.end(), [](const QFuture<void>& f) { return f.isFinished(); }),
                  m_futures.end());
  m_futures.push_back(future);
  ++m_running;
  auto* watcher = new QFutureWatcher<void>(this);
  connect(watcher, &QFutureWatcher<void>::finished, this, [this, watcher, gen, job] {
    watcher->deleteLater();
    --m_running;
    if (gen != m_generation) return;  // superseded or cancelled: the newest request speaks
    if (job->layout) emit layoutFinished(gen, job->layout);
    else if (!job->error.isEmpty()) emit layoutFailed(gen, job->error);
    else emit layoutCancelled(gen);
  });
  watcher->setFuture(future);
  emit layoutStarted(gen, count);
  return gen;
}

void GraphLayouter::cancel() {
  if (m_stale) m_stale->store(true);
  const quint64 gen = m_generation++;
  emit layoutCancelled(gen);
}

}  // namespace msa::ui
