// Deterministic random layout problems for the layout tests and benchmark (the schedule side has
// core/schedule/schedule_generators.h).
#pragma once

#include <cstdint>

#include "core/layout/layout.h"

namespace arenaplan {

// `n` buffers, sizes 16 B .. 64 KiB in 16-byte units, alignment 16. Not dense ("nn"): one buffer
// per step as in a real network, most living 1-3 steps, some skips 4-20, a few 50-500. Dense: two
// buffers per step, most living 1-3 steps, some 4-63, and 2 % live `long_min` up to
// `long_min + long_span - 1` steps (tens of buffers live at once).
LayoutProblem random_layout_problem(int n, uint32_t seed, bool dense, int long_min = 200, int long_span = 2000);

}  // namespace arenaplan
