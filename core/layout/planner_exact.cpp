// An iterative (explicit stack) version of MiniMalloc's search, so it can stop after any number of
// nodes and resume on the next call: the browser time-slices it across frames without threads.
#include "core/layout/planner_exact.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <utility>
#include <stdexcept>

#include "core/layout/detail/exact_capacity.h"
#include "core/layout/detail/exact_model.h"

namespace arenaplan {
namespace {

constexpr Bytes kNoOffset = -1;
constexpr int64_t kMaxOverlapEntries = int64_t{1} << 24;  // beyond this the search is not attempted
// Static orders tried round robin (MiniMalloc's defaults WAT, TAW, TWA): T = busiest section the
// buffer lives in, A = area (size x lifetime), L = lifetime (MiniMalloc's W), Z = size,
// C = sections spanned. All descending.
const char* const kHeuristics[] = {"LAT", "TAL", "TLA"};
constexpr int kHeuristicCount = 3;

using Partition = planner::ExactPartition;
using PartitionPtr = planner::ExactPartitionPtr;

struct Candidate {
  Bytes offset;
  int pre;  // index into the frame's preorder
};

// One SearchSolutions call of MiniMalloc, kept on an explicit stack.
struct Frame {
  PartitionPtr part;
  std::shared_ptr<const std::vector<int>> preorder;  // local buffer ids in static order
  std::vector<Candidate> ordering;                  // the parent's, filtered when first expanded
  size_t cursor = 0;
  Bytes min_offset = 0;  // canonical order: later buffers never sit lower...
  int min_pre = 0;       // ...nor, at the same offset, earlier in the static order
  Bytes min_height = 0;  // dominance: no candidate may start at or above an unplaced buffer's top
  Bytes max_offset = 0;  // section inference: no candidate may start above capacity - a section's unplaced bytes
  bool fresh = true;
  int buffer = -1;  // the candidate currently applied (local id), -1 when none
  size_t offset_mark = 0, section_mark = 0;
  bool cuts_applied = false;
  bool hatless = false;  // nothing unplaced overlaps `buffer`: if it fails here it fails anywhere
  std::vector<PartitionPtr> subparts;  // independent pieces left after placing `buffer`
  size_t sub_next = 0;
};

enum class Result { kNone, kFound, kNotFound };

// align_up without its checks, for the search's hottest loop: alignments were checked positive
// when the solver was built, and offsets stay below the capacity, far from overflow.
inline Bytes aligned_above(Bytes value, Bytes alignment) {
  if (alignment == 1) return value;
  const Bytes rem = value % alignment;
  return rem == 0 ? value : value + (alignment - rem);
}

}  // namespace

// The model (exact_model.h) is a base so the search reads its arrays by their plain names.
struct ExactSolver::Impl : planner::ExactModel {
  LayoutProblem problem;

  // Best verified plan and proven bound.
  std::vector<Bytes> best;
  Bytes best_arena = 0, lo = 0, gap0 = 1;
  bool finished = false, cancelled = false, proven_by_search = false;
  std::string why;  // set when the search is not attempted
  int64_t nodes_total = 0;

  // Search on the capacity.
  Bytes granularity = 1;  // every offset of a canonical plan is a multiple (exact_capacity.h)
  planner::CapacityLadder ladder{1, 64};
  int heuristic = 0;
  Bytes capacity = 0;
  bool attempt_active = false, need_capacity = true;
  int64_t attempt_nodes = 0, attempt_limit = 0;
  size_t static_next = 0;

  // One attempt's state.
  std::vector<Bytes> assign, min_off, solution, floor, total;
  std::vector<int> cuts, live_members;
  struct OffsetLog { int buffer; Bytes min_off; };
  struct SectionLog { int section; Bytes floor, total; };
  std::vector<OffsetLog> offset_log;
  std::vector<SectionLog> section_log;
  std::vector<Frame> stack;
  Result ret = Result::kNone;
  std::vector<int> cover;                   // apply()'s difference array over sections, all zero between calls
  std::vector<int> witness;                 // per section: see refloor()
  std::vector<Candidate> raised_candidates, merged_candidates;  // scratch of refresh_candidates()
  const std::vector<int>* preorder_of_frame = nullptr;          // the static order refresh_candidates() reads

