// Model kernels with weights: CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, in int8 with TFLM's
// reference arithmetic (per-channel multipliers, input offset, output offset, fused activation
// clamp) and in float32 (TFLM's loop order, so the sums round the same way).
//
// The window walk and the window sums are written once (detail/conv_window.h), templated on the
// arithmetic (Int8Math, FloatMath). The same sums serve the ordinary loops and the in-place
// variants the transform rewrites ask for (an op with `in_place` set): depthwise channel by
// channel through a one-channel temporary, pointwise (1x1) conv pixel by pixel through a
// Cout-element temporary, both temporaries in the op's scratch. A folded PAD is ordinary explicit
// padding here (pad_h, pad_w, pad_bottom, pad_right: the border reads as the input's zero point,
// which the foldpad rewrite checks is the pad value).
#include <algorithm>
#include <cmath>
#include <limits>
#include <functional>
#include <memory>

#include "core/sim/detail/conv_window.h"
#include "core/sim/sim_kernels.h"

namespace arenaplan::sim {

namespace conv {

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
  g.pad_b = c.attr("pad_bottom", g.pad_h), g.pad_r = c.attr("pad_right", g.pad_w);
  c.require(g.stride_h >= 1 && g.stride_w >= 1 && g.dil_h >= 1 && g.dil_w >= 1 && kh >= 1 && kw >= 1,
            "strides, dilations and the window must be >= 1");
  c.require(g.pad_h >= 0 && g.pad_w >= 0 && g.pad_b >= 0 && g.pad_r >= 0, "padding must be >= 0");
  const int64_t eh = (kh - 1) * g.dil_h + 1, ew = (kw - 1) * g.dil_w + 1;
  const int64_t want_h = (g.h + g.pad_h + g.pad_b - eh) / g.stride_h + 1;
  const int64_t want_w = (g.w + g.pad_w + g.pad_r - ew) / g.stride_w + 1;
  c.require(y[0] == g.n && want_h == g.oh && want_w == g.ow,
            "output [" + std::to_string(y[0]) + "," + std::to_string(y[1]) + "," + std::to_string(y[2]) + "," +
                std::to_string(y[3]) + "] does not follow from the input, window, stride, dilation and padding");
  return g;
}

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

Int8Math int8_math(const KernelContext& c, const Tensor& x, const Tensor& w, const Tensor& y, int64_t channels) {
  Int8Math m;
  m.mult = channel_multipliers(c, x, w, y, channels);
  m.in_off = -c.zero_point(x), m.out_off = c.zero_point(y);
  c.activation_range_int8(y, m.lo, m.hi);
  return m;
}

FloatMath float_math(const KernelContext& c) {
  FloatMath m;
  c.activation_range_float(m.lo, m.hi);
  return m;
}

}  // namespace conv

using namespace conv;

namespace {

template <class M>
void conv_loop(const M& m, const ConvGeom& g, int64_t fic, const typename M::T* x, const typename M::W* w,
               const typename M::Bias* bias, typename M::T* y) {
  const int64_t per_group = g.oc / (g.c / fic);
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t oy = 0; oy < g.oh; ++oy)
      for (int64_t ox = 0; ox < g.ow; ++ox)
        for (int64_t o = 0; o < g.oc; ++o) {
          const auto acc = conv_sum(m, g, fic, x, w + o * g.kh * g.kw * fic, b, oy, ox, (o / per_group) * fic);
          y[((b * g.oh + oy) * g.ow + ox) * g.oc + o] = m.finish(acc, bias, o);
        }
}

// In place, 1x1 window without padding: pixel p's Cout outputs go to a temporary, then to
// y[p*Cout ...], which ends at or before the first input pixel not yet read (Cout <= Cin and each
// output pixel reads an input pixel at the same or a later index), so y may alias x.
template <class M>
void pointwise_in_place(const M& m, const ConvGeom& g, int64_t fic, const typename M::T* x, const typename M::W* w,
                        const typename M::Bias* bias, typename M::T* y, typename M::T* temp) {
  const int64_t per_group = g.oc / (g.c / fic);
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t oy = 0; oy < g.oh; ++oy)
      for (int64_t ox = 0; ox < g.ow; ++ox) {
        for (int64_t o = 0; o < g.oc; ++o)
          temp[o] = m.finish(conv_sum(m, g, fic, x, w + o * g.kh * g.kw * fic, b, oy, ox, (o / per_group) * fic), bias, o);
        std::copy(temp, temp + g.oc, y + ((b * g.oh + oy) * g.ow + ox) * g.oc);
      }
}

