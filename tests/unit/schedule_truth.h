// Truths for the schedule tests, independent of the code under test: every valid order of a small
// graph by brute force over permutations, each with its analyze_lifetimes peak.
#pragma once

#include <functional>
#include <map>
#include <vector>

#include "core/graph/lifetime.h"
#include "core/schedule/schedule.h"

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


}  // namespace arenaplan::test
