// Model kernels of TFLM's Signal library (signal/micro/kernels, custom ops named "Signal..."):
// SignalWindow and SignalFftAutoScale, the stateless int16 ones; the others need uint32 / uint64
// tensors or state kept across runs (README).
#include <algorithm>
#include <limits>

#include "core/sim/detail/model_kernels.h"

namespace arenaplan::sim {

// Each frame of the input times the window, shifted right and saturated to int16.
ModelKernel prepare_signal_window(const KernelContext& c) {
  c.require(c.inputs() == 2 && c.outputs() == 1, "SignalWindow expects an input and its weights");
  const Tensor &xt = c.in(0), &wt = c.in(1), &yt = c.out(0);
  c.require(c.is(xt, DType::kInt16) && c.is(wt, DType::kInt16) && c.is(yt, DType::kInt16), "SignalWindow runs int16 (TFLM)");
  c.require(c.dims(wt).size() == 1 && c.dims(xt).size() == c.dims(yt).size(), "SignalWindow's weights must be 1-D");
  c.require(c.op.attrs.count("shift") == 1, "SignalWindow has no shift option");
  const int64_t shift = c.attr("shift", 0);
  c.require(shift >= 0 && shift < 32, "SignalWindow's shift is outside 0..31");
  const int64_t n = c.count(xt), frame = c.count(wt);
  c.require(n == c.count(yt) && frame > 0 && n % frame == 0, "SignalWindow's input is not whole frames of its weights");
  ModelKernel k{"SignalWindow int16"};
  k.work.macs = n;
  k.run = [=](const Operand* in, const Operand* out) {
    const int16_t *x = as<int16_t>(in[0]), *w = as<int16_t>(in[1]);
    int16_t* y = as_mut<int16_t>(out[0]);
    for (int64_t i = 0; i < n; ++i) {
      const int32_t raw = (int32_t{x[i]} * w[i % frame]) >> shift;
      y[i] = static_cast<int16_t>(std::clamp<int32_t>(raw, std::numeric_limits<int16_t>::min(), std::numeric_limits<int16_t>::max()));
    }
  };
  return k;
}

// The input scaled up by the most bits that keep its largest magnitude in int16, and that count.
// TFLM's quirks kept: the magnitude of -32768 wraps to -32768 (no scaling), a zero frame counts
// 32 significant bits (GCC's MostSignificantBit32), and only the first dim is scaled.
ModelKernel prepare_signal_fft_auto_scale(const KernelContext& c) {
  c.require(c.inputs() == 1 && c.outputs() == 2, "SignalFftAutoScale expects one input and two outputs");
  const Tensor &xt = c.in(0), &yt = c.out(0), &st = c.out(1);
  c.require(c.is(xt, DType::kInt16) && c.is(yt, DType::kInt16) && c.is(st, DType::kInt32),
            "SignalFftAutoScale runs int16 with an int32 scale (TFLM)");
  const auto y = c.dims(yt);
  c.require(y.size() == 1 && c.count(xt) == y[0] && c.count(st) == 1, "SignalFftAutoScale runs one 1-D frame");
  const int64_t n = y[0];
  ModelKernel k{"SignalFftAutoScale int16"};
  k.work.alu_ops = 2 * n;
  k.run = [=](const Operand* in, const Operand* out) {
    const int16_t* x = as<int16_t>(in[0]);
    int16_t* o = as_mut<int16_t>(out[0]);
    int16_t max = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (x[i] > max) max = x[i];
      else if (-x[i] > max) max = static_cast<int16_t>(-x[i]);
    }
    const uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(max));
    const int msb = bits == 0 ? 32 : 32 - __builtin_clz(bits);
    const int scale = std::max(16 - msb - 1, 0);
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<int16_t>(int32_t{x[i]} * (1 << scale));
    as_mut<int32_t>(out[1])[0] = scale;
  };
  return k;
}

}  // namespace arenaplan::sim
