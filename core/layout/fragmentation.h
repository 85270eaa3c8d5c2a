// How much of an arena a plan wastes, and where: the free address ranges (holes) at each moment,
// and the article's question for an existing placement: does a scratch buffer of S bytes fit
// contiguously in the holes during op X, and if not, what does a separate reservation cost?
#pragma once

#include <vector>

#include "core/layout/layout.h"

namespace arenaplan {

struct Hole {
  Bytes begin = 0, end = 0;  // [begin, end) inside the arena
  Bytes bytes() const { return end - begin; }
};

// The holes from `first` to `last` (inclusive): the same buffers are live at every step between.
struct SectionHoles {
  Step first = 0, last = 0;
  Bytes live_bytes = 0;
  std::vector<Hole> holes;  // ascending, maximal
  Bytes largest_hole = 0;
};

struct FragmentationReport {
  Bytes arena_bytes = 0;
  Bytes lower_bound_bytes = 0;
  Bytes excess_bytes = 0;      // arena - bound: what fragmentation costs this plan
  double excess_percent = 0;   // of the bound
  std::vector<SectionHoles> sections;  // time in order, one entry per run of identical live sets
};

FragmentationReport fragmentation_report(const LayoutProblem& problem, const std::vector<Bytes>& offsets,
                                         Bytes arena_bytes);
// The headline figures only (arena, bound, excess), without `sections`: the holes of every
// section cost as much as all live sets together (gigabytes for a plan of 100,000 buffers with
// thousands live at once), and a one-line summary needs none of them.
FragmentationReport fragmentation_summary(const LayoutProblem& problem, Bytes arena_bytes);

// The holes in [0, arena_bytes) at one step.
std::vector<Hole> holes_at(const LayoutProblem& problem, const std::vector<Bytes>& offsets, Bytes arena_bytes, Step step);
// The holes free during every step of [first, last].
std::vector<Hole> holes_during(const LayoutProblem& problem, const std::vector<Bytes>& offsets, Bytes arena_bytes,
                               Step first, Step last);

struct ScratchFit {
  bool fits = false;             // some hole holds it (after aligning its start)
  Bytes offset = -1;             // where it would go: the lowest hole that holds it
  Bytes largest_hole = 0;        // the largest hole during the step
  Bytes reservation_arena = 0;   // arena + S: the conservative answer when it does not fit
};

// Does a scratch of `scratch_bytes` (offset a multiple of `alignment`) fit in the holes of the
// existing placement during `step`, without moving any buffer? The one rule for it: the Budget's
// separate-scratch policy places scratch with the range form below.
ScratchFit scratch_fit(const LayoutProblem& problem, const std::vector<Bytes>& offsets, Bytes arena_bytes, Step step,
                       Bytes scratch_bytes, Bytes alignment = 16);
// The same for a scratch live during every step of [first, last].
ScratchFit scratch_fit(const LayoutProblem& problem, const std::vector<Bytes>& offsets, Bytes arena_bytes, Step first,
                       Step last, Bytes scratch_bytes, Bytes alignment);

nlohmann::ordered_json fragmentation_json(const FragmentationReport& report);

}  // namespace arenaplan