template <class M>
void depthwise_loop(const M& m, const ConvGeom& g, const typename M::T* x, const typename M::W* w,
                    const typename M::Bias* bias, typename M::T* y) {
  const int64_t mult_depth = g.oc / g.c;
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t oy = 0; oy < g.oh; ++oy)
      for (int64_t ox = 0; ox < g.ow; ++ox)
        for (int64_t ic = 0; ic < g.c; ++ic)
          for (int64_t k = 0; k < mult_depth; ++k) {
            const int64_t o = ic * mult_depth + k;
            y[((b * g.oh + oy) * g.ow + ox) * g.oc + o] = m.finish(depthwise_sum(m, g, x, w, b, oy, ox, ic, o), bias, o);
          }
}

// In place, depth multiplier 1: channel c of every output pixel goes to a one-channel temporary,
// then over channel c of y. Output element (p, c) sits at p*C + c, where input element (p, c)
// was: writing channel c destroys only input channel c, which no later channel reads, whatever
// the stride and padding (the output is never larger than the input).
template <class M>
void depthwise_in_place(const M& m, const ConvGeom& g, const typename M::T* x, const typename M::W* w,
                        const typename M::Bias* bias, typename M::T* y, typename M::T* temp) {
  const int64_t pixels = g.n * g.oh * g.ow;
  for (int64_t ch = 0; ch < g.c; ++ch) {
    for (int64_t b = 0; b < g.n; ++b)
      for (int64_t oy = 0; oy < g.oh; ++oy)
        for (int64_t ox = 0; ox < g.ow; ++ox)
          temp[(b * g.oh + oy) * g.ow + ox] = m.finish(depthwise_sum(m, g, x, w, b, oy, ox, ch, ch), bias, ch);
    for (int64_t p = 0; p < pixels; ++p) y[p * g.oc + ch] = temp[p];
  }
}

// The temporary an in-place conv-like op needs in its scratch (elements of the output type).
int64_t in_place_temp_elements(const ConvGeom& g, bool depthwise) { return depthwise ? g.n * g.oh * g.ow : g.oc; }

// Why the op's in-place declaration cannot run with these shapes ("" when it can). The foldpad
// and inplace rewrites check the same conditions before they declare it.
std::string in_place_problem(const KernelContext& c, const ConvGeom& g, bool depthwise, int width) {
  const InPlace& ip = c.op.in_place[0];
  if (c.op.in_place.size() != 1 || ip.input != c.op.inputs[0] || ip.output != c.op.outputs[0])
    return "in place only over the activation input";
  if (depthwise && g.oc != g.c) return "in-place depthwise needs depth multiplier 1";
  if (!depthwise && (g.kh != 1 || g.kw != 1 || g.pad_h || g.pad_w || g.pad_b || g.pad_r || g.oc > g.c))
    return "in-place conv needs a 1x1 window, no padding and output channels <= input channels";
  if (g.oh * g.ow > g.h * g.w) return "in place needs an output no larger than the input";
  if (c.op.scratch_bytes < in_place_temp_elements(g, depthwise) * width)
    return "in place needs a " + std::to_string(in_place_temp_elements(g, depthwise) * width) +
           "-byte temporary in the op's scratch";
  return "";
}

// The kernel of a conv-like op in one arithmetic: the ordinary loop, or the in-place one when
// the op declares in_place (run_with_scratch then gets the temporary).
template <class M>
void set_conv_run(ModelKernel& k, const KernelContext& c, const M& m, const ConvGeom& g, int64_t fic, bool has_bias,
                  bool depthwise) {
  using T = typename M::T;
  using W = typename M::W;
  using Bias = typename M::Bias;
  if (c.op.in_place.empty()) {
    k.run = [=](const Operand* in, const Operand* out) {
      const Bias* bias = has_bias ? as<Bias>(in[2]) : nullptr;
      if (depthwise) depthwise_loop(m, g, as<T>(in[0]), as<W>(in[1]), bias, as_mut<T>(out[0]));
      else conv_loop(m, g, fic, as<T>(in[0]), as<W>(in[1]), bias, as_mut<T>(out[0]));
    };
    return;
  }
  const std::string problem = in_place_problem(c, g, depthwise, static_cast<int>(sizeof(T)));
  c.require(problem.empty(), problem);
  k.work.temp_bytes = g.n * g.oh * g.ow * g.oc * static_cast<int64_t>(sizeof(T));  // every output via the temporary
  k.run_with_scratch = [=](const Operand* in, const Operand* out, const Operand& scratch) {
    const Bias* bias = has_bias ? as<Bias>(in[2]) : nullptr;
    T* temp = as_mut<T>(scratch);
    if (depthwise) depthwise_in_place(m, g, as<T>(in[0]), as<W>(in[1]), bias, as_mut<T>(out[0]), temp);
    else pointwise_in_place(m, g, fic, as<T>(in[0]), as<W>(in[1]), bias, as_mut<T>(out[0]), temp);
  };
}

