// Wide schedules. The suffix lower bound and the anytime search on wide graphs, checked
// against truths independent of the code: brute force over every permutation of small random
// graphs (analyze_lifetimes' peaks and last steps), and "every graph output is live at the end".
#include <doctest/doctest.h>

#include <string>

#include "core/schedule/schedule.h"
#include "core/schedule/schedule_generators.h"
#include "tests/unit/schedule_truth.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using namespace arenaplan::test;

TEST_CASE("suffix bound: never above the brute-force optimum, the cheapest last step at first, the optimum at the end") {
  int exact = 0;
  const SmallGraphSet graphs{.first = 3000, .last = 3299, .async_every = 5, .unread_every = 7};
  const int checked = for_each_small_graph_truth(graphs, [&](const SmallGraphTruth& t) {
    const Graph& g = t.graph;
    const Bytes opt = t.optimum;
    // Whatever the order, its last step is one of its steps: the cheapest last step bounds them all.
    Bytes cheapest_last = -1;
    for (const auto& [order, peak] : t.orders) {
      if (peak < 0) continue;
      const Bytes last = analyze_lifetimes(g, order).steps.back().live_bytes;
      if (cheapest_last < 0 || last < cheapest_last) cheapest_last = last;
    }
    const SuffixBound one = suffix_lower_bound(g, 1), few = suffix_lower_bound(g, 4);
    const SuffixBound all = suffix_lower_bound(g, int64_t{1} << 20);
    CHECK(one.bytes <= few.bytes);  // more expansions never lower it
    CHECK(few.bytes <= all.bytes);
    CHECK(all.bytes <= opt);
    if (t.features.async) {
      CHECK(one.bytes <= cheapest_last);  // the set model ignores the asynchronous extensions
      return;
    }
    CHECK(one.bytes == cheapest_last);
    REQUIRE(all.optimal);
    ++exact;
    CHECK(all.bytes == opt);
    REQUIRE(is_valid_order(g, all.order));
    CHECK(analyze_lifetimes(g, all.order).peak_bytes == opt);
  });
  CHECK(checked > 150);
  CHECK(exact > 100);
}

TEST_CASE("suffix bound: every graph output is live during the last step, whatever the order") {
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    CAPTURE(seed);
    Graph g = wide_random_dag(80, seed);
    Bytes outputs = 0;
    for (TensorId t : g.outputs) outputs += align_up(g.tensors[t].bytes, g.alignment);
    const SuffixBound b = suffix_lower_bound(g, 1);
    CHECK(b.bytes >= outputs);
    // ...and it is a bound: no sampled order goes below it.
    RandomOrderSampler sampler(g, seed);
    for (int i = 0; i < 200; ++i) CHECK(analyze_lifetimes(g, sampler.next()).peak_bytes >= b.bytes);
  }
}

TEST_CASE("the search stops as soon as a plan meets the bound from the end") {
  // 40 independent ops reading one input, each output a graph output: every order peaks during its
  // last step at x + every output, which the per-op bound does not see (no op has ancestors).
  std::string tensors, ops, outs;
  for (int i = 0; i < 40; ++i) {
    const std::string n = std::to_string(i);
    tensors += R"(,"o)" + n + R"(":{"bytes":)" + std::to_string(16 * (1 + i % 5)) + "}";
    ops += std::string(i ? "," : "") + R"({"name":"p)" + n + R"(","inputs":["x"],"outputs":["o)" + n + R"("]})";
    outs += std::string(i ? "," : "") + R"("o)" + n + R"(")";
  }
  Graph g = parse_graph_json(R"({"format":"arenaplan-graph","version":1,"tensors":{"x":{"bytes":16})" + tensors +
                             R"(},"ops":[)" + ops + R"(],"inputs":["x"],"outputs":[)" + outs + "]}");
  CHECK(schedule_lower_bound(g).bytes < analyze_lifetimes(g, g.file_order()).peak_bytes);
  ScheduleSearch s(g);
  for (int i = 0; i < 20 && !s.done(); ++i) s.step(2048);
  CHECK(s.done());
  const ScheduleResult r = s.result();
  CHECK(r.proven_optimal);
  CHECK(r.peak_bytes == analyze_lifetimes(g, g.file_order()).peak_bytes);
  CHECK(r.lower_bound_bytes == r.peak_bytes);
}

TEST_CASE("wide graphs: the anytime search (beam, local moves, suffix bound) gives valid orders no worse than greedy") {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    CAPTURE(seed);
    Graph g = wide_random_dag(300, seed);
    ScheduleOptions o;
    o.exact_max_ops = 0;  // the path 1,000-op graphs take
    o.seed = seed;
    ScheduleSearch s(g, o);
    for (int i = 0; i < 150 && !s.done(); ++i) s.step(4096);
    s.cancel();
    const ScheduleResult r = s.result();
    REQUIRE(is_valid_order(g, r.order));
    CHECK(analyze_lifetimes(g, r.order).peak_bytes == r.peak_bytes);
    CHECK(r.peak_bytes <= analyze_lifetimes(g, greedy_smallest_footprint(g)).peak_bytes);
    CHECK(r.peak_bytes <= r.baseline_peak_bytes);
    CHECK(r.lower_bound_bytes <= r.peak_bytes);
    CHECK(r.lower_bound_bytes >= schedule_lower_bound(g).bytes);
    CHECK(r.lower_bound_bytes >= suffix_lower_bound(g, 1).bytes);
    CHECK(r.memory_bytes <= r.memory_cap_bytes);
    if (r.proven_optimal) CHECK(r.lower_bound_bytes == r.peak_bytes);
  }
}

