// Model kernels that multiply matrices outside the conv window walk: BATCH_MATMUL (float32, int8,
// int16; broadcast batch dims, adj_x / adj_y) and TRANSPOSE_CONV (float32, int8, int16 with int8
// filters), with TFLM's reference accumulation order and requantization.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "core/sim/detail/model_kernels.h"

namespace arenaplan::sim {

namespace {

// TFLM's MultiplyByQuantizedMultiplier for an int64 accumulator (the int16 kernels): the Q31
// multiplier reduced to Q15, one rounding shift.
int32_t multiply_int64(int64_t x, tflm::Multiplier m) {
  const int64_t reduced = m.value < 0x7FFF0000 ? (int64_t{m.value} + (1 << 15)) >> 16 : 0x7FFF;
  const int total_shift = std::clamp(15 - m.shift, 1, 62);
  const int64_t r = static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(reduced)) +
                    (int64_t{1} << (total_shift - 1));
  return static_cast<int32_t>(r >> total_shift);
}

int64_t checked_product(const KernelContext& c, const std::vector<int64_t>& d) {
  int64_t n = 1;
  for (int64_t v : d) {
    c.require(v >= 0 && (v == 0 || n <= (int64_t{1} << 40) / v), "a dimension product overflows");
    n *= v;
  }
  return n;
}

// BATCH_MATMUL's geometry: per output batch, the offsets of its lhs and rhs matrices.
struct MatmulGeom {
  int64_t rows = 0, cols = 0, depth = 0;
  bool adj_x = false, adj_y = false;
  std::vector<int64_t> lhs_at, rhs_at;  // element offsets, one per output batch
  // Element (r, k) of lhs and (k, c) of rhs within their matrices.
  int64_t lhs(int64_t r, int64_t k) const { return adj_x ? k * rows + r : r * depth + k; }
  int64_t rhs(int64_t k, int64_t col) const { return adj_y ? col * depth + k : k * cols + col; }
};

MatmulGeom matmul_geometry(const KernelContext& c) {
  c.require(c.inputs() == 2 && c.outputs() == 1, "batch_matmul expects two inputs");
  const auto a = c.dims(c.in(0)), b = c.dims(c.in(1)), y = c.dims(c.out(0));
  c.require(a.size() >= 2 && a.size() <= 5 && b.size() >= 2 && b.size() <= 5, "batch_matmul runs ranks 2 to 5 (TFLM)");
  checked_product(c, a), checked_product(c, b), checked_product(c, y);
  MatmulGeom g;
  g.adj_x = c.attr("adj_x", 0) != 0, g.adj_y = c.attr("adj_y", 0) != 0;
  const size_t rank = std::max(a.size(), b.size());
  c.require(y.size() == rank, "batch_matmul output rank differs from its inputs'");
  g.rows = g.adj_x ? a[a.size() - 1] : a[a.size() - 2];
  g.depth = g.adj_x ? a[a.size() - 2] : a[a.size() - 1];
  const int64_t depth_b = g.adj_y ? b[b.size() - 1] : b[b.size() - 2];
  g.cols = g.adj_y ? b[b.size() - 2] : b[b.size() - 1];
  c.require(g.depth == depth_b, "batch_matmul inner dimensions differ");
  c.require(y[rank - 2] == g.rows && y[rank - 1] == g.cols, "batch_matmul output shape does not match");
  std::vector<int64_t> ba(a.begin(), a.end() - 2), bb(b.begin(), b.end() - 2), by(y.begin(), y.end() - 2);
  const Broadcast2 bc = make_broadcast(c, ba, bb, by);
  bc.each([&](int64_t, int64_t ia, int64_t ib) {
    g.lhs_at.push_back(ia * g.rows * g.depth);
    g.rhs_at.push_back(ib * g.depth * g.cols);
  });
  return g;
}

}  // namespace

