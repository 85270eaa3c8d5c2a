// Firmware budget over a board's memory map: does the whole firmware fit, with the tensor arena
// split into one arena per region as the placement constraints demand?
//
// Usage:
//   LiveAnalysis live = analyze_lifetimes(graph, order);
//   Budget b = plan_budget(graph, live, board, {});
//   // b.fits, b.reason, b.regions[r].used_bytes / free_bytes, b.placements[i] for live.buffers[i]
//
// Accounting inside one region (addresses grow to the right):
//   [ always-reservations | padding | arena | phase overlay ]
// The phase overlay holds init-only and inference-only reservations at the same addresses, since
// initialisation and inference never run at once: a region needs
//   always + padding + arena + max(init extra, inference extra),
// not the sum of every maximum. Init temporaries marked in_arena borrow the (still idle) arena
// and cost only what exceeds it.
#pragma once

#include <string>
#include <vector>

#include "core/budget/board.h"
#include "core/graph/graph.h"
#include "core/layout/layout.h"
#include "core/graph/lifetime.h"

namespace arenaplan {

// What to do with per-op scratch (docs/DESIGN.md's 48 KiB during D).
enum class ScratchPolicy {
  kInArena,   // an ordinary short-lived arena buffer: the planner builds a new layout around it
  kSeparate,  // keep the layout of the other buffers; scratch goes in a hole during its op if one
              // is large enough, else in a separate reservation (the conservative answer)
};
const char* scratch_policy_name(ScratchPolicy p);

struct BudgetOptions {
  PlanOptions plan;                           // planner for the final per-region arenas
  std::string search_planner = "portfolio";   // fast planner for trying buffer moves between regions
  ScratchPolicy scratch = ScratchPolicy::kInArena;
  // Trial plans the region repair always runs (while it still helps) before the time limit may
  // stop it: the page sets it so that a slow or busy machine gives the answer a fast one gives.
  // 0: the time limit alone decides (the CLI, which honours --time-limit).
  size_t repair_min_trials = 0;
};

// One line of a region's use: the arena, a board reservation, alignment padding or separate scratch.
struct BudgetItem {
  std::string owner;  // "tensor arena", "main stack", "scratch D:scratch (separate)", ...
  std::string kind;   // "arena", "padding", "scratch" or a ReservationKind name
  Bytes bytes = 0;
  Phase phase = Phase::kAlways;
  bool in_arena = false;  // init temporary borrowing the arena's space
  int reservation = -1;   // index into MemoryMap::reservations, -1 otherwise
  Bytes offset = 0;       // from the region base
};

struct RegionBudget {
  RegionId region = 0;
  std::vector<int> buffers;          // LiveAnalysis buffers planned in this region's arena
  std::vector<int> separate_scratch; // scratch buffers in this region's separate reservation
  LayoutProblem problem;             // the arena's buffers (index i <-> buffers[i], then hole scratch)
  std::vector<Bytes> offsets;        // per problem buffer, verified
  std::string planner;               // plan.planner of the arena ("" when the arena is empty)
  bool proven_optimal = true;
  Bytes arena_bytes = 0;             // this region's arena
  Bytes lower_bound_bytes = 0;       // its live-bytes lower bound
  Bytes arena_offset = 0;            // arena start from the region base (after always + padding)
  std::vector<BudgetItem> items;
  Bytes init_bytes = 0;              // in use during initialisation
  Bytes inference_bytes = 0;         // in use during inference
  Bytes used_bytes = 0;              // max of the two phases
  Bytes free_bytes = 0;              // size - used; negative when it overflows
};

struct BufferPlacement {
  RegionId region = -1;       // -1: no region satisfies its constraints
  Bytes offset = 0;           // in the region's arena (or in the separate scratch reservation)
  uint64_t address = 0;       // region base + where the arena (or reservation) starts + offset
  bool separate = false;      // scratch kept in a separate reservation
  std::vector<int> constraints;  // indices of the board constraints that select this buffer
};

// What a real measurement on the device would need to reproduce these numbers.
struct MeasurementRecord {
  std::string model_hash;     // "fnv1a64:..." of the canonical graph JSON
  std::string board_hash;     // "fnv1a64:..." of the canonical board JSON
  Bytes alignment = 0;
  std::string input_policy;   // "in_arena", "caller_owned", "retained"
  struct Input {
    std::string name;
    Bytes bytes = 0;          // upper bound when the shape is symbolic
    std::string shape;        // "[N<=8, 16, 16, 3] int8", "" for byte-sized tensors
  };
  std::vector<Input> inputs;
  std::string order;          // op names, comma-separated
  std::string planner;        // requested planner, and per region what produced the arena
  std::string scratch_policy;
  std::string tool_version;   // ARENAPLAN_VERSION
};

struct Budget {
  bool fits = false;
  std::string reason;  // the first thing that makes it not fit; "" when it fits
  std::vector<std::string> warnings;  // e.g. a constraint naming a tensor this graph lacks
  std::vector<RegionBudget> regions;  // one per board region, board order
  std::vector<BufferPlacement> placements;  // per LiveAnalysis buffer
  Bytes arena_bytes = 0;          // sum of the per-region arenas
  Bytes outside_arena_bytes = 0;  // sum over regions of used - arena (reservations at real overlap)
  Bytes caller_owned_bytes = 0;   // graph inputs the application owns: not counted anywhere
  std::vector<TensorId> caller_owned;
  MeasurementRecord measurement;
};

// Assigns each arena buffer a region (constraints first, then the board's arena_regions, moving
// buffers between allowed regions while that reduces the overflow), plans one verified arena per
// region and accounts every region. Never throws for "does not fit": that is Budget::reason.
Budget plan_budget(const Graph& g, const LiveAnalysis& live, const MemoryMap& board, const BudgetOptions& options);

// FNV-1a 64 of a text as "fnv1a64:0123456789abcdef" (model and board fingerprints).
std::string fingerprint(const std::string& text);

}  // namespace arenaplan
