// Model kernels that reduce windows or axes: AVERAGE_POOL_2D, MAX_POOL_2D (int8, int16, float32), L2_POOL_2D (float32), MEAN and SUM (int8 and
// int16 with TFLM's reference arithmetic, float32), REDUCE_MAX and REDUCE_MIN (int8, float32), REDUCE_ALL (bool).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/sim/detail/model_kernels.h"

namespace arenaplan::sim {

namespace {

// h, w are the window's input: the stored input plus a folded PAD's border (fold_*, attrs of the
// foldpad rewrite), whose cells read as the pad value and count in an average's divisor.
struct PoolGeom {
  int64_t n = 1, h = 1, w = 1, c = 1, kh = 1, kw = 1, oh = 1, ow = 1;
  int64_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
  int64_t xh = 1, xw = 1, fold_top = 0, fold_left = 0;  // the stored input inside the border
  bool folded = false;
  // Index of stored element (b, y, x, ch) for window coordinates, or -1 in the folded border.
  int64_t index(int64_t b, int64_t y, int64_t x, int64_t ch) const {
    const int64_t sy = y - fold_top, sx = x - fold_left;
    if (sy < 0 || sy >= xh || sx < 0 || sx >= xw) return -1;
    return ((b * xh + sy) * xw + sx) * c + ch;
  }
};

PoolGeom pool_geometry(const KernelContext& c) {
  const auto x = c.dims(c.in(0)), y = c.dims(c.out(0));
  c.require(x.size() == 4 && y.size() == 4, "input and output must be NHWC (rank 4)");
  PoolGeom g;
  g.n = x[0], g.xh = x[1], g.xw = x[2], g.c = x[3];
  g.fold_top = c.attr("fold_pad_top", 0), g.fold_left = c.attr("fold_pad_left", 0);
  const int64_t fold_bottom = c.attr("fold_pad_bottom", 0), fold_right = c.attr("fold_pad_right", 0);
  c.require(g.fold_top >= 0 && g.fold_left >= 0 && fold_bottom >= 0 && fold_right >= 0, "folded pads must be >= 0");
  g.folded = g.fold_top || g.fold_left || fold_bottom || fold_right;
  g.h = g.xh + g.fold_top + fold_bottom, g.w = g.xw + g.fold_left + fold_right;
  g.oh = y[1], g.ow = y[2];
  g.kh = c.attr("kernel_h", -1), g.kw = c.attr("kernel_w", -1);
  g.stride_h = c.attr("stride_h", 1), g.stride_w = c.attr("stride_w", 1);
  g.pad_h = c.attr("pad_h", 0), g.pad_w = c.attr("pad_w", 0);
  c.require(g.kh >= 1 && g.kw >= 1 && g.stride_h >= 1 && g.stride_w >= 1, "no pool window in the op's options");
  const int64_t pb = c.attr("pad_bottom", g.pad_h), pr = c.attr("pad_right", g.pad_w);
  c.require(y[0] == g.n && y[3] == g.c && (g.h + g.pad_h + pb - g.kh) / g.stride_h + 1 == g.oh &&
                (g.w + g.pad_w + pr - g.kw) / g.stride_w + 1 == g.ow,
            "output shape does not follow from the input, window, stride and padding");
  return g;
}

// Visits every output position with the clipped window [y0, y1) x [x0, x1) in input coordinates.
template <class F>
void for_each_window(const PoolGeom& g, F&& f) {
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t oy = 0; oy < g.oh; ++oy)
      for (int64_t ox = 0; ox < g.ow; ++ox) {
        const int64_t iy = oy * g.stride_h - g.pad_h, ix = ox * g.stride_w - g.pad_w;
        const int64_t y0 = std::max<int64_t>(0, iy), y1 = std::min(g.h, iy + g.kh);
        const int64_t x0 = std::max<int64_t>(0, ix), x1 = std::min(g.w, ix + g.kw);
        f(b, ((b * g.oh + oy) * g.ow + ox) * g.c, y0, y1, x0, x1);
      }
}

// TFLM's integer pooling over T (int8, int16: the same loops): the window's sum in int32 divided
// rounding half away from zero, or its maximum from T's lowest; the activation clamp.
template <class T>
void quantized_pool_run(const PoolGeom& g, bool average, int32_t fold_value, int32_t lo, int32_t hi, const T* x, T* y) {
  for_each_window(g, [&](int64_t b, int64_t at, int64_t y0, int64_t y1, int64_t x0, int64_t x1) {
    for (int64_t ch = 0; ch < g.c; ++ch) {
      int32_t acc = average ? 0 : std::numeric_limits<T>::lowest(), count = 0;
      for (int64_t iy = y0; iy < y1; ++iy)
        for (int64_t ix = x0; ix < x1; ++ix) {
          const int64_t at_x = g.index(b, iy, ix, ch);
          const int32_t v = at_x < 0 ? fold_value : x[at_x];
          acc = average ? acc + v : std::max(acc, v);
          ++count;
        }
      // TFLM: the mean rounds half away from zero; an empty window (only padding) gives 0.
      if (average) acc = count == 0 ? 0 : acc > 0 ? (acc + count / 2) / count : (acc - count / 2) / count;
      y[at + ch] = static_cast<T>(std::clamp(acc, lo, hi));
    }
  });
}

ModelKernel prepare_pool(const KernelContext& c, bool average) {
  const Tensor &xt = c.in(0), &yt = c.out(0);
  const PoolGeom g = pool_geometry(c);
  ModelKernel k;
  k.work.alu_ops = g.n * g.oh * g.ow * g.c * g.kh * g.kw;
  const char* base = average ? "average_pool_2d" : "max_pool_2d";
  const int64_t fold_value = c.attr("fold_pad_value", 0);  // int8 value or float bits
  if (c.is(xt, DType::kInt8) && c.is(yt, DType::kInt8)) {
    k.name = average ? (g.folded ? "average_pool_2d int8 folded pad" : "average_pool_2d int8")
                     : (g.folded ? "max_pool_2d int8 folded pad" : "max_pool_2d int8");
    c.require(fold_value >= -128 && fold_value <= 127, "fold_pad_value must be an int8");
    int32_t lo, hi;
    c.activation_range_int8(yt, lo, hi);
    k.run = [=](const Operand* in, const Operand* out) {
      quantized_pool_run(g, average, static_cast<int32_t>(fold_value), lo, hi, as<int8_t>(in[0]), as_mut<int8_t>(out[0]));
    };
    return k;
  }
  if (c.is(xt, DType::kInt16) && c.is(yt, DType::kInt16)) {
    // The foldpad rewrite folds int8 pads only.
    c.require(!g.folded, std::string(base) + " int16 with a folded pad is not supported");
    k.name = average ? "average_pool_2d int16" : "max_pool_2d int16";
    int32_t lo, hi;
    c.activation_range_int16(yt, lo, hi);
    k.run = [=](const Operand* in, const Operand* out) {
      quantized_pool_run(g, average, 0, lo, hi, as<int16_t>(in[0]), as_mut<int16_t>(out[0]));
    };
    return k;
  }
  c.require(c.is(xt, DType::kFloat32) && c.is(yt, DType::kFloat32), std::string(base) + " runs int8, int16 or float32");
  k.name = average ? (g.folded ? "average_pool_2d float32 folded pad" : "average_pool_2d float32")
                   : (g.folded ? "max_pool_2d float32 folded pad" : "max_pool_2d float32");
  float fold_float;
  const uint32_t fold_bits = static_cast<uint32_t>(fold_value);
  std::memcpy(&fold_float, &fold_bits, 4);
  float lo, hi;
  c.activation_range_float(lo, hi);
  k.run = [=](const Operand* in, const Operand* out) {
    const float* x = as<float>(in[0]);
    float* y = as_mut<float>(out[0]);
    for_each_window(g, [&](int64_t b, int64_t at, int64_t y0, int64_t y1, int64_t x0, int64_t x1) {
      for (int64_t ch = 0; ch < g.c; ++ch) {
        float acc = average ? 0.f : std::numeric_limits<float>::lowest(), count = 0.f;
        for (int64_t iy = y0; iy < y1; ++iy)
          for (int64_t ix = x0; ix < x1; ++ix) {
            const int64_t at_x = g.index(b, iy, ix, ch);
            const float v = at_x < 0 ? fold_float : x[at_x];
            acc = average ? acc + v : std::max(acc, v);
            count += 1.f;
          }
        if (average) acc = acc / count;
        y[at + ch] = std::min(std::max(acc, lo), hi);
      }
    });
  };
  return k;
}

}  // namespace