ModelKernel prepare_batch_matmul(const KernelContext& c) {
  const Tensor &at = c.in(0), &bt = c.in(1), &yt = c.out(0);
  c.require(at.dtype == bt.dtype && at.dtype == yt.dtype &&
                (c.is(at, DType::kFloat32) || c.is(at, DType::kInt8) || c.is(at, DType::kInt16)),
            "batch_matmul runs float32, int8 or int16, one type throughout (TFLM)");
  const MatmulGeom g = matmul_geometry(c);
  ModelKernel k;
  k.work.macs = static_cast<int64_t>(g.lhs_at.size()) * g.rows * g.cols * g.depth;
  auto walk = [g](auto&& dot, auto* y) {
    int64_t o = 0;
    for (size_t b = 0; b < g.lhs_at.size(); ++b)
      for (int64_t r = 0; r < g.rows; ++r)
        for (int64_t col = 0; col < g.cols; ++col) y[o++] = dot(g.lhs_at[b], g.rhs_at[b], r, col);
  };
  if (c.is(at, DType::kFloat32)) {
    k.name = "batch_matmul float32";
    k.run = [=](const Operand* in, const Operand* out) {
      const float *a = as<float>(in[0]), *b = as<float>(in[1]);
      walk([&](int64_t la, int64_t lb, int64_t r, int64_t col) {
        float total = 0;
        for (int64_t d = 0; d < g.depth; ++d) total += a[la + g.lhs(r, d)] * b[lb + g.rhs(d, col)];
        return total;
      }, as_mut<float>(out[0]));
    };
    return k;
  }
  // TFLM: GetQuantizedConvolutionMultipler (the scales' product in float), no fused activation.
  const tflm::Multiplier m =
      tflm::quantize_multiplier(static_cast<double>(c.scale(at) * c.scale(bt)) / static_cast<double>(c.scale(yt)));
  const int32_t a_off = -c.zero_point(at), b_off = -c.zero_point(bt), y_off = c.zero_point(yt);
  if (c.is(at, DType::kInt8)) {
    k.name = "batch_matmul int8";
    k.run = [=](const Operand* in, const Operand* out) {
      const int8_t *a = as<int8_t>(in[0]), *b = as<int8_t>(in[1]);
      walk([&](int64_t la, int64_t lb, int64_t r, int64_t col) {
        uint32_t total = 0;  // int32 wraps on the device
        for (int64_t d = 0; d < g.depth; ++d)
          total += static_cast<uint32_t>((a[la + g.lhs(r, d)] + a_off) * (b[lb + g.rhs(d, col)] + b_off));
        const int32_t v = tflm::multiply_by_quantized_multiplier(static_cast<int32_t>(total), m) + y_off;
        return static_cast<int8_t>(std::clamp(v, -128, 127));
      }, as_mut<int8_t>(out[0]));
    };
    return k;
  }
  c.require(a_off == 0 && b_off == 0 && y_off == 0, "int16 batch_matmul needs zero points 0 (TFLM)");
  k.name = "batch_matmul int16";
  k.run = [=](const Operand* in, const Operand* out) {
    const int16_t *a = as<int16_t>(in[0]), *b = as<int16_t>(in[1]);
    walk([&](int64_t la, int64_t lb, int64_t r, int64_t col) {
      int64_t total = 0;
      for (int64_t d = 0; d < g.depth; ++d) total += int64_t{a[la + g.lhs(r, d)]} * b[lb + g.rhs(d, col)];
      return static_cast<int16_t>(std::clamp(multiply_int64(total, m), -32768, 32767));
    }, as_mut<int16_t>(out[0]));
  };
  return k;
}

