// TFLM's Signal library front end on uint32 / uint64 tensors (SignalEnergy, SignalFilterBank,
// SignalFilterBankSquareRoot, SignalFilterBankSpectralSubtraction, SignalPCAN,
// SignalFilterBankLog) against naive loops written from the library's documented semantics, and
// the `signal_front_end` fixture against the bytes TFLM gave for it.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "core/sim/detail/model_kernels.h"
#include "core/tflite/tflite_import.h"
#include "core/tflite/tflite_write.h"
#include "tests/unit/sim_one_op.h"
#include "tests/unit/sim_run.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using test::bytes_of;
using test::OneOpModel;
using test::values_of;

TEST_CASE("uint32 and uint64: JSON names and widths, written as TFLite's UINT32 (15) and UINT64 (12) and read back typed") {
  CHECK(dtype_from_name("uint32") == DType::kUInt32);
  CHECK(dtype_from_name("uint64") == DType::kUInt64);
  CHECK(dtype_width(DType::kUInt32) == 4);
  CHECK(dtype_width(DType::kUInt64) == 8);
  CHECK(std::string(dtype_name(DType::kUInt64)) == "uint64");
  test::ModelBuilder m;
  TensorId x = m.tensor("x", {3}, DType::kUInt32);
  TensorId y = m.tensor("y", {3}, DType::kUInt64);
  m.op("fb", "SignalFilterBankSquareRoot", {y, m.tensor("s", {}, DType::kInt32, std::nullopt, bytes_of(std::vector<int32_t>{0}))}, {x});
  m.g.inputs = {y};
  m.g.outputs = {x};
  link_tensors(m.g);
  const Graph back = import_tflite(tflite_from_graph(m.g)).graph;
  CHECK(back.tensors[*back.find_tensor("x")].dtype == DType::kUInt32);
  CHECK(back.tensors[*back.find_tensor("y")].dtype == DType::kUInt64);
  CHECK(back.tensors[*back.find_tensor("y")].bytes == 24);
}

TEST_CASE("SignalEnergy: re^2 + im^2 of the bins in [start_index, end_index), the others 0") {
  std::vector<int16_t> x = {3, 4, -32768, -32768, 100, -200, 7, 0, -1, -1};
  OneOpModel m;
  TensorId xt = m.input("x", {10}, DType::kInt16, bytes_of(x));
  TensorId yt = m.tensor("y", {5}, DType::kUInt32);
  m.op("energy", "SignalEnergy", {xt}, {yt}, {{"end_index", 4}, {"start_index", 1}});
  const auto y = values_of<uint32_t>(m.run({yt})[0]);
  for (int i = 0; i < 5; ++i) {
    CAPTURE(i);
    const uint64_t e = uint64_t(int64_t{x[2 * i]} * x[2 * i]) + uint64_t(int64_t{x[2 * i + 1]} * x[2 * i + 1]);
    CHECK(y[i] == (i >= 1 && i < 4 ? static_cast<uint32_t>(e) : 0u));
  }
  CHECK(y[1] == 0x80000000u);  // 2^31: TFLM's int32 sum wraps into the uint32 it stores
  OneOpModel bad;
  TensorId bx = bad.tensor("x", {10}, DType::kInt16);
  TensorId by = bad.tensor("y", {5}, DType::kUInt32);
  bad.op("energy", "SignalEnergy", {bx}, {by}, {{"end_index", 6}, {"start_index", 0}});
  CHECK(bad.refusal().find("outside its input's bins") != std::string::npos);
}

