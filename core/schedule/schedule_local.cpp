// Local search on the best order (for graphs too big for the exact search): moves one op at a
// time within its precedence window, across the step where the peak is, and keeps a move when it
// lowers the peak, or keeps the peak and lowers the area under the profile (the sum of every
// step's live bytes: a tie-break that lets the search cross plateaus, where many steps share the
// peak, instead of stopping at the first one).
//
// Moves that can lower the peak step p: an op before p that leaves more live bytes than it found
// (it produces more than it frees) goes to its best place after p, up to its first consumer (all
// those places scored in one walk); an op after p that frees more than it produces goes right
// before p, or as early as its last predecessor allows. A move changes only the steps inside its window (every op outside it runs
// after the same set of ops), so a candidate walks just the window with the set model, from a
// walker parked at the window's start, stopping as soon as a step exceeds the peak; the steps
// outside come from the profile's prefix and suffix maxima and sums.
//
// At a local optimum (no such move helps) it kicks from the best order, and the descent starts
// again from there (iterated local search; the best order is kept apart, so a kick never loses
// it). Half the kicks make a few random ops jump to random places within their precedence
// windows; the other half rebuild a window of steps around a peak step (ruin and recreate): its
// ops are re-ordered by a randomised "frees the most" greedy after the unchanged prefix, and the
// unchanged suffix follows (any order of a contiguous window's ops that respects the edges among
// them keeps the whole order valid).
#include <algorithm>
#include <cstdlib>

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
  plateau_moves_ = 0;
  moves_.clear();
  next_move_ = 0;
  profile(order_, during_, after_);
  index_profile();
  peak_ = peak_from_[0];
  area_ = area_before_.back();
  cursor_ = std::make_unique<LiveModel::Walker>(*m_);
  cursor_at_ = 0;
}

void LocalSearch::index_profile() {
  const size_t n = during_.size();
  peak_before_.assign(n + 1, 0);
  peak_from_.assign(n + 1, 0);
  area_before_.assign(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    peak_before_[i + 1] = std::max(peak_before_[i], during_[i]);
    area_before_[i + 1] = area_before_[i] + during_[i];
  }
  for (size_t i = n; i-- > 0;) peak_from_[i] = std::max(peak_from_[i + 1], during_[i]);
}

void LocalSearch::move_cursor(int position, int64_t& cost) {
  for (; cursor_at_ < position; ++cost) cursor_->apply(order_[cursor_at_++]);
  for (; cursor_at_ > position; ++cost) cursor_->undo(order_[--cursor_at_]);
}

Schedule LocalSearch::rebuild_window(int64_t& budget) {
  const LiveModel& m = *m_;
  const int n = static_cast<int>(best_.size());
  std::vector<Bytes> during, after;
  profile(best_, during, after);
  std::vector<int> peaks;
  for (int i = 0; i < n; ++i)
    if (during[i] == best_peak_) peaks.push_back(i);
  const int p = peaks[static_cast<size_t>(splitmix64(rng_) % peaks.size())];
  const int half = 8 + static_cast<int>(splitmix64(rng_) % 40);
  const int a = std::max(0, p - half), b = std::min(n - 1, p + half);
  Schedule order(best_.begin(), best_.begin() + a);
  LiveModel::Walker w(m);
  for (OpId o : order) w.apply(o);
  std::vector<char> in_window(m.ops(), 0);
  for (int i = a; i <= b; ++i) in_window[best_[i]] = 1;
  std::vector<int> missing(m.ops(), 0);
  std::vector<OpId> ready;
  for (int i = a; i <= b; ++i) {
    const OpId o = best_[i];
    for (OpId q : m.preds()[o]) missing[o] += in_window[q];
    if (missing[o] == 0) ready.push_back(o);
  }
  // Noise up to a sixteenth of the live bytes there: enough to reorder near-ties, not to ignore cost.
  const Bytes noise = std::max<Bytes>(1, after[p] / 16);
  while (!ready.empty()) {
    size_t pick = 0;
    Bytes pick_key = 0;
    for (size_t r = 0; r < ready.size(); ++r) {
      const StepCost c = w.cost(ready[r]);
      const Bytes key = c.after + static_cast<Bytes>(splitmix64(rng_) % static_cast<uint64_t>(noise));
      if (r == 0 || key < pick_key) pick = r, pick_key = key;
    }
    budget -= static_cast<int64_t>(ready.size());
    states_ += static_cast<int64_t>(ready.size());
    const OpId o = ready[pick];
    ready[pick] = ready.back();
    ready.pop_back();
    w.apply(o);
    order.push_back(o);
    for (OpId s : m.succs()[o])
      if (in_window[s] && --missing[s] == 0) ready.push_back(s);
  }
  order.insert(order.end(), best_.begin() + b + 1, best_.end());
  return order;
}