  Impl(const LayoutProblem& p, std::vector<Bytes> seed, Bytes seed_arena) : problem(p), best(std::move(seed)) {
    best_arena = seed_arena;
    lo = layout_lower_bound(problem);
    gap0 = std::max<Bytes>(best_arena - lo, 1);
    for (const LayoutBuffer& b : problem.buffers)
      if (b.fixed_offset) {
        why = "not searched: fixed offsets";
        finished = true;
        return;
      }
    granularity = planner::offset_granularity(problem);
    lo = planner::granular_lower_bound(problem);
    std::optional<planner::ExactModel> model = planner::build_exact_model(problem, kMaxOverlapEntries);
    if (!model) {
      why = "not searched: too many overlapping buffers";
      finished = true;
      return;
    }
    static_cast<planner::ExactModel&>(*this) = std::move(*model);
    const int n = static_cast<int>(size.size());
    ladder = planner::CapacityLadder(granularity, 2 * n);
    if (best_arena <= lo) finished = true;
  }

  // ---- one attempt: do all buffers fit below `capacity`? ----

  void start_attempt() {
    const int n = static_cast<int>(size.size());
    assign.assign(n, kNoOffset);
    solution.assign(n, kNoOffset);
    min_off.assign(n, 0);
    floor.assign(sections, 0);
    total = initial_total;
    cuts = initial_cuts;
    live_members.resize(sections);
    witness.assign(sections, -1);
    cover.assign(sections + 1, 0);
    for (int s = 0; s < sections; ++s) live_members[s] = static_cast<int>(member_row[s + 1] - member_row[s]);
    offset_log.clear();
    section_log.clear();
    stack.clear();
    ret = Result::kFound;  // "the previous piece succeeded": start with the first one
    static_next = 0;
    attempt_nodes = 0;
    attempt_active = true;
  }

  void push_subsolve(const PartitionPtr& part) {
    // Static order of this piece; T uses the current unplaced totals, as MiniMalloc does.
    std::vector<int> order = part->buffers;
    std::vector<Bytes> busiest(order.size());
    std::vector<int> position(size.size(), -1);
    for (size_t i = 0; i < order.size(); ++i) {
      position[order[i]] = static_cast<int>(i);
      const int k = order[i];
      Bytes m = 0;
      for (int s = sec_begin[k]; s < sec_end[k]; ++s) m = std::max(m, total[s]);
      busiest[i] = m;
    }
    const char* h = kHeuristics[heuristic];
    std::sort(order.begin(), order.end(), [&](int a, int b) {
      for (const char* c = h; *c; ++c) {
        double x = 0, y = 0;
        switch (*c) {
          case 'T': x = static_cast<double>(busiest[position[a]]), y = static_cast<double>(busiest[position[b]]); break;
          case 'A': x = area[a], y = area[b]; break;
          case 'Z': x = static_cast<double>(size[a]), y = static_cast<double>(size[b]); break;
          case 'L': x = length[a], y = length[b]; break;
          case 'C': x = sec_end[a] - sec_begin[a], y = sec_end[b] - sec_begin[b]; break;
        }
        if (x != y) return x > y;
      }
      return a < b;
    });
    Frame f;
    f.part = part;
    f.preorder = std::make_shared<const std::vector<int>>(std::move(order));
    f.ordering.resize(f.preorder->size());
    for (size_t i = 0; i < f.ordering.size(); ++i) f.ordering[i] = {0, static_cast<int>(i)};
    stack.push_back(std::move(f));
  }

