// Model kernels of TFLM's Signal library (signal/micro/kernels, custom ops named "Signal..."):
// SignalWindow and SignalFftAutoScale (stateless, int16), SignalDelay, SignalOverlapAdd,
// SignalFramer and SignalStacker (state kept across runs in the kernel's own state, as TFLM keeps
// it in persistent buffers). The front end on uint32 / uint64 tensors is in
// kernels_signal_frontend.cpp, the FFTs in kernels_signal_fft.cpp.
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

namespace arenaplan::sim {

namespace {

// A FIFO of int16 samples in a kernel's state, as TFLM's CircularBuffer behaves for the framer and
// stacker (which never overfill it): an int32 count, then the samples, oldest first.
struct SampleQueue {
  int32_t* count;
  int16_t* samples;
  static int64_t bytes(int64_t capacity) { return 4 + (2 * capacity + 3) / 4 * 4; }  // keeps the next queue aligned
  static SampleQueue at(uint8_t* base) { return {reinterpret_cast<int32_t*>(base), reinterpret_cast<int16_t*>(base + 4)}; }
  void push(const int16_t* x, int64_t n) {
    std::copy(x, x + n, samples + *count);
    *count += static_cast<int32_t>(n);
  }
  void drop(int64_t n) {
    std::copy(samples + n, samples + *count, samples);
    *count -= static_cast<int32_t>(n);
  }
};

}  // namespace

// Each row cut into frames of `frame_size` every `frame_step` samples, the samples carried across
// runs (with `prefill`, frame_size - frame_step zeros first). The valid flag is false when a frame
// was not yet full; TFLM leaves such a frame's output as it was, the kernel writes it 0.
ModelKernel prepare_signal_framer(const KernelContext& c) {
  c.require(c.inputs() == 1 && c.outputs() == 2, "SignalFramer expects one input, the frames and a valid flag");
  const Tensor &xt = c.in(0), &yt = c.out(0), &vt = c.out(1);
  c.require(c.is(xt, DType::kInt16) && c.is(yt, DType::kInt16) && c.is(vt, DType::kBool) && c.count(vt) == 1 &&
                c.dims(yt).size() == c.dims(xt).size() + 1 && !c.dims(xt).empty(),
            "SignalFramer runs int16 [..., n] to int16 [..., frames, frame_size] and a bool scalar (TFLM)");
  const int64_t size = c.attr("frame_size", 0), step = c.attr("frame_step", 0), prefill = c.attr("prefill", 0);
  c.require(c.op.attrs.count("frame_size") == 1 && c.op.attrs.count("frame_step") == 1, "SignalFramer has no frame_size or frame_step option");
  const int64_t innermost = c.dims(xt).back();
  c.require(step >= 1 && size >= step && size <= (int64_t{1} << 20) && innermost >= step && innermost % step == 0,
            "SignalFramer's input must be whole steps, and frame_size at least frame_step (TFLM)");
  const int64_t rows = c.count(xt) / innermost, frames = innermost / step;
  c.require(c.count(yt) == rows * frames * size, "SignalFramer's output is not [..., frames, frame_size]");
  const int64_t capacity = (size + step - 1) / step * step, stride = SampleQueue::bytes(capacity);
  ModelKernel k{"SignalFramer int16"};
  k.work.alu_ops = rows * frames * (size + step);
  k.state_bytes = 4 + rows * stride;  // a started word, then one queue per row
  k.run_with_state = [=](const Operand* in, const Operand* out, const Operand& state) {
    const int16_t* x = as<int16_t>(in[0]);
    int16_t* y = as_mut<int16_t>(out[0]);
    uint8_t* base = as_mut<uint8_t>(state);
    int32_t* started = reinterpret_cast<int32_t*>(base);
    if (*started == 0) {  // TFLM's reset in Prepare: the prefill's zeros are already there
      for (int64_t r = 0; r < rows; ++r) *SampleQueue::at(base + 4 + r * stride).count = prefill ? static_cast<int32_t>(size - step) : 0;
      *started = 1;
    }
    bool valid = true;
    for (int64_t r = 0; r < rows; ++r) {
      SampleQueue q = SampleQueue::at(base + 4 + r * stride);
      for (int64_t f = 0; f < frames; ++f) {
        int16_t* frame = y + (r * frames + f) * size;
        q.push(x + (r * frames + f) * step, step);
        if (*q.count >= size) {
          std::copy(q.samples, q.samples + size, frame);
          q.drop(step);
        } else {
          std::fill(frame, frame + size, int16_t{0});
          valid = false;
        }
      }
    }
    as_mut<uint8_t>(out[1])[0] = valid ? 1 : 0;
  };
  return k;
}

// Frames of num_channels stacked with left and right context: the last (left + 1 + right) frames
// given once that many have arrived (the first frame counts left + 1 times), then stepping by
// `stacker_step` frames. The valid flag is false until then; TFLM leaves the output as it was, the
// kernel writes it 0.
ModelKernel prepare_signal_stacker(const KernelContext& c) {
  c.require(c.inputs() == 1 && c.outputs() == 2, "SignalStacker expects one input, the stack and a valid flag");
  const Tensor &xt = c.in(0), &yt = c.out(0), &vt = c.out(1);
  c.require(c.is(xt, DType::kInt16) && c.is(yt, DType::kInt16) && c.is(vt, DType::kBool) && c.count(vt) == 1,
            "SignalStacker runs int16 with a bool scalar valid flag (TFLM)");
  for (const char* key : {"num_channels", "stacker_left_context", "stacker_right_context", "stacker_step"})
    c.require(c.op.attrs.count(key) == 1, std::string("SignalStacker has no ") + key + " option");
  const int64_t channels = c.attr("num_channels", 0), left = c.attr("stacker_left_context", 0),
                right = c.attr("stacker_right_context", 0), step = c.attr("stacker_step", 0);
  c.require(channels >= 1 && left >= 0 && right >= 0 && left + right < (int64_t{1} << 16) && step >= 1 && step <= left + right + 1,
            "SignalStacker's options are out of range (step 1..left + right + 1)");
  const int64_t stack = channels * (left + right + 1);
  c.require(c.count(xt) == channels && c.count(yt) == stack, "SignalStacker's input must hold num_channels and its output the stack");
  ModelKernel k{"SignalStacker int16"};
  k.work.alu_ops = stack;
  k.state_bytes = 4 + SampleQueue::bytes(stack);  // a started word, then the queue
  k.run_with_state = [=](const Operand* in, const Operand* out, const Operand& state) {
    const int16_t* x = as<int16_t>(in[0]);
    int16_t* y = as_mut<int16_t>(out[0]);
    uint8_t* base = as_mut<uint8_t>(state);
    int32_t* started = reinterpret_cast<int32_t*>(base);
    SampleQueue q = SampleQueue::at(base + 4);
    q.push(x, channels);
    if (*started == 0) {  // the first frame stands in for the left context too
      for (int64_t i = 0; i < left; ++i) q.push(x, channels);
      *started = 1;
    }
    const bool valid = *q.count >= stack;
    if (valid) {
      std::copy(q.samples, q.samples + stack, y);
      q.drop(channels * step);
    } else {
      std::fill(y, y + stack, int16_t{0});
    }
    as_mut<uint8_t>(out[1])[0] = valid ? 1 : 0;
  };
  return k;
}

}  // namespace arenaplan::sim
