// kissfft v130's real FFT (kiss_fftr / kiss_fftri over kiss_fft), in the three arithmetics TFLM
// compiles it with, reproduced step for step: the results are TFLM's bits only if every rounding,
// truncation and operation order is kissfft's, so each part below names the kissfft behaviour it
// keeps. The file is compiled with -ffp-contract=off (CMakeLists.txt): kissfft's float products
// and sums round one at a time, as TFLM's x86-64 and Cortex-M builds run them.
#include "core/sim/detail/real_fft.h"

#include <cmath>
#include <type_traits>

namespace arenaplan::sim {

namespace {

// Both of kissfft's pi literals round to this double.
constexpr double kPi = 3.14159265358979323846;

// Fixed point (FIXED_POINT=16 or 32): Q15 or Q31 scalars, products in int32 or int64 (SAMPPROD).
// Sums are C's: an int16 sum is computed in int and truncated when stored, an int32 sum wraps (the
// code GCC emits for the signed overflow kissfft leaves undefined); both are arithmetic mod 2^bits
// here, written through unsigned so that no sum overflows in this program.
template <class Scalar, class Product, int kFracBits, Product kSampMax>
struct FixedArithmetic {
  using Complex = typename RealFft<Scalar>::Complex;
  static Scalar wrap(int64_t v) { return static_cast<Scalar>(static_cast<uint64_t>(v)); }
  static Scalar add(Scalar a, Scalar b) { return wrap(int64_t{a} + b); }
  static Scalar sub(Scalar a, Scalar b) { return wrap(int64_t{a} - b); }
  static Scalar neg(Scalar a) { return wrap(-int64_t{a}); }
  // sround: half an LSB added, arithmetic shift by FRACBITS, truncated to the scalar.
  static Scalar round(Product x) { return static_cast<Scalar>((x + (Product{1} << (kFracBits - 1))) >> kFracBits); }
  static Scalar s_mul(Scalar a, Scalar b) { return round(Product{a} * b); }  // S_MUL
  // C_MUL: both products summed at full width before one rounding (operands are twiddles, so the
  // sums stay inside the product type).
  static Complex mul(Complex a, Complex b) {
    return {round(Product{a.r} * b.r - Product{a.i} * b.i), round(Product{a.r} * b.i + Product{a.i} * b.r)};
  }
  static Complex mul_by_scalar(Complex c, Scalar s) { return {s_mul(c.r, s), s_mul(c.i, s)}; }  // C_MULBYSCALAR
  // C_FIXDIV: each stage scales by 1/radix, as a multiply by SAMP_MAX / radix (integer division)
  // and sround, so the FFT cannot grow past the scalar's range by more than rounding.
  static void fixdiv(Complex& c, int radix) {
    const Product by = kSampMax / radix;
    c.r = round(Product{c.r} * by);
    c.i = round(Product{c.i} * by);
  }
  // HALF_OF(x) is x >> 1 on C's int: of a sum of two scalars in kiss_fftr the int16 sum keeps its
  // 17th bit, the int32 sum has wrapped first.
  static Scalar half(Scalar x) { return static_cast<Scalar>(x >> 1); }
  static Scalar half_of_sum(Scalar a, Scalar b) { return static_cast<Scalar>(int_sum(int64_t{a} + b) >> 1); }
  static Scalar half_of_difference(Scalar a, Scalar b) { return static_cast<Scalar>(int_sum(int64_t{a} - b) >> 1); }
  static int32_t int_sum(int64_t v) { return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(v))); }
  // KISS_FFT_COS / KISS_FFT_SIN: floor(.5 + SAMP_MAX * cos(phase)) in double.
  static Scalar twiddle_part(double unit) { return static_cast<Scalar>(std::floor(0.5 + static_cast<double>(kSampMax) * unit)); }
};

// Float: C_FIXDIV is a no-op, HALF_OF multiplies by (float).5 (TFLM's patch), twiddles are the
// double cos / sin rounded to float.
struct FloatArithmetic {
  using Complex = RealFft<float>::Complex;
  static float add(float a, float b) { return a + b; }
  static float sub(float a, float b) { return a - b; }
  static float neg(float a) { return -a; }
  static float s_mul(float a, float b) { return a * b; }
  static Complex mul(Complex a, Complex b) { return {a.r * b.r - a.i * b.i, a.r * b.i + a.i * b.r}; }
  static Complex mul_by_scalar(Complex c, float s) { return {c.r * s, c.i * s}; }
  static void fixdiv(Complex&, int) {}
  static float half(float x) { return x * 0.5f; }
  static float half_of_sum(float a, float b) { return (a + b) * 0.5f; }
  static float half_of_difference(float a, float b) { return (a - b) * 0.5f; }
  static float twiddle_part(double unit) { return static_cast<float>(unit); }
};

