#include "core/sim/sim_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#endif

namespace arenaplan::sim {

int64_t Window2d::macs() const { return n * oh * ow * oc * kh * kw * c; }

int64_t window_out_dim(int64_t in, int64_t k, int64_t stride, int64_t pad) {
  return window_out_dim(in, k, stride, pad, pad);
}

int64_t window_out_dim(int64_t in, int64_t k, int64_t stride, int64_t pad_before, int64_t pad_after) {
  if (stride <= 0 || in + pad_before + pad_after < k) return 0;
  return (in + pad_before + pad_after - k) / stride + 1;
}

int default_shift(int64_t length) {
  int bits = 0;
  while ((int64_t{1} << bits) < length && bits < 40) ++bits;  // ceil(log2(length))
  return 7 + (bits + 1) / 2;
}

int8_t requantize(int32_t acc, int shift) {
  int64_t v = acc;
  if (shift > 0) v = (v + (int64_t{1} << (shift - 1))) >> shift;  // round half up
  return static_cast<int8_t>(std::clamp<int64_t>(v, -128, 127));
}

namespace {

inline int8_t sat8(int32_t v) { return static_cast<int8_t>(std::clamp(v, -128, 127)); }

// The two inner loops every int8 MAC kernel spends its time in. Natively the compiler vectorises
// the plain loops well; in WebAssembly it does not (3.6-7.9x slower than native before), so the
// Wasm build spells out 128-bit SIMD. Integer sums are exact in any order: both paths give
// bit-identical results (the simulator's outputs oracle compares them).

// sum of a[i] * b[i] for i < n, in int32.
inline int32_t dot_int8(const int8_t* a, const int8_t* b, int64_t n) {
  int32_t acc = 0;
  int64_t i = 0;
#if defined(__wasm_simd128__)
  v128_t sum = wasm_i32x4_splat(0);
  for (; i + 16 <= n; i += 16) {
    const v128_t va = wasm_v128_load(a + i), vb = wasm_v128_load(b + i);
    // int8 -> int16, then pairwise products summed into int32 lanes (|sum| <= 2 * 128 * 128).
    sum = wasm_i32x4_add(sum, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_low_i8x16(va), wasm_i16x8_extend_low_i8x16(vb)));
    sum = wasm_i32x4_add(sum, wasm_i32x4_dot_i16x8(wasm_i16x8_extend_high_i8x16(va), wasm_i16x8_extend_high_i8x16(vb)));
  }
  if (i + 8 <= n) {  // short rows (a 3x3 window over 3 channels is 9 bytes)
    sum = wasm_i32x4_add(sum, wasm_i32x4_dot_i16x8(wasm_i16x8_load8x8(a + i), wasm_i16x8_load8x8(b + i)));
    i += 8;
  }
  acc = wasm_i32x4_extract_lane(sum, 0) + wasm_i32x4_extract_lane(sum, 1) + wasm_i32x4_extract_lane(sum, 2) +
        wasm_i32x4_extract_lane(sum, 3);
#endif
  for (; i < n; ++i) acc = wrapping_add(acc, int32_t{a[i]} * int32_t{b[i]});
  return acc;
}

// acc[i] += a[i] * b[i] for i < n (depthwise: one accumulator per channel).
inline void mac_int8(int32_t* acc, const int8_t* a, const int8_t* b, int64_t n) {
  int64_t i = 0;
#if defined(__wasm_simd128__)
  for (; i + 8 <= n; i += 8) {
    const v128_t va = wasm_i16x8_load8x8(a + i), vb = wasm_i16x8_load8x8(b + i);
    wasm_v128_store(acc + i, wasm_i32x4_add(wasm_v128_load(acc + i), wasm_i32x4_extmul_low_i16x8(va, vb)));
    wasm_v128_store(acc + i + 4, wasm_i32x4_add(wasm_v128_load(acc + i + 4), wasm_i32x4_extmul_high_i16x8(va, vb)));
  }
#endif
  for (; i < n; ++i) acc[i] = wrapping_add(acc[i], int32_t{a[i]} * int32_t{b[i]});
}

// The valid window rows/cols for output position o: [lo, hi) in kernel coordinates.
inline void window_range(int64_t o, int64_t stride, int64_t pad, int64_t k, int64_t in, int64_t& lo, int64_t& hi) {
  int64_t start = o * stride - pad;
  lo = std::max<int64_t>(0, -start);
  hi = std::min<int64_t>(k, in - start);
}

// One output position of a 2-D window op and the part of its window inside the input: kernel rows
// [ky0, ky1) and columns [kx0, kx1) (padding cut off); input row iy0 + ky, column ix0 + kx.
struct WindowAt {
  int64_t out_pixel;  // (b, oy, ox) as an index into the output's pixels
  int64_t b, ky0, ky1, kx0, kx1, iy0, ix0;
  // (b, iy0 + ky, ix0 + kx) as an index into the input's pixels.
  int64_t in_pixel(const Window2d& g, int64_t ky, int64_t kx) const { return (b * g.h + iy0 + ky) * g.w + ix0 + kx; }
};

// Calls visit(WindowAt) for every output position of g, in output order: the loops every window
// kernel (conv, depthwise, pooling) shares.
template <class Visit>
inline void for_each_window(const Window2d& g, Visit&& visit) {
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t oy = 0; oy < g.oh; ++oy) {
      int64_t ky0, ky1;
      window_range(oy, g.stride_h, g.pad_h, g.kh, g.h, ky0, ky1);
      const int64_t iy0 = oy * g.stride_h - g.pad_h;
      for (int64_t ox = 0; ox < g.ow; ++ox) {
        int64_t kx0, kx1;
        window_range(ox, g.stride_w, g.pad_w, g.kw, g.w, kx0, kx1);
        const WindowAt at{(b * g.oh + oy) * g.ow + ox, b, ky0, ky1, kx0, kx1, iy0, ox * g.stride_w - g.pad_w};
        visit(at);
      }
    }
}

}  // namespace