TEST_CASE("SignalFilterBank: channel c sums its bins times the weights and channel c-1's bins times the unweights") {
  std::mt19937 rng(11);
  std::uniform_int_distribution<uint32_t> e(0, 0xFFFFFFFFu);
  std::uniform_int_distribution<int> w(-4096, 4096);  // negative weights wrap in uint64, as in TFLM
  std::vector<uint32_t> x(12);
  for (auto& v : x) v = e(rng);
  const std::vector<int16_t> starts{0, 2, 4, 7}, widths{2, 3, 3, 4}, wstarts{0, 2, 5, 8};
  std::vector<int16_t> weights(12), unweights(12);
  for (auto& v : weights) v = static_cast<int16_t>(w(rng));
  for (auto& v : unweights) v = static_cast<int16_t>(w(rng));
  OneOpModel m;
  TensorId xt = m.input("x", {12}, DType::kUInt32, bytes_of(x));
  auto table = [&](const char* name, const std::vector<int16_t>& v) {
    return m.tensor(name, {static_cast<int64_t>(v.size())}, DType::kInt16, std::nullopt, bytes_of(v));
  };
  TensorId yt = m.tensor("y", {3}, DType::kUInt64);
  m.op("fb", "SignalFilterBank",
       {xt, table("w", weights), table("u", unweights), table("s", starts), table("ws", wstarts), table("n", widths)}, {yt},
       {{"num_channels", 3}});
  const auto y = values_of<uint64_t>(m.run({yt})[0]);
  auto band = [&](int ch, const std::vector<int16_t>& k) {
    uint64_t sum = 0;
    for (int j = 0; j < widths[ch]; ++j) sum += uint64_t(int64_t{k[wstarts[ch] + j]}) * x[starts[ch] + j];
    return sum;
  };
  for (int c = 0; c < 3; ++c) CHECK(y[c] == band(c + 1, weights) + band(c, unweights));

  OneOpModel bad;  // a channel reaching past the spectrum is refused by name
  TensorId bx = bad.tensor("x", {6}, DType::kUInt32);
  TensorId by = bad.tensor("y", {3}, DType::kUInt64);
  auto bt = [&](const char* name, const std::vector<int16_t>& v) {
    return bad.tensor(name, {static_cast<int64_t>(v.size())}, DType::kInt16, std::nullopt, bytes_of(v));
  };
  bad.op("fb", "SignalFilterBank", {bx, bt("w", weights), bt("u", unweights), bt("s", starts), bt("ws", wstarts), bt("n", widths)},
         {by}, {{"num_channels", 3}});
  CHECK(bad.refusal().find("channel 2 reads outside its spectrum") != std::string::npos);  // bins 4..6 of 6
}

TEST_CASE("SignalFilterBankSquareRoot: the square root rounded to nearest, shifted by the scale input") {
  std::mt19937_64 rng(3);
  std::vector<uint64_t> x = {0, 1, 2, 3, 15, 16, 0xFFFFFFFFull, 0x100000000ull, 0xFFFFFFFFFFFFFFFFull};
  for (int i = 0; i < 23; ++i) x.push_back(rng() >> (rng() % 64));
  for (int32_t shift : {0, 3}) {
    OneOpModel m;
    TensorId xt = m.input("x", {static_cast<int64_t>(x.size())}, DType::kUInt64, bytes_of(x));
    TensorId st = m.tensor("s", {1}, DType::kInt32, std::nullopt, bytes_of(std::vector<int32_t>{shift}));
    TensorId yt = m.tensor("y", {static_cast<int64_t>(x.size())}, DType::kUInt32);
    m.op("sqrt", "SignalFilterBankSquareRoot", {xt, st}, {yt});
    const auto y = values_of<uint32_t>(m.run({yt})[0]);
    for (size_t i = 0; i < x.size(); ++i) {
      CAPTURE(x[i]);
      // floor(sqrt), then up by one when x lies past r^2 + r (nearer r + 1), unless r is the
      // largest value of the half-width type (TFLM's 16-bit shortcut below 2^32).
      uint64_t r = static_cast<uint64_t>(std::sqrt(static_cast<long double>(x[i])));
      while (r * r > x[i]) --r;
      while ((r + 1) * (r + 1) <= x[i] && r + 1 <= 0xFFFFFFFFull) ++r;
      const uint64_t top = x[i] >> 32 ? 0xFFFFFFFFull : 0xFFFF;
      if (x[i] - r * r > r && r != top) ++r;
      CHECK(y[i] == static_cast<uint32_t>(r) >> shift);
    }
  }
}

