// Operator schedules. Truths are independent of the code under test: the article's
// numbers, and brute force over every permutation of small random graphs, each peak computed by
// analyze_lifetimes.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "core/schedule/schedule.h"
#include "core/schedule/schedule_generators.h"
#include "core/schedule/schedule_json.h"
#include "tests/unit/schedule_truth.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using namespace arenaplan::test;

TEST_CASE("two-branch has exactly 6 orders: ABCDEF and ADEBCF at 136 KiB, the other four at 192 KiB") {
  Graph g = example_graph("two_branch");
  OrderCount c = count_orders(g);
  CHECK(c.exact());
  CHECK(u128_text(c.value) == "6");
  std::map<std::string, Bytes> peaks;
  OrderEnumerator e(g);
  while (e.next()) peaks[order_names(g, e.order(), "")] = e.peak();
  CHECK(peaks == std::map<std::string, Bytes>{{"ABCDEF", 136 * KiB}, {"ADEBCF", 136 * KiB},
                                               {"ABDCEF", 192 * KiB}, {"ABDECF", 192 * KiB},
                                               {"ADBCEF", 192 * KiB}, {"ADBECF", 192 * KiB}});
  Enumeration en = enumerate_orders(g);
  CHECK(en.orders.size() == 6);
  CHECK(en.scanned_all);
  CHECK(en.min_peak_bytes == 136 * KiB);
  CHECK(en.max_peak_bytes == 192 * KiB);
  JsonOut j = enumeration_json(g, en);
  CHECK(j["count"] == 6);
  CHECK(j["count_exact"] == true);
  CHECK(j["orders"][0]["order"] == JsonOut::array({"A", "B", "C", "D", "E", "F"}));
  CHECK(j["orders"][0]["peak_bytes"] == 139264);
}

TEST_CASE("the optimiser returns 136 KiB for two-branch, proven optimal, and explains why") {
  Graph g = example_graph("two_branch");
  ScheduleResult r = optimize_schedule(g, 5.0);
  CHECK(r.peak_bytes == 136 * KiB);
  CHECK(r.proven_optimal);
  CHECK(r.baseline_peak_bytes == 136 * KiB);  // the file order ABCDEF is already optimal
  CHECK(r.lower_bound_bytes == 136 * KiB);
  CHECK(analyze_lifetimes(g, r.order).peak_bytes == 136 * KiB);
  // The case argument: in every order either C runs while A (still needed by D) and B are live,
  // or B runs while A and the other branch's tensor are live.
  CHECK(r.explanation.find("No order peaks below 136 KiB") != std::string::npos);
  CHECK(r.explanation.find("A still needed by D") != std::string::npos);
  JsonOut j = schedule_json(g, r);
  for (const char* key : {"order", "peak_bytes", "baseline_peak_bytes", "lower_bound_bytes", "proven_optimal",
                          "states_explored", "seconds"})
    CHECK(j.contains(key));
  CHECK(j["peak_bytes"] == 139264);
  CHECK(j["proven_optimal"] == true);
}

TEST_CASE("starting from ABDCEF (192 KiB) the optimiser finds a 136 KiB order") {
  // Reorder the file so its order is A,B,D,C,E,F: the baseline is then 192 KiB.
  std::string text = *find_example("two_branch");
  const std::string c_line = R"({"name": "C", "kind": "conv2d", "inputs": ["B"], "outputs": ["C"]},)";
  const std::string d_line = R"({"name": "D", "kind": "conv2d", "inputs": ["A"], "outputs": ["D"]},)";
  size_t ci = text.find(c_line), di = text.find(d_line);
  REQUIRE(ci != std::string::npos);
  REQUIRE(di != std::string::npos);
  text.replace(di, d_line.size(), c_line);
  text.replace(ci, c_line.size(), d_line);
  Graph g = parse_graph_json(text);
  CHECK(order_names(g, g.file_order()) == "A,B,D,C,E,F");
  ScheduleResult r = optimize_schedule(g, 5.0);
  CHECK(r.baseline_peak_bytes == 192 * KiB);
  CHECK(r.peak_bytes == 136 * KiB);
  CHECK(r.proven_optimal);
  // 29.17 % less, as the article says.
  CHECK(static_cast<double>(r.baseline_peak_bytes - r.peak_bytes) / r.baseline_peak_bytes ==
        doctest::Approx(0.2917).epsilon(0.001));
}

TEST_CASE("the lower bound holds for two-branch and names coexisting tensors") {
  Graph g = example_graph("two_branch");
  LowerBound lb = schedule_lower_bound(g);
  CHECK(lb.bytes <= 136 * KiB);
  CHECK(lb.bytes >= 128 * KiB);  // during B: A (needed by D) + B
  CHECK(!lb.tensors.empty());
}

