// The exact planner: MiniMalloc-style branch and bound (Moffitt, "MiniMalloc", ASPLOS 2023),
// written for time slicing. It decides "do all buffers fit below capacity C?" by depth-first
// placement at each buffer's lowest feasible offset, buffers taken in non-decreasing offset order
// (canonical solutions), with per-section capacity pruning (each section's floor raised to the
// lowest offset its unplaced buffers can take, updated incrementally per placement), a dominance
// rule (never leave a gap an unplaced buffer could fill), symmetry breaking (buffers of the same
// size, alignment and life placed in id order) and splitting the problem wherever no unplaced
// buffer spans a time boundary. Around that decision it searches on C, restarting with doubling node limits and several
// static orders, always holding the best verified plan and a proven lower bound.
//
// Usage (the browser calls step() once per frame; plan_arena calls run_for()):
//   ExactSolver solver(problem, greedy.offsets, greedy.arena_bytes);
//   while (!solver.done()) solver.step(20000);     // or solver.run_for(5.0)
//   solver.best_so_far();  solver.best_arena_bytes();  solver.proven_optimal();
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/layout/layout.h"

namespace arenaplan {

// One exhaustive attempt at a fixed capacity, without the search on the capacity around it: "do
// all buffers fit within `capacity` bytes?". kDoesNotFit is a proof (the search is complete over
// canonical plans, see above); kUnknown means `node_limit` ran out first. `heuristic` picks the
// static order (0..2: MiniMalloc's three; only the time to a verdict depends on it). For lower
// bounds on sub-problems (bench/certify_bound.cpp) and for searching straight at a known capacity.
enum class CapacityVerdict { kFits, kDoesNotFit, kUnknown };
struct CapacityDecision {
  CapacityVerdict verdict = CapacityVerdict::kUnknown;
  std::vector<Bytes> offsets;  // a verified plan within the capacity when kFits
  int64_t nodes = 0;
};
CapacityDecision decide_capacity(const LayoutProblem& problem, Bytes capacity, int64_t node_limit, int heuristic = 0);

class ExactSolver {
 public:
  // `seed_offsets` must be a verified plan of `problem` with arena `seed_arena`: the solver only
  // ever replaces it with a smaller verified one. Problems with fixed offsets are not searched (the
  // seed is kept and done() is true at once); zero-size buffers are placed at 0.
  ExactSolver(const LayoutProblem& problem, std::vector<Bytes> seed_offsets, Bytes seed_arena);
  ~ExactSolver();
  ExactSolver(const ExactSolver&) = delete;
  ExactSolver& operator=(const ExactSolver&) = delete;

  // Expands up to `nodes` search nodes. Returns !done().
  bool step(int64_t nodes);
  // Steps until done, cancelled or `seconds` of wall time have passed.
  void run_for(double seconds);
  void cancel();

  bool done() const;
  bool proven_optimal() const;            // best == proven lower bound
  double progress() const;                // 0..1: share of the initial gap closed (1 when optimal)
  const std::vector<Bytes>& best_so_far() const;
  Bytes best_arena_bytes() const;
  Bytes lower_bound_bytes() const;        // live-bytes bound, raised by capacities proven infeasible
  Bytes trying_capacity() const;          // the capacity the current attempt asks for
  int64_t nodes() const;                  // nodes expanded so far
  std::string status_text() const;        // "optimal (bound met)", "stopped: 1.9 % above the bound", ...
  // Why no smaller arena exists, in one sentence; empty unless proven_optimal(). The bound is the
  // live bytes rounded up to the granularity (every size and alignment a multiple of it, so every
  // canonical arena too), raised past each capacity an exhaustive search found infeasible.
  std::string optimality_proof() const;
  Bytes granularity() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  friend CapacityDecision decide_capacity(const LayoutProblem&, Bytes, int64_t, int);
};

}  // namespace arenaplan
