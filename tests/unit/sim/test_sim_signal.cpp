// TFLM's Signal library ops the simulator runs (SignalWindow, SignalFftAutoScale, SignalDelay,
// SignalOverlapAdd, SignalFramer, SignalStacker: the stateful ones over several runs) against loops
// written from the library's documented semantics, and the flexbuffer options the importer reads
// for custom ops.
#include <doctest/doctest.h>

#include <flatbuffers/flexbuffers.h>

#include <cstdint>
#include <random>
#include <vector>

#include "core/tflite/detail/tflite_options.h"
#include "core/tflite/tflite_import.h"
#include "tests/unit/sim_one_op.h"
#include "tests/unit/sim_run.h"
#include "tests/unit/test_support.h"

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

TEST_CASE("SignalDelay: each row delayed by delay_length samples, zeros first, carried across runs") {
  // Two rows of 5 samples, delay 3, the same input on each of three runs: the output is the
  // stream of rows delayed by three samples.
  const std::vector<int16_t> x = {1, 2, 3, 4, 5, -1, -2, -3, -4, -5};
  OneOpModel m;
  TensorId xt = m.input("x", {2, 5}, DType::kInt16, bytes_of(x));
  TensorId yt = m.tensor("y", {2, 5}, DType::kInt16);
  m.op("delay", "SignalDelay", {xt}, {yt}, {{"delay_length", 3}});
  const auto runs = m.run_each({yt}, 3);
  for (int run = 0; run < 3; ++run) {
    const auto y = values_of<int16_t>(runs[run]);
    for (int r = 0; r < 2; ++r)
      for (int i = 0; i < 5; ++i) {
        const int t = run * 5 + i - 3;  // the sample of the row's stream that arrives now
        CHECK(y[r * 5 + i] == (t < 0 ? 0 : x[r * 5 + t % 5]));
      }
  }
  CHECK(values_of<int16_t>(runs[1]) == std::vector<int16_t>{3, 4, 5, 1, 2, -3, -4, -5, -1, -2});  // by hand

  // Two interleaved sessions keep a state each: the planned run still equals the reference, run
  // after run (one shared state would shift the second session's stream).
  sim::SimRequest req;
  req.input_bytes = m.fed;
  req.runs = 3;
  req.sessions = 2;
  const test::SimRun simulated = test::simulate_keeping_reference(m.g, req);
  const sim::SimReport& r = simulated.report;
  const auto& reference = simulated.reference;
  CHECK(r.ok());
  CHECK(r.outputs_match_reference);
  for (int run = 0; run < 3; ++run)
    for (int session = 0; session < 2; ++session) {
      CAPTURE(run);
      CAPTURE(session);
      const uint8_t* out = reference->captured(run, session);
      CHECK(std::vector<uint8_t>(out, out + 20) == runs[run]);  // each session its own stream
    }
}

TEST_CASE("SignalOverlapAdd: frames added frame_step apart, int16 saturating, the tail carried to the next run") {
  // One row of 2 frames of 4 samples, step 2: each output sample sums the frames covering it.
  const std::vector<int16_t> x = {1, 2, 3, 4, 10, 20, 30, 32767};
  OneOpModel m;
  TensorId xt = m.input("x", {1, 2, 4}, DType::kInt16, bytes_of(x));
  TensorId yt = m.tensor("y", {1, 4}, DType::kInt16);
  m.op("ola", "SignalOverlapAdd", {xt}, {yt}, {{"T", 7}, {"frame_step", 2}});
  const auto runs = m.run_each({yt}, 2);
  // Naive: a running sum buffer of 4; per frame add, emit 2, shift by 2.
  std::vector<int32_t> buffer(4, 0);
  for (int run = 0; run < 2; ++run) {
    std::vector<int16_t> want;
    for (int f = 0; f < 2; ++f) {
      for (int i = 0; i < 4; ++i) buffer[i] = std::clamp(buffer[i] + x[f * 4 + i], -32768, 32767);
      want.push_back(static_cast<int16_t>(buffer[0]));
      want.push_back(static_cast<int16_t>(buffer[1]));
      buffer = {buffer[2], buffer[3], 0, 0};
    }
    CHECK(values_of<int16_t>(runs[run]) == want);
  }
  CHECK(values_of<int16_t>(runs[0]) == std::vector<int16_t>{1, 2, 13, 24});  // by hand
  CHECK(values_of<int16_t>(runs[1])[0] == 31);  // 30 carried over, then 1
  OneOpModel bad;
  TensorId bx = bad.tensor("x", {1, 2, 4}, DType::kInt16);
  TensorId by = bad.tensor("y", {1, 4}, DType::kInt16);
  bad.op("ola", "SignalOverlapAdd", {bx}, {by});
  CHECK(bad.refusal().find("no frame_step option") != std::string::npos);
}

