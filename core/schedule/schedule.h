// Operator schedules: every topological order with its peak, how many there are, the
// order with the smallest peak live bytes and a proof (or a gap) for it.
//
// Every peak here is the peak of analyze_lifetimes(g, order): the search uses an incremental model
// of the same semantics (checked against analyze_lifetimes in the tests) and re-evaluates every
// order it returns with analyze_lifetimes.
//
// Usage:
//   ScheduleSearch search(graph, {});            // anytime: heuristics, then exact search
//   while (!search.done()) search.step(20000);   // a frame's worth of states in the browser
//   ScheduleResult r = search.result();          // r.order feeds analyze_lifetimes/layout as is
// or, with a time limit: ScheduleResult r = optimize_schedule(graph, 10.0, {});
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "core/graph/lifetime.h"

namespace arenaplan {

// ---- Counting -------------------------------------------------------------------------------

// The number of topological orders (respecting op_predecessors), by dynamic programming over
// down-sets (sets of executed ops closed under predecessors), one level of set size at a time.
struct OrderCount {
  unsigned __int128 value = 0;  // exact when status == kExact or kMoreThan2To63
  enum class Status {
    kExact,          // value is the count and fits in 63 bits
    kMoreThan2To63,  // value is exact but does not fit an int64 (JSON gets the decimal text)
    kOverflow,       // more than 2^128 - 1 orders: value saturated
    kTooManyStates,  // a level of the DP had more down-sets than the cap: unknown
  } status = Status::kExact;
  int64_t states = 0;      // down-sets visited
  int64_t max_level = 0;   // widest level (down-sets of one size) held at once
  int64_t state_cap = 0;   // the cap on one level's down-sets
  bool exact() const { return status == Status::kExact; }
  std::string text() const;  // "6", "1234...(decimal)", "more than 2^128", "unknown (...)"
};

// Counts topological orders; gives up (kTooManyStates) when one level exceeds `max_level_states`.
OrderCount count_orders(const Graph& g, int64_t max_level_states = int64_t{1} << 21);

// Decimal text of an unsigned 128-bit integer.
std::string u128_text(unsigned __int128 v);

// ---- Enumeration ----------------------------------------------------------------------------

// Walks every topological order once, lexicographically by op index (the file order comes first),
// never holding more than one order: depth-first with one live-set model per prefix.
class OrderEnumerator {
 public:
  explicit OrderEnumerator(const Graph& g);
  ~OrderEnumerator();
  OrderEnumerator(const OrderEnumerator&) = delete;
  OrderEnumerator& operator=(const OrderEnumerator&) = delete;