  void apply(Frame& f, int k, Bytes offset) {
    f.buffer = k;
    f.offset_mark = offset_log.size();
    f.section_mark = section_log.size();
    f.cuts_applied = false;
    assign[k] = offset;
    const Bytes height = offset + size[k];
    const int kb = sec_begin[k], ke = sec_end[k];
    int left = kb, right = ke;  // raised sections outside k's own: [left, kb) and [ke, right)
    f.hatless = true;
    for (int64_t e = overlap_row[k]; e < overlap_row[k + 1]; ++e) {
      const int o = overlap_col[e];
      if (assign[o] != kNoOffset) continue;
      f.hatless = false;
      if (min_off[o] >= height) continue;
      offset_log.push_back({o, min_off[o]});
      min_off[o] = aligned_above(height, align[o]);
      // o overlaps k in time, so its sections meet k's: outside k's they extend it contiguously,
      // inside they are counted on a difference array (no sort, no per-section marks per buffer).
      left = std::min(left, sec_begin[o]);
      right = std::max(right, sec_end[o]);
      ++cover[std::max(sec_begin[o], kb)];
      --cover[std::min(sec_end[o], ke)];
    }
    for (int s = sec_begin[k]; s < sec_end[k]; ++s) {
      section_log.push_back({s, floor[s], total[s]});
      floor[s] = height;
      total[s] -= size[k];
      // Move k behind the unplaced members (undo, in reverse order, just extends the prefix again).
      int* list = &member_col[member_row[s]];
      const int i = where[where_base[k] + s - sec_begin[k]], last = --live_members[s];
      const int moved = list[last];
      list[i] = moved;
      where[where_base[moved] + s - sec_begin[moved]] = i;
      list[last] = k;
      where[where_base[k] + s - sec_begin[k]] = last;
    }
    // The sections to revisit: the union of the raised buffers' ranges (marking each section once
    // per buffer cost O(neighbours x span) and dominated the search), and k's own: their floor is
    // now k's top, but every unplaced buffer there may already sit higher (raised by buffers
    // placed earlier, or aligned up), and the floor rises to the lowest of them. Leaving k's own
    // sections out, as before, kept the same plans but searched up to 3.4x the nodes (MiniMalloc's
    // J, A and D: 329k -> 111k, 195k -> 57k, 362k -> 209k to the best known, none more on the 11).
    for (int s = left; s < kb; ++s) refloor(s);
    ++cover[kb];
    --cover[ke];
    int covering = 0;
    for (int s = kb; s < ke; ++s) {
      covering += cover[s];
      cover[s] = 0;
      if (covering > 0) refloor(s);
    }
    cover[ke] = 0;
    for (int s = ke; s < right; ++s) refloor(s);
  }

  // A section's floor is at least the lowest offset any of its unplaced buffers can still take.
  // `witness[s]` remembers an unplaced member that last held the floor down (min_off <= floor): a
  // hint checked first, since most calls end there and a full scan of a busy section is the
  // search's hottest loop. Stale hints (placed since, or raised) just fall back to the scan.
  void refloor(int s) {
    const int w = witness[s];
    if (w >= 0 && min_off[w] <= floor[s] && where[where_base[w] + s - sec_begin[w]] < live_members[s]) return;
    Bytes lowest = std::numeric_limits<Bytes>::max();
    int lowest_member = -1;
    const int* list = &member_col[member_row[s]];
    for (int i = 0; i < live_members[s]; ++i) {
      const Bytes v = min_off[list[i]];
      if (v < lowest) lowest = v, lowest_member = list[i];
      if (v <= floor[s]) break;  // the floor cannot rise: stop scanning
    }
    witness[s] = lowest_member;  // holds the floor down, or (when the floor rises) up at the new one
    if (lowest_member >= 0 && floor[s] < lowest) {
      section_log.push_back({s, floor[s], total[s]});
      floor[s] = lowest;
    }
  }

  void undo(Frame& f) {
    const int k = f.buffer;
    if (k < 0) return;
    for (int s = sec_begin[k]; s < sec_end[k]; ++s) ++live_members[s];
    while (section_log.size() > f.section_mark) {
      const SectionLog& l = section_log.back();
      floor[l.section] = l.floor;
      total[l.section] = l.total;
      section_log.pop_back();
    }
    while (offset_log.size() > f.offset_mark) {
      min_off[offset_log.back().buffer] = offset_log.back().min_off;
      offset_log.pop_back();
    }
    if (f.cuts_applied)
      for (int s = sec_begin[k]; s + 1 < sec_end[k]; ++s) ++cuts[s];
    assign[k] = kNoOffset;
    f.buffer = -1;
    f.cuts_applied = false;
    f.subparts.clear();
    f.sub_next = 0;
  }

  // Section inference: every unplaced byte of a section must fit above its floor and above the
  // offset just used (later buffers never sit lower). Split in two so a candidate costs only the
  // sections it changed: at a frame's entry every section of its piece has floor + unplaced bytes
  // within the capacity (its parent checked that), so "above the offset" is one ceiling per frame,
  // offset <= capacity - max unplaced bytes (sorted candidates: the first above it ends the frame),
  // and after placing a candidate only the sections whose floor or total apply() logged can newly
  // overflow.
  Bytes offset_ceiling(const Partition& part) const {
    Bytes most = 0;
    for (int s = part.lo; s < part.hi; ++s) most = std::max(most, total[s]);
    return capacity - most;
  }
  bool changed_sections_fit(const Frame& f) const {
    for (size_t i = f.section_mark; i < section_log.size(); ++i) {
      const int s = section_log[i].section;
      if (floor[s] + total[s] > capacity) return false;
    }
    return true;
  }

