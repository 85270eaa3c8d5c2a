// Arena layout: where each buffer sits in one static arena. Planners behind one small interface
// (like TFLM's MemoryPlanner), an independent verifier, and the plan every other unit consumes.
//
// Usage:
//   LiveAnalysis live = analyze_lifetimes(graph, order);
//   ArenaPlan plan = plan_arena(layout_problem(graph, live), {.planner = "best"});
//   // plan.offsets[i] is the offset of live.buffers[i]; plan.verified is always true here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/lifetime.h"

namespace arenaplan {

// One buffer to place: size, alignment, inclusive lifetime, optional fixed (offline) offset.
struct LayoutBuffer {
  std::string name;
  Bytes size = 0;        // bytes (already rounded up to what the arena needs)
  Bytes alignment = 16;  // offset must be a multiple of this
  Step first = 0;        // first step live (inclusive)
  Step last = 0;         // last step live (inclusive)
  std::optional<Bytes> fixed_offset;  // offline-planned: the planner must keep it
};

struct LayoutProblem {
  std::vector<LayoutBuffer> buffers;
};

// Buffers of a LiveAnalysis in the same order (index i <-> live.buffers[i]).
LayoutProblem layout_problem(const Graph& g, const LiveAnalysis& live);

struct ArenaPlan {
  std::string planner;            // "naive", "linear", "tflm-greedy", "portfolio", "exact", "best"
  std::vector<Bytes> offsets;     // per LayoutProblem buffer
  Bytes arena_bytes = 0;          // max over buffers of offset + size
  Bytes lower_bound_bytes = 0;    // max over steps of live bytes (no plan can be smaller)
  bool proven_optimal = false;    // arena_bytes == lower bound, or the exact search was exhaustive
  bool verified = false;          // the independent verifier accepted it
  double seconds = 0;             // planning time
};

struct PlanOptions {
  std::string planner = "best";
  double time_limit_seconds = 5.0;  // for exact / best
};

// Plans and verifies; throws InputError for an unknown planner name. Never returns an unverified
// plan (a verifier failure is an internal error: std::logic_error naming the broken rule).
ArenaPlan plan_arena(const LayoutProblem& problem, const PlanOptions& options);

// The independent verifier (MiniMalloc's validator style): which rule broke, for which buffers.
enum class VerifyRule { kOk, kBadCount, kBadFixedOffset, kBadAlignment, kNegativeOffset, kBadArenaBound, kOverlap };
struct VerifyResult {
  VerifyRule rule = VerifyRule::kOk;
  int buffer_a = -1, buffer_b = -1;  // the offending buffer(s)
  std::string message;               // e.g. "buffers B and D overlap at steps 3..3, bytes 32768..98303"
  bool ok() const { return rule == VerifyRule::kOk; }
};
VerifyResult verify_plan(const LayoutProblem& problem, const std::vector<Bytes>& offsets, Bytes arena_bytes);

}  // namespace arenaplan
