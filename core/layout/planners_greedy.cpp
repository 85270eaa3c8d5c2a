#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <numeric>
#include <optional>

#include "core/layout/placement_index.h"
#include "core/layout/detail/planner_common.h"
#include "core/layout/planner_greedy.h"

namespace arenaplan::planner {
namespace {

// Beyond this many conflict-graph entries (about 1 GiB) the portfolio leaves out its "conflicts"
// member (it once needed the graph itself; the key is now counted without it).
constexpr int64_t kMaxConflictEntries = int64_t{1} << 27;

enum class Fit { kLowestGap, kBestFit };

// check_problem bounds the sum of all sizes, so no offset here can overflow.
inline Bytes round_up(Bytes v, Bytes a) { return a <= 1 || v % a == 0 ? v : v + a - v % a; }

// The walk of TFLM's GreedyMemoryPlanner, fed taken address ranges in ascending order of begin:
// the candidate is the lowest address, aligned, above every range seen so far; a range beginning
// at least `size` above the candidate closes a gap that holds the buffer. Lowest gap takes the
// first such gap, best fit the smallest (the first of equals), the space above everything
// counting as infinite; with no gap the buffer goes above everything.
class GapWalk {
 public:
  GapWalk(Bytes size, Bytes alignment, Fit fit) : size_(size), alignment_(alignment), fit_(fit) {}

  // Takes the next range; false once the answer can no longer change.
  bool see(const AddressRange& r) {
    // The candidate is top_ rounded up (rounding up is monotone, so rounding the highest end is
    // the highest rounded end). It is never below top_, so a range that begins less than `size`
    // above top_ closes no fitting gap and needs no (dividing) rounding.
    if (r.begin - top_ >= size_) {
      const Bytes candidate = round_up(top_, alignment_), gap = r.begin - candidate;
      if (gap >= size_) {
        if (fit_ == Fit::kLowestGap) {
          best_ = candidate;
          return false;
        }
        if (gap < best_gap_) best_ = candidate, best_gap_ = gap;
        if (gap == size_) return false;  // an exact fit: no later gap is smaller
      }
    }
    top_ = std::max(top_, r.end);
    return true;
  }

  Bytes offset() const { return best_ >= 0 ? best_ : round_up(top_, alignment_); }

 private:
  Bytes size_, alignment_;
  Fit fit_;
  Bytes top_ = 0;  // the highest end seen
  Bytes best_ = -1, best_gap_ = std::numeric_limits<Bytes>::max();
};

// One greedy run: `order` one buffer at a time, each at the gap `fit` picks among the buffers
// already placed that live at the same time (TFLM walks them one by one, sorted by offset, ties in
// placement order).
//
// The index hands the walk merged ranges (PlacementIndex::visit_taken) rather than the individual
// buffers: same union, ascending begins. That gives the same offset for every buffer of non-zero
// size. In either walk a gap wider than zero opens exactly where the union has a hole: it runs
// from the highest end seen (the top of the union below the hole) to the next begin (the bottom
// of the union above it); merging only removes gaps zero or fewer bytes wide (touching or
// overlapping neighbours), where such a buffer never fits, and the top stays the same. A
// zero-size buffer fits a zero-byte gap, so under best fit it walks the individual buffers
// (lowest gap puts it at 0 in either walk).
class GreedyRun {
 public:
  GreedyRun(const LayoutProblem& p, const TimeAxis& axis, const std::vector<Bytes>& sizes, PlacementIndex& index)
      : p_(p), axis_(axis), sizes_(sizes), index_(index) {}