template <class T>
struct ArithmeticOf;
template <>
struct ArithmeticOf<int16_t> {
  using type = FixedArithmetic<int16_t, int32_t, 15, 32767>;
};
template <>
struct ArithmeticOf<int32_t> {
  using type = FixedArithmetic<int32_t, int64_t, 31, 2147483647>;
};
template <>
struct ArithmeticOf<float> {
  using type = FloatArithmetic;
};

template <class A, class C>
C add(C a, C b) {
  return {A::add(a.r, b.r), A::add(a.i, b.i)};
}
template <class A, class C>
C sub(C a, C b) {
  return {A::sub(a.r, b.r), A::sub(a.i, b.i)};
}

// The butterflies of one stage, u = 0..m-1 over p sub-FFTs of length m (kf_bfly2..5), each
// sub-FFT's value scaled first (C_FIXDIV), the statement order kissfft's.
template <class A, class C>
void butterfly2(C* out, size_t stride, const C* tw, size_t m) {
  for (size_t u = 0; u < m; ++u) {
    C &a = out[u], &b = out[u + m];
    A::fixdiv(a, 2);
    A::fixdiv(b, 2);
    const C t = A::mul(b, tw[u * stride]);
    b = sub<A>(a, t);
    a = add<A>(a, t);
  }
}

template <class A, class C>
void butterfly3(C* out, size_t stride, const C* tw, size_t m) {
  const C epi3 = tw[stride * m];
  for (size_t u = 0; u < m; ++u) {
    C &f0 = out[u], &f1 = out[u + m], &f2 = out[u + 2 * m];
    A::fixdiv(f0, 3);
    A::fixdiv(f1, 3);
    A::fixdiv(f2, 3);
    const C s1 = A::mul(f1, tw[u * stride]), s2 = A::mul(f2, tw[2 * u * stride]);
    const C s3 = add<A>(s1, s2);
    C s0 = sub<A>(s1, s2);
    f1.r = A::sub(f0.r, A::half(s3.r));  // from f0 before it takes s3
    f1.i = A::sub(f0.i, A::half(s3.i));
    s0 = A::mul_by_scalar(s0, epi3.i);
    f0 = add<A>(f0, s3);
    f2.r = A::add(f1.r, s0.i);
    f2.i = A::sub(f1.i, s0.r);
    f1.r = A::sub(f1.r, s0.i);
    f1.i = A::add(f1.i, s0.r);
  }
}

template <class A, class C>
void butterfly4(C* out, size_t stride, const C* tw, size_t m, bool inverse) {
  for (size_t u = 0; u < m; ++u) {
    C &f0 = out[u], &f1 = out[u + m], &f2 = out[u + 2 * m], &f3 = out[u + 3 * m];
    A::fixdiv(f0, 4);
    A::fixdiv(f1, 4);
    A::fixdiv(f2, 4);
    A::fixdiv(f3, 4);
    const C s0 = A::mul(f1, tw[u * stride]), s1 = A::mul(f2, tw[2 * u * stride]), s2 = A::mul(f3, tw[3 * u * stride]);
    const C s5 = sub<A>(f0, s1);
    f0 = add<A>(f0, s1);
    const C s3 = add<A>(s0, s2), s4 = sub<A>(s0, s2);
    f2 = sub<A>(f0, s3);
    f0 = add<A>(f0, s3);
    if (inverse) {
      f1 = {A::sub(s5.r, s4.i), A::add(s5.i, s4.r)};
      f3 = {A::add(s5.r, s4.i), A::sub(s5.i, s4.r)};
    } else {
      f1 = {A::add(s5.r, s4.i), A::sub(s5.i, s4.r)};
      f3 = {A::sub(s5.r, s4.i), A::add(s5.i, s4.r)};
    }
  }
}

