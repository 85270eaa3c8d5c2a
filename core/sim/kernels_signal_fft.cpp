// Model kernels of TFLM's Signal FFTs (signal/micro/kernels/rfft.cc, irfft.cc): SignalRfft and
// SignalIrfft in int16, int32 and float32, row by row through kissfft's real FFT as TFLM builds
// it (detail/real_fft.h). The options are the flexbuffer's T (the TFLite type the kernel runs)
// and fft_length.
#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/sim/detail/model_kernels.h"
#include "core/sim/detail/real_fft.h"

namespace arenaplan::sim {

namespace {

// TFLite's TensorType codes the op's T option holds.
constexpr int64_t kTfliteFloat32 = 0, kTfliteInt32 = 2, kTfliteInt16 = 7;

// The FFT's element type from the T option, which must be the tensors' type (TFLM's Prepare).
DType fft_type(const KernelContext& c, const char* op) {
  c.require(c.op.attrs.count("T") == 1 && c.op.attrs.count("fft_length") == 1, std::string(op) + " has no T or fft_length option");
  const int64_t t = c.attr("T", -1);
  c.require(t == kTfliteInt16 || t == kTfliteInt32 || t == kTfliteFloat32, std::string(op) + " runs int16, int32 or float32 (TFLM)");
  return t == kTfliteInt16 ? DType::kInt16 : t == kTfliteInt32 ? DType::kInt32 : DType::kFloat32;
}

int64_t checked_fft_length(const KernelContext& c, const char* op) {
  const int64_t n = c.attr("fft_length", 0);
  if (auto why = real_fft_refusal(n)) c.unsupported(std::string(op) + ": " + *why);
  return n;
}

// An FFT's work: about (n / 2) log2(n / 2) complex multiply-adds per row, and the split step.
KernelWork fft_work(int64_t rows, int64_t fft_length) {
  int64_t stages = 0;
  for (int64_t m = fft_length / 2; m > 1; m = (m + 1) / 2) ++stages;
  KernelWork w;
  w.macs = rows * (fft_length / 2) * (stages + 1) * 4;
  w.alu_ops = rows * fft_length * (stages + 1);
  return w;
}

// TFLM's RfftEval: each row of input_length samples copied into a scratch of fft_length, the rest
// zeros, then fft_length / 2 + 1 complex bins written at the row's place in the output.
template <class T>
ModelKernel rfft_of(const char* name, int64_t rows, int64_t row_length, int64_t fft_length) {
  ModelKernel k{name};
  k.work = fft_work(rows, fft_length);
  const auto fft = std::make_shared<const RealFft<T>>(static_cast<int>(fft_length), FftDirection::kForward);
  k.run = [=](const Operand* in, const Operand* out) {
    const T* x = as<T>(in[0]);
    auto* bins = as_mut<typename RealFft<T>::Complex>(out[0]);
    std::vector<T> frame(static_cast<size_t>(fft_length));
    for (int64_t r = 0; r < rows; ++r) {
      std::copy(x + r * row_length, x + (r + 1) * row_length, frame.begin());
      std::fill(frame.begin() + row_length, frame.end(), T{0});
      fft->forward(frame.data(), bins + r * (fft_length / 2 + 1));
    }
  };
  return k;
}

// TFLM's IrfftEval: each row of fft_length / 2 + 1 bins to fft_length samples; the float kernel
// then divides by fft_length (kissfft leaves its inverse unscaled), fixed point comes out scaled.
template <class T>
ModelKernel irfft_of(const char* name, int64_t rows, int64_t fft_length) {
  ModelKernel k{name};
  k.work = fft_work(rows, fft_length);
  const auto fft = std::make_shared<const RealFft<T>>(static_cast<int>(fft_length), FftDirection::kInverse);
  k.run = [=](const Operand* in, const Operand* out) {
    const auto* bins = as<typename RealFft<T>::Complex>(in[0]);
    T* y = as_mut<T>(out[0]);
    for (int64_t r = 0; r < rows; ++r) {
      T* row = y + r * fft_length;
      fft->inverse(bins + r * (fft_length / 2 + 1), row);
      if constexpr (std::is_same_v<T, float>)
        for (int64_t i = 0; i < fft_length; ++i) row[i] /= static_cast<float>(fft_length);
    }
  };
  return k;
}

}  // namespace

// Rows of up to fft_length samples [..., n] to their spectra [..., fft_length + 2] (re, im pairs).
// TFLM writes fft_length / 2 + 1 bins per row whatever the output's row is: a row of another
// length would overlap its neighbours or leave bytes unwritten, so only the exact one runs here.
ModelKernel prepare_signal_rfft(const KernelContext& c) {
  c.require(c.inputs() == 1 && c.outputs() == 1, "SignalRfft expects one input and one output");
  const DType type = fft_type(c, "SignalRfft");
  const Tensor &xt = c.in(0), &yt = c.out(0);
  c.require(c.is(xt, type) && c.is(yt, type), "SignalRfft's tensors are not of its T option's type (TFLM)");
  const auto x = c.dims(xt), y = c.dims(yt);
  c.require(x.size() == y.size(), "SignalRfft's input and output differ in rank (TFLM)");
  const int64_t fft_length = checked_fft_length(c, "SignalRfft");
  const int64_t row_length = x.back(), rows = row_length > 0 ? c.count(xt) / row_length : 0;
  c.require(row_length >= 1 && row_length <= fft_length, "SignalRfft's rows must be 1..fft_length samples (TFLM's scratch holds fft_length)");
  c.require(y.back() == fft_length + 2 && c.count(yt) == rows * (fft_length + 2),
            "SignalRfft's output must be one row of fft_length / 2 + 1 complex bins per input row");
  if (type == DType::kInt16) return rfft_of<int16_t>("SignalRfft int16", rows, row_length, fft_length);
  if (type == DType::kInt32) return rfft_of<int32_t>("SignalRfft int32", rows, row_length, fft_length);
  return rfft_of<float>("SignalRfft float32", rows, row_length, fft_length);
}

// Spectra [..., fft_length + 2] to rows of fft_length samples; as for SignalRfft, rows of any
// other length would make TFLM read across rows or leave bytes unwritten.
ModelKernel prepare_signal_irfft(const KernelContext& c) {
  c.require(c.inputs() == 1 && c.outputs() == 1, "SignalIrfft expects one input and one output");
  const DType type = fft_type(c, "SignalIrfft");
  const Tensor &xt = c.in(0), &yt = c.out(0);
  c.require(c.is(xt, type) && c.is(yt, type), "SignalIrfft's tensors are not of its T option's type (TFLM)");
  const auto x = c.dims(xt), y = c.dims(yt);
  c.require(x.size() == y.size(), "SignalIrfft's input and output differ in rank (TFLM)");
  const int64_t fft_length = checked_fft_length(c, "SignalIrfft");
  c.require(x.back() == fft_length + 2, "SignalIrfft's input rows must be fft_length / 2 + 1 complex bins");
  const int64_t rows = c.count(xt) / (fft_length + 2);
  c.require(y.back() == fft_length && c.count(yt) == rows * fft_length, "SignalIrfft's output must be one row of fft_length samples per spectrum");
  if (type == DType::kInt16) return irfft_of<int16_t>("SignalIrfft int16", rows, fft_length);
  if (type == DType::kInt32) return irfft_of<int32_t>("SignalIrfft int32", rows, fft_length);
  return irfft_of<float>("SignalIrfft float32", rows, fft_length);
}

}  // namespace arenaplan::sim
