// Model kernels of TFLM's Signal library (signal/micro/kernels, custom ops named "Signal..."):
// SignalWindow and SignalFftAutoScale (stateless, int16), SignalDelay and SignalOverlapAdd (state
// kept across runs in the kernel's own state, as TFLM keeps it in persistent buffers). The others
// need uint32 / uint64 tensors or are not written yet (README).
#include <algorithm>
#include <limits>
#include <type_traits>
#include <vector>

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

namespace {

// The outer rows of a Signal op's input: every dim but the last, flattened.
int64_t outer_rows(const KernelContext& c, const Tensor& t, int64_t innermost) {
  return innermost > 0 ? c.count(t) / innermost : 0;
}

}  // namespace

// Each row delayed by `delay_length` samples: TFLM's circular buffer starts with that many zeros,
// takes the row's frame and gives back its oldest frame. The state is the pending samples.
ModelKernel prepare_signal_delay(const KernelContext& c) {
  c.require(c.inputs() == 1 && c.outputs() == 1, "SignalDelay expects one input and one output");
  const Tensor &xt = c.in(0), &yt = c.out(0);
  c.require(c.is(xt, DType::kInt16) && c.is(yt, DType::kInt16) && c.dims(xt) == c.dims(yt), "SignalDelay runs int16, output as input (TFLM)");
  c.require(c.op.attrs.count("delay_length") == 1, "SignalDelay has no delay_length option");
  const int64_t delay = c.attr("delay_length", 0), frame = c.dims(xt).back(), rows = outer_rows(c, xt, frame);
  c.require(delay >= 0 && delay <= (int64_t{1} << 24), "SignalDelay's delay_length is out of range");
  ModelKernel k{"SignalDelay int16"};
  k.work.alu_ops = rows * frame;
  k.state_bytes = rows * delay * 2;
  k.run_with_state = [=](const Operand* in, const Operand* out, const Operand& state) {
    const int16_t* x = as<int16_t>(in[0]);
    int16_t* y = as_mut<int16_t>(out[0]);
    int16_t* pending = as_mut<int16_t>(state);
    std::vector<int16_t> line(static_cast<size_t>(delay + frame));  // the row's pending samples, then its frame
    for (int64_t r = 0; r < rows; ++r) {
      int16_t* p = pending + r * delay;
      std::copy(p, p + delay, line.begin());
      std::copy(x + r * frame, x + (r + 1) * frame, line.begin() + delay);
      std::copy(line.begin(), line.begin() + frame, y + r * frame);
      std::copy(line.begin() + frame, line.end(), p);
    }
  };
  return k;
}

namespace {

// TFLM's OverlapAdd of one frame into a row's buffer: add (int16 saturating), give the first
// `step` samples, shift the buffer by them and zero its end.
template <class T>
void overlap_add_frame(const T* frame, T* buffer, int64_t size, T* out, int64_t step) {
  for (int64_t i = 0; i < size; ++i) {
    if constexpr (std::is_same_v<T, int16_t>)
      buffer[i] = static_cast<int16_t>(std::clamp<int32_t>(int32_t{frame[i]} + buffer[i], INT16_MIN, INT16_MAX));
    else
      buffer[i] += frame[i];
  }
  std::copy(buffer, buffer + step, out);
  std::copy(buffer + step, buffer + size, buffer);
  std::fill(buffer + size - step, buffer + size, T{0});
}

template <class T>
ModelKernel overlap_add_of(const char* name, int64_t rows, int64_t frames, int64_t size, int64_t step) {
  ModelKernel k{name};
  k.work.alu_ops = rows * frames * size;
  k.state_bytes = rows * size * static_cast<int64_t>(sizeof(T));
  k.run_with_state = [=](const Operand* in, const Operand* out, const Operand& state) {
    const T* x = as<T>(in[0]);
    T* y = as_mut<T>(out[0]);
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t f = 0; f < frames; ++f)
        overlap_add_frame(x + (r * frames + f) * size, as_mut<T>(state) + r * size, size, y + (r * frames + f) * step, step);
  };
  return k;
}

}  // namespace

// Frames [..., n, size] added `frame_step` apart into [..., n x frame_step]; the tail of each row's
// last frames carries over to the next run.
ModelKernel prepare_signal_overlap_add(const KernelContext& c) {
  c.require(c.inputs() == 1 && c.outputs() == 1, "SignalOverlapAdd expects one input and one output");
  const Tensor &xt = c.in(0), &yt = c.out(0);
  const auto x = c.dims(xt);
  c.require(x.size() >= 2 && xt.dtype == yt.dtype, "SignalOverlapAdd takes frames [..., n, size] and writes their type");
  c.require(c.op.attrs.count("frame_step") == 1, "SignalOverlapAdd has no frame_step option");
  const int64_t step = c.attr("frame_step", 0), size = x.back(), frames = x[x.size() - 2];
  c.require(step >= 1 && step <= size, "SignalOverlapAdd's frame_step must be 1..frame size");
  const int64_t rows = size * frames > 0 ? c.count(xt) / (size * frames) : 0;
  c.require(c.count(yt) == rows * frames * step, "SignalOverlapAdd's output is not n x frame_step samples per row");
  if (c.is(xt, DType::kInt16)) return overlap_add_of<int16_t>("SignalOverlapAdd int16", rows, frames, size, step);
  c.require(c.is(xt, DType::kFloat32), "SignalOverlapAdd runs int16 or float32 (TFLM)");
  return overlap_add_of<float>("SignalOverlapAdd float32", rows, frames, size, step);
}

}  // namespace arenaplan::sim