TEST_CASE("signal_stateful: SignalDelay, SignalOverlapAdd, SignalFramer and SignalStacker give the bytes TFLM gave, invoke after invoke") {
  // tests/unit/data/tflm/README.md: the input fed before each of 3 invokes, the stacker's
  // channels (the second input) set to (i + 1) x 1000 x (-1)^i; each output hashed on its own
  // (FNV-1a-64). The framer's first invoke is not compared: its first frames are not full yet,
  // TFLM leaves them as the arena held them (the kernel writes 0).
  const std::string dir = test::source_path("tests/unit/data/tflm/");
  const Graph g = import_tflite(test::read_test_file(dir + "signal_stateful.tflite")).graph;
  const std::string input = test::read_test_file(dir + "signal_stateful.input.bin");
  std::vector<int16_t> channels;
  for (int i = 0; i < 8; ++i) channels.push_back(static_cast<int16_t>((i + 1) * 1000 * (i % 2 ? -1 : 1)));
  sim::SimRequest req;
  req.input_bytes["input"] = std::vector<uint8_t>(input.begin(), input.end());
  req.input_bytes["channels"] = bytes_of(channels);
  req.runs = 3;
  const test::SimRun simulated = test::simulate_keeping_reference(g, req);
  const sim::SimReport& report = simulated.report;
  const auto& reference = simulated.reference;
  CHECK(report.outputs_match_reference);
  CHECK(report.stand_ins.empty());
  const uint64_t delay[3] = {0xc0adafe51f47547aull, 0x646e3b47db89dcc2ull, 0x646e3b47db89dcc2ull};
  const uint64_t overlap_add[3] = {0x7c7830c65fa2b41aull, 0x1b6f0039c7a35cb1ull, 0x1b6f0039c7a35cb1ull};
  const uint64_t stacker[3] = {0xb9b23f3a46fd0825ull, 0xa1cfebb5c76e52a5ull, 0xa1cfebb5c76e52a5ull};
  for (int run = 0; run < 3; ++run) {
    CAPTURE(run);
    const uint8_t* out = reference->captured(run, 0);  // 64 + 32 + 128 + 1 + 64 + 1 bytes
    CHECK(test::fnv1a64(out, 64) == delay[run]);
    CHECK(test::fnv1a64(out + 64, 32) == overlap_add[run]);
    if (run > 0) CHECK(test::fnv1a64(out + 96, 128) == 0x86583c907f8c3c21ull);
    CHECK(out[224] == (run > 0 ? 1 : 0));  // the framer's valid flag
    CHECK(test::fnv1a64(out + 225, 64) == stacker[run]);
    CHECK(out[289] == (run > 0 ? 1 : 0));  // the stacker's: 3 of its 4 frames after the first
  }
}