TEST_CASE("SignalFilterBankSpectralSubtraction: a low-pass noise estimate subtracted with a floor, carried across runs") {
  const std::vector<uint32_t> x = {1000, 50, 70000, 3, 123456};
  const uint32_t s = 655, s1 = 15729, as = 983, as1 = 15401, floor_k = 819;
  const int sbits = 10, bits = 14;
  for (int clamping : {0, 1}) {
    CAPTURE(clamping);
    OneOpModel m;
    TensorId xt = m.input("x", {5}, DType::kUInt32, bytes_of(x));
    TensorId yt = m.tensor("y", {5}, DType::kUInt32);
    TensorId nt = m.tensor("noise", {5}, DType::kUInt32);
    m.op("ss", "SignalFilterBankSpectralSubtraction", {xt}, {yt, nt},
         {{"alternate_one_minus_smoothing", as1}, {"alternate_smoothing", as}, {"clamping", clamping},
          {"min_signal_remaining", floor_k}, {"num_channels", 5}, {"one_minus_smoothing", s1}, {"smoothing", s},
          {"smoothing_bits", sbits}, {"spectral_subtraction_bits", bits}});
    const auto runs = m.run_each({yt, nt}, 3);
    std::vector<uint64_t> noise(5, 0);
    for (int run = 0; run < 3; ++run) {
      CAPTURE(run);
      std::vector<uint32_t> want_y, want_n;
      for (int i = 0; i < 5; ++i) {
        const uint64_t up = uint64_t{x[i]} << sbits;
        noise[i] = (up * (i % 2 ? as : s) + noise[i] * (i % 2 ? as1 : s1)) >> bits;
        const uint64_t estimate = std::min(noise[i], up);
        if (clamping) noise[i] = estimate;
        want_y.push_back(static_cast<uint32_t>(std::max((up - estimate) >> sbits, (uint64_t{x[i]} * floor_k) >> bits)));
        want_n.push_back(static_cast<uint32_t>(noise[i]));
      }
      const auto y = values_of<uint32_t>(runs[run]);
      CHECK(std::vector<uint32_t>(y.begin(), y.begin() + 5) == want_y);
      CHECK(std::vector<uint32_t>(y.begin() + 5, y.end()) == want_n);
    }
  }
}

TEST_CASE("SignalPCAN: the gain of the noise estimate times the channel, shifted, then shrunk") {
  // A table whose every segment is flat at 1,000 (no slope, no curvature): the gain is 1,000 for
  // every noise estimate above 2, lut[x] for 0..2.
  std::vector<int16_t> lut(125, 0);
  lut[0] = 10, lut[1] = 20, lut[2] = 30;
  for (int interval = 2; interval <= 32; ++interval) lut[4 * interval - 6] = 1000;
  const std::vector<uint32_t> x = {5, 400, 9000, 70000, 100, 123};
  const std::vector<uint32_t> noise = {0, 1, 2, 3, 0xFFFFFFFFu, 77777};
  OneOpModel m;
  TensorId xt = m.input("x", {6}, DType::kUInt32, bytes_of(x));
  TensorId nt = m.input("n", {6}, DType::kUInt32, bytes_of(noise));
  TensorId lt = m.tensor("lut", {125}, DType::kInt16, std::nullopt, bytes_of(lut));
  TensorId yt = m.tensor("y", {6}, DType::kUInt32);
  m.op("pcan", "SignalPCAN", {xt, nt, lt}, {yt}, {{"snr_shift", 6}});
  const auto y = values_of<uint32_t>(m.run({yt})[0]);
  for (int i = 0; i < 6; ++i) {
    CAPTURE(i);
    const uint64_t gain = noise[i] <= 2 ? lut[noise[i]] : 1000;
    const uint64_t snr = (x[i] * gain) >> 6;
    // PCAN's shrink (12 SNR bits to 6 output bits): quadratic below 2.0, then linear minus 1.0.
    const uint64_t want = snr < (2u << 12) ? (snr * snr) >> 20 : (snr >> 6) - 64;
    CHECK(y[i] == want);
  }
  OneOpModel bad;  // a table too short for large noise estimates is refused
  TensorId bx = bad.tensor("x", {2}, DType::kUInt32);
  TensorId bn = bad.tensor("n", {2}, DType::kUInt32);
  TensorId bl = bad.tensor("lut", {40}, DType::kInt16, std::nullopt, bytes_of(std::vector<int16_t>(40, 1)));
  TensorId by = bad.tensor("y", {2}, DType::kUInt32);
  bad.op("pcan", "SignalPCAN", {bx, bn, bl}, {by}, {{"snr_shift", 6}});
  CHECK(bad.refusal().find("125 entries") != std::string::npos);
}