  // Drops placed buffers from `ordering` (sorted by offset, then static order) and re-keys the rest
  // by their current lowest offset, keeping it sorted. Only the buffers the parent's placement
  // raised changed key: they are sorted alone and merged with the untouched rest, which is
  // already in order (a full sort per node cost a sixth of the search).
  void refresh_candidates(std::vector<Candidate>& ordering) {
    auto before = [](const Candidate& a, const Candidate& b) {
      return a.offset != b.offset ? a.offset < b.offset : a.pre < b.pre;
    };
    raised_candidates.clear();
    size_t kept = 0;
    for (const Candidate& c : ordering) {
      const int k = (*preorder_of_frame)[c.pre];
      if (assign[k] != kNoOffset) continue;
      if (min_off[k] == c.offset)
        ordering[kept++] = c;
      else
        raised_candidates.push_back({min_off[k], c.pre});
    }
    ordering.resize(kept);
    if (raised_candidates.empty()) return;
    std::sort(raised_candidates.begin(), raised_candidates.end(), before);
    merged_candidates.resize(kept + raised_candidates.size());
    std::merge(ordering.begin(), ordering.end(), raised_candidates.begin(), raised_candidates.end(),
               merged_candidates.begin(), before);
    ordering.swap(merged_candidates);
  }

  // Runs the attempt for up to `budget` nodes. Returns kFound / kNotFound when it ends, kNone when
  // the budget ran out first (resume later) or the node limit aborted it (attempt_active false).
  Result run_attempt(int64_t& budget) {
    while (true) {
      if (stack.empty()) {
        if (ret == Result::kNotFound) return finish_attempt(Result::kNotFound);
        if (static_next == static_parts.size()) return finish_attempt(Result::kFound);
        push_subsolve(static_parts[static_next++]);
        ret = Result::kNone;
        continue;
      }
      Frame& f = stack.back();
      if (f.fresh) {
        if (budget <= 0) return Result::kNone;
        --budget;
        ++nodes_total;
        if (++attempt_nodes > attempt_limit) {
          abort_attempt();
          return Result::kNone;
        }
        f.fresh = false;
        preorder_of_frame = f.preorder.get();
        refresh_candidates(f.ordering);
        if (f.ordering.empty()) {  // every buffer of this piece is placed
          stack.pop_back();
          ret = Result::kFound;
          continue;
        }
        f.min_height = std::numeric_limits<Bytes>::max();
        for (const Candidate& c : f.ordering) f.min_height = std::min(f.min_height, c.offset + size[(*f.preorder)[c.pre]]);
        f.max_offset = offset_ceiling(*f.part);
      }
      if (ret != Result::kNone) {  // a child returned
        if (ret == Result::kFound && f.sub_next < f.subparts.size()) {
          PartitionPtr next = f.subparts[f.sub_next++];
          ret = Result::kNone;
          push_subsolve(next);
          continue;
        }
        const bool hatless = f.hatless;
        undo(f);
        if (ret == Result::kFound) {
          stack.pop_back();
          continue;
        }
        ret = Result::kNone;
        if (hatless) f.cursor = f.ordering.size();  // MiniMalloc's hatless pruning
      }
      bool pushed = false;
      while (f.cursor < f.ordering.size()) {
        const Candidate c = f.ordering[f.cursor++];
        const int k = (*f.preorder)[c.pre];
        if (c.offset < f.min_offset || (c.offset == f.min_offset && c.pre < f.min_pre)) continue;
        if (twin_before[k] >= 0 && assign[twin_before[k]] == kNoOffset) continue;  // its twin goes first
        // Candidates come sorted by offset, so past either limit every later one fails too.
        if (c.offset >= f.min_height) break;  // would leave a gap some unplaced buffer fits in
        if (c.offset > f.max_offset) break;   // some section's unplaced bytes overflow above it
        apply(f, k, c.offset);
        if (!changed_sections_fit(f)) {
          undo(f);
          continue;
        }
        solution[k] = c.offset;
        f.cuts_applied = true;
        std::vector<int> cut_at = {f.part->lo};
        for (int s = sec_begin[k]; s + 1 < sec_end[k]; ++s)
          if (--cuts[s] == 0) cut_at.push_back(s + 1);
        if (cut_at.size() == 1) {
          Frame child;
          child.part = f.part;
          child.preorder = f.preorder;
          child.ordering = f.ordering;
          child.min_offset = c.offset;
          child.min_pre = c.pre;
          stack.push_back(std::move(child));  // invalidates f
        } else {
          cut_at.push_back(f.part->hi);
          for (size_t i = 1; i < cut_at.size(); ++i) {
            auto piece = std::make_shared<Partition>();
            piece->lo = cut_at[i - 1];
            piece->hi = cut_at[i];
            for (int o : f.part->buffers)
              if (assign[o] == kNoOffset && sec_begin[o] < piece->hi && piece->lo < sec_end[o]) piece->buffers.push_back(o);
            if (!piece->buffers.empty()) f.subparts.push_back(std::move(piece));
          }
          if (f.subparts.empty()) {
            ret = Result::kFound;  // nothing left on either side
          } else {
            f.sub_next = 1;
            PartitionPtr first = f.subparts[0];
            push_subsolve(first);  // invalidates f
          }
        }
        pushed = true;
        break;
      }
      if (pushed) continue;
      stack.pop_back();
      ret = Result::kNotFound;
    }
  }