template <class A, class C>
void butterfly5(C* out, size_t stride, const C* tw, size_t m) {
  const C ya = tw[stride * m], yb = tw[stride * 2 * m];
  for (size_t u = 0; u < m; ++u) {
    C &f0 = out[u], &f1 = out[u + m], &f2 = out[u + 2 * m], &f3 = out[u + 3 * m], &f4 = out[u + 4 * m];
    for (C* f : {&f0, &f1, &f2, &f3, &f4}) A::fixdiv(*f, 5);
    const C s0 = f0;
    const C s1 = A::mul(f1, tw[u * stride]), s2 = A::mul(f2, tw[2 * u * stride]), s3 = A::mul(f3, tw[3 * u * stride]),
            s4 = A::mul(f4, tw[4 * u * stride]);
    const C s7 = add<A>(s1, s4), s10 = sub<A>(s1, s4), s8 = add<A>(s2, s3), s9 = sub<A>(s2, s3);
    f0.r = A::add(f0.r, A::add(s7.r, s8.r));  // Fout0->r += s7.r + s8.r
    f0.i = A::add(f0.i, A::add(s7.i, s8.i));
    const C s5{A::add(A::add(s0.r, A::s_mul(s7.r, ya.r)), A::s_mul(s8.r, yb.r)),
               A::add(A::add(s0.i, A::s_mul(s7.i, ya.r)), A::s_mul(s8.i, yb.r))};
    const C s6{A::add(A::s_mul(s10.i, ya.i), A::s_mul(s9.i, yb.i)),
               A::sub(A::neg(A::s_mul(s10.r, ya.i)), A::s_mul(s9.r, yb.i))};
    f1 = sub<A>(s5, s6);
    f4 = add<A>(s5, s6);
    const C s11{A::add(A::add(s0.r, A::s_mul(s7.r, yb.r)), A::s_mul(s8.r, ya.r)),
                A::add(A::add(s0.i, A::s_mul(s7.i, yb.r)), A::s_mul(s8.i, ya.r))};
    const C s12{A::add(A::neg(A::s_mul(s10.i, yb.i)), A::s_mul(s9.i, ya.i)),
                A::sub(A::s_mul(s10.r, yb.i), A::s_mul(s9.r, ya.i))};
    f2 = add<A>(s11, s12);
    f3 = sub<A>(s11, s12);
  }
}

// kf_factor: fours first, then a two, then odd trial divisors; once a divisor passes the floor of
// the square root of the ORIGINAL length, the remainder is taken as one radix.
std::vector<int> kissfft_factors(int n) {
  std::vector<int> facbuf;
  int p = 4;
  const double floor_sqrt = std::floor(std::sqrt(static_cast<double>(n)));
  do {
    while (n % p) {
      p = p == 4 ? 2 : p == 2 ? 3 : p + 2;
      if (p > floor_sqrt) p = n;
    }
    n /= p;
    facbuf.push_back(p);
    facbuf.push_back(n);
  } while (n > 1);
  return facbuf;
}

constexpr int64_t kMaxFftLength = int64_t{1} << 20;  // the simulator's own bound on the tables

}  // namespace

std::vector<int> kissfft_radices(int n) {
  std::vector<int> radices;
  const std::vector<int> facbuf = kissfft_factors(n);
  for (size_t i = 0; i < facbuf.size(); i += 2) radices.push_back(facbuf[i]);
  return radices;
}

std::optional<std::string> real_fft_refusal(int64_t fft_length) {
  if (fft_length < 2 || fft_length % 2 != 0) return "fft_length " + std::to_string(fft_length) + " is not even (kiss_fftr_alloc refuses it)";
  if (fft_length > kMaxFftLength) return "fft_length " + std::to_string(fft_length) + " is beyond the simulator's 2^20";
  for (int radix : kissfft_radices(static_cast<int>(fft_length / 2)))
    if (radix < 2 || radix > 5)
      return "fft_length " + std::to_string(fft_length) + " needs kissfft's generic radix-" + std::to_string(radix) +
             " butterfly, whose scratch TFLM's kissfft patch never allocates";
  return std::nullopt;
}

template <class T>
RealFft<T>::RealFft(int fft_length, FftDirection direction)
    : half_(fft_length / 2), direction_(direction), factors_(kissfft_factors(half_)) {
  using A = typename ArithmeticOf<T>::type;
  const bool inverse = direction == FftDirection::kInverse;
  // kiss_fft_alloc: twiddle i at phase -2 pi i / nfft (negated for the inverse), in this order of
  // double operations.
  twiddles_.resize(static_cast<size_t>(half_));
  for (int i = 0; i < half_; ++i) {
    double phase = -2 * kPi * i / half_;
    if (inverse) phase *= -1;
    twiddles_[static_cast<size_t>(i)] = {A::twiddle_part(std::cos(phase)), A::twiddle_part(std::sin(phase))};
  }
  // kiss_fftr_alloc: super-twiddle i at phase -pi ((i + 1) / ncfft + 1/2).
  super_twiddles_.resize(static_cast<size_t>(half_ / 2));
  for (int i = 0; i < half_ / 2; ++i) {
    double phase = -kPi * (static_cast<double>(i + 1) / half_ + .5);
    if (inverse) phase *= -1;
    super_twiddles_[static_cast<size_t>(i)] = {A::twiddle_part(std::cos(phase)), A::twiddle_part(std::sin(phase))};
  }
}