TEST_CASE("random small DAGs: count, enumeration and peaks agree with brute force over all permutations") {
  const SmallGraphSet graphs{.first = 1, .last = 160, .size_cycle = 6, .unread_every = 7, .feasible_only = false};
  const int checked = for_each_small_graph_truth(graphs, [](const SmallGraphTruth& t) {
    const Graph& g = t.graph;
    const auto& truth = t.orders;
    OrderCount c = count_orders(g);
    REQUIRE(c.exact());
    CHECK(static_cast<size_t>(c.value) == truth.size());
    PeakEvaluator eval(g);
    for (const auto& [order, peak] : truth)
      if (peak >= 0) CHECK(eval.peak(order) == peak);
    std::map<Schedule, Bytes> seen;
    OrderEnumerator e(g);
    while (e.next()) seen[e.order()] = e.peak();
    CHECK(seen == truth);  // same orders, and the enumerator's peaks equal analyze_lifetimes'
  });
  CHECK(checked > 100);
}

TEST_CASE("random small DAGs: the exact optimum equals the brute-force minimum; heuristics are valid") {
  const SmallGraphSet graphs{.first = 1000, .last = 1249, .async_every = 5, .unread_every = 11};
  const int checked = for_each_small_graph_truth(graphs, [](const SmallGraphTruth& t) {
    const Graph& g = t.graph;
    const Bytes opt = t.optimum;
    const bool async = t.features.async;
    ScheduleResult r = optimize_schedule(g, 10.0);
    REQUIRE(is_valid_order(g, r.order));
    CHECK(analyze_lifetimes(g, r.order).peak_bytes == r.peak_bytes);
    CHECK(r.peak_bytes >= opt);
    CHECK(r.peak_bytes <= r.baseline_peak_bytes);
    CHECK(r.lower_bound_bytes <= opt);
    if (!async) {
      CHECK(r.proven_optimal);
      CHECK(r.peak_bytes == opt);
    }
    if (r.proven_optimal) CHECK(r.peak_bytes == opt);
    CHECK(schedule_lower_bound(g).bytes <= opt);

    // The beam search alone (exact search disabled) and a tiny memory cap stay valid and never
    // worse than the file order.
    for (ScheduleOptions o : {ScheduleOptions{int64_t{256} << 20, 0, 7}, ScheduleOptions{2048, 400, 3}}) {
      ScheduleResult b = optimize_schedule(g, 10.0, o);
      REQUIRE(is_valid_order(g, b.order));
      CHECK(b.peak_bytes >= opt);
      CHECK(b.peak_bytes <= b.baseline_peak_bytes);
      CHECK(b.memory_bytes <= o.memory_cap_bytes);
      if (b.proven_optimal) CHECK(b.peak_bytes == opt);
    }
    for (const Schedule& h : {greedy_smallest_footprint(g), random_topological_order(g, t.seed)}) {
      REQUIRE(is_valid_order(g, h));
      Schedule sunk = sink_constant_ops(g, h);
      REQUIRE(is_valid_order(g, sunk));
      auto ph = order_peak(g, h), ps = order_peak(g, sunk);
      if (ph && ps && !async) CHECK(*ps <= *ph);  // sinking never raises the peak
    }
  });
  CHECK(checked > 150);
}

TEST_CASE("counting works when listing is impossible, and says when it overflows or gives up") {
  // 40 independent ops: 40! orders, about 8.2e47, more than 2^128 - 1 (3.4e38).
  std::string tensors, ops, outs;
  for (int i = 0; i < 40; ++i) {
    tensors += R"(,"o)" + std::to_string(i) + R"(":{"bytes":16})";
    ops += std::string(i ? "," : "") + R"({"name":"p)" + std::to_string(i) + R"(","inputs":["x"],"outputs":["o)" +
           std::to_string(i) + R"("]})";
    outs += std::string(i ? "," : "") + R"("o)" + std::to_string(i) + R"(")";
  }
  Graph g = parse_graph_json(R"({"format":"arenaplan-graph","version":1,"tensors":{"x":{"bytes":16})" + tensors +
                             R"(},"ops":[)" + ops + R"(],"inputs":["x"],"outputs":[)" + outs + "]}");
  OrderCount capped = count_orders(g, 1000);
  CHECK(capped.status == OrderCount::Status::kTooManyStates);
  CHECK(capped.text().find("infeasible") != std::string::npos);

  // Two chains of 67 ops: C(134, 67) ~ 2^130 orders but only 68^2 down-sets.
  std::string ct, co;
  for (char chain : {'a', 'b'})
    for (int i = 0; i < 67; ++i) {
      std::string name = chain + std::to_string(i);
      std::string in = i == 0 ? "x" : chain + std::to_string(i - 1);
      ct += R"(,")" + name + R"(":{"bytes":16})";
      co += std::string(co.empty() ? "" : ",") + R"({"name":")" + name + R"(","inputs":[")" + in +
            R"("],"outputs":[")" + name + R"("]})";
    }
  Graph chains = parse_graph_json(R"({"format":"arenaplan-graph","version":1,"tensors":{"x":{"bytes":16})" + ct +
                                  R"(},"ops":[)" + co + R"(],"inputs":["x"],"outputs":["a66","b66"]})");
  OrderCount c = count_orders(chains);
  CHECK(c.status == OrderCount::Status::kOverflow);
  CHECK(!c.exact());
  CHECK(c.text() == "more than 2^128");
  CHECK(c.states == 68 * 68);
}