  void abort_attempt() {
    while (!stack.empty()) {
      undo(stack.back());
      stack.pop_back();
    }
    attempt_active = false;
  }

  Result finish_attempt(Result r) {
    attempt_active = false;
    return r;
  }

  // ---- the search on the capacity ----

  std::vector<Bytes> full_solution() const {
    std::vector<Bytes> out(problem.buffers.size(), 0);
    for (size_t k = 0; k < global_of.size(); ++k) out[global_of[k]] = solution[k];
    return out;
  }

  // At the bound every static order is tried in turn (instances whose optimum is the bound finish
  // there); each rung of the ladder gets one order, rotating, so nearby capacities differ in both.
  void pick_capacity() {
    capacity = ladder.next(lo, best_arena);
    heuristic = ladder.kind() == planner::CapacityLadder::Next::kAtBound
                    ? 0
                    : static_cast<int>((ladder.rung() + ladder.round()) % kHeuristicCount);
  }

  void start_attempt_at_capacity() {
    attempt_limit = ladder.node_limit();
    start_attempt();
  }

  void on_found() {
    std::vector<Bytes> offsets = full_solution();
    const Bytes arena = arena_extent(problem, offsets);
    VerifyResult check = verify_plan(problem, offsets, arena);
    if (!check.ok())
      throw std::logic_error(std::string("exact planner produced a plan that breaks rule ") +
                             verify_rule_name(check.rule) + ": " + check.message);
    if (arena < best_arena) {
      best = std::move(offsets);
      best_arena = arena;
    }
  }

  bool step(int64_t budget) {
    while (!finished && !cancelled && budget > 0) {
      if (lo >= best_arena) break;
      if (!attempt_active) {
        if (need_capacity) pick_capacity();
        need_capacity = false;
        start_attempt_at_capacity();
      }
      const Result r = run_attempt(budget);
      if (r == Result::kFound) {
        on_found();
        ladder.found();
        need_capacity = true;
      } else if (r == Result::kNotFound) {
        // The search was exhaustive: nothing fits in `capacity`, so (offsets being multiples of the
        // granularity) nothing below capacity + granularity either.
        if (capacity + granularity > lo) {
          lo = capacity + granularity;
          proven_by_search = true;
        }
        need_capacity = true;
      } else if (!attempt_active) {
        const bool at_bound = ladder.kind() == planner::CapacityLadder::Next::kAtBound;
        if (!at_bound || ++heuristic == kHeuristicCount) {
          ladder.gave_up();
          need_capacity = true;
        }
      }
    }
    if (lo >= best_arena) finished = true;
    return !finished && !cancelled;
  }
};

CapacityDecision decide_capacity(const LayoutProblem& problem, Bytes capacity, int64_t node_limit, int heuristic) {
  // The solver wants a verified seed: every buffer stacked on the previous ones is one.
  std::vector<Bytes> stacked(problem.buffers.size(), 0);
  Bytes top = 0;
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    stacked[i] = align_up(top, problem.buffers[i].alignment);
    top = stacked[i] + problem.buffers[i].size;
  }
  ExactSolver solver(problem, stacked, arena_extent(problem, stacked));
  ExactSolver::Impl& s = *solver.impl_;
  CapacityDecision out;
  if (!s.why.empty()) return out;  // fixed offsets or too many overlaps: not searched
  if (s.best_arena <= capacity) {  // nothing to search (e.g. no buffer with bytes)
    out.verdict = CapacityVerdict::kFits;
    out.offsets = s.best;
    return out;
  }
  s.capacity = capacity;
  s.heuristic = ((heuristic % kHeuristicCount) + kHeuristicCount) % kHeuristicCount;
  s.attempt_limit = node_limit;
  s.start_attempt();
  int64_t budget = node_limit + 1;
  const Result r = s.run_attempt(budget);
  out.nodes = s.attempt_nodes;
  if (r == Result::kNotFound) {
    out.verdict = CapacityVerdict::kDoesNotFit;
  } else if (r == Result::kFound) {
    s.on_found();  // verifies the plan (throws on a broken one)
    out.verdict = CapacityVerdict::kFits;
    out.offsets = s.full_solution();
  }
  return out;
}

