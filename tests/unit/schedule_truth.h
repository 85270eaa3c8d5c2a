// Truths for the schedule tests, independent of the code under test: every valid order of a small
// graph by brute force over permutations, each with its analyze_lifetimes peak; and the loop the
// brute-force tests share over random small graphs (for_each_small_graph_truth).
#pragma once

#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <vector>

#include "core/graph/graph_json.h"
#include "core/graph/lifetime.h"
#include "core/schedule/schedule.h"
#include "core/schedule/schedule_generators.h"

namespace arenaplan::test {

// Every valid order by trying all permutations that pass check_order (independent of the
// enumerator), with its analyze_lifetimes peak (-1 when analyze_lifetimes rejects it).
inline std::map<Schedule, Bytes> brute_force_orders(const Graph& g) {
  std::map<Schedule, Bytes> out;
  Schedule order;
  std::vector<char> used(g.ops.size(), 0);
  const auto preds = op_predecessors(g);
  std::function<void()> rec = [&] {
    if (order.size() == g.ops.size()) {
      auto p = order_peak(g, order);
      out[order] = p ? *p : -1;
      return;
    }
    for (OpId o = 0; o < static_cast<OpId>(g.ops.size()); ++o) {
      if (used[o]) continue;
      bool ok = true;
      for (OpId p : preds[o]) ok = ok && used[p];
      if (!ok) continue;
      used[o] = 1;
      order.push_back(o);
      rec();
      order.pop_back();
      used[o] = 0;
    }
  };
  rec();
  return out;
}

inline Bytes min_peak(const std::map<Schedule, Bytes>& orders) {
  Bytes best = -1;
  for (const auto& [o, p] : orders)
    if (p >= 0 && (best < 0 || p < best)) best = p;
  return best;
}

inline bool is_valid_order(const Graph& g, const Schedule& order) {
  try {
    check_order(g, order);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

// Which random small graphs a brute-force test runs on: seeds first..last, 3 + seed % size_cycle
// ops, asynchronous reads on every async_every-th seed, unread inputs on every unread_every-th
// (0: never).
struct SmallGraphSet {
  uint64_t first = 1, last = 1;
  int size_cycle = 7;
  int async_every = 0;
  int unread_every = 0;
  bool feasible_only = true;  // skip the graphs that no order can run
};

// One of those graphs with its truth.
struct SmallGraphTruth {
  uint64_t seed = 0;
  RandomGraphFeatures features;
  Graph graph;
  std::map<Schedule, Bytes> orders;  // brute_force_orders(graph)
  Bytes optimum = -1;                // min_peak(orders)
};

// Calls `check` on each graph of `set` whose orders brute force can list (at most 5,000), with
// its seed and graph captured for the failure message; returns how many it checked.
inline int for_each_small_graph_truth(const SmallGraphSet& set, const std::function<void(const SmallGraphTruth&)>& check) {
  int checked = 0;
  for (uint64_t seed = set.first; seed <= set.last; ++seed) {
    SmallGraphTruth t;
    t.seed = seed;
    t.features.async = set.async_every > 0 && seed % set.async_every == 0;
    t.features.unread_inputs = set.unread_every > 0 && seed % set.unread_every == 0;
    t.graph = random_small_graph(seed, 3 + static_cast<int>(seed % set.size_cycle), t.features);
    t.orders = brute_force_orders(t.graph);
    if (t.orders.size() > 5000) continue;
    t.optimum = min_peak(t.orders);
    if (set.feasible_only && t.optimum < 0) continue;
    ++checked;
    CAPTURE(seed);
    CAPTURE(graph_to_json(t.graph));
    check(t);
  }
  return checked;
}

}  // namespace arenaplan::test
