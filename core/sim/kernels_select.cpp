// Model kernels that choose per element or along an axis: PRELU (a slope per element with
// broadcasting), MAXIMUM / MINIMUM (broadcasting up to 8 dims, raw values compared as TFLM does) and
// ARG_MAX / ARG_MIN. int8 (PRELU also int16) with TFLM's reference requantization, and float32.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "core/sim/detail/model_kernels.h"

namespace arenaplan::sim {

namespace {

inline int8_t clamp8(int32_t v) { return static_cast<int8_t>(std::clamp<int32_t>(v, -128, 127)); }

// The broadcast of input 0 and input 1 onto output 0 (TFLM's BroadcastBinaryOpSimple: up to 8 dims,
// as make_broadcast).
Broadcast2 binary_broadcast(const KernelContext& c, const char* kind) {
  c.require(c.inputs() == 2 && c.outputs() == 1, std::string(kind) + " expects two inputs and one output");
  return make_broadcast(c, c.dims(c.in(0)), c.dims(c.in(1)), c.dims(c.out(0)));
}

template <class T, bool kMax>
ModelKernel max_min_of(const char* name, const Broadcast2& bc, int64_t n) {
  ModelKernel k{name};
  k.work.alu_ops = n;
  k.run = [=](const Operand* in, const Operand* out) {
    const T *a = as<T>(in[0]), *b = as<T>(in[1]);
    T* y = as_mut<T>(out[0]);
    // TFLM: el1 > el2 ? el1 : el2 (and <): a NaN in a gives b.
    bc.each([&](int64_t i, int64_t ia, int64_t ib) { y[i] = kMax ? (a[ia] > b[ib] ? a[ia] : b[ib]) : (a[ia] < b[ib] ? a[ia] : b[ib]); });
  };
  return k;
}

template <bool kMax>
ModelKernel prepare_max_min(const KernelContext& c) {
  const char* kind = kMax ? "maximum" : "minimum";
  const Broadcast2 bc = binary_broadcast(c, kind);
  const Tensor &at = c.in(0), &bt = c.in(1), &yt = c.out(0);
  c.require(at.dtype == yt.dtype && bt.dtype == yt.dtype, std::string(kind) + " needs one type for inputs and output");
  const int64_t n = c.count(yt);
  // TFLM compares the stored values without requantizing: inputs and output share a quantization
  // in a converted model; it is not checked there, so it is not required here either.
  switch (*yt.dtype) {
    case DType::kInt8: return max_min_of<int8_t, kMax>(kMax ? "maximum int8" : "minimum int8", bc, n);
    case DType::kInt16: return max_min_of<int16_t, kMax>(kMax ? "maximum int16" : "minimum int16", bc, n);
    case DType::kInt32: return max_min_of<int32_t, kMax>(kMax ? "maximum int32" : "minimum int32", bc, n);
    case DType::kInt64: return max_min_of<int64_t, kMax>(kMax ? "maximum int64" : "minimum int64", bc, n);
    case DType::kFloat32: return max_min_of<float, kMax>(kMax ? "maximum float32" : "minimum float32", bc, n);
    default: c.unsupported(std::string(kind) + " runs float32, int8, int16, int32 or int64");
  }
}

}  // namespace

namespace {

// TFLM's BroadcastPrelu4DSlow over input type T with an int8 slope: the identity multiplier for
// inputs at or above the zero point, the slope's product multiplier below; clamped to T.
template <class T>
ModelKernel prelu_quantized(const KernelContext& c, const Broadcast2& bc, const char* name) {
  const Tensor &xt = c.in(0), &at = c.in(1), &yt = c.out(0);
  const double sx = c.scale(xt), sa = c.scale(at), sy = c.scale(yt);
  const tflm::Multiplier identity = tflm::quantize_multiplier(sx / sy);
  const tflm::Multiplier slope = tflm::quantize_multiplier(sx * sa / sy);
  const int32_t x_off = -c.zero_point(xt), a_off = -c.zero_point(at), y_off = c.zero_point(yt);
  ModelKernel k{name};
  k.work.alu_ops = 2 * c.count(yt);  // compare, then multiply (negative inputs)
  k.run = [=](const Operand* in, const Operand* out) {
    const T* x = as<T>(in[0]);
    const int8_t* a = as<int8_t>(in[1]);
    T* y = as_mut<T>(out[0]);
    bc.each([&](int64_t i, int64_t ix, int64_t ia) {
      const int32_t v = x[ix] + x_off;
      const int32_t r = v >= 0 ? tflm::multiply_by_quantized_multiplier(v, identity)
                               : tflm::multiply_by_quantized_multiplier(v * (a[ia] + a_off), slope);
      y[i] = static_cast<T>(std::clamp<int32_t>(r + y_off, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
    });
  };
  return k;
}

}  // namespace

ModelKernel prepare_prelu(const KernelContext& c) {
  const Broadcast2 bc = binary_broadcast(c, "prelu");
  const Tensor &xt = c.in(0), &at = c.in(1), &yt = c.out(0);
  if (c.is(xt, DType::kInt8) && c.is(at, DType::kInt8) && c.is(yt, DType::kInt8)) return prelu_quantized<int8_t>(c, bc, "prelu int8");
  // TFLM's int16 PRELU keeps int8 slopes.
  if (c.is(xt, DType::kInt16) && c.is(at, DType::kInt8) && c.is(yt, DType::kInt16)) return prelu_quantized<int16_t>(c, bc, "prelu int16");
  ModelKernel k;
  k.work.alu_ops = 2 * c.count(yt);
  c.require(c.is(xt, DType::kFloat32) && c.is(at, DType::kFloat32) && c.is(yt, DType::kFloat32),
            "prelu runs int8, int16 with int8 slopes, or float32 (TFLM)");
  // TFLM's float loop (BroadcastPrelu4DSlowFloat) is 4-d; int8 broadcasts up to 8 dims.
  c.require(c.dims(xt).size() <= 4 && c.dims(at).size() <= 4 && c.dims(yt).size() <= 4, "float32 prelu runs up to 4 dims in TFLM");
  k.name = "prelu float32";
  k.run = [=](const Operand* in, const Operand* out) {
    const float *x = as<float>(in[0]), *a = as<float>(in[1]);
    float* y = as_mut<float>(out[0]);
    bc.each([&](int64_t i, int64_t ix, int64_t ia) { y[i] = x[ix] >= 0.0f ? x[ix] : x[ix] * a[ia]; });
  };
  return k;
}

ModelKernel prepare_maximum(const KernelContext& c) { return prepare_max_min<true>(c); }
ModelKernel prepare_minimum(const KernelContext& c) { return prepare_max_min<false>(c); }

namespace {

// The first index of the largest (kMax) or smallest value along the axis (TFLM: strictly greater,
// or less, replaces; for float a NaN never wins and is replaced by any number).
template <bool kMax, class T, class Index>
void arg_extreme_run(int64_t outer, int64_t axis_size, int64_t inner, const T* x, Index* y) {
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      T best = x[o * axis_size * inner + i];
      Index at = 0;
      for (int64_t k = 1; k < axis_size; ++k) {
        const T v = x[(o * axis_size + k) * inner + i];
        bool wins;
        const bool better = kMax ? v > best : v < best;
        if constexpr (std::is_floating_point_v<T>) wins = !std::isnan(v) && (std::isnan(best) || better);
        else wins = better;
        if (wins) best = v, at = static_cast<Index>(k);
      }
      y[o * inner + i] = at;
    }
}

template <bool kMax>
ModelKernel prepare_arg_extreme(const KernelContext& c) {
  const std::string kind = kMax ? "arg_max" : "arg_min";
  c.require(c.inputs() == 2 && c.outputs() == 1, kind + " expects an input, an axis and one output");
  const Tensor &xt = c.in(0), &yt = c.out(0);
  const auto x = c.dims(xt), y = c.dims(yt);
  const auto axis_values = c.const_ints(c.in(1));
  c.require(axis_values.size() == 1, kind + " needs exactly one axis");
  const int64_t rank = static_cast<int64_t>(x.size());
  int64_t axis = axis_values[0];
  if (axis < 0) axis += rank;
  c.require(axis >= 0 && axis < rank, "axis " + std::to_string(axis_values[0]) + " out of range");
  // The output drops the axis (TFLM checks every other dim).
  bool ok = static_cast<int64_t>(y.size()) == rank - 1;
  for (int64_t d = 0; ok && d < rank; ++d)
    if (d != axis) ok = x[d] == y[d < axis ? d : d - 1];
  c.require(ok, "the output shape is not the input's without the axis");
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x[d];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= x[d];
  const int64_t axis_size = x[axis];
  c.require(axis_size >= 1, "an empty axis has no " + kind);
  // TFLM's arg_min_max.cc takes an int32 axis and writes int32 indices only ("Only int32_t are
  // supported currently"): a model asking for int64 does not run there, so it is refused here too.
  c.require(c.is(c.in(1), DType::kInt32), "TFLM's " + kind + " takes an int32 axis");
  c.require(c.is(yt, DType::kInt32), "TFLM's " + kind + " writes int32 indices only");
  // The options' output_type (TensorType 2: int32), when read, must be the tensor's.
  const int64_t declared = c.attr("output_type", 2);
  c.require(declared == 2, "output_type " + std::to_string(declared) + " differs from the output tensor's type");
  ModelKernel k;
  k.work.alu_ops = c.count(xt);  // one compare per input element
  if (c.is(xt, DType::kInt8)) {
    k.name = kMax ? "arg_max int8->int32" : "arg_min int8->int32";
    k.run = [=](const Operand* in, const Operand* out) {
      arg_extreme_run<kMax>(outer, axis_size, inner, as<int8_t>(in[0]), as_mut<int32_t>(out[0]));
    };
    return k;
  }
  c.require(c.is(xt, DType::kFloat32), kind + " runs over int8 or float32");
  k.name = kMax ? "arg_max float32->int32" : "arg_min float32->int32";
  k.run = [=](const Operand* in, const Operand* out) {
    arg_extreme_run<kMax>(outer, axis_size, inner, as<float>(in[0]), as_mut<int32_t>(out[0]));
  };
  return k;
}

}  // namespace

ModelKernel prepare_arg_max(const KernelContext& c) { return prepare_arg_extreme<true>(c); }
ModelKernel prepare_arg_min(const KernelContext& c) { return prepare_arg_extreme<false>(c); }

}  // namespace arenaplan::sim
