// Model kernels with weights: CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, in int8 with TFLM's
// reference arithmetic (per-channel multipliers, input offset, output offset, fused activation
// clamp) and in float32 (TFLM's loop order, so the sums round the same way).
#include <algorithm>
#include <memory>

#include "core/sim/detail/model_kernels.h"

namespace arenaplan::sim {

namespace {

// NHWC window geometry from the imported attrs (stride, dilation, TFLM's explicit padding).
struct ConvGeom {
  int64_t n = 1, h = 1, w = 1, c = 1;  // input
  int64_t kh = 1, kw = 1;               // filter
  int64_t oh = 1, ow = 1, oc = 1;       // output
  int64_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1, pad_h = 0, pad_w = 0;
  int64_t macs_per_output = 0;
};

// Checks the output shape against the window the attrs describe.
ConvGeom conv_geometry(const KernelContext& c, const std::vector<int64_t>& x, int64_t kh, int64_t kw,
                       const std::vector<int64_t>& y) {
  c.require(x.size() == 4 && y.size() == 4, "input and output must be NHWC (rank 4)");
  ConvGeom g;
  g.n = x[0], g.h = x[1], g.w = x[2], g.c = x[3];
  g.kh = kh, g.kw = kw;
  g.oh = y[1], g.ow = y[2], g.oc = y[3];
  g.stride_h = c.attr("stride_h", 1), g.stride_w = c.attr("stride_w", 1);
  g.dil_h = c.attr("dilation_h", 1), g.dil_w = c.attr("dilation_w", 1);
  g.pad_h = c.attr("pad_h", 0), g.pad_w = c.attr("pad_w", 0);
  const int64_t pad_b = c.attr("pad_bottom", g.pad_h), pad_r = c.attr("pad_right", g.pad_w);
  c.require(g.stride_h >= 1 && g.stride_w >= 1 && g.dil_h >= 1 && g.dil_w >= 1 && kh >= 1 && kw >= 1,
            "strides, dilations and the window must be >= 1");
  const int64_t eh = (kh - 1) * g.dil_h + 1, ew = (kw - 1) * g.dil_w + 1;
  const int64_t want_h = (g.h + g.pad_h + pad_b - eh) / g.stride_h + 1;
  const int64_t want_w = (g.w + g.pad_w + pad_r - ew) / g.stride_w + 1;
  c.require(y[0] == g.n && want_h == g.oh && want_w == g.ow,
            "output [" + std::to_string(y[0]) + "," + std::to_string(y[1]) + "," + std::to_string(y[2]) + "," +
                std::to_string(y[3]) + "] does not follow from the input, window, stride, dilation and padding");
  return g;
}

// Per-output-channel TFLM multipliers: input scale * filter scale / output scale, in double.
std::vector<tflm::Multiplier> channel_multipliers(const KernelContext& c, const Tensor& x, const Tensor& w,
                                                  const Tensor& y, int64_t channels) {
  const double in = c.scale(x), out = c.scale(y);
  std::vector<tflm::Multiplier> m;
  for (double s : c.channel_scales(w, channels)) m.push_back(tflm::quantize_multiplier(in * s / out));
  return m;
}

const Tensor* bias_of(const KernelContext& c, size_t index, DType type, int64_t channels) {
  if (c.inputs() <= index) return nullptr;
  const Tensor& b = c.in(index);
  c.require(b.dtype == type && c.count(b) == channels,
            "bias " + b.name + " must be " + dtype_name(type) + " with " + std::to_string(channels) + " values");
  return &b;
}

void require_constant_weights(const KernelContext& c, const Tensor& w) {
  c.require(w.constant, "weights " + w.name + " are not constant");
}

}  // namespace

ModelKernel prepare_conv_2d(const KernelContext& c) {
  const Tensor &xt = c.in(0), &wt = c.in(1), &yt = c.out(0);
  const auto wd = c.dims(wt);  // [OC, KH, KW, IC / groups]
  c.require(wd.size() == 4, "weights must be [OC,KH,KW,IC]");
  ConvGeom g = conv_geometry(c, c.dims(xt), wd[1], wd[2], c.dims(yt));
  const int64_t fic = wd[3];
  c.require(wd[0] == g.oc && fic > 0 && g.c % fic == 0 && g.oc % (g.c / fic) == 0,
            "weights do not match the input and output channels");
  require_constant_weights(c, wt);
  const int64_t groups = g.c / fic, per_group = g.oc / groups;
  ModelKernel k;
  k.work.macs = g.n * g.oh * g.ow * g.oc * g.kh * g.kw * fic;
  if (c.is(xt, DType::kInt8) && c.is(wt, DType::kInt8) && c.is(yt, DType::kInt8)) {
    k.name = "conv_2d int8";
    const Tensor* bt = bias_of(c, 2, DType::kInt32, g.oc);
    const bool has_bias = bt != nullptr;
    const auto mult = channel_multipliers(c, xt, wt, yt, g.oc);
    const int32_t in_off = -c.zero_point(xt), out_off = c.zero_point(yt);
    int32_t lo, hi;
    c.activation_range_int8(yt, lo, hi);
    k.run = [=](const Operand* in, const Operand* out) {
      const int8_t* x = as<int8_t>(in[0]);
      const int8_t* w = as<int8_t>(in[1]);
      const int32_t* bias = has_bias ? as<int32_t>(in[2]) : nullptr;
      int8_t* y = as_mut<int8_t>(out[0]);
      for (int64_t b = 0; b < g.n; ++b)
        for (int64_t oy = 0; oy < g.oh; ++oy)
          for (int64_t ox = 0; ox < g.ow; ++ox)
            for (int64_t o = 0; o < g.oc; ++o) {
              const int64_t ic0 = (o / per_group) * fic;
              const int8_t* wo = w + o * g.kh * g.kw * fic;
              int32_t acc = 0;
              for (int64_t fy = 0; fy < g.kh; ++fy) {
                const int64_t iy = oy * g.stride_h - g.pad_h + fy * g.dil_h;
                if (iy < 0 || iy >= g.h) continue;
                for (int64_t fx = 0; fx < g.kw; ++fx) {
                  const int64_t ix = ox * g.stride_w - g.pad_w + fx * g.dil_w;
                  if (ix < 0 || ix >= g.w) continue;
                  const int8_t* xp = x + ((b * g.h + iy) * g.w + ix) * g.c + ic0;
                  const int8_t* wp = wo + (fy * g.kw + fx) * fic;
                  for (int64_t i = 0; i < fic; ++i) acc += (int32_t{xp[i]} + in_off) * int32_t{wp[i]};
                }
              }
              if (bias) acc += bias[o];
              acc = tflm::multiply_by_quantized_multiplier(acc, mult[o]) + out_off;
              y[((b * g.oh + oy) * g.ow + ox) * g.oc + o] = static_cast<int8_t>(std::clamp(acc, lo, hi));
            }
    };
    return k;
  }
  c.require(c.is(xt, DType::kFloat32) && c.is(wt, DType::kFloat32) && c.is(yt, DType::kFloat32),
            "conv_2d runs int8 (int8 weights) or float32; this op is " + std::string(dtype_name(*xt.dtype)) +
                " with " + dtype_name(*wt.dtype) + " weights");
  k.name = "conv_2d float32";
  const bool has_bias = bias_of(c, 2, DType::kFloat32, g.oc) != nullptr;
  float lo, hi;
  c.activation_range_float(lo, hi);
  k.run = [=](const Operand* in, const Operand* out) {
    const float* x = as<float>(in[0]);
    const float* w = as<float>(in[1]);
    const float* bias = has_bias ? as<float>(in[2]) : nullptr;
    float* y = as_mut<float>(out[0]);
    for (int64_t b = 0; b < g.n; ++b)
      for (int64_t oy = 0; oy < g.oh; ++oy)
        for (int64_t ox = 0; ox < g.ow; ++ox)
          for (int64_t o = 0; o < g.oc; ++o) {
            const int64_t ic0 = (o / per_group) * fic;
            const float* wo = w + o * g.kh * g.kw * fic;
            float total = 0.f;
            for (int64_t fy = 0; fy < g.kh; ++fy) {
              const int64_t iy = oy * g.stride_h - g.pad_h + fy * g.dil_h;
              if (iy < 0 || iy >= g.h) continue;
              for (int64_t fx = 0; fx < g.kw; ++fx) {
                const int64_t ix = ox * g.stride_w - g.pad_w + fx * g.dil_w;
                if (ix < 0 || ix >= g.w) continue;
                const float* xp = x + ((b * g.h + iy) * g.w + ix) * g.c + ic0;
                const float* wp = wo + (fy * g.kw + fx) * fic;
                for (int64_t i = 0; i < fic; ++i) total += xp[i] * wp[i];
              }
            }
            const float v = total + (bias ? bias[o] : 0.f);
            y[((b * g.oh + oy) * g.ow + ox) * g.oc + o] = std::min(std::max(v, lo), hi);
          }
  };
  return k;
}

ModelKernel prepare_depthwise_conv_2d(const KernelContext& c) {
  const Tensor &xt = c.in(0), &wt = c.in(1), &yt = c.out(0);
  const auto wd = c.dims(wt);  // [1, KH, KW, OC], OC = C x depth multiplier
  c.require(wd.size() == 4 && wd[0] == 1, "depthwise weights must be [1,KH,KW,OC]");
  ConvGeom g = conv_geometry(c, c.dims(xt), wd[1], wd[2], c.dims(yt));
  c.require(wd[3] == g.oc && g.c > 0 && g.oc % g.c == 0, "weights do not match the output channels");
  const int64_t mult_depth = g.oc / g.c;
  // The multiplier follows from the shapes (TFLM checks output depth = input depth x multiplier);
  // some converters write 0 in the option, so the attr is not trusted.
  require_constant_weights(c, wt);
  ModelKernel k;
  k.work.macs = g.n * g.oh * g.ow * g.oc * g.kh * g.kw;
  if (c.is(xt, DType::kInt8) && c.is(wt, DType::kInt8) && c.is(yt, DType::kInt8)) {
    k.name = "depthwise_conv_2d int8";
    const bool has_bias = bias_of(c, 2, DType::kInt32, g.oc) != nullptr;
    const auto mult = channel_multipliers(c, xt, wt, yt, g.oc);
    const int32_t in_off = -c.zero_point(xt), out_off = c.zero_point(yt);
    int32_t lo, hi;
    c.activation_range_int8(yt, lo, hi);
    k.run = [=](const Operand* in, const Operand* out) {
      const int8_t* x = as<int8_t>(in[0]);
      const int8_t* w = as<int8_t>(in[1]);
      const int32_t* bias = has_bias ? as<int32_t>(in[2]) : nullptr;
      int8_t* y = as_mut<int8_t>(out[0]);
      for (int64_t b = 0; b < g.n; ++b)
        for (int64_t oy = 0; oy < g.oh; ++oy)
          for (int64_t ox = 0; ox < g.ow; ++ox)
            for (int64_t ic = 0; ic < g.c; ++ic)
              for (int64_t m = 0; m < mult_depth; ++m) {
                const int64_t o = ic * mult_depth + m;
                int32_t acc = 0;
                for (int64_t fy = 0; fy < g.kh; ++fy) {
                  const int64_t iy = oy * g.stride_h - g.pad_h + fy * g.dil_h;
                  if (iy < 0 || iy >= g.h) continue;
                  for (int64_t fx = 0; fx < g.kw; ++fx) {
                    const int64_t ix = ox * g.stride_w - g.pad_w + fx * g.dil_w;
                    if (ix < 0 || ix >= g.w) continue;
                    acc += (int32_t{x[((b * g.h + iy) * g.w + ix) * g.c + ic]} + in_off) *
                           int32_t{w[(fy * g.kw + fx) * g.oc + o]};
                  }
                }
                if (bias) acc += bias[o];
                acc = tflm::multiply_by_quantized_multiplier(acc, mult[o]) + out_off;
                y[((b * g.oh + oy) * g.ow + ox) * g.oc + o] = static_cast<int8_t>(std::clamp(acc, lo, hi));
              }
    };
    return k;
  }
  c.require(c.is(xt, DType::kFloat32) && c.is(wt, DType::kFloat32) && c.is(yt, DType::kFloat32),
            "depthwise_conv_2d runs int8 or float32");
  k.name = "depthwise_conv_2d float32";
  const bool has_bias = bias_of(c, 2, DType::kFloat32, g.oc) != nullptr;
  float lo, hi;
  c.activation_range_float(lo, hi);
  k.run = [=](const Operand* in, const Operand* out) {
    const float* x = as<float>(in[0]);
    const float* w = as<float>(in[1]);
    const float* bias = has_bias ? as<float>(in[2]) : nullptr;
    float* y = as_mut<float>(out[0]);
    for (int64_t b = 0; b < g.n; ++b)
      for (int64_t oy = 0; oy < g.oh; ++oy)
        for (int64_t ox = 0; ox < g.ow; ++ox)
          for (int64_t ic = 0; ic < g.c; ++ic)
            for (int64_t m = 0; m < mult_depth; ++m) {
              const int64_t o = ic * mult_depth + m;
              float total = 0.f;
              for (int64_t fy = 0; fy < g.kh; ++fy) {
                const int64_t iy = oy * g.stride_h - g.pad_h + fy * g.dil_h;
                if (iy < 0 || iy >= g.h) continue;
                for (int64_t fx = 0; fx < g.kw; ++fx) {
                  const int64_t ix = ox * g.stride_w - g.pad_w + fx * g.dil_w;
                  if (ix < 0 || ix >= g.w) continue;
                  total += x[((b * g.h + iy) * g.w + ix) * g.c + ic] * w[(fy * g.kw + fx) * g.oc + o];
                }
              }
              const float v = total + (bias ? bias[o] : 0.f);
              y[((b * g.oh + oy) * g.ow + ox) * g.oc + o] = std::min(std::max(v, lo), hi);
            }
  };
  return k;
}

ModelKernel prepare_fully_connected(const KernelContext& c) {
  const Tensor &xt = c.in(0), &wt = c.in(1), &yt = c.out(0);
  const auto wd = c.dims(wt);  // [OUT, IN]
  c.require(wd.size() == 2 && wd[1] > 0, "weights must be [OUT,IN]");
  c.require(c.attr("weights_format", 0) == 0, "shuffled weights are not supported");
  const int64_t depth = wd[1], units = wd[0];
  const int64_t xs = c.count(xt);
  c.require(xs % depth == 0, "input " + xt.name + " does not divide into rows of " + std::to_string(depth));
  const int64_t batch = xs / depth;
  c.require(c.count(yt) == batch * units, "output must have batch x units elements");
  require_constant_weights(c, wt);
  ModelKernel k;
  k.work.macs = batch * depth * units;
  if (c.is(xt, DType::kInt8) && c.is(wt, DType::kInt8) && c.is(yt, DType::kInt8)) {
    k.name = "fully_connected int8";
    const bool has_bias = bias_of(c, 2, DType::kInt32, units) != nullptr;
    std::vector<tflm::Multiplier> mult;
    if (wt.quant && wt.quant->per_channel()) {
      mult = channel_multipliers(c, xt, wt, yt, units);
    } else {
      // Per tensor, TFLM multiplies the two scales in float before widening to double.
      const float product = c.scale(xt) * c.scale(wt);
      mult.assign(static_cast<size_t>(units),
                  tflm::quantize_multiplier(static_cast<double>(product) / static_cast<double>(c.scale(yt))));
    }
    const int32_t in_off = -c.zero_point(xt), out_off = c.zero_point(yt);
    const int32_t w_off = wt.quant && !wt.quant->zero_point.empty() ? -static_cast<int32_t>(wt.quant->zero_point[0]) : 0;
    int32_t lo, hi;
    c.activation_range_int8(yt, lo, hi);
    k.run = [=](const Operand* in, const Operand* out) {
      const int8_t* x = as<int8_t>(in[0]);
      const int8_t* w = as<int8_t>(in[1]);
      const int32_t* bias = has_bias ? as<int32_t>(in[2]) : nullptr;
      int8_t* y = as_mut<int8_t>(out[0]);
      for (int64_t b = 0; b < batch; ++b)
        for (int64_t o = 0; o < units; ++o) {
          int32_t acc = 0;
          for (int64_t d = 0; d < depth; ++d)
            acc += (int32_t{w[o * depth + d]} + w_off) * (int32_t{x[b * depth + d]} + in_off);
          if (bias) acc += bias[o];
          acc = tflm::multiply_by_quantized_multiplier(acc, mult[o]) + out_off;
          y[b * units + o] = static_cast<int8_t>(std::clamp(acc, lo, hi));
        }
    };
    return k;
  }
  c.require(c.is(xt, DType::kFloat32) && c.is(wt, DType::kFloat32) && c.is(yt, DType::kFloat32),
            "fully_connected runs int8 or float32");
  k.name = "fully_connected float32";
  const bool has_bias = bias_of(c, 2, DType::kFloat32, units) != nullptr;
  float lo, hi;
  c.activation_range_float(lo, hi);
  k.run = [=](const Operand* in, const Operand* out) {
    const float* x = as<float>(in[0]);
    const float* w = as<float>(in[1]);
    const float* bias = has_bias ? as<float>(in[2]) : nullptr;
    float* y = as_mut<float>(out[0]);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t o = 0; o < units; ++o) {
        float total = 0.f;
        for (int64_t d = 0; d < depth; ++d) total += x[b * depth + d] * w[o * depth + d];
        const float v = total + (bias ? bias[o] : 0.f);
        y[b * units + o] = std::min(std::max(v, lo), hi);
      }
  };
  return k;
}

}  // namespace arenaplan::sim
