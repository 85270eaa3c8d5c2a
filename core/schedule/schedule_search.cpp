// The anytime optimiser: quick heuristics, then the exact search (small enough graphs) or the
// beam search (big ones, or when the exact search hits the memory cap). Beside them, from the
// heuristics on, the suffix search (schedule_suffix.cpp) raises the lower bound from the end of
// the schedule with a quarter of every step's budget and a quarter of the memory cap; the search
// stops as soon as the best order meets the bound. Every order it keeps is
// re-evaluated with analyze_lifetimes, so its numbers are the numbers every other view shows.
#include <chrono>

#include "core/schedule/schedule.h"
#include "core/schedule/detail/schedule_internal.h"

namespace arenaplan {

using namespace schedule_detail;

namespace {
double now_seconds() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}
}  // namespace

struct ScheduleSearch::Impl {
  const Graph& g;
  ScheduleOptions options;
  LiveModel model;
  MacroGraph macro;
  // Heuristics, a narrow beam for a good incumbent, the exact search, then wider beams.
  enum class Phase { kHeuristics, kWarmBeam, kExact, kBeam, kDone } phase = Phase::kHeuristics;
  Schedule baseline;
  Bytes baseline_peak = 0;
  Schedule best;
  Bytes best_peak = 0;
  std::string method;
  Bytes static_lb = 0;
  Bytes model_lb = 0;  // lower bound proven by the exact search under the set model
  bool proven = false;
  bool cap_hit = false;
  int64_t states = 0, memory = 0;
  double seconds = 0;
  std::unique_ptr<ExactSearch> exact;
  std::unique_ptr<BeamSearch> beam;
  std::unique_ptr<SuffixSearch> suffix;
  std::unique_ptr<CutBoundSearch> cuts;  // the cut bound, beside the others until complete
  int64_t cut_credit = 0;                // work the cut bound may still spend (state units)
  int64_t cut_memory = 0;                // the most it held
  bool cut_reserved = false;             // an eighth of the memory cap is the cut bound's
  std::unique_ptr<LocalSearch> local;  // beside the beam: improves the best order by moves
  bool local_stale = true;             // best changed elsewhere: the local search restarts from it
  int64_t local_seen = 0;
  Bytes best_model_peak = 0;  // the set model's peak of `best` (the suffix search's incumbent)
  int64_t suffix_memory = 0;
  mutable std::string explanation;
  mutable bool explained = false;

  Impl(const Graph& graph, ScheduleOptions opt, double started)
      : g(graph), options(opt), model(graph), macro(model) {
    // The file order is the baseline when it is a valid order; otherwise the closest one.
    baseline = g.file_order();
    std::optional<Bytes> p;
    try {
      check_order(g, baseline);
      p = order_peak(g, baseline);
    } catch (const InputError&) {
    }
    if (!p) {
      baseline = topological_order(g);
      p = order_peak(g, baseline);
    }
    if (!p) throw InputError("schedule", "no valid order: an in-place op overwrites a tensor that is still read");
    baseline_peak = *p;
    best = baseline;
    best_peak = baseline_peak;
    method = "file order";
    best_model_peak = model_peak(model, best);
    static_lb = schedule_lower_bound(g).bytes;
    model_lb = static_lb;
    seconds = now_seconds() - started;  // the set-up is part of the search's time
  }

  // Keeps `order` when analyze_lifetimes confirms it beats the best so far.
  void offer(const Schedule& order, const char* how) {
    auto p = order_peak(g, order);
    if (p && *p < best_peak) {
      best = order;
      best_peak = *p;
      method = how;
      best_model_peak = model_peak(model, best);
      if (suffix) suffix->set_incumbent(best_model_peak);
      local_stale = true;
    }
  }

  Bytes lower_bound() const {
    Bytes lb = std::max(static_lb, model_lb);
    if (phase == Phase::kExact && exact) lb = std::max(lb, exact->lower_bound());
    return std::min(lb, best_peak);
  }

  void check_proven() {
    if (best_peak <= std::max(static_lb, model_lb)) proven = true;
    if (proven) phase = Phase::kDone;
  }

  void heuristics() {
    offer(greedy_order(model, GreedyRule::kSmallestFootprint), "greedy (smallest footprint)");
    offer(greedy_order(model, GreedyRule::kMostFreed), "greedy (most freed)");
    offer(sink(model, best), "sunk constant ops");
    states += 2 * model.ops();
    check_proven();
    if (phase == Phase::kDone) return;
    suffix = std::make_unique<SuffixSearch>(model, best_model_peak, suffix_cap());
    // Bitsets and a network of a few arcs per op and tensor, within an eighth of the cap.
    const int64_t cut_bytes = CutBoundSearch::bitset_bytes(model.ops()) +
                              256 * (model.ops() + static_cast<int64_t>(g.tensors.size()));
    if (model.ops() <= kCutMaxOps && cut_bytes <= cut_cap()) {
      cuts = std::make_unique<CutBoundSearch>(model);
      cut_reserved = true;  // its share of the cap stays set aside, as its peak is reported
    }
    beam = std::make_unique<BeamSearch>(macro, best_model_peak, search_cap(), options.seed);
    beam->set_max_width(options.warmup_beam_width);
    phase = Phase::kWarmBeam;
  }