void conv2d_int8(const Window2d& g, const int8_t* x, const int8_t* w, const int32_t* bias, int8_t* y) {
  const int64_t C = g.c;
  for_each_window(g, [&](const WindowAt& a) {
    int8_t* out = y + a.out_pixel * g.oc;
    for (int64_t o = 0; o < g.oc; ++o) {
      int32_t acc = bias ? bias[o] : 0;
      const int8_t* wo = w + o * g.kh * g.kw * C;
      for (int64_t ky = a.ky0; ky < a.ky1; ++ky) {
        // One contiguous run of (kx1 - kx0) * C bytes in both input row and weights.
        const int8_t* xr = x + a.in_pixel(g, ky, a.kx0) * C;
        const int8_t* wr = wo + (ky * g.kw + a.kx0) * C;
        acc = wrapping_add(acc, dot_int8(xr, wr, (a.kx1 - a.kx0) * C));
      }
      out[o] = requantize(acc, g.shift);
    }
  });
}

void depthwise_conv2d_int8(const Window2d& g, const int8_t* x, const int8_t* w, const int32_t* bias, int8_t* y) {
  const int64_t C = g.c;
  // Accumulators for one output pixel, a fixed-size block of channels at a time: no allocation.
  constexpr int64_t kBlock = 64;
  int32_t acc[kBlock];
  for_each_window(g, [&](const WindowAt& a) {
    int8_t* out = y + a.out_pixel * C;
    for (int64_t c0 = 0; c0 < C; c0 += kBlock) {
      const int64_t cn = std::min(kBlock, C - c0);
      for (int64_t i = 0; i < cn; ++i) acc[i] = bias ? bias[c0 + i] : 0;
      for (int64_t ky = a.ky0; ky < a.ky1; ++ky)
        for (int64_t kx = a.kx0; kx < a.kx1; ++kx) {
          const int8_t* xp = x + a.in_pixel(g, ky, kx) * C + c0;
          const int8_t* wp = w + (ky * g.kw + kx) * C + c0;
          mac_int8(acc, xp, wp, cn);
        }
      for (int64_t i = 0; i < cn; ++i) out[c0 + i] = requantize(acc[i], g.shift);
    }
  });
}

void fully_connected_int8(int64_t batch, int64_t in, int64_t out, int shift, const int8_t* x,
                          const int8_t* w, const int32_t* bias, int8_t* y) {
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t o = 0; o < out; ++o) {
      int32_t acc = bias ? bias[o] : 0;
      acc = wrapping_add(acc, dot_int8(x + b * in, w + o * in, in));
      y[b * out + o] = requantize(acc, shift);
    }
}

namespace {

template <class Reduce>
void pool2d(const Window2d& g, const int8_t* x, int8_t* y, Reduce reduce) {
  for_each_window(g, [&](const WindowAt& a) {
    for (int64_t c = 0; c < g.c; ++c)
      y[a.out_pixel * g.c + c] = reduce(
          [&](auto visit) {
            for (int64_t ky = a.ky0; ky < a.ky1; ++ky)
              for (int64_t kx = a.kx0; kx < a.kx1; ++kx) visit(x[a.in_pixel(g, ky, kx) * g.c + c]);
          },
          (a.ky1 - a.ky0) * (a.kx1 - a.kx0));
  });
}

}  // namespace