// L2_POOL_2D, float32 only as in TFLM: the square root of the window's mean square, clamped.
ModelKernel prepare_l2_pool_2d(const KernelContext& c) {
  const PoolGeom g = pool_geometry(c);
  c.require(c.is(c.in(0), DType::kFloat32) && c.is(c.out(0), DType::kFloat32), "l2_pool_2d runs float32 only (TFLM)");
  c.require(!g.folded, "l2_pool_2d with a folded pad is not supported");
  float lo, hi;
  c.activation_range_float(lo, hi);
  ModelKernel k{"l2_pool_2d float32"};
  k.work.alu_ops = 2 * g.n * g.oh * g.ow * g.c * g.kh * g.kw;
  k.run = [=](const Operand* in, const Operand* out) {
    const float* x = as<float>(in[0]);
    float* y = as_mut<float>(out[0]);
    for_each_window(g, [&](int64_t b, int64_t at, int64_t y0, int64_t y1, int64_t x0, int64_t x1) {
      for (int64_t ch = 0; ch < g.c; ++ch) {
        float squares = 0.f;
        int count = 0;
        for (int64_t iy = y0; iy < y1; ++iy)
          for (int64_t ix = x0; ix < x1; ++ix) {
            const float v = x[g.index(b, iy, ix, ch)];
            squares += v * v;
            ++count;
          }
        y[at + ch] = std::min(std::max(std::sqrt(squares / static_cast<float>(count)), lo), hi);
      }
    });
  };
  return k;
}

