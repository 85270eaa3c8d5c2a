// Local search on the best order (for graphs too big for the exact search): moves one op at a
// time within its precedence window, across the step where the peak is, and keeps a move when it
// lowers the peak, or keeps the peak and lowers the area under the profile (the sum of every
// step's live bytes: a tie-break that lets the search cross plateaus, where many steps share the
// peak, instead of stopping at the first one).
//
// Moves that can lower the peak step p: an op before p that leaves more live bytes than it found
// (it produces more than it frees) goes right after p, or as late as its first consumer allows;
// an op after p that frees more than it produces goes right before p, or as early as its last
// predecessor allows. Each candidate is re-walked with the set model, stopping as soon as a step
// reaches the best peak, so a useless move costs a prefix of the order, not all of it.
//
// At a local optimum (no such move helps) it kicks: from the best order, a few random ops jump to
// random places within their precedence windows, and the descent starts again from there
// (iterated local search); the best order is kept apart, so a kick never loses it.
#include <algorithm>

#include "core/schedule/detail/schedule_internal.h"

namespace arenaplan::schedule_detail {

LocalSearch::LocalSearch(const LiveModel& m, const Schedule& start, uint64_t seed) : m_(&m), rng_(seed) {
  restart(start);
}

void LocalSearch::restart(const Schedule& start) {
  set_current(start);
  best_ = order_;
  best_peak_ = peak_;
  ++improvements_;  // a new start is worth offering back (it may already be the best)
  stalled_ = false;
}

void LocalSearch::set_current(const Schedule& order) {
  order_ = order;
  profile(order_, during_, after_);
  peak_ = 0;
  area_ = 0;
  for (Bytes d : during_) peak_ = std::max(peak_, d), area_ += d;
}

void LocalSearch::kick(int64_t& budget) {
  const LiveModel& m = *m_;
  const int n = static_cast<int>(best_.size());
  Schedule order = best_;
  std::vector<int> pos(m.ops());
  const int jumps = 2 + static_cast<int>(splitmix64(rng_) % 8);
  for (int k = 0; k < jumps; ++k) {
    for (int i = 0; i < n; ++i) pos[order[i]] = i;
    const int from = static_cast<int>(splitmix64(rng_) % static_cast<uint64_t>(n));
    const OpId o = order[from];
    int first = 0, last = n - 1;
    for (OpId q : m.preds()[o]) first = std::max(first, pos[q] + 1);
    for (OpId s : m.succs()[o]) last = std::min(last, pos[s] - 1);
    const int to = first + static_cast<int>(splitmix64(rng_) % static_cast<uint64_t>(last - first + 1));
    if (to > from) std::rotate(order.begin() + from, order.begin() + from + 1, order.begin() + to + 1);
    else if (to < from) std::rotate(order.begin() + to, order.begin() + from, order.begin() + from + 1);
  }
  budget -= n * (jumps + 1);
  states_ += n * (jumps + 1);
  set_current(order);
  stalled_ = false;
}

void LocalSearch::profile(const Schedule& order, std::vector<Bytes>& during, std::vector<Bytes>& after) const {
  LiveModel::Walker w(*m_);
  during.resize(order.size());
  after.resize(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    const StepCost c = w.cost(order[i]);
    during[i] = c.during;
    after[i] = c.after;
    w.apply(order[i]);
  }
}

// Peak and area of `order`; stops early (returning false) once it cannot beat (peak_, area_).
bool LocalSearch::better(const Schedule& order, Bytes& peak, Bytes& area, int64_t& cost) const {
  LiveModel::Walker w(*m_);
  peak = 0;
  area = 0;
  for (OpId o : order) {
    ++cost;
    const StepCost c = w.cost(o);
    if (c.during > peak_) return false;
    peak = std::max(peak, c.during);
    area += c.during;
    w.apply(o);
  }
  return peak < peak_ || (peak == peak_ && area < area_);
}

bool LocalSearch::advance(int64_t& budget) {
  const LiveModel& m = *m_;
  const int n = static_cast<int>(order_.size());
  if (n < 3) return true;
  std::vector<int> pos(m.ops());
  while (budget > 0) {
    if (stalled_) kick(budget);
    for (int i = 0; i < n; ++i) pos[order_[i]] = i;
    // The peak steps, and the moves across them.
    std::vector<int> peaks;
    for (int i = 0; i < n; ++i)
      if (during_[i] == peak_) peaks.push_back(i);
    const int p = peaks[static_cast<size_t>(splitmix64(rng_) % peaks.size())];
    moves_.clear();
    for (int i = 0; i < n; ++i) {
      const OpId o = order_[i];
      const Bytes before = i == 0 ? m.empty_live() : after_[i - 1];
      if (i <= p && after_[i] > before) {  // grows the live set: later
        int last = n - 1;
        for (OpId s : m.succs()[o]) last = std::min(last, pos[s] - 1);
        if (last >= p && last > i) moves_.push_back({i, std::min(last, p + 1 + static_cast<int>(splitmix64(rng_) % 3))});
      } else if (i >= p && after_[i] < before) {  // shrinks it: earlier
        int first = 0;
        for (OpId q : m.preds()[o]) first = std::max(first, pos[q] + 1);
        if (first <= p && first < i) moves_.push_back({i, std::max(first, p - static_cast<int>(splitmix64(rng_) % 3))});
      }
    }
    // Random order of trial, so plateaus are crossed in different directions on each pass.
    for (size_t k = moves_.size(); k > 1; --k) std::swap(moves_[k - 1], moves_[splitmix64(rng_) % k]);
    bool moved = false;
    for (const Move& mv : moves_) {
      if (budget <= 0) return false;
      trial_ = order_;
      if (mv.to > mv.from) std::rotate(trial_.begin() + mv.from, trial_.begin() + mv.from + 1, trial_.begin() + mv.to + 1);
      else std::rotate(trial_.begin() + mv.to, trial_.begin() + mv.from, trial_.begin() + mv.from + 1);
      Bytes peak = 0, area = 0;
      int64_t cost = 0;
      const bool improved = better(trial_, peak, area, cost);
      budget -= cost;
      states_ += cost;
      if (!improved) continue;
      order_.swap(trial_);
      profile(order_, during_, after_);
      peak_ = peak;
      area_ = area;
      if (peak_ < best_peak_) {
        best_ = order_;
        best_peak_ = peak_;
        ++improvements_;
      }
      moved = true;
      break;
    }
    if (!moved) stalled_ = true;  // a local optimum for these moves: kick on the next round
  }
  return false;
}

}  // namespace arenaplan::schedule_detail