namespace {

// TRANSPOSE_CONV's geometry: input [N,H,W,IC], filter [OC,KH,KW,IC], output [N,OH,OW,OC], and
// the padding TFLM computes from the output size (ComputePaddingHeightWidth with the output as
// the "input").
struct TransposeGeom {
  int64_t n = 0, h = 0, w = 0, ic = 0, kh = 0, kw = 0, oh = 0, ow = 0, oc = 0;
  int64_t stride_h = 1, stride_w = 1, pad_h = 0, pad_w = 0;
  // Visits every (output element, input element, filter element) product in TFLM's order.
  template <class F>
  void each(F&& f) const {
    for (int64_t b = 0; b < n; ++b)
      for (int64_t iy = 0; iy < h; ++iy)
        for (int64_t ix = 0; ix < w; ++ix)
          for (int64_t ci = 0; ci < ic; ++ci) {
            const int64_t x_at = ((b * h + iy) * w + ix) * ic + ci;
            for (int64_t fy = 0; fy < kh; ++fy) {
              const int64_t oy = iy * stride_h - pad_h + fy;
              for (int64_t fx = 0; fx < kw; ++fx) {
                const int64_t ox = ix * stride_w - pad_w + fx;
                if (oy < 0 || oy >= oh || ox < 0 || ox >= ow) continue;
                for (int64_t co = 0; co < oc; ++co)
                  f(((b * oh + oy) * ow + ox) * oc + co, x_at, ((co * kh + fy) * kw + fx) * ic + ci);
              }
            }
          }
  }
};

int64_t padding_before(int64_t size, int64_t filter, int64_t stride, bool same) {
  const int64_t out = same ? (size + stride - 1) / stride : (size + stride - filter) / stride;
  return std::max<int64_t>((out - 1) * stride + filter - size, 0) / 2;
}

TransposeGeom transpose_geometry(const KernelContext& c) {
  c.require(c.inputs() == 3 || c.inputs() == 4, "transpose_conv expects output shape, filter, input and a bias");
  const auto x = c.dims(c.in(2)), f = c.dims(c.in(1)), y = c.dims(c.out(0));
  c.require(x.size() == 4 && f.size() == 4 && y.size() == 4, "transpose_conv runs 4-D tensors");
  checked_product(c, x), checked_product(c, f), checked_product(c, y);
  c.require(c.in(1).constant, "transpose_conv filter is not constant");
  c.require(c.const_ints(c.in(0)) == y, "transpose_conv's output shape operand does not match its output");
  TransposeGeom g;
  g.n = x[0], g.h = x[1], g.w = x[2], g.ic = x[3];
  g.oc = f[0], g.kh = f[1], g.kw = f[2];
  g.oh = y[1], g.ow = y[2];
  c.require(f[3] == g.ic && y[0] == g.n && y[3] == g.oc, "transpose_conv shapes do not match");
  g.stride_h = c.attr("stride_h", 1), g.stride_w = c.attr("stride_w", 1);
  c.require(g.stride_h >= 1 && g.stride_w >= 1 && g.stride_h < (1 << 16) && g.stride_w < (1 << 16), "transpose_conv strides must be positive");
  const bool same = c.attr("padding_same", 1) != 0;
  g.pad_h = padding_before(g.oh, g.kh, g.stride_h, same);
  g.pad_w = padding_before(g.ow, g.kw, g.stride_w, same);
  return g;
}

const Tensor* transpose_bias(const KernelContext& c, std::initializer_list<DType> types, int64_t oc) {
  if (c.inputs() < 4) return nullptr;
  const Tensor& b = c.in(3);
  c.require(b.dtype && std::find(types.begin(), types.end(), *b.dtype) != types.end() && c.count(b) == oc,
            "transpose_conv bias has the wrong type or size");
  return &b;
}

}  // namespace