ModelKernel prepare_average_pool_2d(const KernelContext& c) { return prepare_pool(c, true); }
ModelKernel prepare_max_pool_2d(const KernelContext& c) { return prepare_pool(c, false); }

namespace {

enum class Reduction { kMean, kSum, kMax, kMin };

// The reduced axes' geometry: the output index of every input element, walked with an odometer
// (keep_dims only adds 1s to the output shape).
struct ReducedAxes {
  std::vector<int64_t> x, out_stride;
  int64_t outputs = 1, per_output = 1, total = 0;
  template <class F>
  void walk(F&& visit) const {
    const size_t rank = x.size();
    int64_t idx[8] = {0}, o = 0;
    for (int64_t i = 0; i < total; ++i) {
      visit(i, o);
      for (size_t d = rank; d-- > 0;) {
        ++idx[d];
        o += out_stride[d];
        if (idx[d] < x[d]) break;
        o -= out_stride[d] * idx[d];
        idx[d] = 0;
      }
    }
  }
};

ReducedAxes reduced_axes(const KernelContext& c) {
  c.require(c.inputs() == 2 && c.outputs() == 1, "a reduction expects an input and its axes");
  c.require(c.is(c.in(1), DType::kInt32), "reduction axes must be int32 (TFLM)");
  ReducedAxes r;
  r.x = c.dims(c.in(0));
  const int64_t rank = static_cast<int64_t>(r.x.size());
  c.require(rank <= 8, "more than 8 dims");
  std::vector<bool> reduced(r.x.size(), false);
  for (int64_t a : c.const_ints(c.in(1))) {
    if (a < 0) a += rank;
    c.require(a >= 0 && a < rank, "axis out of range");
    reduced[a] = true;
  }
  r.out_stride.assign(r.x.size(), 0);
  for (int64_t d = rank; d-- > 0;) {
    if (reduced[d]) {
      r.per_output *= r.x[d];
    } else {
      r.out_stride[d] = r.outputs;
      r.outputs *= r.x[d];
    }
  }
  c.require(c.count(c.out(0)) == r.outputs, "output size does not match the reduced input");
  r.total = c.count(c.in(0));
  return r;
}

// MEAN and SUM of int8 or int16: TFLM's QuantizedMeanOrSum (an int32 sum per output, the zero
// point times the count taken off, one multiplier; MEAN folds the division by the count into it).
template <class T>
ModelKernel quantized_mean_or_sum(const KernelContext& c, const ReducedAxes& r, bool sum, const char* name) {
  const Tensor &xt = c.in(0), &yt = c.out(0);
  tflm::Multiplier m = tflm::quantize_multiplier(static_cast<double>(c.scale(xt)) / static_cast<double>(c.scale(yt)));
  if (!sum && r.per_output > 0) {
    int shift = 63 - __builtin_clzll(static_cast<uint64_t>(r.per_output));
    shift = std::min(shift, 32);
    shift = std::min(shift, 31 + m.shift);
    m.value = static_cast<int32_t>((static_cast<int64_t>(m.value) << shift) / r.per_output);
    m.shift -= shift;
  }
  const int32_t in_zp = c.zero_point(xt), out_zp = c.zero_point(yt);
  auto sums = std::make_shared<std::vector<int32_t>>(static_cast<size_t>(r.outputs));
  ModelKernel k{name};
  k.work.alu_ops = r.total;
  k.run = [=](const Operand* in, const Operand* out) {
    const T* xs = as<T>(in[0]);
    T* y = as_mut<T>(out[0]);
    std::vector<int32_t>& s = *sums;
    std::fill(s.begin(), s.end(), 0);
    // An empty input leaves the outputs 0, as TFLM does.
    std::fill(y, y + r.outputs, T{0});
    if (r.total == 0) return;
    r.walk([&](int64_t i, int64_t o) { s[o] = static_cast<int32_t>(static_cast<uint32_t>(s[o]) + static_cast<uint32_t>(xs[i])); });
    for (int64_t o = 0; o < r.outputs; ++o) {
      const int32_t shifted = static_cast<int32_t>(static_cast<uint32_t>(s[o]) - static_cast<uint32_t>(in_zp * r.per_output));
      const int32_t v = tflm::multiply_by_quantized_multiplier(shifted, m) + out_zp;
      y[o] = static_cast<T>(std::clamp<int32_t>(v, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
    }
  };
  return k;
}

// REDUCE_MAX / REDUCE_MIN: TFLM's ReduceGeneric from the type's lowest (max) or highest (min).
template <class T>
ModelKernel min_or_max(const ReducedAxes& r, bool max, const char* name) {
  ModelKernel k{name};
  k.work.alu_ops = r.total;
  k.run = [=](const Operand* in, const Operand* out) {
    const T* xs = as<T>(in[0]);
    T* y = as_mut<T>(out[0]);
    std::fill(y, y + r.outputs, max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max());
    r.walk([&](int64_t i, int64_t o) {
      if (max ? xs[i] > y[o] : xs[i] < y[o]) y[o] = xs[i];
    });
  };
  return k;
}

ModelKernel prepare_reduction(const KernelContext& c, Reduction kind) {
  const ReducedAxes r = reduced_axes(c);
  const Tensor &xt = c.in(0), &yt = c.out(0);
  const bool sum = kind == Reduction::kSum;
  if (kind == Reduction::kMax || kind == Reduction::kMin) {
    const bool max = kind == Reduction::kMax;
    if (c.is(xt, DType::kFloat32) && c.is(yt, DType::kFloat32))
      return min_or_max<float>(r, max, max ? "reduce_max float32" : "reduce_min float32");
    c.require(c.is(xt, DType::kInt8) && c.is(yt, DType::kInt8), std::string(max ? "reduce_max" : "reduce_min") +
                                                                     " runs float32 or int8 (TFLM)");
    c.require(c.scale(xt) == c.scale(yt) && c.zero_point(xt) == c.zero_point(yt),
              "int8 reduce_max and reduce_min need the input's quantization on the output (TFLM)");
    return min_or_max<int8_t>(r, max, max ? "reduce_max int8" : "reduce_min int8");
  }
  if (c.is(xt, DType::kInt8) && c.is(yt, DType::kInt8))
    return quantized_mean_or_sum<int8_t>(c, r, sum, sum ? "sum int8" : "mean int8");
  if (c.is(xt, DType::kInt16) && c.is(yt, DType::kInt16))
    return quantized_mean_or_sum<int16_t>(c, r, sum, sum ? "sum int16" : "mean int16");
  c.require(c.is(xt, DType::kFloat32) && c.is(yt, DType::kFloat32),
            std::string(sum ? "sum" : "mean") + " runs int8, int16 or float32 (TFLM)");
  ModelKernel k{sum ? "sum float32" : "mean float32"};
  k.work.alu_ops = r.total;
  auto sums = std::make_shared<std::vector<float>>(static_cast<size_t>(r.outputs));
  k.run = [=](const Operand* in, const Operand* out) {
    const float* xs = as<float>(in[0]);
    float* y = as_mut<float>(out[0]);
    std::vector<float>& s = *sums;
    std::fill(s.begin(), s.end(), 0.f);
    r.walk([&](int64_t i, int64_t o) { s[o] += xs[i]; });
    for (int64_t o = 0; o < r.outputs; ++o) y[o] = sum ? s[o] : s[o] / static_cast<float>(r.per_output);
  };
  return k;
}

}  // namespace

ModelKernel prepare_mean(const KernelContext& c) { return prepare_reduction(c, Reduction::kMean); }
ModelKernel prepare_sum(const KernelContext& c) { return prepare_reduction(c, Reduction::kSum); }
ModelKernel prepare_reduce_max(const KernelContext& c) { return prepare_reduction(c, Reduction::kMax); }
ModelKernel prepare_reduce_min(const KernelContext& c) { return prepare_reduction(c, Reduction::kMin); }

// REDUCE_ALL, bool only as in TFLM: every output starts true and ANDs its inputs (any non-zero
// byte reads as true; the output is written 0 or 1).
ModelKernel prepare_reduce_all(const KernelContext& c) {
  const ReducedAxes r = reduced_axes(c);
  c.require(c.is(c.in(0), DType::kBool) && c.is(c.out(0), DType::kBool), "reduce_all runs bool only (TFLM)");
  ModelKernel k{"reduce_all bool"};
  k.work.alu_ops = r.total;
  k.run = [=](const Operand* in, const Operand* out) {
    const uint8_t* xs = in[0].data;
    uint8_t* y = out[0].data;
    std::fill(y, y + r.outputs, uint8_t{1});
    r.walk([&](int64_t i, int64_t o) { y[o] = y[o] != 0 && xs[i] != 0 ? 1 : 0; });
  };
  return k;
}

}  // namespace arenaplan::sim