// int16 activations x int8 weights, as TFLM's conv and depthwise run them: the accumulator is the
// bias's width (int32 with an int32 bias, else int64).
bool set_int16x8_run(ModelKernel& k, const KernelContext& c, const Tensor& xt, const Tensor& wt, const Tensor& yt,
                     const ConvGeom& g, int64_t fic, bool depthwise) {
  if (!(c.is(xt, DType::kInt16) && c.is(wt, DType::kInt8) && c.is(yt, DType::kInt16))) return false;
  if (c.inputs() > 2 && c.in(2).dtype == DType::kInt32) {
    c.require(!depthwise, "int16 depthwise_conv_2d reads its bias as int64 (TFLM): an int32 bias is refused");
    bias_of(c, 2, DType::kInt32, g.oc);
    set_conv_run(k, c, int16_math<int32_t>(c, xt, wt, yt, g.oc), g, fic, true, depthwise);
  } else {
    const bool has_bias = bias_of(c, 2, DType::kInt64, g.oc) != nullptr;
    set_conv_run(k, c, int16_math<int64_t>(c, xt, wt, yt, g.oc), g, fic, has_bias, depthwise);
  }
  return true;
}

// TFLM's quantized FULLY_CONNECTED (T activations, int8 weights, Bias-wide accumulator): offsets on
// input, weights and output, per-tensor or per-channel multipliers, the activation clamp.
template <class T, class Bias>
std::function<void(const Operand*, const Operand*)> quantized_fc(const KernelContext& c, const Tensor& xt,
                                                                 const Tensor& wt, const Tensor& yt, int64_t batch,
                                                                 int64_t depth, int64_t units, bool has_bias) {
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
  const int64_t w_zero = wt.quant && !wt.quant->zero_point.empty() ? wt.quant->zero_point[0] : 0;
  c.require(w_zero >= -128 && w_zero <= 127, "weights " + wt.name + " have zero point " + std::to_string(w_zero) +
                                                 ", outside int8's range");
  const int32_t w_off = -static_cast<int32_t>(w_zero);
  int32_t lo, hi;
  c.activation_range(yt, std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), lo, hi);
  return [=](const Operand* in, const Operand* out) {
    const T* x = as<T>(in[0]);
    const int8_t* w = as<int8_t>(in[1]);
    const Bias* bias = has_bias ? as<Bias>(in[2]) : nullptr;
    T* y = as_mut<T>(out[0]);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t o = 0; o < units; ++o) {
        // Summed in int64; an int32 accumulator wraps in TFLM, which the cast below reproduces.
        int64_t acc = 0;
        for (int64_t d = 0; d < depth; ++d)
          acc = wrapping_add(acc, int64_t{(int32_t{w[o * depth + d]} + w_off) * (int32_t{x[b * depth + d]} + in_off)});
        if (bias) acc = wrapping_add(acc, int64_t{bias[o]});
        int32_t v;
        if constexpr (sizeof(Bias) == 4)
          v = tflm::multiply_by_quantized_multiplier(static_cast<int32_t>(static_cast<uint32_t>(acc)), mult[o]);
        else
          v = tflm::multiply_by_quantized_multiplier(acc, mult[o]);
        y[b * units + o] = static_cast<T>(std::clamp(wrapping_add(v, out_off), lo, hi));
      }
  };
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
  ModelKernel k;
  k.work.macs = g.n * g.oh * g.ow * g.oc * g.kh * g.kw * fic;
  k.work.pointwise = g.kh == 1 && g.kw == 1 && fic == g.c;
  const bool in_place = !c.op.in_place.empty();
  if (c.is(xt, DType::kInt8) && c.is(wt, DType::kInt8) && c.is(yt, DType::kInt8)) {
    k.name = in_place ? "conv_2d int8 in place" : "conv_2d int8";
    const bool has_bias = bias_of(c, 2, DType::kInt32, g.oc) != nullptr;
    set_conv_run(k, c, int8_math(c, xt, wt, yt, g.oc), g, fic, has_bias, false);
    return k;
  }
  k.name = in_place ? "conv_2d int16x8 in place" : "conv_2d int16x8";
  if (set_int16x8_run(k, c, xt, wt, yt, g, fic, false)) return k;
  c.require(c.is(xt, DType::kFloat32) && c.is(wt, DType::kFloat32) && c.is(yt, DType::kFloat32),
            "conv_2d runs int8 or int16 (int8 weights) or float32; this op is " + std::string(dtype_name(*xt.dtype)) +
                " with " + dtype_name(*wt.dtype) + " weights");
  k.name = in_place ? "conv_2d float32 in place" : "conv_2d float32";
  const bool has_bias = bias_of(c, 2, DType::kFloat32, g.oc) != nullptr;
  set_conv_run(k, c, float_math(c), g, fic, has_bias, false);
  return k;
}

