// Internal to the schedule units: a hash table of op sets (bitsets of a fixed word count) giving
// each distinct set a dense index, so callers keep per-set data in plain vectors. Open addressing
// with linear probing; memory is counted exactly so searches can honour their cap.
#pragma once

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/schedule/detail/schedule_model.h"

namespace arenaplan::schedule_detail {

class SetTable {
 public:
  explicit SetTable(int words) : words_(words) { rehash(1024); }

  int words() const { return words_; }
  int64_t size() const { return static_cast<int64_t>(keys_.size()) / words_; }
  const Word* key(int64_t index) const { return &keys_[static_cast<size_t>(index) * words_]; }

  // Index of `set`, inserting it when new; `inserted` says which.
  int64_t find_or_insert(const Word* set, bool& inserted) {
    if ((size() + 1) * 2 > static_cast<int64_t>(slots_.size())) rehash(slots_.size() * 2);
    size_t mask = slots_.size() - 1;
    const uint64_t h = hash(set);
    const uint32_t tag = static_cast<uint32_t>(h >> 32);
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      uint64_t s = slots_[i];
      if (s == kEmpty) {
        int64_t index = size();
        slots_[i] = (static_cast<uint64_t>(index) << 32) | tag;
        keys_.insert(keys_.end(), set, set + words_);
        inserted = true;
        return index;
      }
      if (static_cast<uint32_t>(s) == tag && std::memcmp(key(s >> 32), set, sizeof(Word) * words_) == 0) {
        inserted = false;
        return static_cast<int64_t>(s >> 32);
      }
    }
  }

  int64_t find(const Word* set) const {
    size_t mask = slots_.size() - 1;
    const uint64_t h = hash(set);
    const uint32_t tag = static_cast<uint32_t>(h >> 32);
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      uint64_t s = slots_[i];
      if (s == kEmpty) return -1;
      if (static_cast<uint32_t>(s) == tag && std::memcmp(key(s >> 32), set, sizeof(Word) * words_) == 0)
        return static_cast<int64_t>(s >> 32);
    }
  }

  // Bytes held now, and what the next insertion could grow it to (keys double, slots double).
  int64_t memory_bytes() const {
    return static_cast<int64_t>(keys_.capacity() * sizeof(Word) + slots_.capacity() * sizeof(uint64_t));
  }
  int64_t memory_after_growth() const {
    size_t keys = keys_.capacity();
    if (keys_.size() + words_ > keys) keys = std::max(2 * keys, keys_.size() + words_);
    size_t slots = (size() + 1) * 2 > static_cast<int64_t>(slots_.size()) ? 2 * slots_.size() : slots_.size();
    return static_cast<int64_t>(keys * sizeof(Word) + slots * sizeof(uint64_t));
  }

  void clear() {
    keys_.clear();
    keys_.shrink_to_fit();
    rehash(1024);
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t{0};

  uint64_t hash(const Word* set) const {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int w = 0; w < words_; ++w) {
      uint64_t z = set[w] + h + 0x9e3779b97f4a7c15ull * static_cast<uint64_t>(w + 1);
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      h = z ^ (z >> 31);
    }
    return h;
  }

  void rehash(size_t slot_count) {
    slots_.assign(slot_count, kEmpty);
    size_t mask = slot_count - 1;
    for (int64_t s = 0; s < size(); ++s) {
      const uint64_t h = hash(key(s));
      size_t i = h & mask;
      while (slots_[i] != kEmpty) i = (i + 1) & mask;
      slots_[i] = (static_cast<uint64_t>(s) << 32) | static_cast<uint32_t>(h >> 32);
    }
  }

  int words_;
  std::vector<Word> keys_;
  std::vector<uint64_t> slots_;  // (index << 32) | 32 hash bits; kEmpty when free
};

}  // namespace arenaplan::schedule_detail