TEST_CASE("exact 128-bit counts: 20! fits in 63 bits, 21! does not") {
  auto independent = [](int n) {
    std::string tensors, ops, outs;
    for (int i = 0; i < n; ++i) {
      tensors += R"(,"o)" + std::to_string(i) + R"(":{"bytes":16})";
      ops += std::string(i ? "," : "") + R"({"name":"p)" + std::to_string(i) + R"(","inputs":["x"],"outputs":["o)" +
             std::to_string(i) + R"("]})";
      outs += std::string(i ? "," : "") + R"("o)" + std::to_string(i) + R"(")";
    }
    return parse_graph_json(R"({"format":"arenaplan-graph","version":1,"tensors":{"x":{"bytes":16})" + tensors +
                            R"(},"ops":[)" + ops + R"(],"inputs":["x"],"outputs":[)" + outs + "]}");
  };
  OrderCount c20 = count_orders(independent(20), int64_t{1} << 22);
  CHECK(c20.status == OrderCount::Status::kExact);
  CHECK(c20.text() == "2432902008176640000");
  OrderCount c21 = count_orders(independent(21), int64_t{1} << 22);
  CHECK(c21.status == OrderCount::Status::kMoreThan2To63);
  CHECK(c21.text() == "51090942171709440000");
  JsonOut j = enumeration_json(independent(21), enumerate_orders(independent(21), 3, 10, int64_t{1} << 22));
  CHECK(j["count"].is_null());
  CHECK(j["count_exact"] == false);
  CHECK(j["count_text"] == "51090942171709440000");
  CHECK(j["orders"].size() == 3);
  CHECK(j["peaks_over_all_orders"] == false);
}

TEST_CASE("built-in schedule examples are valid and the optimiser proves them") {
  for (const char* name : {"residual_block", "inception_cell"}) {
    CAPTURE(name);
    Graph g = example_graph(name);
    ScheduleResult r = optimize_schedule(g, 10.0);
    CHECK(r.proven_optimal);
    CHECK(r.peak_bytes <= r.baseline_peak_bytes);
    CHECK(analyze_lifetimes(g, r.order).peak_bytes == r.peak_bytes);
  }
}

TEST_CASE("the search is incremental: step, progress, best so far, cancel") {
  Graph g = wide_random_dag(300, 5);
  ScheduleSearch s(g);
  const Bytes baseline = s.best_peak();
  s.step(1000);
  CHECK(!s.done());
  CHECK(s.best_peak() <= baseline);
  CHECK(s.lower_bound() <= s.best_peak());
  CHECK(s.progress() >= 0.0);
  CHECK(s.progress() <= 1.0);
  CHECK(is_valid_order(g, s.best_so_far()));
  s.cancel();
  CHECK(s.done());
  ScheduleResult r = s.result();
  CHECK(r.peak_bytes == analyze_lifetimes(g, r.order).peak_bytes);
  CHECK(!r.proven_optimal);
  CHECK(r.memory_bytes <= r.memory_cap_bytes);
}

TEST_CASE("a small memory cap is never exceeded; the order stays valid and not worse than the file order") {
  Graph g = wide_random_dag(250, 9);
  ScheduleOptions o;
  o.memory_cap_bytes = 1 << 20;
  o.exact_max_states = 1 << 30;  // let the exact search run into the cap
  ScheduleSearch s(g, o);
  for (int i = 0; i < 400 && !s.done(); ++i) s.step(2000);
  s.cancel();
  ScheduleResult r = s.result();
  CHECK(r.memory_bytes <= r.memory_cap_bytes);
  CHECK(r.memory_bytes > 0);
  CHECK(r.memory_cap_hit);
  CHECK(!r.proven_optimal);
  CHECK(is_valid_order(g, r.order));
  CHECK(r.peak_bytes <= r.baseline_peak_bytes);
  CHECK(r.lower_bound_bytes <= r.peak_bytes);
}

TEST_CASE("max_states: the search stops after a fixed number of states, whatever the time limit, with one answer") {
  // A wide DAG the search does not finish in 20,000 states: the order found under the state budget
  // must not depend on how long the machine would have let it run (order:best on the page, in the
  // CLI, natively and in Wasm gives one answer).
  const Graph g = wide_random_dag(120, 3);
  ScheduleOptions budgeted;
  budgeted.max_states = 20000;
  const ScheduleResult a = optimize_schedule(g, 600.0, budgeted);
  const ScheduleResult b = optimize_schedule(g, 60.0, budgeted);
  REQUIRE_FALSE(a.proven_optimal);
  CHECK(a.states_explored <= budgeted.max_states + 2048 * 2);
  CHECK(a.order == b.order);
  CHECK(a.peak_bytes == b.peak_bytes);
  CHECK(a.states_explored == b.states_explored);
}