void max_pool2d_int8(const Window2d& g, const int8_t* x, int8_t* y) {
  pool2d(g, x, y, [](auto each, int64_t) {
    int8_t m = -128;
    each([&](int8_t v) { m = std::max(m, v); });
    return m;
  });
}

void avg_pool2d_int8(const Window2d& g, const int8_t* x, int8_t* y) {
  pool2d(g, x, y, [](auto each, int64_t count) {
    int32_t sum = 0;
    each([&](int8_t v) { sum += v; });
    if (count <= 0) return int8_t{0};
    // Round half away from zero, like TFLite's reference average pool.
    int32_t q = sum >= 0 ? (sum + static_cast<int32_t>(count) / 2) / static_cast<int32_t>(count)
                         : -((-sum + static_cast<int32_t>(count) / 2) / static_cast<int32_t>(count));
    return sat8(q);
  });
}

void add_int8(int64_t count, const int8_t* a, const int8_t* b, int8_t* y) {
  for (int64_t i = 0; i < count; ++i) y[i] = sat8(int32_t{a[i]} + int32_t{b[i]});
}

void clamp_int8(int64_t count, int8_t lo, int8_t hi, const int8_t* x, int8_t* y) {
  for (int64_t i = 0; i < count; ++i) y[i] = std::clamp(x[i], lo, hi);
}

void softmax_int8(int64_t rows, int64_t depth, const int8_t* x, int8_t* y) {
  for (int64_t r = 0; r < rows; ++r) {
    const int8_t* xr = x + r * depth;
    int8_t* yr = y + r * depth;
    int8_t m = -128;
    for (int64_t i = 0; i < depth; ++i) m = std::max(m, xr[i]);
    double sum = 0;
    for (int64_t i = 0; i < depth; ++i) sum += std::exp((xr[i] - m) / 16.0);
    // Two passes over x before any write: safe when y == x.
    for (int64_t i = 0; i < depth; ++i) {
      double p = std::exp((xr[i] - m) / 16.0) / sum;
      yr[i] = sat8(static_cast<int32_t>(std::lround(p * 256.0)) - 128);
    }
  }
}

void concat_bytes(int64_t outer, size_t count, const uint8_t* const* parts, const int64_t* chunk, uint8_t* y) {
  concat_parts(outer, count, [&](size_t p) { return parts[p]; }, chunk, y);
}

namespace {

inline uint64_t splitmix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

}  // namespace

uint64_t mix_seed(uint64_t salt) { return 0xcbf29ce484222325ull ^ salt; }

uint64_t mix_digest(uint64_t h, const uint8_t* data, int64_t bytes) {
  // Four independent lanes of 8-byte words (each step x -> (x ^ word) * odd, x ^= x >> 29 is a
  // bijection of the lane, so every word changes it), then FNV-1a over the tail: every input byte
  // counts, at memory speed rather than a multiply per byte (the stand-in reads all of a 100,000-op
  // graph's bytes twice per simulation).
  constexpr uint64_t kOdd = 0x9E3779B97F4A7C15ull;
  uint64_t lane[4] = {h, h ^ 0xBF58476D1CE4E5B9ull, h ^ 0x94D049BB133111EBull, h ^ 0xD1B54A32D192ED03ull};
  int64_t i = 0;
  for (; i + 32 <= bytes; i += 32)
    for (int k = 0; k < 4; ++k) {
      uint64_t word;
      std::memcpy(&word, data + i + 8 * k, 8);
      lane[k] = (lane[k] ^ word) * kOdd;
      lane[k] ^= lane[k] >> 29;
    }
  for (int k = 0; k < 4; ++k) h = (h ^ lane[k]) * kOdd, h ^= h >> 32;
  for (; i < bytes; ++i) h = (h ^ data[i]) * 0x100000001b3ull;  // FNV-1a
  return h;
}

void mix_fill(uint64_t digest, size_t output_index, uint8_t* out, int64_t bytes) {
  const uint64_t key = splitmix(digest + output_index);
  int64_t i = 0;
  for (; i + 8 <= bytes; i += 8) {
    uint64_t v = splitmix(key ^ static_cast<uint64_t>(i));
    std::memcpy(out + i, &v, 8);
  }
  if (i < bytes) {
    uint64_t v = splitmix(key ^ static_cast<uint64_t>(i));
    std::memcpy(out + i, &v, static_cast<size_t>(bytes - i));
  }
}

}  // namespace arenaplan::sim