TEST_CASE("SignalFilterBankLog: ln of the corrected channel times output_scale, 0 for 0 and 1, saturated to int16") {
  std::vector<uint32_t> x = {0, 1, 2, 3, 10, 1000, 65535, 65536, 1u << 20, 123456789, 0xFFFFFFFFu};
  for (int correction : {0, 2}) {
    for (uint32_t scale : {20u, 1600u}) {
      CAPTURE(correction);
      CAPTURE(scale);
      OneOpModel m;
      TensorId xt = m.input("x", {static_cast<int64_t>(x.size())}, DType::kUInt32, bytes_of(x));
      TensorId yt = m.tensor("y", {static_cast<int64_t>(x.size())}, DType::kInt16);
      m.op("log", "SignalFilterBankLog", {xt}, {yt}, {{"input_correction_bits", correction}, {"output_scale", scale}});
      const auto y = values_of<int16_t>(m.run({yt})[0]);
      for (size_t i = 0; i < x.size(); ++i) {
        CAPTURE(x[i]);
        const uint32_t v = x[i] << correction;  // the shift drops high bits, as in TFLM
        if (v <= 1) {
          CHECK(y[i] == 0);
          continue;
        }
        // ln(v) x scale, from a 128-segment table of log2 in 1/65536: within 0.1 % and a step.
        const double want = std::min(std::log(static_cast<double>(v)) * scale, 32767.0);
        CHECK(std::fabs(y[i] - want) <= 1 + want * 1e-3);
      }
    }
  }
}

TEST_CASE("signal_front_end: energy to log as TFLM ran it, the noise estimate carried invoke after invoke") {
  // tests/unit/data/tflm/README.md: the input fed before each of 3 invokes; each output hashed on
  // its own (FNV-1a-64).
  const std::string dir = test::source_path("tests/unit/data/tflm/");
  const Graph g = import_tflite(test::read_test_file(dir + "signal_front_end.tflite")).graph;
  for (const Tensor& t : g.tensors) CHECK(t.dtype.has_value());  // uint32 / uint64 typed, not bytes
  const std::string input = test::read_test_file(dir + "signal_front_end.input.bin");
  sim::SimRequest req;
  req.input_bytes["spectrum"] = std::vector<uint8_t>(input.begin(), input.end());
  req.runs = 3;
  const test::SimRun simulated = test::simulate_keeping_reference(g, req);
  const sim::SimReport& report = simulated.report;
  const auto& reference = simulated.reference;
  CHECK(report.outputs_match_reference);
  CHECK(report.stand_ins.empty());
  // Output sizes in graph order: energy 68, filter bank 32, sqrt 16, subtraction 16, noise 16,
  // PCAN 16, log 8.
  const size_t sizes[] = {68, 32, 16, 16, 16, 16, 8};
  const uint64_t want[3][7] = {
      {0x9e5a7e3fed87d9abull, 0x8dcad456869d9264ull, 0xd99ef93ed201d5feull, 0x038fc13c055e3671ull, 0x0994a74a1f1244c1ull,
       0x45dd96071cd68ddeull, 0x8522cc4a9bbd0707ull},
      {0x9e5a7e3fed87d9abull, 0x8dcad456869d9264ull, 0xd99ef93ed201d5feull, 0xdc796f16103ab725ull, 0x577f628e418cbca4ull,
       0x573e251215944e40ull, 0xfdf458bbc0f064ffull},
      {0x9e5a7e3fed87d9abull, 0x8dcad456869d9264ull, 0xd99ef93ed201d5feull, 0x4ce175cbb4a5533cull, 0x184e9182467a30b6ull,
       0x3ee0be94e9bf04dbull, 0x2a0cf8059aea5834ull}};
  for (int run = 0; run < 3; ++run) {
    CAPTURE(run);
    const uint8_t* out = reference->captured(run, 0);
    for (int o = 0; o < 7; ++o) {
      CAPTURE(o);
      CHECK(test::fnv1a64(out, sizes[o]) == want[run][o]);
      out += sizes[o];
    }
  }
}
