// The budget report, in JSON (CLI --json, the browser's exported state, tests) and as text. It
// keeps the article's three answers apart: which data coexist (lifetimes), where they are placed
// (regions and offsets), and how much room is left for the system (per-region free bytes), plus
// what a real measurement would need to reproduce the numbers.
#pragma once

#include <string>
#include <vector>

#include "core/budget/board.h"
#include "core/budget/budget.h"
#include "core/graph/report.h"

namespace arenaplan {

// Typed pieces of the report for views that draw it (the Budget panel) instead of reading JSON.
// Answer 1, which data coexist (lifetimes only, independent of any placement): the peak and,
// when the order has steps, the op it happens during and the buffers live then.
struct BudgetCoexist {
  Bytes peak_bytes = 0;
  Step peak_step = -1;                    // -1 for an empty order
  std::string peak_op;                    // "" for an empty order
  std::vector<std::string> peak_buffers;  // buffer names live at the peak
};
BudgetCoexist budget_coexist(const Graph& g, const LiveAnalysis& live);
// The buffers live at the peak as the reports write them: "input + A:out + B:out".
std::string peak_buffers_text(const BudgetCoexist& c);
// Answer 3, the room left for the system: over the board's regions, their total size and the
// sum of their free bytes (negative when the firmware overflows).
struct BudgetRoom {
  Bytes total_bytes = 0;
  Bytes free_bytes = 0;
};
BudgetRoom budget_room(const MemoryMap& board, const Budget& b);
// An address as the report spells it: "0x20000000".
std::string address_text(uint64_t address);

// The `arenaplan budget --json` contract:
// {"fits", "regions": [{"name", "size_bytes", "used_bytes", "free_bytes", "items": [{"owner",
//  "bytes", ...}], ...}], "arena_bytes", "outside_arena_bytes", "reason" (only when it does not
//  fit), "coexist", "placement", "room", "caller_owned", "measurement", "warnings"}.
JsonOut budget_json(const Graph& g, const LiveAnalysis& live, const MemoryMap& board, const Budget& b);

// Human-readable report for the CLI text mode.
std::string budget_text(const Graph& g, const LiveAnalysis& live, const MemoryMap& board, const Budget& b);

}  // namespace arenaplan
