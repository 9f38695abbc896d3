#pragma once
// Names -> dense indices (0, 1, 2… in order of insertion) by open addressing over string views:
// one probe sequence per lookup and no allocation per entry, where std::unordered_map allocates
// a node per name (the hot spot of indexing a 50,000-node graph). A slot keeps the hash's high
// bits beside the index, so a probe past another name compares no string and reads no key (at
// 100,000 nodes the keys no longer fit in the caches). The names must outlive it.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

namespace msa {

class NameTable {
 public:
  // Room for `n` names without growing.
  void reserve(size_t n) {
    size_t cap = 16;
    while (cap < n * 2) cap <<= 1;
    if (cap <= m_slots.size()) return;
    m_slots.assign(cap, 0);
    m_mask = cap - 1;
    for (size_t k = 0; k < m_keys.size(); ++k) {
      const size_t h = hash(m_keys[k]);
      m_slots[freeSlot(h)] = slot(h, k);
    }
    m_keys.reserve(n);
  }
  // The index of `name`, or -1.
  long find(std::string_view name) const {
    if (m_slots.empty()) return -1;
    const size_t h = hash(name);
    for (size_t s = h & m_mask;; s = (s + 1) & m_mask) {
      const uint64_t e = m_slots[s];
      if (e == 0) return -1;
      if (tag(e) == tagOf(h) && m_keys[index(e)] == name) return static_cast<long>(index(e));
    }
  }
  // The index of `name`, added (as size() - 1) when new.
  uint32_t insert(std::string_view name) {
    if ((m_keys.size() + 1) * 2 > m_slots.size()) reserve(std::max<size_t>(m_keys.size() + 1, m_slots.size()));
    const size_t h = hash(name);
    size_t s = h & m_mask;
    for (; m_slots[s]; s = (s + 1) & m_mask)
      if (const uint64_t e = m_slots[s]; tag(e) == tagOf(h) && m_keys[index(e)] == name) return index(e);
    m_slots[s] = slot(h, m_keys.size());
    m_keys.push_back(name);
    return static_cast<uint32_t>(m_keys.size() - 1);
  }
  size_t size() const { return m_keys.size(); }
  std::string_view key(size_t i) const { return m_keys[i]; }

 private:
  static size_t hash(std::string_view s) { return std::hash<std::string_view>{}(s); }
  // A slot: the hash's high 32 bits, then the key's index + 1 (0 = empty).
  static uint32_t tagOf(size_t h) { return static_cast<uint32_t>(static_cast<uint64_t>(h) >> 32); }
  static uint64_t slot(size_t h, size_t k) { return static_cast<uint64_t>(tagOf(h)) << 32 | (k + 1); }
  static uint32_t tag(uint64_t e) { return static_cast<uint32_t>(e >> 32); }
  static uint32_t index(uint64_t e) { return static_cast<uint32_t>(e) - 1; }
  size_t freeSlot(size_t h) const {  // the first free slot (rebuilding)
    size_t s = h & m_mask;
    while (m_slots[s]) s = (s + 1) & m_mask;
    return s;
  }

  std::vector<std::string_view> m_keys;
  std::vector<uint64_t> m_slots;
  size_t m_mask = 0;
};

}  // namespace msa
