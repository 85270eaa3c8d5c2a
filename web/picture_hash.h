// A 64-bit hash of what a frame draws, to tell an unchanged picture from a changed one: the
// app skips rasterising a frame whose picture equals the one already on the canvas (main.cpp),
// and the rectangle renderer redraws a cached layer only when its rectangles changed
// (rect_renderer.cpp). Not cryptographic; a collision (about 2^-64 per frame) would leave one
// stale frame until the next change.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace arenaplan::web {

class PictureHash {
 public:
  void bytes(const void* data, size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (; n >= 8; p += 8, n -= 8) {
      uint64_t w;
      std::memcpy(&w, p, 8);
      mix(w);
    }
    uint64_t tail = 0;
    std::memcpy(&tail, p, n);
    mix(tail ^ (uint64_t(n) << 56));
  }
  template <class T>
  void value(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    bytes(&v, sizeof v);
  }
  uint64_t get() const { return h_ ^ (h_ >> 29); }

 private:
  // One multiply-rotate round per 8 bytes: fast enough to hash a frame's vertices (~200 KB)
  // in well under a millisecond.
  void mix(uint64_t w) {
    h_ = (h_ ^ (w * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
    h_ = (h_ << 27) | (h_ >> 37);
  }
  uint64_t h_ = 0x243F6A8885A308D3ull;
};

}  // namespace arenaplan::web
