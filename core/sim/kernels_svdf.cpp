// SVDF (the keyword-spotting models' rank-factored time filter) with TFLM's reference arithmetic
// (svdf_common.cc: EvalIntegerSvdfReference, EvalFloatSvdfReference). Inputs: x [batch, input],
// weights_feature [filters, input], weights_time [filters, memory], bias [units] (optional),
// activation state [batch, filters * memory], a variable tensor the op rewrites every invocation:
// its memory shifts one step left and the newest column takes the feature projection. The state
// lives in the arena across runs (sim_arena.cpp starts it at real zero on the first run only), so
// successive `--runs` see TFLM's history.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/sim/detail/model_kernels.h"

namespace arenaplan::sim {

namespace {

struct SvdfGeom {
  int64_t batch = 0, input = 0, filters = 0, memory = 0, rank = 0, units = 0;
};

// Shapes as TFLM's PrepareSvdf checks them.
SvdfGeom svdf_geom(const KernelContext& c, const Tensor& x, const Tensor& wf, const Tensor& wt, const Tensor* bias,
                   const Tensor& state, const Tensor& y) {
  const auto xd = c.dims(x), fd = c.dims(wf), td = c.dims(wt), sd = c.dims(state), yd = c.dims(y);
  c.require(xd.size() == 2 && fd.size() == 2 && td.size() == 2 && sd.size() == 2 && yd.size() == 2,
            "svdf needs 2-D input, weights, state and output");
  SvdfGeom g;
  g.batch = xd[0], g.input = xd[1], g.filters = fd[0], g.memory = td[1];
  g.rank = c.attr("rank", 0);
  c.require(g.rank >= 1 && g.filters % g.rank == 0, "svdf rank " + std::to_string(g.rank) + " must divide the " +
                                                          std::to_string(g.filters) + " filters");
  g.units = g.filters / g.rank;
  c.require(fd[1] == g.input && td[0] == g.filters && g.memory >= 1, "svdf weights do not match the input and filters");
  c.require(sd[0] == g.batch && sd[1] == g.memory * g.filters, "svdf state must be [batch, filters x memory]");
  c.require(yd[0] == g.batch && yd[1] == g.units, "svdf output must be [batch, filters / rank]");
  if (bias) c.require(c.count(*bias) == g.units, "svdf bias must hold filters / rank values");
  return g;
}

// Shifts every filter's memory one step towards the past (TFLM moves the whole state one element
// left; each filter's last slot is then overwritten with the new projection).
template <class T>
void shift_state(T* state, const SvdfGeom& g) {
  std::copy(state + 1, state + g.batch * g.filters * g.memory, state);
}

// The integer SVDF, T = the state's and weights_time's type (int8 or int16).
template <class T>
ModelKernel svdf_integer(const KernelContext& c, const SvdfGeom& g, const Tensor& x, const Tensor& wf, const Tensor& wt,
                         const Tensor* bias, const Tensor& state, const Tensor& y, bool has_bias) {
  ModelKernel k(sizeof(T) == 1 ? "svdf int8" : "svdf int8 (int16 state)");
  if (bias) c.require(std::abs(static_cast<double>(c.scale(*bias)) -
                               static_cast<double>(c.scale(state) * c.scale(wt))) < 1e-5,
                      "svdf bias scale must be state scale x weights_time scale");
  // TFLM forms both products in float before widening.
  const tflm::Multiplier m1 = tflm::quantize_multiplier(static_cast<double>(c.scale(x) * c.scale(wf) / c.scale(state)));
  const tflm::Multiplier m2 = tflm::quantize_multiplier(static_cast<double>(c.scale(state) * c.scale(wt) / c.scale(y)));
  const int32_t x_zp = c.zero_point(x), s_zp = c.zero_point(state), y_zp = c.zero_point(y);
  const size_t bias_at = has_bias ? 3 : 0, state_at = has_bias ? 4 : 3;
  k.work.macs = g.batch * g.filters * (g.input + g.memory);
  k.run = [=](const Operand* in, const Operand* out) {
    const int8_t* xv = as<int8_t>(in[0]);
    const int8_t* wfv = as<int8_t>(in[1]);
    const T* wtv = as<T>(in[2]);
    const int32_t* bv = has_bias ? as<int32_t>(in[bias_at]) : nullptr;
    T* s = as_mut<T>(in[state_at]);
    int8_t* yv = as_mut<int8_t>(out[0]);
    shift_state(s, g);
    constexpr int32_t lo = std::numeric_limits<T>::min(), hi = std::numeric_limits<T>::max();
    // Feature projection into each filter's newest slot: clamped to T before the zero point is
    // added, and stored without a second clamp, exactly as TFLM does.
    for (int64_t b = 0; b < g.batch; ++b)
      for (int64_t f = 0; f < g.filters; ++f) {
        int64_t sum = 0;  // int64 cast back to int32: TFLM's int32 sum, wrapped rather than undefined
        for (int64_t i = 0; i < g.input; ++i) sum += wfv[f * g.input + i] * (xv[b * g.input + i] - x_zp);
        const int32_t dot = std::clamp(tflm::multiply_by_quantized_multiplier(static_cast<int32_t>(sum), m1), lo, hi);
        s[(b * g.filters + f) * g.memory + g.memory - 1] = static_cast<T>(s_zp + dot);
      }
    // Time filter per filter, summed over the unit's `rank` filters, plus bias, onto the output
    // scale. The fused activation is not applied: TFLM's integer SVDF ignores it (int8 clamp only).
    // Summed in int64 and cast back: an int16 state can overflow TFLM's int32 sums (undefined
    // there, wrapping on every MCU); the cast gives that wrapped value.
    for (int64_t b = 0; b < g.batch; ++b)
      for (int64_t u = 0; u < g.units; ++u) {
        int64_t sum = bv ? bv[u] : 0;
        for (int64_t f = u * g.rank; f < (u + 1) * g.rank; ++f) {
          const T* sf = s + (b * g.filters + f) * g.memory;
          for (int64_t j = 0; j < g.memory; ++j) sum += int64_t{wtv[f * g.memory + j]} * (sf[j] - s_zp);
        }
        yv[b * g.units + u] = static_cast<int8_t>(
            std::clamp(tflm::multiply_by_quantized_multiplier(static_cast<int32_t>(sum), m2) + y_zp, -128, 127));
      }
  };
  return k;
}

ModelKernel svdf_float(const KernelContext& c, const SvdfGeom& g, bool has_bias) {
  ModelKernel k("svdf float32");
  float lo, hi;
  c.activation_range_float(lo, hi);
  const size_t bias_at = has_bias ? 3 : 0, state_at = has_bias ? 4 : 3;
  k.work.macs = g.batch * g.filters * (g.input + g.memory);
  k.run = [=](const Operand* in, const Operand* out) {
    const float* xv = as<float>(in[0]);
    const float* wfv = as<float>(in[1]);
    const float* wtv = as<float>(in[2]);
    const float* bv = has_bias ? as<float>(in[bias_at]) : nullptr;
    float* s = as_mut<float>(in[state_at]);
    float* yv = as_mut<float>(out[0]);
    shift_state(s, g);
    for (int64_t b = 0; b < g.batch; ++b)
      for (int64_t f = 0; f < g.filters; ++f) {
        float dot = 0.f;
        for (int64_t i = 0; i < g.input; ++i) dot += wfv[f * g.input + i] * xv[b * g.input + i];
        s[(b * g.filters + f) * g.memory + g.memory - 1] = dot;
      }
    // TFLM's order of float additions: each filter's time sum on its own, then bias + the unit's
    // `rank` filter sums in order.
    for (int64_t b = 0; b < g.batch; ++b)
      for (int64_t u = 0; u < g.units; ++u) {
        float v = bv ? bv[u] : 0.f;
        for (int64_t f = u * g.rank; f < (u + 1) * g.rank; ++f) {
          const float* sf = s + (b * g.filters + f) * g.memory;
          float acc = 0.f;
          for (int64_t j = 0; j < g.memory; ++j) acc += wtv[f * g.memory + j] * sf[j];
          v += acc;
        }
        yv[b * g.units + u] = std::clamp(v, lo, hi);
      }
  };
  return k;
}

}  // namespace

ModelKernel prepare_svdf(const KernelContext& c) {
  c.require(c.inputs() == 4 || c.inputs() == 5, "svdf needs input, weights_feature, weights_time, [bias,] state");
  const bool has_bias = c.inputs() == 5;
  const Tensor &x = c.in(0), &wf = c.in(1), &wt = c.in(2), &y = c.out(0);
  const Tensor* bias = has_bias ? &c.in(3) : nullptr;
  const Tensor& state = c.in(has_bias ? 4 : 3);
  c.require(state.persistent, "svdf state " + state.name + " must be a variable tensor");
  const SvdfGeom g = svdf_geom(c, x, wf, wt, bias, state, y);
  if (c.is(x, DType::kInt8)) {
    c.require(c.is(wf, DType::kInt8) && c.is(y, DType::kInt8), "int8 svdf needs int8 weights_feature and output");
    c.require(!bias || c.is(*bias, DType::kInt32), "int8 svdf needs an int32 bias");
    // TFLM picks the integer width from weights_time and reads the state as the same type.
    if (c.is(wt, DType::kInt16) && c.is(state, DType::kInt16))
      return svdf_integer<int16_t>(c, g, x, wf, wt, bias, state, y, has_bias);
    c.require(c.is(wt, DType::kInt8) && c.is(state, DType::kInt8),
              "int8 svdf needs weights_time and state both int8 or both int16");
    return svdf_integer<int8_t>(c, g, x, wf, wt, bias, state, y, has_bias);
  }
  c.require(c.is(x, DType::kFloat32) && c.is(wf, DType::kFloat32) && c.is(wt, DType::kFloat32) &&
                c.is(state, DType::kFloat32) && c.is(y, DType::kFloat32) && (!bias || c.is(*bias, DType::kFloat32)),
            "svdf runs int8 or float32");
  return svdf_float(c, g, has_bias);
}

}  // namespace arenaplan::sim
