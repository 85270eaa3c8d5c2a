// TFLM's Signal FFTs (SignalRfft, SignalIrfft in int16, int32, float32): kissfft's factorisation
// and refusals, the transforms against DFTs written here as naive loops, and the `signal_fft` and
// `signal_fft_lengths` fixtures against the bytes TFLM gave for them.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/sim/detail/real_fft.h"
#include "core/tflite/tflite_import.h"
#include "tests/unit/sim_one_op.h"
#include "tests/unit/sim_run.h"
#include "tests/unit/test_support.h"
#include "tests/unit/tflm_fixture_models.h"

using namespace arenaplan;
using test::bytes_of;
using test::OneOpModel;
using test::values_of;

namespace {

constexpr double kPi = 3.14159265358979323846;

// The DFT of real samples, bins 0..n/2: sum x[t] e^(-2 pi i k t / n).
std::vector<std::pair<double, double>> naive_dft(const std::vector<double>& x) {
  const size_t n = x.size();
  std::vector<std::pair<double, double>> bins(n / 2 + 1);
  for (size_t k = 0; k <= n / 2; ++k)
    for (size_t t = 0; t < n; ++t) {
      const double a = -2 * kPi * static_cast<double>(k * t % n) / static_cast<double>(n);
      bins[k].first += x[t] * std::cos(a);
      bins[k].second += x[t] * std::sin(a);
    }
  return bins;
}

// The real signal whose spectrum is bins 0..n/2 (Hermitian), unnormalised: sum over all n bins.
std::vector<double> naive_inverse_dft(const std::vector<std::pair<double, double>>& bins, size_t n) {
  std::vector<double> x(n);
  for (size_t t = 0; t < n; ++t)
    for (size_t k = 0; k < n; ++k) {
      const auto [re, im] = k <= n / 2 ? bins[k] : std::pair{bins[n - k].first, -bins[n - k].second};
      const double a = 2 * kPi * static_cast<double>(k * t % n) / static_cast<double>(n);
      x[t] += re * std::cos(a) - im * std::sin(a);
    }
  return x;
}

// One SignalRfft or SignalIrfft of type T over `rows` rows.
template <class T>
std::vector<T> run_fft(const char* kind, int64_t tflite_type, int64_t fft_length, const std::vector<int64_t>& in_shape,
                       const std::vector<int64_t>& out_shape, const std::vector<T>& x, DType type) {
  OneOpModel m;
  TensorId xt = m.input("x", in_shape, type, bytes_of(x));
  TensorId yt = m.tensor("y", out_shape, type);
  m.op("fft", kind, {xt}, {yt}, {{"T", tflite_type}, {"fft_length", fft_length}});
  return values_of<T>(m.run({yt})[0]);
}

// Each output of a fixture (graph output order) hashed on its own, from the reference run.
std::vector<uint64_t> output_digests(const Graph& g, const std::string& inputs, int runs, int run) {
  sim::SimRequest req;
  size_t at = 0;
  for (TensorId id : g.inputs) {
    const Tensor& t = g.tensors[id];
    req.input_bytes[t.name] = std::vector<uint8_t>(inputs.begin() + static_cast<long>(at), inputs.begin() + static_cast<long>(at + t.bytes));
    at += static_cast<size_t>(t.bytes);
  }
  REQUIRE(at == inputs.size());
  req.runs = runs;
  const test::SimRun simulated = test::simulate_keeping_reference(g, req);
  const sim::SimReport& report = simulated.report;
  const auto& reference = simulated.reference;
  CHECK(report.outputs_match_reference);
  CHECK(report.stand_ins.empty());
  std::vector<uint64_t> digests;
  const uint8_t* out = reference->captured(run, 0);
  for (TensorId id : g.outputs) {
    digests.push_back(test::fnv1a64(out, static_cast<size_t>(g.tensors[id].bytes)));
    out += g.tensors[id].bytes;
  }
  return digests;
}

}  // namespace

TEST_CASE("kissfft factors a complex FFT into fours, then a two, then threes and fives, outermost first") {
  CHECK(sim::kissfft_radices(256) == std::vector<int>{4, 4, 4, 4});
  CHECK(sim::kissfft_radices(128) == std::vector<int>{4, 4, 4, 2});
  CHECK(sim::kissfft_radices(32) == std::vector<int>{4, 4, 2});
  CHECK(sim::kissfft_radices(240) == std::vector<int>{4, 4, 3, 5});
  CHECK(sim::kissfft_radices(50) == std::vector<int>{2, 5, 5});
  CHECK(sim::kissfft_radices(7) == std::vector<int>{7});
}

