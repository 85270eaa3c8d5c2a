// TFLM's Signal library ops the simulator runs (SignalWindow, SignalFftAutoScale) against loops
// written from the library's documented semantics, and the flexbuffer options the importer reads
// for custom ops.
#include <doctest/doctest.h>

#include <flatbuffers/flexbuffers.h>

#include <cstdint>
#include <random>
#include <vector>

#include "core/tflite/detail/tflite_options.h"
#include "tests/unit/sim_one_op.h"

using namespace arenaplan;
using test::bytes_of;
using test::OneOpModel;
using test::values_of;

TEST_CASE("a custom op's flexbuffer options become integer attrs under their keys") {
  flexbuffers::Builder fb;
  fb.Map([&] {
    fb.Int("shift", 12);
    fb.Bool("prefill", true);
    fb.Float("ignored", 0.5f);
  });
  fb.Finish();
  flatbuffers::FlatBufferBuilder b;
  const auto options = b.CreateVector(fb.GetBuffer());
  b.Finish(tfl::CreateOperator(b, 0, 0, 0, 0, 0, options));
  const auto* op = flatbuffers::GetRoot<tfl::Operator>(b.GetBufferPointer());
  flatbuffers::Verifier v(b.GetBufferPointer(), b.GetSize());
  Op out;
  tflite_ops::read_operator_attrs(32, op, nullptr, v, "op", out);
  CHECK(out.attrs.at("shift") == 12);
  CHECK(out.attrs.at("prefill") == 1);
  CHECK(out.attrs.count("ignored") == 0);

  // Bytes that are no flexbuffer give no attrs, never a crash.
  flatbuffers::FlatBufferBuilder bad;
  const std::vector<uint8_t> junk = {0xff, 0x13, 0x07};
  bad.Finish(tfl::CreateOperator(bad, 0, 0, 0, 0, 0, bad.CreateVector(junk)));
  Op none;
  flatbuffers::Verifier bv(bad.GetBufferPointer(), bad.GetSize());
  tflite_ops::read_operator_attrs(32, flatbuffers::GetRoot<tfl::Operator>(bad.GetBufferPointer()), nullptr, bv, "op", none);
  CHECK(none.attrs.empty());
}

TEST_CASE("SignalWindow: every frame times the window, shifted and saturated to int16") {
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> d(-32768, 32767);
  std::vector<int16_t> x(3 * 8), w(8);
  for (auto& v : x) v = static_cast<int16_t>(d(rng));
  for (auto& v : w) v = static_cast<int16_t>(d(rng));
  w[0] = 32767, x[0] = -32768;  // a product that saturates after the shift
  for (int shift : {0, 3, 14}) {
    OneOpModel m;
    TensorId xt = m.input("x", {3, 8}, DType::kInt16, bytes_of(x));
    TensorId wt = m.tensor("w", {8}, DType::kInt16, std::nullopt, bytes_of(w));
    TensorId yt = m.tensor("y", {3, 8}, DType::kInt16);
    m.op("win", "SignalWindow", {xt, wt}, {yt}, {{"shift", shift}});
    const auto got = values_of<int16_t>(m.run({yt})[0]);
    for (int i = 0; i < 24; ++i) {
      const int64_t raw = (int64_t{x[i]} * w[i % 8]) >> shift;
      CHECK(got[i] == std::clamp<int64_t>(raw, -32768, 32767));
    }
  }
  OneOpModel bad;
  TensorId xt = bad.tensor("x", {8}, DType::kInt16);
  TensorId wt = bad.tensor("w", {8}, DType::kInt16, std::nullopt, bytes_of(w));
  TensorId yt = bad.tensor("y", {8}, DType::kInt16);
  bad.op("win", "SignalWindow", {xt, wt}, {yt});
  CHECK(bad.refusal().find("no shift option") != std::string::npos);
}

TEST_CASE("SignalFftAutoScale: scaled up by the headroom of the largest magnitude, the shift returned") {
  struct Case {
    std::vector<int16_t> x;
    int scale;
  };
  // 300 needs 9 bits: 16 - 9 - 1 = 6 bits of headroom; a zero frame and -32768 are not scaled,
  // but -32768's wrapped magnitude loses to any later positive value (5: 3 bits, 12 of headroom,
  // and -32768 x 2^12 wraps to 0 in int16).
  const Case cases[] = {{{300, -7, 0, 12}, 6},      {{-1, 1, 0, 0}, 14},       {{0, 0, 0, 0}, 0},
                        {{-32768, 0, 0, 0}, 0},     {{-32768, 5, 0, 0}, 12},   {{16384, 0, 0, 0}, 0}};
  for (const Case& k : cases) {
    OneOpModel m;
    TensorId xt = m.input("x", {4}, DType::kInt16, bytes_of(k.x));
    TensorId yt = m.tensor("y", {4}, DType::kInt16);
    TensorId st = m.tensor("s", {1}, DType::kInt32);
    m.op("fas", "SignalFftAutoScale", {xt}, {yt, st});
    const auto out = m.run({yt, st});
    CHECK(values_of<int32_t>(out[1])[0] == k.scale);
    const auto y = values_of<int16_t>(out[0]);
    for (size_t i = 0; i < k.x.size(); ++i) CHECK(y[i] == static_cast<int16_t>(k.x[i] * (1 << k.scale)));
  }
}
