// Helpers the rewrite tests share (test_rewrites*.cpp, test_transform.cpp): run one op's kernel as
// the arena would, random operands, a spec's refusal text, "every step of a what-if run applied,
// verified and simulated cleanly".
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/sim/sim.h"
#include "core/transform/transform.h"
#include "core/transform/whatif.h"
#include "tests/unit/model_builder.h"
#include "tests/unit/test_support.h"

namespace arenaplan::test {

// Runs one op's kernel on `x` (the first input), constants from their data; when the op is in
// place the output is written over x's own bytes, as in the planned arena.
inline std::vector<uint8_t> run_op(const Graph& g, OpId o, std::vector<uint8_t> x, std::string* kernel = nullptr) {
  sim::KernelPlan plan = sim::plan_kernel(g, o);
  if (kernel) *kernel = sim::plan_kernel_name(plan);
  const Op& op = g.ops[o];
  std::vector<std::vector<uint8_t>> store{x};
  for (size_t i = 1; i < op.inputs.size(); ++i) store.push_back(*g.tensors[op.inputs[i]].data);
  std::vector<uint8_t> separate(static_cast<size_t>(g.tensors[op.outputs[0]].bytes), 0xEE);
  std::vector<sim::Operand> in;
  for (auto& s : store) in.push_back({s.data(), static_cast<int64_t>(s.size())});
  const bool aliased = !op.in_place.empty();
  sim::Operand out{aliased ? store[0].data() : separate.data(), g.tensors[op.outputs[0]].bytes};
  std::vector<uint8_t> scratch(static_cast<size_t>(op.scratch_bytes));
  sim::run_kernel(plan, in.data(), in.size(), &out, 1, {scratch.data(), op.scratch_bytes});
  if (!aliased) return separate;
  return std::vector<uint8_t>(store[0].begin(), store[0].begin() + out.bytes);
}

inline std::vector<uint8_t> random_bytes(size_t n, std::mt19937& rng) {
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = static_cast<uint8_t>(rng());
  return v;
}
inline std::vector<uint8_t> random_floats(size_t n, std::mt19937& rng) {
  std::vector<float> v(n);
  for (float& f : v) f = std::uniform_real_distribution<float>(-2.f, 2.f)(rng);
  return bytes_of(v);
}

// The InputError message `spec` is refused with on `g`, or "" when it applies.
inline std::string refusal(const Graph& g, const std::string& spec) {
  return input_error_of([&] { apply_transformation(g, parse_transformation(spec), {}); });
}

// A random legal rewrite sequence: up to `max_steps` times, the first of `candidates(g)` (shuffled)
// that applies; `g` ends rewritten. Returns the specs applied, in order.
inline std::vector<WhatIfSpec> apply_random_legal(Graph& g, int max_steps, std::mt19937& rng,
                                                  const std::function<std::vector<std::string>(const Graph&)>& candidates) {
  std::vector<WhatIfSpec> applied;
  for (int step = 0; step < max_steps; ++step) {
    std::vector<std::string> specs = candidates(g);
    std::shuffle(specs.begin(), specs.end(), rng);
    bool done = false;
    for (const std::string& spec : specs) {
      try {
        g = apply_transformation(g, parse_transformation(spec), {}).graph;
      } catch (const InputError&) {
        continue;  // not legal here
      }
      applied.push_back({spec});
      done = true;
      break;
    }
    if (!done) break;
  }
  return applied;
}

// Every step applied, its plan verified and its simulation free of violations.
inline void check_every_step_safe(const WhatIfReport& r) {
  for (const WhatIfStep& s : r.steps) {
    CAPTURE(s.spec);
    CHECK(s.applied);
    CHECK(s.after.verified);
    CHECK(s.after.sim_ok);
  }
}

}  // namespace arenaplan::test