  bool exact_next() const {
    return static_cast<int>(macro.main_ops().size()) <= options.exact_max_ops && options.exact_max_states > 0;
  }

  void after_warm_beam() {
    beam->release();
    if (exact_next()) {
      exact = std::make_unique<ExactSearch>(macro, best, std::max(static_lb, model_lb), search_cap());
      phase = Phase::kExact;
    } else {
      start_beam();
    }
  }

  void start_beam() {
    beam->set_max_width(int64_t{1} << 22);
    phase = Phase::kBeam;
  }

  // The memory cap, shared: the suffix search holds its tables while the others run.
  int64_t suffix_cap() const { return options.memory_cap_bytes / 4; }
  int64_t cut_cap() const { return options.memory_cap_bytes / 8; }
  int64_t search_cap() const { return options.memory_cap_bytes - suffix_cap() - (cut_reserved ? cut_cap() : 0); }

  void run_suffix(int64_t& budget) {
    if (!suffix || suffix->finished()) return;
    const int64_t slice = std::max<int64_t>(1, budget / 4);
    int64_t left = slice;
    const int64_t before = suffix->states();
    suffix->advance(left);
    budget -= slice - left;
    states += suffix->states() - before;
    suffix_memory = std::max(suffix_memory, suffix->memory_peak());
    model_lb = std::max(model_lb, suffix->lower_bound());
    if (suffix->complete()) offer(suffix->order(), "suffix search (exact)");
    cap_hit = cap_hit || suffix->cap_hit();
    if (suffix->finished()) suffix.reset();  // frees its tables for the others
  }

  // The cut bound earns half of every step's budget and spends it a whole cut at a time (a cut
  // is all-or-nothing), about 16 arcs scanned per state; it frees itself once complete.
  void run_cuts(int64_t budget) {
    if (!cuts) return;
    cut_credit += std::max<int64_t>(1, budget / 2);
    const int64_t before = cuts->cuts();
    cuts->set_floor(std::max(static_lb, model_lb));  // ops that cannot raise the bound are skipped
    while (cut_credit > 0 && !cuts->finished()) {
      int64_t work = 1;  // one cut
      cuts->advance(work);
      cut_credit += (work - 1) / kArcsPerState;
    }
    states += cuts->cuts() - before;
    cut_memory = std::max(cut_memory, cuts->memory_bytes());
    model_lb = std::max(model_lb, std::min(cuts->lower_bound(), best_peak));
    if (cuts->finished()) cuts.reset();
  }

  // Three quarters of the slice polish the best order with moves and kicks (on wide graphs they
  // find far better orders than wider beams do); the beam keeps the rest.
  void run_local(int64_t& budget) {
    if (!local) {
      local = std::make_unique<LocalSearch>(model, best, options.seed);
      local_seen = local->improvements();
      local_stale = false;
    } else if (local_stale) {
      local->restart(best);
      local_seen = local->improvements();
      local_stale = false;
    }
    const int64_t slice = std::max<int64_t>(1, budget * 3 / 4);
    int64_t left = slice;
    const int64_t before = local->states();
    local->advance(left);
    budget -= slice - left;
    states += local->states() - before;
    if (local->improvements() != local_seen) {
      local_seen = local->improvements();
      offer(local->order(), "local search");
      local_stale = false;  // its own order: no restart
    }
  }

  void run_beam(int64_t& budget) {
    beam->set_incumbent(best_model_peak);
    beam->advance(budget);
    states += beam->states() - states_beam_seen;
    states_beam_seen = beam->states();
    memory = std::max(memory, beam->memory_peak());
    // Re-evaluated (a whole analyze_lifetimes) only when a run found a new order, not every slice.
    if (!beam->best().empty() && beam->best_peak() != beam_peak_offered) {
      beam_peak_offered = beam->best_peak();
      offer(beam->best(), "beam search");
    }
  }

