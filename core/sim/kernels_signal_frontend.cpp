// Model kernels of TFLM's Signal library for the audio front end after the FFT, on the uint32 /
// uint64 tensors the library uses (signal/src/*.cc, the integer arithmetic kept bit for bit):
// SignalEnergy, SignalFilterBank, SignalFilterBankSquareRoot, SignalFilterBankSpectralSubtraction
// (its noise estimate kept across runs, as TFLM keeps it in a persistent buffer), SignalPCAN and
// SignalFilterBankLog. Where TFLM's C++ would overflow a signed int the kernels compute in
// unsigned arithmetic, which gives what the device's two's complement gives.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "core/sim/detail/model_kernels.h"

namespace arenaplan::sim {

namespace {

// tflm_signal::MostSignificantBit32/64 as GCC builds them: the bit count, 32 (64) for zero.
uint32_t msb32(uint32_t x) { return x ? 32u - static_cast<uint32_t>(__builtin_clz(x)) : 32u; }
uint32_t msb64(uint64_t x) { return x ? 64u - static_cast<uint32_t>(__builtin_clzll(x)) : 64u; }

// The operand is one 1-D tensor of this type (TFLM's Prepare checks both).
bool is_1d(const KernelContext& c, const Tensor& t, DType d) { return c.is(t, d) && c.dims(t).size() == 1; }

// An option the op must carry (TFLM reads it from the flexbuffer by position).
int64_t option(const KernelContext& c, const char* op, const char* key) {
  c.require(c.op.attrs.count(key) == 1, std::string(op) + " has no " + key + " option");
  return c.attr(key, 0);
}

}  // namespace

// tflm_signal::Sqrt32: the rounded integer square root (0xFFFF is not rounded up).
uint16_t signal_sqrt32(uint32_t num) {
  if (num == 0) return 0;
  uint32_t res = 0;
  int max_bit_number = 32 - static_cast<int>(msb32(num));
  max_bit_number |= 1;
  uint32_t bit = 1u << (31 - max_bit_number);
  int iterations = (31 - max_bit_number) / 2 + 1;
  while (iterations--) {
    if (num >= res + bit) {
      num -= res + bit;
      res = (res >> 1U) + bit;
    } else {
      res >>= 1U;
    }
    bit >>= 2U;
  }
  if (num > res && res != 0xFFFF) ++res;
  return static_cast<uint16_t>(res);
}

// tflm_signal::Sqrt64: Sqrt32 when the upper word is clear (TFLM's shortcut, off by one near 2^32).
uint32_t signal_sqrt64(uint64_t num) {
  if ((num >> 32) == 0) return signal_sqrt32(static_cast<uint32_t>(num));
  uint64_t res = 0;
  int max_bit_number = 64 - static_cast<int>(msb64(num));
  max_bit_number |= 1;
  uint64_t bit = uint64_t{1} << (63 - max_bit_number);
  int iterations = (63 - max_bit_number) / 2 + 1;
  while (iterations--) {
    if (num >= res + bit) {
      num -= res + bit;
      res = (res >> 1U) + bit;
    } else {
      res >>= 1U;
    }
    bit >>= 2U;
  }
  if (num > res && res != 0xFFFFFFFFLL) ++res;
  return static_cast<uint32_t>(res);
}

namespace {

constexpr uint16_t kLogLut[] = {
    0,    224,  442,  654,  861,  1063, 1259, 1450, 1636, 1817, 1992, 2163, 2329, 2490, 2646, 2797, 2944,
    3087, 3224, 3358, 3487, 3611, 3732, 3848, 3960, 4068, 4172, 4272, 4368, 4460, 4549, 4633, 4714, 4791,
    4864, 4934, 5001, 5063, 5123, 5178, 5231, 5280, 5326, 5368, 5408, 5444, 5477, 5507, 5533, 5557, 5578,
    5595, 5610, 5622, 5631, 5637, 5640, 5641, 5638, 5633, 5626, 5615, 5602, 5586, 5568, 5547, 5524, 5498,
    5470, 5439, 5406, 5370, 5332, 5291, 5249, 5203, 5156, 5106, 5054, 5000, 4944, 4885, 4825, 4762, 4697,
    4630, 4561, 4490, 4416, 4341, 4264, 4184, 4103, 4020, 3935, 3848, 3759, 3668, 3575, 3481, 3384, 3286,
    3186, 3084, 2981, 2875, 2768, 2659, 2549, 2437, 2323, 2207, 2090, 1971, 1851, 1729, 1605, 1480, 1353,
    1224, 1094, 963,  830,  695,  559,  421,  282,  142,  0,    0};

// tflm_signal's Log2FractionPart32: the fraction of log2(x) in 1/65536, from a 128-segment table.
uint32_t log2_fraction(uint32_t x, uint32_t log2x) {
  int32_t frac = static_cast<int32_t>(x - (uint32_t{1} << log2x));
  if (log2x < 16) frac <<= 16 - log2x;
  else frac >>= log2x - 16;
  const uint32_t base_seg = static_cast<uint32_t>(frac) >> (16 - 7);
  const uint32_t seg_unit = (uint32_t{1} << 16) >> 7;
  const int32_t c0 = kLogLut[base_seg], c1 = kLogLut[base_seg + 1];
  const int32_t seg_base = static_cast<int32_t>(seg_unit * base_seg);
  const int32_t rel_pos = ((c1 - c0) * (frac - seg_base)) >> 16;
  return static_cast<uint32_t>(frac + c0 + rel_pos);
}

}  // namespace

// tflm_signal::Log32: ln(x) times out_scale, in fixed point (x > 1).
uint32_t signal_log32(uint32_t x, uint32_t out_scale) {
  const uint32_t integer = msb32(x) - 1;
  const uint32_t log2 = (integer << 16) + log2_fraction(x, integer);
  const uint32_t round = 65536 / 2;
  const uint32_t loge = static_cast<uint32_t>((uint64_t{45426} * log2 + round) >> 16);
  return (out_scale * loge + round) >> 16;
}

// tflm_signal::WideDynamicFunction: PCAN's gain of a noise estimate, interpolated in `lut`
// (4 entries per significant bit count; 125 cover every uint32).
int16_t signal_wide_dynamic_function(uint32_t x, const int16_t* lut) {
  if (x <= 2) return lut[x];
  const int32_t interval = static_cast<int32_t>(msb32(x));
  lut += 4 * interval - 6;
  const int16_t frac = static_cast<int16_t>(((interval < 11) ? (x << (11 - interval)) : (x >> (interval - 11))) & 0x3FF);
  // As TFLM's int32 expression; computed in uint32 so that a wrap is the device's, not UB.
  uint32_t result = static_cast<uint32_t>((int32_t{lut[2]} * frac) >> 5);
  result += static_cast<uint32_t>(lut[1]) << 5;
  result *= static_cast<uint32_t>(static_cast<int32_t>(frac));
  const int32_t rounded = static_cast<int32_t>(result + (1u << 14)) >> 15;
  return static_cast<int16_t>(rounded + lut[0]);
}

// tflm_signal::PcanShrink with kPcanSnrBits 12 and kPcanOutputBits 6.
uint32_t signal_pcan_shrink(uint32_t x) {
  if (x < (2u << 12)) return (x * x) >> (2 + 2 * 12 - 6);
  return (x >> (12 - 6)) - (1u << 6);
}

// The energy (re^2 + im^2) of bins [start_index, end_index) of an int16 complex spectrum. TFLM
// leaves the output's other elements as they were; the kernel writes them 0 (one answer for
// whatever the arena held).
ModelKernel prepare_signal_energy(const KernelContext& c) {
  c.require(c.inputs() == 1 && c.outputs() == 1, "SignalEnergy expects one input and one output");
  const Tensor &xt = c.in(0), &yt = c.out(0);
  c.require(is_1d(c, xt, DType::kInt16) && is_1d(c, yt, DType::kUInt32), "SignalEnergy runs 1-D int16 complex to 1-D uint32 (TFLM)");
  const int64_t start = option(c, "SignalEnergy", "start_index"), end = option(c, "SignalEnergy", "end_index");
  const int64_t bins = c.count(xt) / 2, n = c.count(yt);
  c.require(start >= 0 && start <= end && end <= bins && end <= n,
            "SignalEnergy's [start_index, end_index) is outside its input's bins or its output");
  ModelKernel k{"SignalEnergy int16"};
  k.work.macs = 2 * (end - start);
  k.run = [=](const Operand* in, const Operand* out) {
    const int16_t* x = as<int16_t>(in[0]);
    uint32_t* y = as_mut<uint32_t>(out[0]);
    std::fill(y, y + n, 0u);
    for (int64_t i = start; i < end; ++i) {
      const int32_t re = x[2 * i], im = x[2 * i + 1];
      y[i] = static_cast<uint32_t>(re * re) + static_cast<uint32_t>(im * im);  // -32768 twice wraps as on the device
    }
  };
  return k;
}

// Triangular filters over the energy spectrum (FilterbankAccumulateChannels): num_channels + 1
// sums, the first only scratch for the unweights of channel 0, in uint64.
ModelKernel prepare_signal_filter_bank(const KernelContext& c) {
  c.require(c.inputs() == 6 && c.outputs() == 1,
            "SignalFilterBank expects the spectrum, weights, unweights, channel starts, weight starts and widths");
  const Tensor &xt = c.in(0), &yt = c.out(0);
  c.require(is_1d(c, xt, DType::kUInt32) && is_1d(c, yt, DType::kUInt64), "SignalFilterBank runs 1-D uint32 to 1-D uint64 (TFLM)");
  for (size_t i = 1; i < 6; ++i) c.require(is_1d(c, c.in(i), DType::kInt16), "SignalFilterBank's tables must be 1-D int16 (TFLM)");
  const int64_t channels = option(c, "SignalFilterBank", "num_channels");
  c.require(channels >= 0 && c.count(yt) == channels, "SignalFilterBank's output must hold num_channels sums");
  // The tables are the model's constants: every index they give is checked once here.
  const std::vector<int64_t> freq_starts = c.const_ints(c.in(3)), weight_starts = c.const_ints(c.in(4)), widths = c.const_ints(c.in(5));
  const int64_t spectrum = c.count(xt), weights = c.count(c.in(1));
  c.require(c.count(c.in(2)) == weights, "SignalFilterBank's weights and unweights differ in length");
  c.require(static_cast<int64_t>(freq_starts.size()) > channels && static_cast<int64_t>(weight_starts.size()) > channels &&
                static_cast<int64_t>(widths.size()) > channels,
            "SignalFilterBank's channel tables need num_channels + 1 entries");
  int64_t macs = 0;
  for (int64_t i = 0; i <= channels; ++i) {
    const int64_t w = widths[i];
    c.require(w <= 0 || (freq_starts[i] >= 0 && freq_starts[i] + w <= spectrum && weight_starts[i] >= 0 && weight_starts[i] + w <= weights),
              "SignalFilterBank's channel " + std::to_string(i) + " reads outside its spectrum or weights");
    macs += std::max<int64_t>(w, 0) * 2;
  }
  ModelKernel k{"SignalFilterBank uint32"};
  k.work.macs = macs;
  k.run = [=](const Operand* in, const Operand* out) {
    const uint32_t* x = as<uint32_t>(in[0]);
    const int16_t *weight = as<int16_t>(in[1]), *unweight = as<int16_t>(in[2]);
    uint64_t* y = as_mut<uint64_t>(out[0]);
    uint64_t weighted = 0, unweighted = 0;
    for (int64_t i = 0; i <= channels; ++i) {
      for (int64_t j = 0; j < widths[i]; ++j) {
        const uint64_t e = x[freq_starts[i] + j];
        // An int16 weight times a uint64: converted to uint64 first (a negative weight wraps), as in TFLM.
        weighted += static_cast<uint64_t>(int64_t{weight[weight_starts[i] + j]}) * e;
        unweighted += static_cast<uint64_t>(int64_t{unweight[weight_starts[i] + j]}) * e;
      }
      if (i > 0) y[i - 1] = weighted;  // channel 0 is TFLM's scratch, discarded
      weighted = unweighted;
      unweighted = 0;
    }
  };
  return k;
}

// The square root of each channel, shifted right by the int32 scalar input (the FFT's scale).
// A shift outside 0..31 (undefined in TFLM's C++) gives 0 here.
ModelKernel prepare_signal_filter_bank_square_root(const KernelContext& c) {
  c.require(c.inputs() == 2 && c.outputs() == 1, "SignalFilterBankSquareRoot expects channels and a scale");
  const Tensor &xt = c.in(0), &st = c.in(1), &yt = c.out(0);
  c.require(is_1d(c, xt, DType::kUInt64) && c.is(st, DType::kInt32) && c.count(st) == 1 && is_1d(c, yt, DType::kUInt32),
            "SignalFilterBankSquareRoot runs 1-D uint64 and an int32 scalar to 1-D uint32 (TFLM)");
  const int64_t n = c.count(xt);
  c.require(c.count(yt) == n, "SignalFilterBankSquareRoot's output and input differ in length");
  ModelKernel k{"SignalFilterBankSquareRoot uint64"};
  k.work.alu_ops = 32 * n;
  k.run = [=](const Operand* in, const Operand* out) {
    const uint64_t* x = as<uint64_t>(in[0]);
    const int32_t shift = as<int32_t>(in[1])[0];
    uint32_t* y = as_mut<uint32_t>(out[0]);
    for (int64_t i = 0; i < n; ++i) y[i] = shift >= 0 && shift < 32 ? signal_sqrt64(x[i]) >> shift : 0u;
  };
  return k;
}

// Noise reduction per channel: a low-pass noise estimate (alternating coefficients on odd
// channels), subtracted from the signal with a floor. The estimate starts at 0 (TFLM's Prepare
// and Reset clear it) and carries over to the next run; the second output is a copy of it.
ModelKernel prepare_signal_filter_bank_spectral_subtraction(const KernelContext& c) {
  const char* name = "SignalFilterBankSpectralSubtraction";
  c.require(c.inputs() == 1 && c.outputs() == 2, std::string(name) + " expects one input, the output and the noise estimate");
  const Tensor &xt = c.in(0), &yt = c.out(0), &nt = c.out(1);
  c.require(is_1d(c, xt, DType::kUInt32) && is_1d(c, yt, DType::kUInt32) && is_1d(c, nt, DType::kUInt32),
            std::string(name) + " runs 1-D uint32 (TFLM)");
  const int64_t channels = option(c, name, "num_channels");
  const uint32_t smoothing = static_cast<uint32_t>(option(c, name, "smoothing"));
  const uint32_t one_minus = static_cast<uint32_t>(option(c, name, "one_minus_smoothing"));
  const uint32_t alt_smoothing = static_cast<uint32_t>(option(c, name, "alternate_smoothing"));
  const uint32_t alt_one_minus = static_cast<uint32_t>(option(c, name, "alternate_one_minus_smoothing"));
  const uint32_t min_remaining = static_cast<uint32_t>(option(c, name, "min_signal_remaining"));
  const int64_t smoothing_bits = option(c, name, "smoothing_bits");
  const int64_t bits = option(c, name, "spectral_subtraction_bits");
  const bool clamping = option(c, name, "clamping") != 0;
  c.require(channels >= 0 && c.count(xt) >= channels && c.count(yt) == channels && c.count(nt) == channels,
            std::string(name) + "'s tensors must hold num_channels values (the noise estimate exactly)");
  c.require(smoothing_bits >= 0 && smoothing_bits < 32 && bits >= 0 && bits < 64,
            std::string(name) + "'s smoothing_bits (0..31) or spectral_subtraction_bits (0..63) is out of range");
  ModelKernel k{"SignalFilterBankSpectralSubtraction uint32"};
  k.work.macs = 3 * channels;
  k.state_bytes = channels * 4;
  k.run_with_state = [=](const Operand* in, const Operand* out, const Operand& state) {
    const uint32_t* x = as<uint32_t>(in[0]);
    uint32_t* y = as_mut<uint32_t>(out[0]);
    uint32_t* noise = as_mut<uint32_t>(state);
    for (int64_t i = 0; i < channels; ++i) {
      const bool odd = (i & 1) != 0;
      const uint32_t s = odd ? alt_smoothing : smoothing, s1 = odd ? alt_one_minus : one_minus;
      const uint32_t up = x[i] << smoothing_bits;
      noise[i] = static_cast<uint32_t>((uint64_t{up} * s + uint64_t{noise[i]} * s1) >> bits);
      uint32_t estimate = noise[i];
      if (estimate > up) {  // never a negative signal - estimate
        estimate = up;
        if (clamping) noise[i] = estimate;
      }
      const uint32_t floor = static_cast<uint32_t>((uint64_t{x[i]} * min_remaining) >> bits);
      const uint32_t subtracted = (up - estimate) >> smoothing_bits;
      y[i] = std::max(subtracted, floor);
    }
    std::copy(noise, noise + channels, as_mut<uint32_t>(out[1]));
  };
  return k;
}

// Per-channel automatic gain control: the gain of the noise estimate (from the int16 lookup
// table) times the channel, shifted by snr_shift, then PCAN's shrink.
ModelKernel prepare_signal_pcan(const KernelContext& c) {
  c.require(c.inputs() == 3 && c.outputs() == 1, "SignalPCAN expects the channels, a noise estimate and a gain table");
  const Tensor &xt = c.in(0), &nt = c.in(1), &lt = c.in(2), &yt = c.out(0);
  c.require(is_1d(c, xt, DType::kUInt32) && is_1d(c, nt, DType::kUInt32) && is_1d(c, lt, DType::kInt16) && is_1d(c, yt, DType::kUInt32),
            "SignalPCAN runs 1-D uint32 with an int16 gain table (TFLM)");
  const int64_t n = c.count(xt), shift = option(c, "SignalPCAN", "snr_shift");
  // TFLM copies the output's bytes from the input, then processes the input's channels.
  c.require(c.count(yt) == n && c.count(nt) >= n, "SignalPCAN's output and noise estimate must match its channels");
  c.require(c.count(lt) >= 125, "SignalPCAN's gain table needs 125 entries (4 x 32 - 3) to cover every uint32 noise estimate");
  c.require(shift >= 0 && shift < 64, "SignalPCAN's snr_shift is outside 0..63");
  ModelKernel k{"SignalPCAN uint32"};
  k.work.macs = 4 * n;
  k.run = [=](const Operand* in, const Operand* out) {
    const uint32_t *x = as<uint32_t>(in[0]), *noise = as<uint32_t>(in[1]);
    const int16_t* lut = as<int16_t>(in[2]);
    uint32_t* y = as_mut<uint32_t>(out[0]);
    for (int64_t i = 0; i < n; ++i) {
      // The int16 gain converted to uint32: a negative one wraps, as in TFLM.
      const uint32_t gain = static_cast<uint32_t>(static_cast<int32_t>(signal_wide_dynamic_function(noise[i], lut)));
      const uint32_t snr = static_cast<uint32_t>((uint64_t{x[i]} * gain) >> shift);
      y[i] = signal_pcan_shrink(snr);
    }
  };
  return k;
}

// ln of each channel (shifted up by input_correction_bits) times output_scale, saturated to int16;
// 0 for a shifted value of 0 or 1.
ModelKernel prepare_signal_filter_bank_log(const KernelContext& c) {
  c.require(c.inputs() == 1 && c.outputs() == 1, "SignalFilterBankLog expects one input and one output");
  const Tensor &xt = c.in(0), &yt = c.out(0);
  c.require(is_1d(c, xt, DType::kUInt32) && is_1d(c, yt, DType::kInt16), "SignalFilterBankLog runs 1-D uint32 to 1-D int16 (TFLM)");
  const int64_t correction = option(c, "SignalFilterBankLog", "input_correction_bits");
  const uint32_t scale = static_cast<uint32_t>(option(c, "SignalFilterBankLog", "output_scale"));
  c.require(correction >= 0 && correction < 32, "SignalFilterBankLog's input_correction_bits is outside 0..31");
  const int64_t n = c.count(xt);
  c.require(c.count(yt) == n, "SignalFilterBankLog's output and input differ in length");
  ModelKernel k{"SignalFilterBankLog uint32"};
  k.work.alu_ops = 16 * n;
  k.run = [=](const Operand* in, const Operand* out) {
    const uint32_t* x = as<uint32_t>(in[0]);
    int16_t* y = as_mut<int16_t>(out[0]);
    for (int64_t i = 0; i < n; ++i) {
      const uint32_t scaled = x[i] << correction;
      y[i] = scaled > 1 ? static_cast<int16_t>(std::min<uint32_t>(signal_log32(scaled, scale), INT16_MAX)) : int16_t{0};
    }
  };
  return k;
}

}  // namespace arenaplan::sim
