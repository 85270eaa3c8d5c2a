// Counting topological orders without listing them: the number of ways to reach a down-set S is
// the sum over the ways to reach S minus one of its maximal ops. Level k holds the down-sets of
// size k, so only two levels are in memory at once.
#include <algorithm>

#include "core/schedule/schedule.h"
#include "core/schedule/detail/schedule_model.h"
#include "core/schedule/detail/schedule_table.h"

namespace arenaplan {

using schedule_detail::SetTable;
using schedule_detail::Word;

std::string u128_text(unsigned __int128 v) {
  if (v == 0) return "0";
  std::string s;
  while (v > 0) {
    s += static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  }
  std::reverse(s.begin(), s.end());
  return s;
}

std::string OrderCount::text() const {
  switch (status) {
    case Status::kExact:
    case Status::kMoreThan2To63: return u128_text(value);
    case Status::kOverflow: return "more than 2^128";
    case Status::kTooManyStates:
      return "unknown (more than " + std::to_string(state_cap) +
             " down-sets of one size; counting is infeasible)";
  }
  return "";
}

OrderCount count_orders(const Graph& g, int64_t max_level_states) {
  OrderCount out;
  out.state_cap = max_level_states;
  const int n = static_cast<int>(g.ops.size());
  const int words = std::max(1, (n + 63) / 64);
  const auto preds = op_predecessors(g);
  std::vector<Word> pred_masks(static_cast<size_t>(n) * words, 0);
  for (int o = 0; o < n; ++o)
    for (OpId p : preds[o]) schedule_detail::set_bit(&pred_masks[static_cast<size_t>(o) * words], p);

  const unsigned __int128 kMax = ~static_cast<unsigned __int128>(0);
  bool saturated = false;
  SetTable level(words);
  std::vector<unsigned __int128> ways;
  std::vector<Word> set(words, 0);
  bool inserted = false;
  level.find_or_insert(set.data(), inserted);
  ways.push_back(1);
  out.states = 1;
  out.max_level = 1;
  for (int k = 0; k < n; ++k) {
    SetTable next(words);
    std::vector<unsigned __int128> next_ways;
    for (int64_t s = 0; s < level.size(); ++s) {
      const Word* cur = level.key(s);
      for (int o = 0; o < n; ++o) {
        if (schedule_detail::test_bit(cur, o)) continue;
        const Word* pm = &pred_masks[static_cast<size_t>(o) * words];
        bool ready = true;
        for (int w = 0; w < words && ready; ++w) ready = (pm[w] & ~cur[w]) == 0;
        if (!ready) continue;
        std::copy(cur, cur + words, set.begin());
        schedule_detail::set_bit(set.data(), o);
        int64_t idx = next.find_or_insert(set.data(), inserted);
        if (inserted) {
          next_ways.push_back(0);
          if (next.size() > max_level_states) {
            out.status = OrderCount::Status::kTooManyStates;
            out.value = 0;
            out.states += next.size();
            out.max_level = std::max(out.max_level, next.size());
            return out;
          }
        }
        unsigned __int128& w = next_ways[idx];
        if (w > kMax - ways[s]) {
          w = kMax;
          saturated = true;
        } else {
          w += ways[s];
        }
      }
    }
    out.states += next.size();
    out.max_level = std::max(out.max_level, next.size());
    level = std::move(next);
    ways = std::move(next_ways);
  }
  out.value = ways.empty() ? 0 : ways[0];
  const unsigned __int128 k2To63 = static_cast<unsigned __int128>(1) << 63;
  if (saturated) out.status = OrderCount::Status::kOverflow;
  else if (out.value >= k2To63) out.status = OrderCount::Status::kMoreThan2To63;
  return out;
}

}  // namespace arenaplan