ExactSolver::ExactSolver(const LayoutProblem& problem, std::vector<Bytes> seed_offsets, Bytes seed_arena)
    : impl_(std::make_unique<Impl>(problem, std::move(seed_offsets), seed_arena)) {}
ExactSolver::~ExactSolver() = default;

bool ExactSolver::step(int64_t nodes) { return impl_->step(nodes); }

void ExactSolver::run_for(double seconds) {
  const auto start = std::chrono::steady_clock::now();
  while (step(2000))
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= seconds) break;
}

void ExactSolver::cancel() { impl_->cancelled = true; }
bool ExactSolver::done() const { return impl_->finished || impl_->cancelled; }
bool ExactSolver::proven_optimal() const { return impl_->lo >= impl_->best_arena; }
double ExactSolver::progress() const {
  if (proven_optimal()) return 1.0;
  return std::clamp(1.0 - static_cast<double>(impl_->best_arena - impl_->lo) / static_cast<double>(impl_->gap0), 0.0, 1.0);
}
const std::vector<Bytes>& ExactSolver::best_so_far() const { return impl_->best; }
Bytes ExactSolver::best_arena_bytes() const { return impl_->best_arena; }
Bytes ExactSolver::lower_bound_bytes() const { return impl_->lo; }
Bytes ExactSolver::trying_capacity() const { return impl_->capacity; }
int64_t ExactSolver::nodes() const { return impl_->nodes_total; }

Bytes ExactSolver::granularity() const { return impl_->granularity; }

std::string ExactSolver::optimality_proof() const {
  const Impl& s = *impl_;
  if (!proven_optimal()) return "";
  const std::string best = std::to_string(s.best_arena);
  if (s.proven_by_search) {
    const std::string below = std::to_string(s.lo - s.granularity);
    if (s.granularity == 1) return "an exhaustive search found no plan within " + below + " B";
    return "an exhaustive search found no plan within " + below + " B, and every arena is a multiple of " +
           std::to_string(s.granularity) + " B (the sizes' and alignments' common divisor)";
  }
  const Bytes live = layout_lower_bound(s.problem);
  if (s.best_arena <= live) return "the arena equals the live-bytes lower bound";
  return "the arena is the live-bytes lower bound (" + std::to_string(live) + " B) rounded up to a multiple of " +
         std::to_string(s.granularity) + " B (the sizes' and alignments' common divisor)";
}

std::string ExactSolver::status_text() const {
  const Impl& s = *impl_;
  if (!s.why.empty() && !proven_optimal()) return s.why;
  if (proven_optimal())
    return s.proven_by_search && s.best_arena == s.lo ? "optimal (smaller arenas proven impossible)" : "optimal (bound met)";
  char text[160];
  std::snprintf(text, sizeof text, "%s after %lld nodes: %.2f %% above the bound", s.cancelled ? "cancelled" : "stopped",
                static_cast<long long>(s.nodes_total),
                100.0 * static_cast<double>(s.best_arena - s.lo) / static_cast<double>(std::max<Bytes>(s.lo, 1)));
  return text;
}

}  // namespace arenaplan
