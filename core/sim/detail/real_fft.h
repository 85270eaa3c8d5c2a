// The real FFT of TFLM's Signal library (SignalRfft, SignalIrfft), computed as kissfft v130 with
// TFLM's patch computes it, so that its bits are TFLM's: kiss_fftr / kiss_fftri over a complex FFT
// of fft_length / 2 points, in 16-bit or 32-bit fixed point (FIXED_POINT=16 / 32: every stage
// divides by its radix, products rounded) or float. Written from kissfft's documented algorithm,
// not copied; real_fft.cpp says which kissfft behaviour each part reproduces. Internal to core/sim.
//
//   if (auto why = real_fft_refusal(512)) ...;          // lengths kissfft cannot run
//   const RealFft<int16_t> fft(512, FftDirection::kForward);
//   fft.forward(samples, bins);  // 512 samples -> 257 complex bins, (re, im) interleaved
//   const RealFft<int16_t> ifft(512, FftDirection::kInverse);
//   ifft.inverse(bins, samples);  // 257 bins -> 512 samples (float: not yet divided by 512)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace arenaplan::sim {

enum class FftDirection { kForward, kInverse };

// Why kissfft, as TFLM builds it, cannot run a real FFT of `fft_length` samples, or nothing:
// an odd length (kiss_fftr_alloc refuses it), a half length of 1 or with a prime factor above 5
// (kissfft's generic butterfly needs a heap scratch, and TFLM's patch makes its allocator return
// NULL), or a length beyond what the simulator plans for.
std::optional<std::string> real_fft_refusal(int64_t fft_length);

// The radices kissfft's kf_factor picks for a complex FFT of n points, outermost stage first:
// fours, then a two, then odd primes (n = 240: 4, 4, 3, 5).
std::vector<int> kissfft_radices(int n);

// One kiss_fftr state: the twiddles of the half-length complex FFT, its factors and the
// super-twiddles of the split step, in the arithmetic of T (int16_t, int32_t or float).
template <class T>
class RealFft {
 public:
  struct Complex {
    T r, i;
  };

  RealFft(int fft_length, FftDirection direction);  // a length real_fft_refusal accepts

  int fft_length() const { return 2 * half_; }
  // kiss_fftr: fft_length samples to fft_length / 2 + 1 bins (a forward state only).
  void forward(const T* samples, Complex* bins) const;
  // kiss_fftri: fft_length / 2 + 1 bins to fft_length samples (an inverse state only). Fixed
  // point comes out scaled by 1 / fft_length (each stage divides); float does not.
  void inverse(const Complex* bins, T* samples) const;

 private:
  void complex_fft(const Complex* in, Complex* out) const;
  void stage(Complex* out, const Complex* in, size_t stride, size_t factor_index) const;

  int half_;  // kissfft's ncfft: the complex FFT's length
  FftDirection direction_;
  std::vector<int> factors_;  // radix, then the remaining length, per stage (kf_factor's facbuf)
  std::vector<Complex> twiddles_, super_twiddles_;
};

extern template class RealFft<int16_t>;
extern template class RealFft<int32_t>;
extern template class RealFft<float>;

}  // namespace arenaplan::sim