  void step(int64_t budget) {
    const double t0 = now_seconds();
    budget = std::max<int64_t>(budget, 1);
    while (budget > 0 && phase != Phase::kDone) {
      if (phase != Phase::kHeuristics) {
        run_suffix(budget);
        check_proven();
        if (phase == Phase::kDone) break;
        run_cuts(budget);
        check_proven();
        if (phase == Phase::kDone || budget <= 0) break;
      }
      switch (phase) {
        case Phase::kHeuristics: heuristics(); budget -= model.ops(); break;
        case Phase::kWarmBeam:
          if (!exact_next()) run_local(budget);  // big graphs: moves from the start
          run_beam(budget);
          if (beam->finished()) after_warm_beam();
          break;
        case Phase::kExact: {
          const int64_t left = options.exact_max_states - exact->states();
          int64_t slice = std::min(budget, std::max<int64_t>(left, 0));
          const int64_t given = slice;
          bool finished = exact->advance(slice);
          budget -= std::max<int64_t>(given - slice, 1);
          states += exact->states() - states_exact_seen;
          states_exact_seen = exact->states();
          memory = std::max(memory, exact->memory_peak());
          if (!finished && exact->states() < options.exact_max_states) break;
          offer(exact->order(), "exact search");
          if (!finished || exact->cap_hit()) {
            // Stopped early: its bound still holds (every better order passes an open state).
            cap_hit = exact->cap_hit();
            model_lb = std::max(model_lb, exact->lower_bound());
            exact.reset();
            start_beam();
            break;
          }
          // The model optimum bounds every order's true peak from below (the model ignores only
          // asynchronous extensions, which can only add bytes).
          model_lb = std::max(model_lb, exact->peak());
          if (exact->proven() && best_peak <= exact->peak()) proven = true;
          exact.reset();
          phase = Phase::kDone;
          break;
        }
        case Phase::kBeam:
          run_local(budget);
          run_beam(budget);
          if (beam->finished()) phase = Phase::kDone;
          break;
        case Phase::kDone: break;
      }
      check_proven();
    }
    seconds += now_seconds() - t0;
  }

  int64_t states_exact_seen = 0, states_beam_seen = 0;
  // Ancestor and descendant bitsets take ops^2 / 4 bytes: 4 MB here.
  static constexpr int kCutMaxOps = 4000;
  static constexpr int64_t kArcsPerState = 16;
  Bytes beam_peak_offered = -1;
};

ScheduleSearch::ScheduleSearch(const Graph& g, ScheduleOptions options)
    : impl_(std::make_unique<Impl>(g, options, now_seconds())) {}
ScheduleSearch::~ScheduleSearch() = default;
void ScheduleSearch::step(int64_t budget) { impl_->step(budget); }
bool ScheduleSearch::done() const { return impl_->phase == Impl::Phase::kDone; }
void ScheduleSearch::cancel() {
  impl_->suffix.reset();
  impl_->cuts.reset();
  impl_->local.reset();
  impl_->exact.reset();
  impl_->beam.reset();
  impl_->phase = Impl::Phase::kDone;
}
double ScheduleSearch::progress() const {
  if (done()) return 1.0;
  const Bytes lb = impl_->lower_bound();
  const Bytes span = impl_->baseline_peak - lb;
  if (span <= 0) return 0.99;
  double closed = static_cast<double>(impl_->baseline_peak - impl_->best_peak) / static_cast<double>(span);
  return std::min(0.99, std::max(0.01, closed));
}
const Schedule& ScheduleSearch::best_so_far() const { return impl_->best; }
Bytes ScheduleSearch::best_peak() const { return impl_->best_peak; }
Bytes ScheduleSearch::lower_bound() const { return impl_->lower_bound(); }
bool ScheduleSearch::proven_optimal() const { return impl_->proven; }

ScheduleResult ScheduleSearch::result() const {
  ScheduleResult r;
  r.order = impl_->best;
  r.peak_bytes = impl_->best_peak;
  r.baseline_peak_bytes = impl_->baseline_peak;
  r.lower_bound_bytes = impl_->proven ? impl_->best_peak : impl_->lower_bound();
  r.proven_optimal = impl_->proven;
  r.states_explored = impl_->states;
  r.memory_bytes = impl_->memory + impl_->suffix_memory + impl_->cut_memory;  // held side by side
  r.memory_cap_bytes = impl_->options.memory_cap_bytes;
  r.memory_cap_hit = impl_->cap_hit;
  r.seconds = impl_->seconds;
  r.method = impl_->method;
  if (impl_->proven && impl_->g.ops.size() <= 16) {
    if (!impl_->explained) {
      impl_->explanation = explain_optimum(impl_->g, impl_->best_peak);
      impl_->explained = true;
    }
    r.explanation = impl_->explanation;
  }
  return r;
}

ScheduleResult optimize_schedule(const Graph& g, double time_limit_seconds, ScheduleOptions options) {
  const double start = now_seconds();  // the limit covers the set-up too
  ScheduleSearch search(g, options);
  constexpr int64_t kStatesPerStep = 2048;
  int64_t steps_left = options.max_states > 0 ? (options.max_states + kStatesPerStep - 1) / kStatesPerStep : -1;
  while (!search.done()) {
    search.step(kStatesPerStep);
    if (--steps_left == 0 || now_seconds() - start >= time_limit_seconds) search.cancel();
  }
  return search.result();
}

}  // namespace arenaplan
