#pragma once
// Names -> dense indices (0, 1, 2… in order of insertion) by open addressing over string views:
// one probe sequence per lookup and no allocation per entry, where std::unordered_map allocates
// a node per name (the hot spot of indexing a 50,000-node graph). The names must outlive it.
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
    for (size_t k = 0; k < m_keys.size(); ++k) m_slots[slotFor(m_keys[k])] = static_cast<uint32_t>(k + 1);
    m_keys.reserve(n);
  }
  // The index of `name`, or -1.
  long find(std::string_view name) const {
    if (m_slots.empty()) return -1;
    for (size_t s = hash(name) & m_mask;; s = (s + 1) & m_mask) {
      const uint32_t e = m_slots[s];
      if (e == 0) return -1;
      if (m_keys[e - 1] == name) return static_cast<long>(e - 1);
    }
  }
  // The index of `name`, added (as size() - 1) when new.
  uint32_t insert(std::string_view name) {
    if ((m_keys.size() + 1) * 2 > m_slots.size()) reserve(std::max<size_t>(m_keys.size() + 1, m_slots.size()));
    size_t s = hash(name) & m_mask;
    for (; m_slots[s]; s = (s + 1) & m_mask)
      if (m_keys[m_slots[s] - 1] == name) return m_slots[s] - 1;
    m_keys.push_back(name);
    m_slots[s] = static_cast<uint32_t>(m_keys.size());
    return static_cast<uint32_t>(m_keys.size() - 1);
  }
  size_t size() const { return m_keys.size(); }
  std::string_view key(size_t i) const { return m_keys[i]; }

 private:
  static size_t hash(std::string_view s) { return std::hash<std::string_view>{}(s); }
  size_t slotFor(std::string_view name) const {  // the first free slot (rebuilding)
    size_t s = hash(name) & m_mask;
    while (m_slots[s]) s = (s + 1) & m_mask;
    return s;
  }

  std::vector<std::string_view> m_keys;
  std::vector<uint32_t> m_slots;  // key index + 1; 0 = empty
  size_t m_mask = 0;
};

}  // namespace msa
