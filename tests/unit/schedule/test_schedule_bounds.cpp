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
