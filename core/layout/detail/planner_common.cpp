#include "core/layout/detail/planner_common.h"

#include <algorithm>
#include <queue>
#include <string>

namespace arenaplan::planner {

TimeAxis build_time_axis(const LayoutProblem& problem) {
  TimeAxis axis;
  const size_t n = problem.buffers.size();
  axis.points.reserve(2 * n);
  for (const LayoutBuffer& b : problem.buffers) {
    axis.points.push_back(b.first);
    axis.points.push_back(static_cast<int64_t>(b.last) + 1);  // half-open end
  }
  std::sort(axis.points.begin(), axis.points.end());
  axis.points.erase(std::unique(axis.points.begin(), axis.points.end()), axis.points.end());
  axis.begin.resize(n);
  axis.end.resize(n);
  const int s = axis.sections();
  std::vector<Bytes> delta(std::max(s, 0) + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    const LayoutBuffer& b = problem.buffers[i];
    auto index = [&](int64_t t) {
      return static_cast<int>(std::lower_bound(axis.points.begin(), axis.points.end(), t) - axis.points.begin());
    };
    axis.begin[i] = index(b.first);
    axis.end[i] = index(static_cast<int64_t>(b.last) + 1);
    delta[axis.begin[i]] += b.size;
    delta[axis.end[i]] -= b.size;
  }
  axis.live_bytes.resize(std::max(s, 0));
  Bytes live = 0;
  for (int i = 0; i < s; ++i) axis.live_bytes[i] = live += delta[i];
  return axis;
}

std::optional<ConflictGraph> build_conflicts(const LayoutProblem& problem, int64_t max_edges) {
  const int n = static_cast<int>(problem.buffers.size());
  std::vector<int> by_first(n);
  for (int i = 0; i < n; ++i) by_first[i] = i;
  std::stable_sort(by_first.begin(), by_first.end(),
                   [&](int a, int b) { return problem.buffers[a].first < problem.buffers[b].first; });
  // Active buffers in a vector with O(1) removal; a min-heap on `last` says who expires next.
  std::vector<int> active, position(n, -1);
  using Expiry = std::pair<Step, int>;
  std::priority_queue<Expiry, std::vector<Expiry>, std::greater<>> expiry;
  std::vector<std::pair<int, int>> edges;
  for (int b : by_first) {
    const Step t = problem.buffers[b].first;
    while (!expiry.empty() && expiry.top().first < t) {
      int gone = expiry.top().second;
      expiry.pop();
      int pos = position[gone];
      position[active.back()] = pos;
      active[pos] = active.back();
      active.pop_back();
      position[gone] = -1;
    }
    if (static_cast<int64_t>(edges.size() + active.size()) * 2 > max_edges) return std::nullopt;
    for (int other : active) edges.emplace_back(other, b);
    position[b] = static_cast<int>(active.size());
    active.push_back(b);
    expiry.emplace(problem.buffers[b].last, b);
  }
  ConflictGraph g;
  g.row.assign(n + 1, 0);
  for (auto [a, b] : edges) ++g.row[a + 1], ++g.row[b + 1];
  for (int i = 0; i < n; ++i) g.row[i + 1] += g.row[i];
  g.col.resize(g.row[n]);
  std::vector<int64_t> fill(g.row.begin(), g.row.end() - 1);
  for (auto [a, b] : edges) g.col[fill[a]++] = b, g.col[fill[b]++] = a;
  return g;
}

void check_problem(const LayoutProblem& problem) {
  LayoutProblem fixed_only;
  std::vector<Bytes> fixed_offsets;
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const LayoutBuffer& b = problem.buffers[i];
    const std::string where = "buffer " + b.name + " (#" + std::to_string(i) + ")";
    if (b.size < 0) throw InputError(where, "size is negative (" + std::to_string(b.size) + ")");
    if (b.alignment < 1) throw InputError(where, "alignment must be at least 1");
    if (b.last < b.first)
      throw InputError(where, "last step " + std::to_string(b.last) + " is before first step " + std::to_string(b.first));
    if (b.fixed_offset) {
      if (*b.fixed_offset < 0) throw InputError(where, "fixed offset is negative");
      if (*b.fixed_offset % b.alignment != 0)
        throw InputError(where, "fixed offset " + std::to_string(*b.fixed_offset) + " is not a multiple of the alignment " +
                                    std::to_string(b.alignment));
      fixed_only.buffers.push_back(b);
      fixed_offsets.push_back(*b.fixed_offset);
    }
  }
  // Every planner's offsets stay below the sum of all sizes plus alignments: keep that far from
  // overflow so the planners need no checks of their own.
  Bytes total = 0;
  for (const LayoutBuffer& b : problem.buffers) {
    const Bytes top = b.fixed_offset ? *b.fixed_offset : 0;
    if (b.size > (Bytes{1} << 60) || b.alignment > (Bytes{1} << 40) || top > (Bytes{1} << 60) ||
        (total += b.size + b.alignment + top) > (Bytes{1} << 61))
      throw InputError("buffer " + b.name, "sizes, offsets or alignments too large (the sum must stay below 2^61 bytes)");
  }
  if (!fixed_only.buffers.empty()) {
    VerifyResult r = verify_plan(fixed_only, fixed_offsets, arena_extent(fixed_only, fixed_offsets));
    if (!r.ok()) throw InputError("fixed offsets", r.message);
  }
}

}  // namespace arenaplan::planner
