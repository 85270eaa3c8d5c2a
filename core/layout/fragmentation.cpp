#include "core/layout/fragmentation.h"

#include <algorithm>

#include "core/layout/detail/planner_common.h"

namespace arenaplan {
namespace {

std::vector<Hole> free_ranges(std::vector<std::pair<Bytes, Bytes>> used, Bytes arena) {
  std::sort(used.begin(), used.end());
  std::vector<Hole> holes;
  Bytes cursor = 0;
  for (auto [b, e] : used) {
    if (b > cursor) holes.push_back({cursor, std::min(b, arena)});
    cursor = std::max(cursor, e);
  }
  if (cursor < arena) holes.push_back({cursor, arena});
  return holes;
}

}  // namespace

std::vector<Hole> holes_at(const LayoutProblem& p, const std::vector<Bytes>& offsets, Bytes arena, Step step) {
  return holes_during(p, offsets, arena, step, step);
}

std::vector<Hole> holes_during(const LayoutProblem& p, const std::vector<Bytes>& offsets, Bytes arena, Step first,
                               Step last) {
  std::vector<std::pair<Bytes, Bytes>> used;
  for (size_t i = 0; i < p.buffers.size() && i < offsets.size(); ++i) {
    const LayoutBuffer& b = p.buffers[i];
    if (b.first <= last && first <= b.last && b.size > 0) used.emplace_back(offsets[i], offsets[i] + b.size);
  }
  return free_ranges(std::move(used), arena);
}

FragmentationReport fragmentation_summary(const LayoutProblem& p, Bytes arena) {
  FragmentationReport r;
  r.arena_bytes = arena;
  r.lower_bound_bytes = layout_lower_bound(p);
  r.excess_bytes = arena - r.lower_bound_bytes;
  r.excess_percent = r.lower_bound_bytes > 0 ? 100.0 * static_cast<double>(r.excess_bytes) / r.lower_bound_bytes : 0.0;
  return r;
}

FragmentationReport fragmentation_report(const LayoutProblem& p, const std::vector<Bytes>& offsets, Bytes arena) {
  FragmentationReport r = fragmentation_summary(p, arena);
  planner::TimeAxis axis = planner::build_time_axis(p);
  // Buffers starting in each section; a sweep keeps the live set.
  std::vector<std::vector<int>> starting(axis.sections());
  for (size_t i = 0; i < p.buffers.size(); ++i)
    if (axis.begin[i] < axis.end[i]) starting[axis.begin[i]].push_back(static_cast<int>(i));
  std::vector<int> live;
  for (int s = 0; s < axis.sections(); ++s) {
    live.erase(std::remove_if(live.begin(), live.end(), [&](int i) { return axis.end[i] <= s; }), live.end());
    live.insert(live.end(), starting[s].begin(), starting[s].end());
    SectionHoles sh;
    sh.first = static_cast<Step>(axis.points[s]);
    sh.last = static_cast<Step>(axis.points[s + 1] - 1);
    sh.live_bytes = axis.live_bytes[s];
    std::vector<std::pair<Bytes, Bytes>> used;
    for (int i : live)
      if (p.buffers[i].size > 0) used.emplace_back(offsets[i], offsets[i] + p.buffers[i].size);
    sh.holes = free_ranges(std::move(used), arena);
    for (const Hole& h : sh.holes) sh.largest_hole = std::max(sh.largest_hole, h.bytes());
    r.sections.push_back(std::move(sh));
  }
  return r;
}

ScratchFit scratch_fit(const LayoutProblem& p, const std::vector<Bytes>& offsets, Bytes arena, Step step, Bytes scratch,
                       Bytes alignment) {
  return scratch_fit(p, offsets, arena, step, step, scratch, alignment);
}

ScratchFit scratch_fit(const LayoutProblem& p, const std::vector<Bytes>& offsets, Bytes arena, Step first, Step last,
                       Bytes scratch, Bytes alignment) {
  ScratchFit fit;
  fit.reservation_arena = arena + align_up(scratch, std::max<Bytes>(alignment, 1));
  for (const Hole& h : holes_during(p, offsets, arena, first, last)) {
    fit.largest_hole = std::max(fit.largest_hole, h.bytes());
    const Bytes start = align_up(h.begin, std::max<Bytes>(alignment, 1));
    if (!fit.fits && start + scratch <= h.end) {
      fit.fits = true;
      fit.offset = start;
    }
  }
  return fit;
}

nlohmann::ordered_json fragmentation_json(const FragmentationReport& r) {
  nlohmann::ordered_json out;
  out["arena_bytes"] = r.arena_bytes;
  out["lower_bound_bytes"] = r.lower_bound_bytes;
  out["excess_bytes"] = r.excess_bytes;
  out["excess_percent"] = r.excess_percent;
  nlohmann::ordered_json sections = nlohmann::ordered_json::array();
  for (const SectionHoles& s : r.sections) {
    nlohmann::ordered_json holes = nlohmann::ordered_json::array();
    for (const Hole& h : s.holes) holes.push_back({h.begin, h.end});
    sections.push_back({{"first", s.first}, {"last", s.last}, {"live_bytes", s.live_bytes},
                        {"largest_hole", s.largest_hole}, {"holes", holes}});
  }
  out["sections"] = sections;
  return out;
}

}  // namespace arenaplan