ModelKernel prepare_transpose_conv(const KernelContext& c) {
  const TransposeGeom g = transpose_geometry(c);
  const Tensor &wt = c.in(1), &xt = c.in(2), &yt = c.out(0);
  const int64_t outputs = g.n * g.oh * g.ow * g.oc;
  const bool has_bias = c.inputs() == 4;
  ModelKernel k;
  k.work.macs = g.n * g.h * g.w * g.ic * g.kh * g.kw * g.oc;
  if (c.is(xt, DType::kFloat32)) {
    c.require(c.is(wt, DType::kFloat32) && c.is(yt, DType::kFloat32), "transpose_conv float32 needs float32 filter and output");
    transpose_bias(c, {DType::kFloat32}, g.oc);
    float lo, hi;
    c.activation_range_float(lo, hi);
    k.name = "transpose_conv float32";
    k.run = [=](const Operand* in, const Operand* out) {
      const float *x = as<float>(in[2]), *w = as<float>(in[1]);
      float* y = as_mut<float>(out[0]);
      std::fill(y, y + outputs, 0.f);
      g.each([&](int64_t o, int64_t i, int64_t f) { y[o] += x[i] * w[f]; });
      if (has_bias) {
        const float* bias = as<float>(in[3]);
        for (int64_t o = 0; o < outputs; ++o) y[o] += bias[o % g.oc];
      }
      for (int64_t o = 0; o < outputs; ++o) y[o] = std::min(std::max(y[o], lo), hi);
    };
    return k;
  }
  c.require(c.is(wt, DType::kInt8), "transpose_conv runs float32, int8 or int16 with int8 filters (TFLM)");
  const double in_scale = c.scale(xt), out_scale = c.scale(yt);
  std::vector<tflm::Multiplier> mult;
  for (double s : c.channel_scales(wt, g.oc)) mult.push_back(tflm::quantize_multiplier(in_scale * s / out_scale));
  const int32_t x_off = -c.zero_point(xt), y_off = c.zero_point(yt);
  if (c.is(xt, DType::kInt8) && c.is(yt, DType::kInt8)) {
    transpose_bias(c, {DType::kInt32}, g.oc);
    int32_t lo, hi;
    c.activation_range_int8(yt, lo, hi);
    auto acc = std::make_shared<std::vector<int32_t>>(static_cast<size_t>(outputs));
    k.name = "transpose_conv int8";
    k.work.temp_bytes = 4 * outputs;
    k.run = [=](const Operand* in, const Operand* out) {
      const int8_t *x = as<int8_t>(in[2]), *w = as<int8_t>(in[1]);
      int8_t* y = as_mut<int8_t>(out[0]);
      std::vector<int32_t>& s = *acc;
      std::fill(s.begin(), s.end(), 0);
      g.each([&](int64_t o, int64_t i, int64_t f) {
        s[o] = static_cast<int32_t>(static_cast<uint32_t>(s[o]) + static_cast<uint32_t>((x[i] + x_off) * w[f]));
      });
      const int32_t* bias = has_bias ? as<int32_t>(in[3]) : nullptr;
      for (int64_t o = 0; o < outputs; ++o) {
        int32_t a = s[o];
        if (bias) a = static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(bias[o % g.oc]));
        const int32_t v = tflm::multiply_by_quantized_multiplier(a, mult[static_cast<size_t>(o % g.oc)]) + y_off;
        y[o] = static_cast<int8_t>(std::clamp(v, lo, hi));
      }
    };
    return k;
  }
  c.require(c.is(xt, DType::kInt16) && c.is(yt, DType::kInt16), "transpose_conv runs float32, int8 or int16 (TFLM)");
  const Tensor* bt = transpose_bias(c, {DType::kInt64, DType::kInt16}, g.oc);
  const bool bias16 = bt && c.is(*bt, DType::kInt16);
  // TFLM's int16 path takes neither offset; its activation range is int16's, clamped by the activation.
  int32_t lo = -32768, hi = 32767;
  {
    const float s = c.scale(yt);
    auto q = [&](float f) { return y_off + static_cast<int32_t>(tflm::round_half_away(f / s)); };
    switch (c.attr("activation", 0)) {
      case 0: break;
      case 1: lo = std::max(lo, q(0.0f)); break;
      case 2: lo = std::max(lo, q(-1.0f)), hi = std::min(hi, q(1.0f)); break;
      case 3: lo = std::max(lo, q(0.0f)), hi = std::min(hi, q(6.0f)); break;
      default: c.unsupported("fused activation " + std::to_string(c.attr("activation", 0)) + " is not supported");
    }
  }
  auto acc = std::make_shared<std::vector<int64_t>>(static_cast<size_t>(outputs));
  k.name = "transpose_conv int16";
  k.work.temp_bytes = 8 * outputs;
  k.run = [=](const Operand* in, const Operand* out) {
    const int16_t* x = as<int16_t>(in[2]);
    const int8_t* w = as<int8_t>(in[1]);
    int16_t* y = as_mut<int16_t>(out[0]);
    std::vector<int64_t>& s = *acc;
    std::fill(s.begin(), s.end(), 0);
    g.each([&](int64_t o, int64_t i, int64_t f) { s[o] += int64_t{x[i] * w[f]}; });
    for (int64_t o = 0; o < outputs; ++o) {
      int64_t a = s[o];
      if (has_bias) a += bias16 ? int64_t{as<int16_t>(in[3])[o % g.oc]} : as<int64_t>(in[3])[o % g.oc];
      y[o] = static_cast<int16_t>(std::clamp(multiply_int64(a, mult[static_cast<size_t>(o % g.oc)]), lo, hi));
    }
  };
  return k;
}

}  // namespace arenaplan::sim