  // The plan, or std::nullopt as soon as its arena reaches `give_up_at`: the portfolio keeps a run
  // only when it beats the best so far, and an arena never shrinks as buffers are added.
  // Also std::nullopt once `deadline` (if given) has passed, looked at every kDeadlineEvery buffers.
  std::optional<GreedyPlan> place(const std::vector<int>& order, Fit fit,
                                  Bytes give_up_at = std::numeric_limits<Bytes>::max(),
                                  const Deadline* deadline = nullptr) {
    constexpr int64_t kDeadlineEvery = 1024;
    const int n = static_cast<int>(p_.buffers.size());
    index_.clear();
    seq_of_.assign(n, -1);
    GreedyPlan plan;
    plan.offsets.assign(n, -1);
    int64_t seq = 0;
    for (const Job& job : jobs_in(order)) {
      if (deadline && seq % kDeadlineEvery == 0 && std::chrono::steady_clock::now() >= *deadline) return std::nullopt;
      Bytes offset = 0;
      if (job.fixed_offset) offset = *job.fixed_offset;
      else if (job.size > 0 || fit == Fit::kLowestGap) offset = fit_among_merged(job, fit);
      else offset = fit_among_buffers(job, fit, plan.offsets);
      plan.offsets[job.buffer] = offset;
      seq_of_[job.buffer] = seq++;
      index_.add(job.first, job.end, {offset, offset + job.size}, job.buffer);
      plan.arena_bytes = std::max(plan.arena_bytes, offset + job.size);
      if (plan.arena_bytes >= give_up_at) return std::nullopt;
    }
    return plan;
  }

 private:
  // What placing one buffer needs, copied out in placement order first: the run then reads it
  // sequentially instead of taking several cache misses per buffer in the problem's own arrays.
  struct Job {
    int buffer, first, end;  // first and end: its sections [first, end)
    Bytes size, alignment;
    std::optional<Bytes> fixed_offset;
  };
  const std::vector<Job>& jobs_in(const std::vector<int>& order) {
    jobs_.clear();
    jobs_.reserve(order.size());
    for (int b : order) {
      const LayoutBuffer& buf = p_.buffers[b];
      jobs_.push_back({b, axis_.begin[b], axis_.end[b], sizes_[b], buf.alignment, buf.fixed_offset});
    }
    return jobs_;
  }

  Bytes fit_among_merged(const Job& job, Fit fit) {
    GapWalk walk(job.size, job.alignment, fit);
    index_.visit_taken(job.first, job.end, [&](const AddressRange& r) { return walk.see(r); });
    return walk.offset();
  }

  Bytes fit_among_buffers(const Job& job, Fit fit, const std::vector<Bytes>& offsets) {
    index_.buffers_live_during(job.first, job.end, &live_);
    std::sort(live_.begin(), live_.end(), [&](int x, int y) {
      return offsets[x] != offsets[y] ? offsets[x] < offsets[y] : seq_of_[x] < seq_of_[y];
    });
    GapWalk walk(job.size, job.alignment, fit);
    for (int o : live_)
      if (!walk.see({offsets[o], offsets[o] + sizes_[o]})) break;
    return walk.offset();
  }