// The cut bound's sum: the op's own bytes plus the tensors live in the cheapest set before it.
static Bytes certificate_bytes(const Graph& g, const CutBound& b) {
  Bytes sum = b.own_bytes;
  for (TensorId t : b.live_before) sum += align_up(g.tensors[t].bytes, g.alignment);
  return sum;
}

TEST_CASE("cut bound: never above the brute-force optimum, and its certificate adds up") {
  int checked_in_place_free = 0;
  const SmallGraphSet graphs{.first = 5000, .last = 5249, .async_every = 5, .unread_every = 7};
  const int checked = for_each_small_graph_truth(graphs, [&](const SmallGraphTruth& t) {
    const Graph& g = t.graph;
    const CutBound b = cut_lower_bound(g, 10.0);
    CHECK(b.complete);
    CHECK(b.bytes <= t.optimum);
    if (b.op >= 0) CHECK(certificate_bytes(g, b) == b.bytes);
    // A time limit of zero still gives a bound (the first cut, or none).
    CHECK(cut_lower_bound(g, 0.0).bytes <= b.bytes);
    bool in_place = false;
    for (const Op& op : g.ops) in_place = in_place || !op.in_place.empty();
    if (!in_place && !t.features.unread_inputs) {
      // Without aliasing, every tensor the per-op bound names is a forced term of the cut (its
      // other case, "the first step holds every graph input", is an argument the cut does not make).
      const LowerBound per_op = schedule_lower_bound(g);
      if (per_op.op >= 0 && !op_predecessors(g)[per_op.op].empty()) CHECK(b.bytes >= per_op.bytes);
      ++checked_in_place_free;
    }
  });
  CHECK(checked > 150);
  CHECK(checked_in_place_free > 20);
}

TEST_CASE("cut bound: never above the proven optimum of 20-30-op graphs (exact search)") {
  int proven = 0;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    CAPTURE(seed);
    for (const Graph& g : {wide_random_dag(20 + static_cast<int>(seed % 11), seed),
                           random_small_graph(seed, 20 + static_cast<int>(seed % 11))}) {
      const ScheduleResult r = optimize_schedule(g, 20.0);
      if (!r.proven_optimal) continue;  // asynchronous reads: the model is a bound only
      ++proven;
      const CutBound b = cut_lower_bound(g, 10.0);
      CHECK(b.bytes <= r.peak_bytes);
      CHECK(certificate_bytes(g, b) == b.bytes);
    }
  }
  CHECK(proven >= 18);
}

TEST_CASE("cut bound: two branches with a big tensor each meet at 128 B, which the per-op bound misses") {
  // x feeds a1 -> a2 and b1 -> b2, c joins them. Whichever branch runs first, its small result
  // waits while the other branch's big tensor is made: a1 a2 b1 b2 c peaks at 128 B during a2
  // (x + A + a) and b1 (x + a + B); running a1 and b1 together holds x + A + B = 208 B.
  const Graph g = parse_graph_json(R"({"format":"arenaplan-graph","version":1,"tensors":{
      "x":{"bytes":16},"A":{"bytes":96},"a":{"bytes":16},"B":{"bytes":96},"b":{"bytes":16},"out":{"bytes":16}},
    "ops":[{"name":"a1","inputs":["x"],"outputs":["A"]},{"name":"a2","inputs":["A"],"outputs":["a"]},
           {"name":"b1","inputs":["x"],"outputs":["B"]},{"name":"b2","inputs":["B"],"outputs":["b"]},
           {"name":"c","inputs":["a","b"],"outputs":["out"]}],
    "inputs":["x"],"outputs":["out"]})");
  const Bytes opt = min_peak(brute_force_orders(g));
  CHECK(opt == 128);
  CHECK(schedule_lower_bound(g).bytes < opt);  // a1's x + A: no op has both a branch's tensors
  const CutBound b = cut_lower_bound(g, 10.0);
  CHECK(b.bytes == opt);
  CHECK(certificate_bytes(g, b) == opt);
  CHECK(b.complete);
}

TEST_CASE("cut bound: on wide random DAGs it holds for sampled orders and the search keeps it") {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    CAPTURE(seed);
    const Graph g = wide_random_dag(200, seed);
    const CutBound b = cut_lower_bound(g, 30.0);
    CHECK(b.complete);
    CHECK(certificate_bytes(g, b) == b.bytes);
    RandomOrderSampler sampler(g, seed);
    for (int i = 0; i < 100; ++i) CHECK(analyze_lifetimes(g, sampler.next()).peak_bytes >= b.bytes);
    ScheduleOptions o;
    o.exact_max_ops = 0;
    ScheduleSearch s(g, o);
    for (int i = 0; i < 400 && !s.done(); ++i) s.step(4096);
    CHECK(s.lower_bound() >= std::min(b.bytes, s.best_peak()));
  }
}
