#include "graph/layout_cache.h"

#include <QDataStream>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>
#include <algorithm>

namespace msa::ui {
namespace {

constexpr quint32 kMagic = 0x4d53414c;  // "MSAL"
constexpr quint32 kVersion = 1;

std::string str(const QByteArray& k) { return k.toStdString(); }

}  // namespace

LayoutCache::LayoutCache(QString folder, int memoryEntries, qint64 diskBytes)
    : m_folder(std::move(folder)), m_memoryEntries(std::max(1, memoryEntries)), m_diskBytes(diskBytes) {}

QString LayoutCache::defaultFolder() {
  return QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/layouts");
}

LayoutPtr LayoutCache::find(const QByteArray& key) {
  {
    std::lock_guard lock(m_mutex);
    auto it = m_memory.find(str(key));
    if (it != m_memory.end()) {
      touch(key);
      return it->second.first;
    }
  }
  if (m_folder.isEmpty()) return nullptr;
  QFile f(m_folder + QLatin1Char('/') + QString::fromLatin1(key) + QStringLiteral(".layout"));
  if (!f.open(QIODevice::ReadOnly)) return nullptr;
  LayoutPtr out = deserialize(f.readAll());
  if (!out) return nullptr;
  {
    std::lock_guard lock(m_mutex);
    if (!m_memory.count(str(key))) {
      m_lru.push_front(key);
      m_memory[str(key)] = {out, m_lru.begin()};
      while (static_cast<int>(m_lru.size()) > m_memoryEntries) {
        m_memory.erase(str(m_lru.back()));
        m_lru.pop_back();
      }
    }
  }
  return out;
}

void LayoutCache::insert(const QByteArray& key, LayoutPtr computed) {
  if (!computed) return;
  auto copy = std::make_shared<Layout>(*computed);
  copy->fromCache = true;  // what later readers get is a cached layout
  LayoutPtr layout = copy;
  {
    std::lock_guard lock(m_mutex);
    auto it = m_memory.find(str(key));
    if (it != m_memory.end()) {
      it->second.first = layout;
      touch(key);
    } else {
      m_lru.push_front(key);
      m_memory[str(key)] = {layout, m_lru.begin()};
      while (static_cast<int>(m_lru.size()) > m_memoryEntries) {
        m_memory.erase(str(m_lru.back()));
        m_lru.pop_back();
      }
    }
  }
  if (m_folder.isEmpty()) return;
  if (!QDir().mkpath(m_folder)) return;  // a cache that cannot be written is only slower
  QSaveFile f(m_folder + QLatin1Char('/') + QString::fromLatin1(key) + QStringLiteral(".layout"));
  if (!f.open(QIODevice::WriteOnly)) return;
  f.write(serialize(*layout));
  f.commit();
  pruneDisk();
}

void LayoutCache::clearMemory() {
  std::lock_guard lock(m_mutex);
  m_memory.clear();
  m_lru.clear();
}

void LayoutCache::touch(const QByteArray& key) {  // under m_mutex
  auto& entry = m_memory[str(key)];
  m_lru.erase(entry.second);
  m_lru.push_front(key);
  entry.second = m_lru.begin();
}

void LayoutCache::pruneDisk() {
  QDir dir(m_folder);
  const QFileInfoList files = dir.entryInfoList({QStringLiteral("*.layout")}, QDir::Files, QDir::Time);  // newest first
  qint64 total = 0;
  for (const QFileInfo& fi : files) {
    total += fi.size();
    if (total > m_diskBytes) QFile::remove(fi.absoluteFilePath());
  }
}

QByteArray LayoutCache::serialize(const Layout& l) {
  QByteArray out;
  QDataStream ds(&out, QIODevice::WriteOnly);
  ds.setVersion(QDataStream::Qt_6_4);
  ds << kMagic << kVersion << l.bounds << l.seconds << l.settings;
  ds << static_cast<quint32>(l.nodeCentres.size());
  for (size_t i = 0; i < l.nodeCentres.size(); ++i) ds << l.nodeCentres[i] << l.nodeSizes[i];
  ds << static_cast<quint32>(l.edges.size());
  for (const auto& e : l.edges) {
    ds << static_cast<quint32>(e.points.size());
    for (const QPointF& p : e.points) ds << p;
    ds << e.hasArrow << e.arrowTip;
  }
  ds << static_cast<quint32>(l.clusterRects.size());
  for (size_t i = 0; i < l.clusterRects.size(); ++i) ds << l.clusterRects[i] << l.clusterLabels[i];
  return out;
}

LayoutPtr LayoutCache::deserialize(const QByteArray& bytes) {
  QDataStream ds(bytes);
  ds.setVersion(QDataStream::Qt_6_4);
  quint32 magic = 0, version = 0, n = 0;
  auto l = std::make_shared<Layout>();
  l->fromCache = true;
  ds >> magic >> version;
  if (magic != kMagic || version != kVersion) return nullptr;
  ds >> l->bounds >> l->seconds >> l->settings >> n;
  // Counts are checked against what is left, so a damaged file cannot ask for huge vectors.
  auto plausible = [&](quint32 count, int bytesEach) {
    return ds.status() == QDataStream::Ok && static_cast<qint64>(count) * bytesEach <= bytes.size();
  };
  if (!plausible(n, 32)) return nullptr;
  l->nodeCentres.resize(n);
  l->nodeSizes.resize(n);
  for (quint32 i = 0; i < n; ++i) ds >> l->nodeCentres[i] >> l->nodeSizes[i];
  ds >> n;
  if (!plausible(n, 21)) return nullptr;
  l->edges.resize(n);
  for (auto& e : l->edges) {
    quint32 pts = 0;
    ds >> pts;
    if (!plausible(pts, 16)) return nullptr;
    e.points.resize(pts);
    for (QPointF& p : e.points) ds >> p;
    ds >> e.hasArrow >> e.arrowTip;
  }
  ds >> n;
  if (!plausible(n, 48)) return nullptr;
  l->clusterRects.resize(n);
  l->clusterLabels.resize(n);
  for (quint32 i = 0; i < n; ++i) ds >> l->clusterRects[i] >> l->clusterLabels[i];
  if (ds.status() != QDataStream::Ok) return nullptr;
  return l;
}

}  // namespace msa::ui
