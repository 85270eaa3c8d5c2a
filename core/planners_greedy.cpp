#include <algorithm>
#include <limits>
#include <numeric>

#include "core/planner_common.h"
#include "core/planner_greedy.h"

namespace arenaplan::planner {
namespace {

// Beyond this many conflict-graph entries (about 1 GiB) the placement walks all placed buffers.
constexpr int64_t kMaxConflictEntries = int64_t{1} << 27;

enum class Fit { kLowestGap, kBestFit };

// check_problem bounds the sum of all sizes, so no offset here can overflow.
inline Bytes round_up(Bytes v, Bytes a) { return a <= 1 || v % a == 0 ? v : v + a - v % a; }

struct Placed {
  Bytes offset, end;
  int64_t seq;  // placement order: TFLM keeps equal offsets in the order they were placed
};

// Places `order` one buffer at a time among the already placed buffers live at the same time.
// Lowest gap walks them by offset and takes the first gap that holds the buffer (TFLM's rule);
// best fit takes the smallest such gap, the space above everything counting as infinite.
GreedyPlan place(const LayoutProblem& p, const std::vector<Bytes>& sizes, const std::vector<int>& order, Fit fit,
                 const ConflictGraph* conflicts) {
  const int n = static_cast<int>(p.buffers.size());
  GreedyPlan plan;
  plan.offsets.assign(n, -1);
  std::vector<int64_t> seq_of(n, -1);
  std::vector<int> placed_list;
  std::vector<Placed> near;
  int64_t seq = 0;
  for (int b : order) {
    const LayoutBuffer& buf = p.buffers[b];
    Bytes offset = 0;
    if (buf.fixed_offset) {
      offset = *buf.fixed_offset;
    } else {
      near.clear();
      auto consider = [&](int o) {
        if (seq_of[o] >= 0) near.push_back({plan.offsets[o], plan.offsets[o] + sizes[o], seq_of[o]});
      };
      if (conflicts) {
        for (int64_t k = conflicts->row[b]; k < conflicts->row[b + 1]; ++k) consider(conflicts->col[k]);
      } else {
        for (int o : placed_list)
          if (live_together(buf, p.buffers[o])) consider(o);
      }
      std::sort(near.begin(), near.end(), [](const Placed& x, const Placed& y) {
        return x.offset != y.offset ? x.offset < y.offset : x.seq < y.seq;
      });
      const Bytes size = sizes[b];
      Bytes candidate = 0, best = -1, best_gap = std::numeric_limits<Bytes>::max();
      for (const Placed& q : near) {
        if (q.offset - candidate >= size) {
          if (fit == Fit::kLowestGap) {
            best = candidate;
            break;
          }
          if (q.offset - candidate < best_gap) best = candidate, best_gap = q.offset - candidate;
        }
        candidate = std::max(candidate, round_up(q.end, buf.alignment));
      }
      offset = best >= 0 ? best : candidate;
    }
    plan.offsets[b] = offset;
    seq_of[b] = seq++;
    placed_list.push_back(b);
    plan.arena_bytes = std::max(plan.arena_bytes, offset + sizes[b]);
  }
  return plan;
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
GreedyPlan tflm_greedy_with(const LayoutProblem& problem, const ConflictGraph* conflicts) {
  std::vector<Bytes> sizes = tflm_sizes(problem);
  GreedyPlan plan = place(problem, sizes, tflm_order(problem, sizes), Fit::kLowestGap, conflicts);
  plan.member = "tflm-greedy";
  return plan;
}
}  // namespace

GreedyPlan plan_tflm_greedy(const LayoutProblem& problem) {
  auto conflicts = build_conflicts(problem, kMaxConflictEntries);
  return tflm_greedy_with(problem, conflicts ? &*conflicts : nullptr);
}

GreedyPlan plan_portfolio(const LayoutProblem& p) {
  const int n = static_cast<int>(p.buffers.size());
  auto conflicts = build_conflicts(p, kMaxConflictEntries);
  const ConflictGraph* g = conflicts ? &*conflicts : nullptr;
  const std::vector<Bytes> sizes = plain_sizes(p);
  TimeAxis axis = build_time_axis(p);
  RangeMax busiest(axis.live_bytes);

  // Per-buffer keys; doubles because size x lifetime can exceed int64.
  std::vector<double> size(n), area(n), length(n), contention(n), busy(n);
  for (int i = 0; i < n; ++i) {
    const LayoutBuffer& b = p.buffers[i];
    size[i] = static_cast<double>(b.size);
    length[i] = static_cast<double>(b.last) - b.first + 1;
    area[i] = size[i] * length[i];
    busy[i] = static_cast<double>(busiest.max(axis.begin[i], axis.end[i]));
    if (g)
      for (int64_t k = g->row[i]; k < g->row[i + 1]; ++k) contention[i] += static_cast<double>(sizes[g->col[k]]);
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
  if (g) members.push_back({"conflicts", &contention, &size});

  GreedyPlan best = tflm_greedy_with(p, g);
  for (const Member& m : members) {
    const std::vector<double>&x = *m.primary, &y = *m.secondary;
    std::vector<int> order = fixed_then(p, [&](int a, int b) {
      if (x[a] != x[b]) return x[a] > x[b];
      if (y[a] != y[b]) return y[a] > y[b];
      return a < b;
    });
    for (Fit fit : {Fit::kLowestGap, Fit::kBestFit}) {
      GreedyPlan plan = place(p, sizes, order, fit, g);
      if (plan.arena_bytes < best.arena_bytes) {
        best = std::move(plan);
        best.member = std::string(m.name) + (fit == Fit::kLowestGap ? "/lowest-gap" : "/best-fit");
      }
    }
  }
  return best;
}

}  // namespace arenaplan::planner