// kf_work: the p sub-FFTs of the decimated input (copied when they are single points), then this
// stage's butterflies over them.
template <class T>
void RealFft<T>::stage(Complex* out, const Complex* in, size_t stride, size_t factor_index) const {
  using A = typename ArithmeticOf<T>::type;
  const int p = factors_[factor_index], m = factors_[factor_index + 1];
  const size_t pm = static_cast<size_t>(m);
  if (m == 1) {
    for (int j = 0; j < p; ++j) out[j] = in[static_cast<size_t>(j) * stride];
  } else {
    for (int j = 0; j < p; ++j) stage(out + static_cast<size_t>(j) * pm, in + static_cast<size_t>(j) * stride, stride * static_cast<size_t>(p), factor_index + 2);
  }
  const Complex* tw = twiddles_.data();
  switch (p) {
    case 2: butterfly2<A>(out, stride, tw, pm); break;
    case 3: butterfly3<A>(out, stride, tw, pm); break;
    case 4: butterfly4<A>(out, stride, tw, pm, direction_ == FftDirection::kInverse); break;
    default: butterfly5<A>(out, stride, tw, pm); break;  // real_fft_refusal leaves only 2..5
  }
}

template <class T>
void RealFft<T>::complex_fft(const Complex* in, Complex* out) const {
  stage(out, in, 1, 0);
}

// kiss_fftr: the samples as ncfft complex points (even samples real, odd imaginary), one complex
// FFT, then the split into the two real spectra with the super-twiddles, each half scaled by 1/2.
template <class T>
void RealFft<T>::forward(const T* samples, Complex* bins) const {
  using A = typename ArithmeticOf<T>::type;
  const size_t n = static_cast<size_t>(half_);
  std::vector<Complex> packed(n), spectrum(n);
  for (size_t k = 0; k < n; ++k) packed[k] = {samples[2 * k], samples[2 * k + 1]};
  complex_fft(packed.data(), spectrum.data());
  Complex dc = spectrum[0];
  A::fixdiv(dc, 2);
  bins[0] = {A::add(dc.r, dc.i), T{0}};
  bins[n] = {A::sub(dc.r, dc.i), T{0}};
  for (size_t k = 1; k <= n / 2; ++k) {
    Complex fpk = spectrum[k], fpnk{spectrum[n - k].r, A::neg(spectrum[n - k].i)};
    A::fixdiv(fpk, 2);
    A::fixdiv(fpnk, 2);
    const Complex f1k = add<A>(fpk, fpnk), f2k = sub<A>(fpk, fpnk);
    const Complex tw = A::mul(f2k, super_twiddles_[k - 1]);
    bins[k] = {A::half_of_sum(f1k.r, tw.r), A::half_of_sum(f1k.i, tw.i)};
    bins[n - k] = {A::half_of_difference(f1k.r, tw.r), A::half_of_difference(tw.i, f1k.i)};  // k = n - k: this one stays
  }
}

// kiss_fftri: the two real spectra merged back into ncfft complex points (DC and Nyquist summed
// before their scaling, so an int16 sum wraps first), one complex FFT of the inverse state.
template <class T>
void RealFft<T>::inverse(const Complex* bins, T* samples) const {
  using A = typename ArithmeticOf<T>::type;
  const size_t n = static_cast<size_t>(half_);
  std::vector<Complex> merged(n), points(n);
  merged[0] = {A::add(bins[0].r, bins[n].r), A::sub(bins[0].r, bins[n].r)};
  A::fixdiv(merged[0], 2);
  for (size_t k = 1; k <= n / 2; ++k) {
    Complex fk = bins[k], fnkc{bins[n - k].r, A::neg(bins[n - k].i)};
    A::fixdiv(fk, 2);
    A::fixdiv(fnkc, 2);
    const Complex fek = add<A>(fk, fnkc), odd = sub<A>(fk, fnkc);
    const Complex fok = A::mul(odd, super_twiddles_[k - 1]);
    merged[k] = add<A>(fek, fok);
    merged[n - k] = sub<A>(fek, fok);
    merged[n - k].i = A::neg(merged[n - k].i);  // tmpbuf[ncfft - k].i *= -1
  }
  complex_fft(merged.data(), points.data());
  for (size_t k = 0; k < n; ++k) {
    samples[2 * k] = points[k].r;
    samples[2 * k + 1] = points[k].i;
  }
}

template class RealFft<int16_t>;
template class RealFft<int32_t>;
template class RealFft<float>;

}  // namespace arenaplan::sim