  const LayoutProblem& p_;
  const TimeAxis& axis_;
  const std::vector<Bytes>& sizes_;
  PlacementIndex& index_;
  std::vector<Job> jobs_;
  std::vector<int64_t> seq_of_;  // placement order: TFLM keeps equal offsets in the order they were placed
  std::vector<int> live_;
};

// An index for greedy runs over `sizes`; it remembers individual buffers only when some buffer has
// size zero (the only case that needs them, see GreedyRun).
PlacementIndex index_for(const TimeAxis& axis, const std::vector<Bytes>& sizes) {
  int longest = 0;
  for (size_t i = 0; i < axis.begin.size(); ++i) longest = std::max(longest, axis.end[i] - axis.begin[i]);
  return PlacementIndex(axis.sections(), longest, std::find(sizes.begin(), sizes.end(), Bytes{0}) != sizes.end());
}

std::vector<Bytes> plain_sizes(const LayoutProblem& p) {
  std::vector<Bytes> s;
  for (const LayoutBuffer& b : p.buffers) s.push_back(b.size);
  return s;
}

// Fixed buffers in index order, then the others sorted by `before` (a strict weak order).
template <typename Before>
std::vector<int> fixed_then(const LayoutProblem& p, const Before& before) {
  std::vector<int> fixed, online;
  for (int i = 0; i < static_cast<int>(p.buffers.size()); ++i)
    (p.buffers[i].fixed_offset ? fixed : online).push_back(i);
  std::stable_sort(online.begin(), online.end(), before);
  fixed.insert(fixed.end(), online.begin(), online.end());
  return fixed;
}

// A portfolio member's order: fixed buffers first (index order), then the others by x, then y,
// both descending, then by index. That is a strict total order, so sorting copies of the keys
// gives exactly what a stable sort of the indices would, without a cache miss per comparison.
std::vector<int> member_order(const LayoutProblem& p, const std::vector<double>& x, const std::vector<double>& y) {
  struct Keyed {
    double x, y;
    int index;
  };
  std::vector<int> order;
  std::vector<Keyed> online;
  for (int i = 0; i < static_cast<int>(p.buffers.size()); ++i) {
    if (p.buffers[i].fixed_offset) order.push_back(i);
    else online.push_back({x[i], y[i], i});
  }
  std::sort(online.begin(), online.end(), [](const Keyed& a, const Keyed& b) {
    if (a.x != b.x) return a.x > b.x;
    if (a.y != b.y) return a.y > b.y;
    return a.index < b.index;
  });
  for (const Keyed& k : online) order.push_back(k.index);
  return order;
}

std::vector<int> tflm_order(const LayoutProblem& p, const std::vector<Bytes>& sizes) {
  return fixed_then(p, [&](int a, int b) { return sizes[a] != sizes[b] ? sizes[a] > sizes[b] : a > b; });
}

std::vector<Bytes> tflm_sizes(const LayoutProblem& p) {
  std::vector<Bytes> s;
  for (const LayoutBuffer& b : p.buffers) s.push_back(align_up(b.size, 16));
  return s;
}

// Range maximum over sections (iterative segment tree): the busiest moment of a buffer's life.
class RangeMax {
 public:
  explicit RangeMax(const std::vector<Bytes>& v) : n_(v.size()), t_(2 * v.size(), 0) {
    std::copy(v.begin(), v.end(), t_.begin() + n_);
    for (size_t i = n_; i-- > 1;) t_[i] = std::max(t_[2 * i], t_[2 * i + 1]);
  }
  Bytes max(size_t lo, size_t hi) const {  // [lo, hi)
    Bytes m = 0;
    for (lo += n_, hi += n_; lo < hi; lo /= 2, hi /= 2) {
      if (lo & 1) m = std::max(m, t_[lo++]);
      if (hi & 1) m = std::max(m, t_[--hi]);
    }
    return m;
  }