TEST_CASE("the FFTs refuse what kissfft cannot run as TFLM builds it: odd lengths, 2, and radices above 5") {
  CHECK(sim::real_fft_refusal(512) == std::nullopt);
  CHECK(sim::real_fft_refusal(100) == std::nullopt);
  CHECK(sim::real_fft_refusal(4) == std::nullopt);
  CHECK(sim::real_fft_refusal(31)->find("not even") != std::string::npos);
  CHECK(sim::real_fft_refusal(2)->find("radix-1") != std::string::npos);
  CHECK(sim::real_fft_refusal(14)->find("radix-7") != std::string::npos);
  OneOpModel m;
  TensorId x = m.input("x", {14}, DType::kInt16, bytes_of(std::vector<int16_t>(14)));
  TensorId y = m.tensor("y", {16}, DType::kInt16);
  m.op("fft", "SignalRfft", {x}, {y}, {{"T", 7}, {"fft_length", 14}});
  CHECK(m.refusal().find("radix-7") != std::string::npos);
}

TEST_CASE("SignalRfft and SignalIrfft refuse rows TFLM would write across, and a T unlike their tensors") {
  auto refusal = [](const char* kind, std::vector<int64_t> in, std::vector<int64_t> out, int64_t t, DType type) {
    OneOpModel m;
    TensorId x = m.input("x", in, type, std::vector<uint8_t>());
    TensorId y = m.tensor("y", out, type);
    m.op("fft", kind, {x}, {y}, {{"T", t}, {"fft_length", 32}});
    return m.refusal();
  };
  CHECK(refusal("SignalRfft", {32}, {34}, 7, DType::kInt16).empty());
  CHECK(!refusal("SignalRfft", {40}, {34}, 7, DType::kInt16).empty());     // more samples than the scratch holds
  CHECK(!refusal("SignalRfft", {32}, {32}, 7, DType::kInt16).empty());     // 16 bins per row where 17 land
  CHECK(!refusal("SignalRfft", {32}, {34}, 2, DType::kInt16).empty());     // T says int32
  CHECK(refusal("SignalIrfft", {2, 34}, {2, 32}, 0, DType::kFloat32).empty());
  CHECK(!refusal("SignalIrfft", {2, 32}, {2, 32}, 0, DType::kFloat32).empty());
}

TEST_CASE("float SignalRfft is the DFT, and SignalIrfft its inverse divided by fft_length, on every radix") {
  for (int64_t n : {8, 12, 20, 64, 100, 480}) {
    CAPTURE(n);
    test::PortableDraws d(static_cast<uint64_t>(n));
    std::vector<float> x(static_cast<size_t>(n));
    for (float& v : x) v = d.unit() * 2 - 1;
    const auto bins = run_fft<float>("SignalRfft", 0, n, {n}, {n + 2}, x, DType::kFloat32);
    const auto want = naive_dft(std::vector<double>(x.begin(), x.end()));
    for (size_t k = 0; k < want.size(); ++k) {
      CHECK(bins[2 * k] == doctest::Approx(want[k].first).epsilon(1e-4).scale(n));
      CHECK(bins[2 * k + 1] == doctest::Approx(want[k].second).epsilon(1e-4).scale(n));
    }
    const auto back = run_fft<float>("SignalIrfft", 0, n, {n + 2}, {n}, bins, DType::kFloat32);
    for (size_t t = 0; t < x.size(); ++t) CHECK(back[t] == doctest::Approx(x[t]).epsilon(1e-4));
  }
}

TEST_CASE("fixed-point SignalRfft is the DFT over fft_length, SignalIrfft the inverse DFT over fft_length, within rounding") {
  // kissfft divides by each radix as it goes (and by 2 twice in the split), so both directions
  // come out scaled by 1/fft_length; every stage rounds once, hence a few steps of tolerance.
  for (int64_t n : {16, 60, 128, 480}) {
    CAPTURE(n);
    test::PortableDraws d(static_cast<uint64_t>(n) + 1);
    std::vector<int16_t> x(static_cast<size_t>(n));
    for (int16_t& v : x) v = static_cast<int16_t>(d.between(-16000, 16000));
    const auto bins = run_fft<int16_t>("SignalRfft", 7, n, {n}, {n + 2}, x, DType::kInt16);
    const auto want = naive_dft(std::vector<double>(x.begin(), x.end()));
    for (size_t k = 0; k < want.size(); ++k) {
      CHECK(std::fabs(bins[2 * k] - want[k].first / static_cast<double>(n)) <= 4);
      CHECK(std::fabs(bins[2 * k + 1] - want[k].second / static_cast<double>(n)) <= 4);
    }
    std::vector<int32_t> spectrum(static_cast<size_t>(n + 2));
    for (int32_t& v : spectrum) v = static_cast<int32_t>(d.between(-(int64_t{1} << 28), int64_t{1} << 28));
    spectrum[1] = spectrum[static_cast<size_t>(n + 1)] = 0;  // DC and Nyquist are real
    const auto samples = run_fft<int32_t>("SignalIrfft", 2, n, {n + 2}, {n}, spectrum, DType::kInt32);
    std::vector<std::pair<double, double>> as_bins;
    for (size_t k = 0; k < spectrum.size(); k += 2) as_bins.emplace_back(spectrum[k], spectrum[k + 1]);
    const auto back = naive_inverse_dft(as_bins, static_cast<size_t>(n));
    for (size_t t = 0; t < back.size(); ++t) CHECK(std::fabs(samples[t] - back[t] / static_cast<double>(n)) <= 4);
  }
}