TEST_CASE("SignalFramer: frames of frame_size every frame_step samples of each row's stream, with or without prefill") {
  const std::vector<int16_t> x = {1, 2, 3, 4, -1, -2, -3, -4};  // two rows of 4: two steps of 2 per run
  for (int prefill : {0, 1}) {
    CAPTURE(prefill);
    OneOpModel m;
    TensorId xt = m.input("x", {2, 4}, DType::kInt16, bytes_of(x));
    TensorId yt = m.tensor("y", {2, 2, 3}, DType::kInt16);
    TensorId vt = m.tensor("valid", {1}, DType::kBool);  // a scalar: a hand-built graph needs a dim
    m.op("framer", "SignalFramer", {xt}, {yt, vt}, {{"frame_size", 3}, {"frame_step", 2}, {"prefill", prefill}});
    const auto runs = m.run_each({yt, vt}, 3);
    // Naive: each row's stream (frame_size - frame_step zeros first with prefill); the next frame
    // starts `emitted` steps in and is given once the stream reaches its end.
    std::vector<std::vector<int16_t>> stream(2, std::vector<int16_t>(prefill ? 1 : 0, 0));
    std::vector<size_t> emitted(2, 0);
    for (int run = 0; run < 3; ++run) {
      CAPTURE(run);
      std::vector<int16_t> want(12, 0);
      bool valid = true;
      for (int r = 0; r < 2; ++r)
        for (int f = 0; f < 2; ++f) {
          stream[r].push_back(x[r * 4 + f * 2]);
          stream[r].push_back(x[r * 4 + f * 2 + 1]);
          if (stream[r].size() >= emitted[r] * 2 + 3) {
            for (int i = 0; i < 3; ++i) want[(r * 2 + f) * 3 + i] = stream[r][emitted[r] * 2 + i];
            ++emitted[r];
          } else {
            valid = false;
          }
        }
      const auto got = values_of<int16_t>(std::vector<uint8_t>(runs[run].begin(), runs[run].begin() + 24));
      CHECK(got == want);
      CHECK(runs[run][24] == (valid ? 1 : 0));
    }
  }
}

TEST_CASE("SignalStacker: the last left + 1 + right frames once they arrived, the first frame standing in for the left context") {
  for (int step : {1, 2}) {
    CAPTURE(step);
    OneOpModel m;
    // A one-sample SignalDelay in front makes every run's frame different: 0 5, -6 5, -6 5, ...
    const std::vector<int16_t> x = {5, -6};
    TensorId xt = m.input("x", {2}, DType::kInt16, bytes_of(x));
    TensorId dt = m.tensor("delayed", {2}, DType::kInt16);
    m.op("delay", "SignalDelay", {xt}, {dt}, {{"delay_length", 1}});
    TensorId yt = m.tensor("y", {8}, DType::kInt16);
    TensorId vt = m.tensor("valid", {1}, DType::kBool);  // a scalar: a hand-built graph needs a dim
    m.op("stacker", "SignalStacker", {dt}, {yt, vt},
         {{"num_channels", 2}, {"stacker_left_context", 1}, {"stacker_right_context", 2}, {"stacker_step", step}});
    const auto runs = m.run_each({yt, vt}, 4);
    // Naive: the frames seen (the first twice, as its own left context), `used` of them stepped past.
    std::vector<int16_t> frames;
    size_t used = 0;
    for (int run = 0; run < 4; ++run) {
      CAPTURE(run);
      const std::vector<int16_t> frame = run == 0 ? std::vector<int16_t>{0, 5} : std::vector<int16_t>{-6, 5};
      for (int copy = 0; copy < (run == 0 ? 2 : 1); ++copy) frames.insert(frames.end(), frame.begin(), frame.end());
      std::vector<int16_t> want(8, 0);
      const bool valid = frames.size() / 2 >= used + 4;
      if (valid) {
        std::copy(frames.begin() + used * 2, frames.begin() + used * 2 + 8, want.begin());
        used += step;
      }
      CHECK(values_of<int16_t>(std::vector<uint8_t>(runs[run].begin(), runs[run].begin() + 16)) == want);
      CHECK(runs[run][16] == (valid ? 1 : 0));
    }
  }
}