 private:
  size_t n_;
  std::vector<Bytes> t_;
};

GreedyPlan stack_in_order(const LayoutProblem& p) {
  GreedyPlan plan;
  const int n = static_cast<int>(p.buffers.size());
  plan.offsets.assign(n, 0);
  Bytes top = 0;
  for (const LayoutBuffer& b : p.buffers)
    if (b.fixed_offset) top = std::max(top, *b.fixed_offset + b.size);
  for (int i = 0; i < n; ++i) {
    const LayoutBuffer& b = p.buffers[i];
    if (b.fixed_offset) {
      plan.offsets[i] = *b.fixed_offset;
    } else {
      plan.offsets[i] = align_up(top, b.alignment);
      top = plan.offsets[i] + b.size;
    }
  }
  plan.arena_bytes = arena_extent(p, plan.offsets);
  return plan;
}

}  // namespace

GreedyPlan plan_naive(const LayoutProblem& problem) {
  GreedyPlan plan = stack_in_order(problem);
  plan.member = "naive";
  return plan;
}

GreedyPlan plan_linear(const LayoutProblem& problem) {
  GreedyPlan plan = stack_in_order(problem);
  plan.member = "linear";
  return plan;
}

namespace {
GreedyPlan tflm_greedy_with(const LayoutProblem& problem, const TimeAxis& axis, PlacementIndex& index) {
  std::vector<Bytes> sizes = tflm_sizes(problem);
  GreedyPlan plan = *GreedyRun(problem, axis, sizes, index).place(tflm_order(problem, sizes), Fit::kLowestGap);
  plan.member = "tflm-greedy";
  return plan;
}

// The "conflicts" order's key: per buffer, the bytes of the other buffers live at some common
// step. std::nullopt when the conflict graph would hold more than kMaxConflictEntries entries: the
// portfolio then leaves this member out.
//
// Counted from the time axis: the others live with buffer i are all but those gone before it
// starts (end <= begin[i]) and those not yet there when it ends (begin >= end[i]). The sum is exact
// in integers; as a double it equals the old one-by-one sum while every partial sum stays below
// 2^53, so only beyond that (petabyte arenas) does it take the graph as before.
std::optional<std::vector<double>> contention_keys(const LayoutProblem& p, const TimeAxis& axis,
                                                   const std::vector<Bytes>& sizes) {
  const int n = static_cast<int>(p.buffers.size()), sections = axis.sections();
  // Indexed by section k: the buffers (and their bytes) with end <= k, and with begin >= k.
  std::vector<int64_t> count_ended(sections + 1, 0), count_started(sections + 1, 0);
  std::vector<Bytes> bytes_ended(sections + 1, 0), bytes_started(sections + 1, 0);
  Bytes total = 0;
  for (int i = 0; i < n; ++i) {
    ++count_ended[axis.end[i]], bytes_ended[axis.end[i]] += sizes[i];
    ++count_started[axis.begin[i]], bytes_started[axis.begin[i]] += sizes[i];
    total += sizes[i];
  }
  for (int k = 1; k <= sections; ++k) count_ended[k] += count_ended[k - 1], bytes_ended[k] += bytes_ended[k - 1];
  for (int k = sections; k-- > 0;) count_started[k] += count_started[k + 1], bytes_started[k] += bytes_started[k + 1];
  int64_t entries = 0;  // directed conflict-graph entries: each pair live together counts twice
  for (int i = 0; i < n; ++i) entries += n - 1 - count_ended[axis.begin[i]] - count_started[axis.end[i]];
  if (entries > kMaxConflictEntries) return std::nullopt;

  std::vector<double> contention(n, 0.0);
  if (total < (Bytes{1} << 53)) {
    for (int i = 0; i < n; ++i)
      contention[i] = static_cast<double>(total - sizes[i] - bytes_ended[axis.begin[i]] - bytes_started[axis.end[i]]);
  } else {
    ConflictGraph g = *build_conflicts(p, kMaxConflictEntries);
    for (int i = 0; i < n; ++i)
      for (int64_t k = g.row[i]; k < g.row[i + 1]; ++k) contention[i] += static_cast<double>(sizes[g.col[k]]);
  }
  return contention;
}
}  // namespace

GreedyPlan plan_tflm_greedy(const LayoutProblem& problem) {
  const TimeAxis axis = build_time_axis(problem);
  PlacementIndex index = index_for(axis, tflm_sizes(problem));
  return tflm_greedy_with(problem, axis, index);
}

namespace {

// The portfolio: TFLM's greedy run as the first best, then `fallback` if given, then every member,
// each kept only when strictly smaller. With a deadline, a run still going when it passes is
// dropped and no further run starts (so a deadline comes with a fallback).
GreedyPlan run_portfolio(const LayoutProblem& p, std::optional<GreedyPlan> fallback, const Deadline* deadline) {
  const int n = static_cast<int>(p.buffers.size());
  const std::vector<Bytes> sizes = plain_sizes(p);
  const TimeAxis axis = build_time_axis(p);
  RangeMax busiest(axis.live_bytes);
  const std::optional<std::vector<double>> contention = contention_keys(p, axis, sizes);

  // Per-buffer keys; doubles because size x lifetime can exceed int64.
  std::vector<double> size(n), area(n), length(n), busy(n);
  for (int i = 0; i < n; ++i) {
    const LayoutBuffer& b = p.buffers[i];
    size[i] = static_cast<double>(b.size);
    length[i] = static_cast<double>(b.last) - b.first + 1;
    area[i] = size[i] * length[i];
    busy[i] = static_cast<double>(busiest.max(axis.begin[i], axis.end[i]));
  }
  struct Member {
    const char* name;
    const std::vector<double>* primary;
    const std::vector<double>* secondary;
  };
  std::vector<Member> members = {
      {"size", &size, &length},  {"area", &area, &size},         {"lifetime", &length, &size},
      {"busiest", &busy, &size}, {"busiest-area", &busy, &area},
  };
  if (contention) members.push_back({"conflicts", &*contention, &size});

  // No plan is smaller than the most bytes live at once or than a fixed buffer's end: once the
  // best plan is that small, no later member can replace it.
  Bytes bound = 0;
  for (Bytes live : axis.live_bytes) bound = std::max(bound, live);
  for (const LayoutBuffer& b : p.buffers)
    if (b.fixed_offset) bound = std::max(bound, *b.fixed_offset + b.size);

  // One index serves every run (tflm_sizes has a zero exactly where sizes has one). A member's
  // run replaces the best plan only when strictly smaller, so it stops once it is not.
  PlacementIndex index = index_for(axis, sizes);
  auto out_of_time = [&] { return deadline && std::chrono::steady_clock::now() >= *deadline; };
  GreedyPlan best;
  const std::vector<Bytes> tflm = tflm_sizes(p);
  if (std::optional<GreedyPlan> plan = GreedyRun(p, axis, tflm, index)
                                           .place(tflm_order(p, tflm), Fit::kLowestGap,
                                                  std::numeric_limits<Bytes>::max(), deadline)) {
    best = std::move(*plan);
    best.member = "tflm-greedy";
    if (fallback && fallback->arena_bytes < best.arena_bytes) best = std::move(*fallback);
  } else {
    best = std::move(*fallback);  // a deadline is only given with a fallback
  }
  GreedyRun run(p, axis, sizes, index);
  for (const Member& m : members) {
    if (best.arena_bytes <= bound || out_of_time()) break;
    const std::vector<int> order = member_order(p, *m.primary, *m.secondary);
    for (Fit fit : {Fit::kLowestGap, Fit::kBestFit}) {
      if (best.arena_bytes <= bound || out_of_time()) break;
      if (std::optional<GreedyPlan> plan = run.place(order, fit, best.arena_bytes, deadline)) {
        best = std::move(*plan);
        best.member = std::string(m.name) + (fit == Fit::kLowestGap ? "/lowest-gap" : "/best-fit");
      }
    }
  }
  return best;
}

}  // namespace

GreedyPlan plan_portfolio(const LayoutProblem& p) { return run_portfolio(p, std::nullopt, nullptr); }

GreedyPlan improve_with_portfolio(const LayoutProblem& p, GreedyPlan fallback, Deadline deadline) {
  return run_portfolio(p, std::move(fallback), &deadline);
}

int64_t overlapping_pairs(const LayoutProblem& p) {
  // Buffer i overlaps every other buffer except those that end before it starts and those that
  // start after it ends: counted from the sorted firsts and lasts, each pair twice.
  const int64_t n = static_cast<int64_t>(p.buffers.size());
  std::vector<Step> firsts, lasts;
  for (const LayoutBuffer& b : p.buffers) firsts.push_back(b.first), lasts.push_back(b.last);
  std::sort(firsts.begin(), firsts.end());
  std::sort(lasts.begin(), lasts.end());
  int64_t twice = 0;
  for (const LayoutBuffer& b : p.buffers) {
    const int64_t ended = std::lower_bound(lasts.begin(), lasts.end(), b.first) - lasts.begin();
    const int64_t later = firsts.end() - std::upper_bound(firsts.begin(), firsts.end(), b.last);
    twice += n - 1 - ended - later;
  }
  return twice / 2;
}

std::optional<GreedyPlan> plan_online_best_fit(const LayoutProblem& p) {
  const int n = static_cast<int>(p.buffers.size());
  for (const LayoutBuffer& b : p.buffers)
    if (b.fixed_offset) return std::nullopt;
  // Births by first step, largest first (then index); deaths by last step.
  std::vector<int> births(n), deaths(n);
  std::iota(births.begin(), births.end(), 0);
  std::iota(deaths.begin(), deaths.end(), 0);
  std::sort(births.begin(), births.end(), [&](int a, int b) {
    const LayoutBuffer &x = p.buffers[a], &y = p.buffers[b];
    if (x.first != y.first) return x.first < y.first;
    return x.size != y.size ? x.size > y.size : a < b;
  });
  std::sort(deaths.begin(), deaths.end(), [&](int a, int b) {
    return p.buffers[a].last != p.buffers[b].last ? p.buffers[a].last < p.buffers[b].last : a < b;
  });
  // Free blocks below the top, by address (begin -> end) and by (size, begin) for the best fit.
  std::map<Bytes, Bytes> free_at;
  std::set<std::pair<Bytes, Bytes>> by_size;
  Bytes top = 0;  // everything from here up is free
  auto add_free = [&](Bytes begin, Bytes end) {
    auto next = free_at.find(end);
    if (next != free_at.end()) {  // merge with the block above
      end = next->second;
      by_size.erase({next->second - next->first, next->first});
      free_at.erase(next);
    }
    auto below = free_at.lower_bound(begin);
    if (below != free_at.begin() && std::prev(below)->second == begin) {  // and with the block below
      --below;
      begin = below->first;
      by_size.erase({below->second - below->first, below->first});
      free_at.erase(below);
    }
    if (end == top) {
      top = begin;  // the top comes down
      return;
    }
    free_at[begin] = end;
    by_size.insert({end - begin, begin});
  };
  auto take = [&](Bytes size, Bytes alignment) {
    for (auto it = by_size.lower_bound({size, 0}); it != by_size.end(); ++it) {
      const Bytes begin = it->second, end = begin + it->first, at = round_up(begin, alignment);
      if (at + size > end) continue;  // alignment ate the room: a larger block may hold it
      by_size.erase(it);
      free_at.erase(begin);
      if (at > begin) free_at[begin] = at, by_size.insert({at - begin, begin});
      if (at + size < end) free_at[at + size] = end, by_size.insert({end - at - size, at + size});
      return at;
    }
    const Bytes at = round_up(top, alignment);
    if (at > top) free_at[top] = at, by_size.insert({at - top, top});
    top = at + size;
    return at;
  };
  GreedyPlan plan;
  plan.member = "online best fit";
  plan.offsets.assign(n, 0);
  size_t d = 0;
  for (int b : births) {
    const LayoutBuffer& buf = p.buffers[b];
    for (; d < deaths.size() && p.buffers[deaths[d]].last < buf.first; ++d) {
      const int gone = deaths[d];
      if (p.buffers[gone].size > 0 && p.buffers[gone].first <= p.buffers[gone].last)
        add_free(plan.offsets[gone], plan.offsets[gone] + p.buffers[gone].size);
    }
    if (buf.size == 0) continue;  // occupies no byte: offset 0
    plan.offsets[b] = take(buf.size, std::max<Bytes>(buf.alignment, 1));
    plan.arena_bytes = std::max(plan.arena_bytes, plan.offsets[b] + buf.size);
  }
  return plan;
}

}  // namespace arenaplan::planner
