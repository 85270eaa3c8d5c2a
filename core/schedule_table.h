// Internal to the schedule units: a hash table of op sets (bitsets of a fixed word count) giving
// each distinct set a dense index, so callers keep per-set data in plain vectors. Open addressing
// with linear probing; memory is counted exactly so searches can honour their cap.
#pragma once

#include <cstdint>
#include <algorithm>
#include <cstring>
#include <vector>

#include "core/schedule_model.h"

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
    for (size_t i = hash(set) & mask;; i = (i + 1) & mask) {
      int32_t s = slots_[i];
      if (s < 0) {
        slots_[i] = static_cast<int32_t>(size());
        keys_.insert(keys_.end(), set, set + words_);
        inserted = true;
        return slots_[i];
      }
      if (std::memcmp(key(s), set, sizeof(Word) * words_) == 0) {
        inserted = false;
        return s;
      }
    }
  }

  int64_t find(const Word* set) const {
    size_t mask = slots_.size() - 1;
    for (size_t i = hash(set) & mask;; i = (i + 1) & mask) {
      int32_t s = slots_[i];
      if (s < 0) return -1;
      if (std::memcmp(key(s), set, sizeof(Word) * words_) == 0) return s;
    }
  }

  // Bytes held now, and what the next insertion could grow it to (keys double, slots double).
  int64_t memory_bytes() const {
    return static_cast<int64_t>(keys_.capacity() * sizeof(Word) + slots_.capacity() * sizeof(int32_t));
  }
  int64_t memory_after_growth() const {
    size_t keys = keys_.capacity();
    if (keys_.size() + words_ > keys) keys = std::max(2 * keys, keys_.size() + words_);
    size_t slots = (size() + 1) * 2 > static_cast<int64_t>(slots_.size()) ? 2 * slots_.size() : slots_.size();
    return static_cast<int64_t>(keys * sizeof(Word) + slots * sizeof(int32_t));
  }

  void clear() {
    keys_.clear();
    keys_.shrink_to_fit();
    rehash(1024);
  }

 private:
  size_t hash(const Word* set) const {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int w = 0; w < words_; ++w) {
      h ^= set[w] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
      h *= 0xbf58476d1ce4e5b9ull;
      h ^= h >> 31;
    }
    return static_cast<size_t>(h ^ (h >> 29));
  }

  void rehash(size_t slot_count) {
    slots_.assign(slot_count, -1);
    size_t mask = slot_count - 1;
    for (int64_t s = 0; s < size(); ++s) {
      size_t i = hash(key(s)) & mask;
      while (slots_[i] >= 0) i = (i + 1) & mask;
      slots_[i] = static_cast<int32_t>(s);
    }
  }

  int words_;
  std::vector<Word> keys_;
  std::vector<int32_t> slots_;
};

}  // namespace arenaplan::schedule_detail
