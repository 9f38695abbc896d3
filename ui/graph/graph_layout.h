#pragma once
// The one class that touches Graphviz. A layout request is plain data (node ids with sizes
// measured before layout, edges, optional nested clusters); the answer is a plain Layout in
// scene coordinates (y down). Graphviz is not thread-safe: every call goes through one mutex,
// and layouts run on a worker thread with a generation counter that drops superseded results.
#include <QByteArray>
#include <QFuture>
#include <QObject>
#include <QPointF>
#include <QRectF>
#include <QSizeF>
#include <QString>
#include <atomic>
#include <functional>
#include <memory>
#include <vector>

namespace msa::ui {

class LayoutCache;

struct LayoutOptions {
  enum class Quality {
    Auto,      // Full up to ~800 nodes, then Fast
    Full,      // dot defaults for crossing reduction and network simplex
    Fast,      // bounded crossing reduction and network simplex: near-linear on large graphs
  };
  Quality quality = Quality::Auto;
  double nodeSep = 18;  // scene units (= points)
  double rankSep = 30;
  double clusterLabelHeight = 20;  // room reserved above a cluster's content for its title
  // Up to this many boxes dot lays out the whole request, frames as clusters. Larger requests
  // are composed frame by frame (compound_layout.h): each level by dot up to `levelDotLimit`
  // boxes, above that by the layered engine (layered_layout.h). 0: always composed.
  int wholeDotLimit = 300;
  int levelDotLimit = 150;
};

struct LayoutRequest {
  struct Node {
    QString id;   // stable id, for the reader; Graphviz sees only indices
    QSizeF size;  // measured with QFontMetricsF, in scene units
    int cluster = -1;
    // Alone on the first or last rank: the ports through which edges enter and leave a frame
    // laid out on its own (compound_layout.h).
    enum class Pin : quint8 { None, First, Last };
    Pin pin = Pin::None;
  };
  struct Edge {
    int from = -1, to = -1;
  };
  struct Cluster {
    QString id;
    int parent = -1;
  };
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  std::vector<Cluster> clusters;
  LayoutOptions options;

  // A digest of everything that shapes the result: graph, collapse state (which items and
  // clusters exist), sizes, options and the Graphviz version. Keys the layout cache.
  QByteArray key() const;
};

struct Layout {
  struct Edge {
    // A cubic Bézier chain: p0, c1, c2, p1, c1, c2, p2… (3n + 1 points), scene coordinates.
    std::vector<QPointF> points;
    bool hasArrow = false;
    QPointF arrowTip;  // the arrowhead runs from points.back() to here
  };
  std::vector<QPointF> nodeCentres;  // per request node
  std::vector<QSizeF> nodeSizes;
  std::vector<Edge> edges;           // per request edge
  std::vector<QRectF> clusterRects;  // per request cluster
  std::vector<QPointF> clusterLabels;  // top-left of each cluster's title
  QRectF bounds;
  double seconds = 0;  // Graphviz time (0 when it came from a cache)
  bool fromCache = false;
  bool patched = false;  // the previous layout adjusted to an edit (layout_patch.h), no Graphviz run
  QString settings;    // the dot attributes used, for the status bar and benchmarks
};

using LayoutPtr = std::shared_ptr<const Layout>;

// Lays out synchronously, serialized with every other Graphviz user: dot for small requests,
// composed frame by frame above LayoutOptions::wholeDotLimit boxes.
// `stale` (optional) is checked before Graphviz starts: a superseded request gives up early.
// Returns null when abandoned; fills `error` when Graphviz fails.
LayoutPtr computeLayout(const LayoutRequest& request, const std::atomic<bool>* stale = nullptr,
                        QString* error = nullptr);
// Graphviz dot on the whole request, frames as clusters. Only on the layout thread (that is,
// from computeLayout and what it calls).
LayoutPtr dotLayout(const LayoutRequest& request, const std::atomic<bool>* stale = nullptr, QString* error = nullptr);

// Writes the request as a DOT file with the same attributes computeLayout uses (benchmarks run
// `dot -Tplain` on it to compare against the Graphviz binary).
QByteArray toDot(const LayoutRequest& request);

// The dot attributes chosen for a request size and quality.
struct DotSettings {
  QString nslimit, nslimit1, mclimit, searchsize, splines, remincross;
};
DotSettings dotSettings(const LayoutOptions& options, size_t nodeCount);

// Asynchronous layouts with a generation counter: start() supersedes every earlier request;
// only the newest result is delivered (layoutFinished), older ones are dropped on arrival.
class GraphLayouter : public QObject {
  Q_OBJECT
 public:
  explicit GraphLayouter(QObject* parent = nullptr);
  // Graphviz cannot be interrupted: a running layout gets two seconds, then is abandoned (it
  // owns what it touches and its result is dropped).
  ~GraphLayouter() override;

  void setCache(std::shared_ptr<LayoutCache> cache) { m_cache = std::move(cache); }
  std::shared_ptr<LayoutCache> cache() const { return m_cache; }

  // Starts a layout, returns its generation.
  quint64 start(LayoutRequest request);
  // The same with the request built on a worker too (projection and measuring take longer than
  // a frame at 10,000 boxes); `items` is what layoutStarted reports.
  quint64 start(std::function<LayoutRequest()> build, int items);
  // Abandons the current request: its result will be dropped ("stopped" is not an error).
  void cancel();
  bool busy() const { return m_running > 0; }
  quint64 generation() const { return m_generation; }
  void waitForIdle();

 signals:
  void layoutStarted(quint64 generation, int nodeCount);
  void layoutFinished(quint64 generation, msa::ui::LayoutPtr layout);
  void layoutFailed(quint64 generation, const QString& message);
  void layoutCancelled(quint64 generation);

 private:
  struct Job;
  std::shared_ptr<LayoutCache> m_cache;
  quint64 m_generation = 0;
  std::shared_ptr<std::atomic<bool>> m_stale;  // flag of the current job
  int m_running = 0;
  QList<QFuture<void>> m_futures;
};

}  // namespace msa::ui