  // Advances to the next order; false once every order was visited.
  bool next();
  const Schedule& order() const;
  Bytes peak() const;  // equals analyze_lifetimes(g, order()).peak_bytes
  int64_t visited() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

struct OrderPeak {
  Schedule order;
  Bytes peak_bytes = 0;
};

struct Enumeration {
  OrderCount count;
  std::vector<OrderPeak> orders;  // the first `limit` orders in enumeration order
  int64_t scanned = 0;            // orders whose peak was computed (>= orders.size())
  bool scanned_all = false;       // min/max below are over every order
  Bytes min_peak_bytes = 0;       // over the scanned orders
  Bytes max_peak_bytes = 0;
};

// Lists up to `limit` orders and scans up to `scan_limit` for the min and max peak; the count
// gives up beyond `count_level_cap` down-sets of one size (a few seconds at most).
Enumeration enumerate_orders(const Graph& g, int64_t limit = 1000, int64_t scan_limit = 100000,
                             int64_t count_level_cap = int64_t{1} << 17);

// ---- Bounds ---------------------------------------------------------------------------------

// A lower bound on the peak of every order: for each op, what must be live while it runs in any
// order (inputs, outputs, scratch, persistent state, tensors produced by an ancestor and read by a
// descendant, graph outputs already produced), and the first step's graph inputs.
struct LowerBound {
  Bytes bytes = 0;
  OpId op = -1;                  // the op whose step attains it (-1: the first step's inputs)
  std::vector<TensorId> tensors; // tensors that coexist in every order during that op
};
LowerBound schedule_lower_bound(const Graph& g);

// A lower bound from the end of the schedule: whatever the order, tensors kept to the end are all
// live during its last steps. A best-first search over the sets of ops that run last, by the
// highest step among them (schedule_suffix.cpp proves it), stopped after `max_expansions` sets or
// at `memory_cap_bytes`. One expansion gives "the cheapest possible last step"; when the search
// finishes, `optimal` says `bytes` is the minimum peak and `order` attains it (equal to
// analyze_lifetimes' peak unless the graph has asynchronous reads, where it is a lower bound).
struct SuffixBound {
  Bytes bytes = 0;
  bool optimal = false;
  Schedule order;      // empty unless optimal
  int64_t expansions = 0;
};
SuffixBound suffix_lower_bound(const Graph& g, int64_t max_expansions,
                               int64_t memory_cap_bytes = int64_t{64} << 20);

// A stronger per-op bound by minimum cuts (schedule_cut_bound.cpp proves it): while an op runs,
// the ops already run hold its ancestors and none of its descendants; the fewest bytes any such
// set leaves live, plus the op's outputs, scratch and persistent state, is below every order's
// step for that op. Ops are tried from the most promising; `complete` says every op was either cut
// or could not beat the bound; stopping at `time_limit_seconds` keeps a valid (weaker) bound.
// The certificate: the op, its own bytes, and the tensors live in the cheapest set before it.
struct CutBound {
  Bytes bytes = 0;
  OpId op = -1;
  Bytes own_bytes = 0;                // persistent state + op's outputs + scratch
  std::vector<TensorId> live_before;  // the cheapest set's live tensors: bytes - own_bytes
  bool complete = false;
  int64_t cuts = 0;                   // minimum cuts computed
  double seconds = 0;
};
CutBound cut_lower_bound(const Graph& g, double time_limit_seconds);

// For small graphs (at most `max_orders` orders), why no order peaks below `optimum`: the cases
// every order falls into, each naming the tensors that must coexist and why they are still live.
// Empty when the graph has too many orders.
std::string explain_optimum(const Graph& g, Bytes optimum, int64_t max_orders = 5000);

// ---- Heuristics -----------------------------------------------------------------------------

// Peak of an order under analyze_lifetimes, or nullopt when analyze_lifetimes rejects it (an
// in-place overwrite of a tensor an asynchronous read still needs).
std::optional<Bytes> order_peak(const Graph& g, const Schedule& order);

// Fast repeated peak evaluation (random-order baselines, local search): the set model walked
// along the order, O(sum of op degrees). Equal to analyze_lifetimes' peak when exact() (no
// asynchronous reads); otherwise a lower bound on it.
class PeakEvaluator {
 public:
  explicit PeakEvaluator(const Graph& g);
  ~PeakEvaluator();
  PeakEvaluator(const PeakEvaluator&) = delete;
  PeakEvaluator& operator=(const PeakEvaluator&) = delete;
  bool exact() const;
  Bytes peak(const Schedule& order) const;  // the order must be valid (check_order)

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Naive greedy: at each step run the ready op with the smallest footprint (live bytes while it
// runs), ties to the smaller op index. A baseline, never checked against the file order.
Schedule greedy_smallest_footprint(const Graph& g);

// A random topological order: each step picks uniformly among the ready ops (not uniform over
// orders). Deterministic for a seed.
Schedule random_topological_order(const Graph& g, uint64_t seed);

// Many random orders of one graph without rebuilding its predecessor lists each time.
class RandomOrderSampler {
 public:
  RandomOrderSampler(const Graph& g, uint64_t seed);
  Schedule next();

 private:
  std::vector<std::vector<OpId>> succs_;
  std::vector<int> pred_count_;
  uint64_t rng_;
};

// Moves every op that reads only constants (and has no scratch) to just before its first
// consumer: never raises the peak, and it is the normal form the exact search works in.
Schedule sink_constant_ops(const Graph& g, const Schedule& order);

// ---- Optimisation ---------------------------------------------------------------------------

struct ScheduleOptions {
  // Hard cap on the memory the search holds (state tables, queues, beams), in bytes.
  int64_t memory_cap_bytes = int64_t{256} << 20;
  // Run the exact search only when the graph has at most this many ops (after sinking constant
  // ops); bigger graphs go straight to the anytime beam search.
  int exact_max_ops = 400;
  // The exact search gives up (keeping its lower bound) after this many states, leaving the
  // rest of the time to the beam search: wide graphs have far too many sets to finish.
  int64_t exact_max_states = 150000;
  // Beam widths tried before the exact search starts (a good incumbent prunes it hard).
  int64_t warmup_beam_width = 16;
  uint64_t seed = 1;
  // optimize_schedule stops after about this many states (0: the time limit alone). Unlike a time
  // limit it gives the same order on any machine, natively and in Wasm, loaded or not.
  int64_t max_states = 0;
};

struct ScheduleResult {
  Schedule order;                 // best order found (a valid topological order)
  Bytes peak_bytes = 0;           // analyze_lifetimes(g, order).peak_bytes
  Bytes baseline_peak_bytes = 0;  // the file order's peak
  Bytes lower_bound_bytes = 0;    // no order peaks below this
  bool proven_optimal = false;    // exhaustive search, or peak == lower bound
  int64_t states_explored = 0;
  int64_t memory_bytes = 0;       // the most the search held at once
  int64_t memory_cap_bytes = 0;
  bool memory_cap_hit = false;
  double seconds = 0;             // wall time spent in step()
  std::string method;             // how the best order was found: "file", "greedy", "exact", ...
  std::string explanation;        // explain_optimum when proven and small, else empty
};

// The incremental optimiser: heuristics first (never worse than the file order), then an exact
// best-first search over sets of executed ops (per segment between cut ops), or, for graphs too
// big for it, repeated beam searches with growing widths and a local search on the best order.
// Beside them the suffix bound (suffix_lower_bound) raises the lower bound from the end; the search
// stops as soon as the best order meets the bound. step() does a bounded amount of work so the
// browser can spread the search over frames.
class ScheduleSearch {
 public:
  ScheduleSearch(const Graph& g, ScheduleOptions options = {});
  ~ScheduleSearch();
  ScheduleSearch(const ScheduleSearch&) = delete;
  ScheduleSearch& operator=(const ScheduleSearch&) = delete;

  // Expands about `state_budget` search states (>= 1), then returns.
  void step(int64_t state_budget);
  bool done() const;
  void cancel();            // stop now; best_so_far() stays valid
  double progress() const;  // 0..1: how much of the gap between best and lower bound is closed
  const Schedule& best_so_far() const;
  Bytes best_peak() const;
  Bytes lower_bound() const;
  // best_so_far() is optimal (what result().proven_optimal says, without result()'s explanation,
  // which enumerates orders and costs far more than the search on small graphs).
  bool proven_optimal() const;
  ScheduleResult result() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Runs a ScheduleSearch until done or `time_limit_seconds` of wall time have passed.
ScheduleResult optimize_schedule(const Graph& g, double time_limit_seconds,
                                 ScheduleOptions options = {});

}  // namespace arenaplan
