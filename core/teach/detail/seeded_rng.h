// The random source of generated exercises: splitmix64 with explicit integer arithmetic, so one
// seed draws the same values under libstdc++ (native) and libc++ (Wasm). Never feed it to
// std::uniform_int_distribution or std::shuffle (their algorithms differ between the two
// libraries), and draw values one statement at a time: the evaluation order of function
// arguments differs between compilers.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace arenaplan::exercise_detail {

class SeededRng {
 public:
  explicit SeededRng(uint64_t seed) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

  // Uniform in [0, n) for n >= 1, by rejection (no modulo bias).
  int64_t below(int64_t n) {
    const uint64_t range = static_cast<uint64_t>(n);
    const uint64_t limit = UINT64_MAX - UINT64_MAX % range;
    uint64_t v = next();
    while (v >= limit) v = next();
    return static_cast<int64_t>(v % range);
  }

  // Uniform in [lo, hi].
  int64_t between(int64_t lo, int64_t hi) { return lo + below(hi - lo + 1); }

  bool chance(int percent) { return below(100) < percent; }

  template <typename T>
  const T& pick(const std::vector<T>& items) {
    return items[static_cast<size_t>(below(static_cast<int64_t>(items.size())))];
  }

 private:
  uint64_t state_;
};

// A seed derived from a parent seed and a label (attempt number, student name): FNV-1a over the
// label mixed with the parent, the same on every platform.
inline uint64_t derive_seed(uint64_t parent, std::string_view label) {
  uint64_t h = 0xcbf29ce484222325ull ^ parent;
  for (unsigned char c : label) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  return SeededRng(h).next();
}

}  // namespace arenaplan::exercise_detail
