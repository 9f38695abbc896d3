#pragma once
// Layouts by request key (graph structure + collapse state + sizes + options): an in-memory LRU
// and, when given a folder, files on disk so reopening a large model skips Graphviz entirely.
// Thread-safe: layout workers read and fill it.
#include <QByteArray>
#include <QString>
#include <list>
#include <mutex>
#include <unordered_map>

#include "graph/graph_layout.h"

namespace msa::ui {

class LayoutCache {
 public:
  // An empty folder keeps the cache in memory only.
  explicit LayoutCache(QString folder = {}, int memoryEntries = 32, qint64 diskBytes = 256ll << 20);

  LayoutPtr find(const QByteArray& key);
  void insert(const QByteArray& key, LayoutPtr layout);
  void clearMemory();
  QString folder() const { return m_folder; }

  // The default folder: <QStandardPaths::CacheLocation>/layouts.
  static QString defaultFolder();

  // Layout (de)serialization, versioned; a damaged file reads as null.
  static QByteArray serialize(const Layout& l);
  static LayoutPtr deserialize(const QByteArray& bytes);

 private:
  void touch(const QByteArray& key);
  void pruneDisk();

  QString m_folder;
  int m_memoryEntries;
  qint64 m_diskBytes;
  std::mutex m_mutex;
  std::list<QByteArray> m_lru;  // most recent first
  std::unordered_map<std::string, std::pair<LayoutPtr, std::list<QByteArray>::iterator>> m_memory;
};

}  // namespace msa::ui