ModelKernel prepare_depthwise_conv_2d(const KernelContext& c) {
  const Tensor &xt = c.in(0), &wt = c.in(1), &yt = c.out(0);
  const auto wd = c.dims(wt);  // [1, KH, KW, OC], OC = C x depth multiplier
  c.require(wd.size() == 4 && wd[0] == 1, "depthwise weights must be [1,KH,KW,OC]");
  ConvGeom g = conv_geometry(c, c.dims(xt), wd[1], wd[2], c.dims(yt));
  c.require(wd[3] == g.oc && g.c > 0 && g.oc % g.c == 0, "weights do not match the output channels");
  // The multiplier follows from the shapes (TFLM checks output depth = input depth x multiplier);
  // some converters write 0 in the option, so the attr is not trusted.
  require_constant_weights(c, wt);
  ModelKernel k;
  k.work.macs = g.n * g.oh * g.ow * g.oc * g.kh * g.kw;
  const bool in_place = !c.op.in_place.empty();
  if (c.is(xt, DType::kInt8) && c.is(wt, DType::kInt8) && c.is(yt, DType::kInt8)) {
    k.name = in_place ? "depthwise_conv_2d int8 in place" : "depthwise_conv_2d int8";
    const bool has_bias = bias_of(c, 2, DType::kInt32, g.oc) != nullptr;
    set_conv_run(k, c, int8_math(c, xt, wt, yt, g.oc), g, 1, has_bias, true);
    return k;
  }
  k.name = in_place ? "depthwise_conv_2d int16x8 in place" : "depthwise_conv_2d int16x8";
  if (set_int16x8_run(k, c, xt, wt, yt, g, 1, true)) return k;
  c.require(c.is(xt, DType::kFloat32) && c.is(wt, DType::kFloat32) && c.is(yt, DType::kFloat32),
            "depthwise_conv_2d runs int8, int16 (int8 weights) or float32");
  k.name = in_place ? "depthwise_conv_2d float32 in place" : "depthwise_conv_2d float32";
  const bool has_bias = bias_of(c, 2, DType::kFloat32, g.oc) != nullptr;
  set_conv_run(k, c, float_math(c), g, 1, has_bias, true);
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
    k.run = quantized_fc<int8_t, int32_t>(c, xt, wt, yt, batch, depth, units, has_bias);
    return k;
  }
  if (c.is(xt, DType::kInt16) && c.is(wt, DType::kInt8) && c.is(yt, DType::kInt16)) {
    // The accumulator is the bias's width: int32 with an int32 bias, else int64.
    if (c.inputs() > 2 && c.in(2).dtype == DType::kInt32) {
      k.name = "fully_connected int16x8 (int32 bias)";
      k.run = quantized_fc<int16_t, int32_t>(c, xt, wt, yt, batch, depth, units, bias_of(c, 2, DType::kInt32, units));
    } else {
      k.name = "fully_connected int16x8";
      k.run = quantized_fc<int16_t, int64_t>(c, xt, wt, yt, batch, depth, units, bias_of(c, 2, DType::kInt64, units));
    }
    return k;
  }
  c.require(c.is(xt, DType::kFloat32) && c.is(wt, DType::kFloat32) && c.is(yt, DType::kFloat32),
            "fully_connected runs int8, int16 (int8 weights) or float32");
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