TEST_CASE("signal_fft: int16, int32 and float round trips as TFLM ran them") {
  // tests/unit/data/tflm/README.md: signal_fft.input.bin holds the three inputs in order.
  const std::string dir = test::source_path("tests/unit/data/tflm/");
  const Graph g = import_tflite(test::read_test_file(dir + "signal_fft.tflite")).graph;
  const std::string inputs = test::read_test_file(dir + "signal_fft.input.bin");
  const std::vector<uint64_t> want = {0x9c21c773792e7b53ull, 0x71020241688c5456ull, 0xb9beb19a4a733295ull};
  for (int run = 0; run < 2; ++run) CHECK(output_digests(g, inputs, 2, run) == want);
}

TEST_CASE("signal_fft_lengths: every radix, type and zero padding, full-scale inputs, as TFLM ran them") {
  const std::string dir = test::source_path("tests/unit/data/tflm/");
  const Graph g = import_tflite(test::read_test_file(dir + "signal_fft_lengths.tflite")).graph;
  const std::string inputs = test::read_test_file(dir + "signal_fft_lengths.input.bin");
  // Per output, in graph order: for int16, int32, float and fft_length 64, 128, 256, 512, 480, 100,
  // the forward spectra, the round trips and the inverse of the drawn spectrum.
  const std::vector<uint64_t> want = {
      0xc5ebf46960f92ee8ull, 0x1867b9fa37b066a0ull, 0x5cb22b0c56a5f824ull,
      0xa9040e6372161e44ull, 0x1f9aae2490d3206full, 0x608be6b6a3d0c702ull,
      0x859fad563d7ce40bull, 0xff47ff10a35d989cull, 0x4abcdc5fbf7c3969ull,
      0x0ca150b2989ee129ull, 0x56c0fd7fc974f990ull, 0x11342c59448a61d2ull,
      0x066b2994625f0532ull, 0x7808e3e9c81a4ed0ull, 0x53d5539595590db6ull,
      0xa865aefd3cc48394ull, 0x37ff14710777a471ull, 0xdfab5adf5571316aull,
      0xd1d891fc910bf828ull, 0x307808cb96e73860ull, 0x76d56fe95fbe0258ull,
      0x47e27256f585a540ull, 0x6ec2d74c632950b4ull, 0x56ec218c9c0c9978ull,
      0x4f8a18bd207b4747ull, 0xb5e11c160a49f9a4ull, 0x6bc6169dced95b21ull,
      0x547bf69db5794999ull, 0x6eabd3a4551fff43ull, 0xd690caf36b782729ull,
      0x2d2a197555a23310ull, 0x29e74725b34a2bc2ull, 0xc7517feb1949477bull,
      0xd34673e932ce27dbull, 0x163d04108b00f48aull, 0x0b115fd80163633dull,
      0xc890cca8daca493dull, 0xde992c37c257dc8dull, 0x90b2cde5ecc433d1ull,
      0x05b0ce1eca1ea29eull, 0x3e49d5997e3a8e19ull, 0x1abcf3e0037c390bull,
      0x473dbd966ce63de8ull, 0x6c63f779a78c9579ull, 0x49b22d5d6094cd18ull,
      0x2c846c45dab3f53dull, 0x418994055b2d2833ull, 0x06ccc8a9d665c577ull,
      0xdf45713ec6988142ull, 0xc2faa5fa7c8f2f05ull, 0xd9266128c61417acull,
      0x0b602515f7dbad50ull, 0x90b2fe3423720d80ull, 0xc97b50f3314bce63ull,
  };
  const std::vector<uint64_t> got = output_digests(g, inputs, 1, 0);
  REQUIRE(got.size() == want.size());
  for (size_t o = 0; o < want.size(); ++o) {
    CAPTURE(g.tensors[g.outputs[o]].name);
    CHECK(got[o] == want[o]);
  }
}
