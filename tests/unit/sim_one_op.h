// A one-op model for the simulator's kernel tests (test_sim_kernels_more.cpp, test_sim_svdf.cpp):
// graph inputs fed by name, the outputs read back after a simulated run, the stand-in note of op 0.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/sim/sim.h"
#include "tests/unit/model_builder.h"

namespace arenaplan::test {

template <class T>
std::vector<T> values_of(const std::vector<uint8_t>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

inline std::vector<int8_t> every_int8() {
  std::vector<int8_t> v;
  for (int i = -128; i <= 127; ++i) v.push_back(static_cast<int8_t>(i));
  return v;
}

inline double round_half_away(double v) { return v < 0 ? -std::floor(-v + 0.5) : std::floor(v + 0.5); }

// The right shift TFLM's QuantizeMultiplier gives a real multiplier: frexp's exponent below zero.
inline int right_shift_of(double multiplier) {
  int e = 0;
  std::frexp(multiplier, &e);
  return std::max(0, -e);
}

// `got` against the real result `real_steps` (in output steps, before the zero point), clamped to
// [lo, hi]. TFLM's MultiplyByQuantizedMultiplier rounds twice: first to 2^-r of an output step
// (r = the right shift), then to a whole step, so it may differ by one step from the single
// rounding only when the real result lies within 2^-(r+1) of a half step (r > 0), or on one
// (r = 0); there either neighbour is accepted, everywhere else the exact value is demanded.
inline void check_requantized(int32_t got, double real_steps, int32_t zero_point, int right_shift, int32_t lo = -128,
                              int32_t hi = 127) {
  CAPTURE(real_steps);
  auto q = [&](double v) { return static_cast<int32_t>(std::clamp<double>(v + zero_point, lo, hi)); };
  const double frac = real_steps - std::floor(real_steps);
  // With no right shift the high multiply's own rounding is the only one: only a tie (to within the
  // Q31 multiplier's error) may go either way.
  const double window = right_shift == 0 ? 1e-6 : std::ldexp(1.0, -(right_shift + 1)) + 1e-6;
  const bool near_half = std::fabs(frac - 0.5) <= window;
  if (near_half) {
    const bool either = got == q(std::floor(real_steps)) || got == q(std::ceil(real_steps));
    CHECK(either);
  } else {
    CHECK(got == q(round_half_away(real_steps)));
  }
}

// A one-op model: graph inputs fed by name, every graph output read back after one simulated run.
struct OneOpModel : test::ModelBuilder {
  std::map<std::string, std::vector<uint8_t>> fed;
  std::vector<TensorId> ins;

  TensorId input(const std::string& name, const std::vector<int64_t>& shape, DType type, std::vector<uint8_t> bytes,
                 std::optional<Quantization> q = {}) {
    TensorId t = tensor(name, shape, type, std::move(q));
    fed[name] = std::move(bytes);
    ins.push_back(t);
    return t;
  }
  // Simulates the graph; CHECKs the run is clean and the outputs are the model's (no stand-in).
  std::vector<std::vector<uint8_t>> run(const std::vector<TensorId>& outputs, bool expect_model = true) {
    g.inputs = ins;
    g.outputs = outputs;
    link_tensors(g);
    validate_graph(g);
    sim::SimRequest req;
    req.input_bytes = fed;
    const sim::SimReport r = sim::simulate(g, req);
    CHECK(r.ok());
    const JsonOut j = sim::simulation_json(g, r);
    CHECK(j["outputs_are_the_model"].get<bool>() == expect_model);
    return r.outputs;
  }
  // Simulates `runs` runs with the same inputs (state carried over); per run, every output's bytes
  // concatenated, from the reference run (CHECKs the planned run matches it and is the model's).
  std::vector<std::vector<uint8_t>> run_each(const std::vector<TensorId>& outputs, int runs) {
    g.inputs = ins;
    g.outputs = outputs;
    link_tensors(g);
    validate_graph(g);
    sim::SimRequest req;
    req.input_bytes = fed;
    req.runs = runs;
    const sim::SimSetup setup = sim::prepare_simulation(g, req);
    const auto reference = sim::reference_simulator(g, setup.live, setup.options);
    reference->run_all();
    const sim::SimReport r = sim::simulate_setup(g, setup, *reference);
    CHECK(r.ok());
    CHECK(r.outputs_match_reference);
    CHECK(r.stand_ins.empty());
    Bytes bytes = 0;
    for (TensorId y : outputs) bytes += g.tensors[y].bytes;
    std::vector<std::vector<uint8_t>> per_run;
    for (int k = 0; k < runs; ++k) per_run.emplace_back(reference->captured(k, 0), reference->captured(k, 0) + bytes);
    return per_run;
  }
  // The stand-in note of op 0 (empty when a model kernel runs it).
  std::string refusal() {
    link_tensors(g);
    sim::KernelPlan p = sim::plan_kernel(g, 0);
    return p.stand_in ? p.note : std::string();
  }
};

}  // namespace arenaplan::test