void LocalSearch::kick(int64_t& budget) {
  const LiveModel& m = *m_;
  const int n = static_cast<int>(best_.size());
  ++kicks_;
  if (splitmix64(rng_) % 2) {
    set_current(rebuild_window(budget));
    budget -= n;
    states_ += n;
    stalled_ = false;
    return;
  }
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

// Peak and area after the move; stops early (returning false) once a step exceeds peak_.
bool LocalSearch::better(Move& mv, Bytes& peak, Bytes& area, int64_t& cost) {
  const int a = std::min(mv.from, mv.to), b = std::max(mv.from, mv.to);
  move_cursor(a, cost);
  if (mv.to > mv.from) return best_later_position(mv, peak, area, cost);
  // The window's ops in their new order: the moved op last (moved later) or first (earlier).
  auto op_at = [&](int i) -> OpId {
    if (mv.to > mv.from) return i == b ? order_[mv.from] : order_[i + 1];
    return i == a ? order_[mv.from] : order_[i - 1];
  };
  peak = std::max(peak_before_[a], peak_from_[b + 1]);
  area = area_before_[a] + area_before_.back() - area_before_[b + 1];
  int applied = 0;
  bool within = true;
  for (int i = a; i <= b; ++i) {
    const OpId o = op_at(i);
    const StepCost c = cursor_->cost(o);
    if (c.during > peak_) {
      within = false;
      break;
    }
    peak = std::max(peak, c.during);
    area += c.during;
    cursor_->apply(o);
    ++applied;
  }
  for (int i = a + applied - 1; i >= a; --i) cursor_->undo(op_at(i));
  cost += 2 * applied + 1;
  return within && (peak < peak_ || (peak == peak_ && area < area_));
}

// A move later, to the best position up to mv.to, in one walk: with the ops after mv.from run
// one by one (the moved op not yet run), each position's step for the moved op is one cost away,
// and the steps after it are the profile's (same executed sets). mv.to becomes the best position.
bool LocalSearch::best_later_position(Move& mv, Bytes& peak, Bytes& area, int64_t& cost) {
  const OpId moved = order_[mv.from];
  Bytes walked_peak = peak_before_[mv.from], walked_area = area_before_[mv.from];
  Bytes best_peak = peak_ + 1, best_area = 0;
  int best_to = -1, applied = 0;
  for (int s = mv.from + 1; s <= mv.to; ++s) {
    const StepCost c = cursor_->cost(order_[s]);
    if (c.during > peak_) break;  // this step stays in every later position
    walked_peak = std::max(walked_peak, c.during);
    walked_area += c.during;
    cursor_->apply(order_[s]);
    ++applied;
    const Bytes own = cursor_->cost(moved).during;
    const Bytes p = std::max({walked_peak, own, peak_from_[s + 1]});
    const Bytes ar = walked_area + own + area_before_.back() - area_before_[s + 1];
    if (p < best_peak || (p == best_peak && ar < best_area)) best_peak = p, best_area = ar, best_to = s;
  }
  for (int s = mv.from + applied; s > mv.from; --s) cursor_->undo(order_[s]);
  cost += 3 * applied + 1;
  if (best_to < 0) return false;
  mv.to = best_to;
  peak = best_peak;
  area = best_area;
  return peak < peak_ || (peak == peak_ && area < area_);
}

bool LocalSearch::advance(int64_t& budget) {
  const LiveModel& m = *m_;
  const int n = static_cast<int>(order_.size());
  if (n < 3) return true;
  std::vector<int> pos(m.ops());
  while (budget > 0) {
    if (stalled_) kick(budget);
    if (next_move_ < moves_.size()) {  // a pass interrupted by the budget: resume it
      try_moves(budget);
      continue;
    }
    for (int i = 0; i < n; ++i) pos[order_[i]] = i;
    // The peak steps, and the moves across them.
    std::vector<int> peaks;
    for (int i = 0; i < n; ++i)
      if (during_[i] == peak_) peaks.push_back(i);
    const int p = peaks[static_cast<size_t>(splitmix64(rng_) % peaks.size())];
    // Where a move earlier lands, from `near` (just across the peak) to `far` (its precedence
    // limit): half the moves just across, half anywhere up to the limit.
    auto across = [&](int near, int far) {
      const int span = std::abs(far - near);
      const int step = splitmix64(rng_) % 2 ? static_cast<int>(splitmix64(rng_) % 3)
                                             : static_cast<int>(splitmix64(rng_) % static_cast<uint64_t>(span + 1));
      return near + (far >= near ? 1 : -1) * std::min(step, span);
    };
    moves_.clear();
    for (int i = 0; i < n; ++i) {
      const OpId o = order_[i];
      const Bytes before = i == 0 ? m.empty_live() : after_[i - 1];
      if (i <= p && after_[i] > before) {  // grows the live set: later
        int last = n - 1;
        for (OpId s : m.succs()[o]) last = std::min(last, pos[s] - 1);
        if (last >= p && last > i) moves_.push_back({i, last});  // the best place up to `last`
      } else if (i >= p && after_[i] < before) {  // shrinks it: earlier
        int first = 0;
        for (OpId q : m.preds()[o]) first = std::max(first, pos[q] + 1);
        if (first <= p && first < i) moves_.push_back({i, across(std::max(p - 1, first), first)});
      }
    }
    // Random order of trial, so plateaus are crossed in different directions on each pass.
    for (size_t k = moves_.size(); k > 1; --k) std::swap(moves_[k - 1], moves_[splitmix64(rng_) % k]);
    next_move_ = 0;
    try_moves(budget);
  }
  return false;
}

// Tries the pass's moves from next_move_ on until one is kept, the budget runs out (the pass
// resumes on the next call) or none is left (stalled: kick next).
void LocalSearch::try_moves(int64_t& budget) {
  while (next_move_ < moves_.size()) {
    if (budget <= 0) return;
    Move mv = moves_[next_move_++];
    Bytes peak = 0, area = 0;
    int64_t cost = 0;
    const bool improved = better(mv, peak, area, cost);
    budget -= cost;
    states_ += cost;
    if (!improved) continue;
    moves_.clear();  // positions changed: the next round builds a new pass
    next_move_ = 0;
    // The cursor stands at the window's start: the prefix it ran is unchanged.
    if (mv.to > mv.from) std::rotate(order_.begin() + mv.from, order_.begin() + mv.from + 1, order_.begin() + mv.to + 1);
    else std::rotate(order_.begin() + mv.to, order_.begin() + mv.from, order_.begin() + mv.from + 1);
    profile(order_, during_, after_);
    index_profile();
    // Area-only moves are tie-breaks: a long run of them without a lower peak is a plateau
    // the kicks leave faster.
    plateau_moves_ = peak < peak_ ? 0 : plateau_moves_ + 1;
    peak_ = peak;
    area_ = area;
    if (peak_ < best_peak_) {
      best_ = order_;
      best_peak_ = peak_;
      ++improvements_;
    }
    if (plateau_moves_ > kPlateauMoves) stalled_ = true;  // a long plateau: kick instead
    return;
  }
  stalled_ = true;  // no move helps: a local optimum for these moves
}

}  // namespace arenaplan::schedule_detail
