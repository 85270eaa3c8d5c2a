// The automatic rewrite search: an iteratively widened beam search over sequences of legal
// rewrites, then a pruning pass.
//
// Why a beam and not plain greedy: rewrites need each other. On whatif_fusion each of three
// rewrites alone leaves the peak at 128 KiB (another bottleneck holds it), so "apply the single
// rewrite with the largest measured saving" stops at once. The beam keeps the W best sequences of
// each length, ranked by the peak and then by how many steps reach it and the live area, so
// removing one of several equal bottlenecks counts as progress. Width 1 is exactly the greedy
// search (the first answer, quickly); each later round doubles the width, so the search is
// anytime and, once a round drops no child, it has tried every distinct graph reachable within
// the depth and stops. Graphs reached twice (the same rewrites in another order) are expanded
// once per round. The pruning pass then drops every rewrite the best sequence does not need
// (with a budget: every MAC that is not needed to meet it).
// With a budget, a first round searches only the kinds that add no work (fold, stream, in place,
// move to the caller, order): when they meet the budget, no sequence has fewer extra MACs, and
// the kinds that add work (patch halos, recomputation) would only crowd the beam with cheaper-
// looking peaks that cost MACs. Otherwise the search starts again with every kind.
// Every candidate is re-planned through plan_graph (TFLM's greedy planner, the fast one); the
// sequence returned is re-planned with the real planner, verified and simulated by run_whatif.
#include <algorithm>
#include <chrono>
#include <functional>
#include <unordered_set>

#include "core/graph/graph_json.h"
#include "core/layout/pipeline.h"
#include "core/transform/detail/transform_internal.h"
#include "core/transform/detail/transform_auto_internal.h"
#include "core/transform/transform_auto.h"

namespace arenaplan {

using Clock = std::chrono::steady_clock;

int64_t count_macs(const Graph& g) {
  int64_t macs = 0;
  for (size_t o = 0; o < g.ops.size(); ++o) {
    try {
      macs += g.ops[o].attrs.count("fused_parts") ? transform_detail::fused_work(g, static_cast<OpId>(o)).macs
                                                   : sim::plan_kernel(g, static_cast<OpId>(o)).work.macs;
    } catch (const InputError&) {
      // An op the simulator cannot describe adds no counted work; its rewrites are judged on memory.
    }
  }
  return macs;
}

namespace {

struct Score {
  Bytes peak = 0;
  int at_peak = 0;  // steps whose live bytes reach the peak
  Bytes area = 0;   // live bytes summed over the steps
  int64_t macs = 0;
  Bytes arena = 0;
  int rewrites = 0;
};

struct Node {
  std::vector<std::string> specs;
  Graph graph;
  Score score;
};

Score measure(const Graph& g, int rewrites) {
  PlanOptions po;
  po.planner = "tflm-greedy";
  const GraphPlan p = plan_graph(g, topological_order(g), po);
  Score s;
  s.peak = p.live.peak_bytes;
  for (const StepLive& st : p.live.steps) {
    s.area += st.live_bytes;
    s.at_peak += st.live_bytes == s.peak;
  }
  s.macs = count_macs(g);
  s.arena = p.plan.arena_bytes;
  s.rewrites = rewrites;
  return s;
}

uint64_t signature(const Graph& g) { return std::hash<std::string>{}(graph_to_json(g)); }

}  // namespace

struct AutoRewriteSearch::Impl {
  AutoRewriteOptions options;
  std::vector<const RewriteKind*> kinds;      // searched in the round under way
  std::vector<const RewriteKind*> all_kinds;  // the kinds asked for
  bool work_free_round = false;               // the first round with a budget: kinds adding no MACs
  Graph original;
  AutoProgress progress;
  std::optional<int64_t> mac_cap;
  Score root_score;
  Node best;
  double spent = 0;
  bool cancelled = false;
  static constexpr int kPatience = 3;   // levels without a better beam head before a round ends

  // The round under way.
  std::vector<Node> frontier, children;
  std::unordered_set<uint64_t> seen;
  size_t expand_node = 0, expand_index = 0;
  std::vector<std::string> expand_specs;
  int level = 0, no_improve = 0;
  bool cut = false;
  Score round_best;
  // The pruning pass.
  size_t prune_index = 0;

  bool feasible(const Score& s) const { return options.budget_bytes && s.peak <= *options.budget_bytes; }

  // The objective: is a strictly better result than b?
  bool better(const Score& a, const Score& b) const {
    if (options.budget_bytes) {
      if (feasible(a) != feasible(b)) return feasible(a);
      if (feasible(a)) return std::tie(a.macs, a.rewrites, a.peak) < std::tie(b.macs, b.rewrites, b.peak);
    }
    // Lowest peak, then the fewest rewrites (each one the user must trust and a runtime must
    // support), then MACs.
    return std::tie(a.peak, a.rewrites, a.macs, a.arena) < std::tie(b.peak, b.rewrites, b.macs, b.arena);
  }

  // The beam's ranking: the objective, with plateau breakers (fewer steps at the peak, less area).
  bool ahead(const Score& a, const Score& b) const {
    if (options.budget_bytes && feasible(a) != feasible(b)) return feasible(a);
    if (options.budget_bytes && feasible(a))
      return std::tie(a.macs, a.peak, a.at_peak, a.area) < std::tie(b.macs, b.peak, b.at_peak, b.area);
    return std::tie(a.peak, a.at_peak, a.area, a.macs) < std::tie(b.peak, b.at_peak, b.area, b.macs);
  }

  // The specs `g` offers, of the searched kinds.
  std::vector<std::string> candidates(const Graph& g) const {
    std::vector<std::string> out;
    for (const RewriteKind* k : kinds) {
      std::vector<std::string> c = k->candidates(g);
      out.insert(out.end(), c.begin(), c.end());
    }
    return out;
  }

  Graph apply(const Graph& g, const std::string& spec) const {
    const Transformation t = parse_transformation(spec);
    const RewriteKind* k = find_rewrite_kind(t.kind);
    return (k ? k->apply : apply_transformation)(g, t, options.context).graph;
  }

  // The graph after `specs` on the original; throws the first refusal.
  Graph replay(const std::vector<std::string>& specs) const {
    Graph g = original;
    for (const std::string& s : specs) g = apply(g, s);
    return g;
  }

  void consider_best(const Node& n) {
    if (!better(n.score, best.score)) return;
    best.specs = n.specs;
    best.score = n.score;
    progress.best_peak = n.score.peak;
    progress.best_extra_macs = n.score.macs - root_score.macs;
    progress.best_rewrites = static_cast<int>(n.specs.size());
    progress.budget_met = !options.budget_bytes || feasible(n.score);
  }

  // Nothing better worth searching for: the bound is reached, or the budget is met at no extra
  // work (rewrites are not meant to remove work; one that skips dead rows may, and is not sought).
  bool optimal() const {
    if (options.budget_bytes)
      return feasible(best.score) && best.score.macs <= root_score.macs;
    return best.score.peak <= progress.lower_bound_bytes;
  }

  void start_round() {
    Node root;
    root.graph = original;
    root.score = root_score;
    seen = {signature(original)};
    frontier.clear();
    frontier.push_back(std::move(root));
    level = 0;
    no_improve = 0;
    cut = false;
    round_best = root_score;
    begin_level();
  }

  void begin_level() {
    children.clear();
    expand_node = 0;
    expand_index = 0;
    expand_specs = frontier.empty() ? std::vector<std::string>{} : candidates(frontier[0].graph);
    progress.depth = level + 1;
  }

  void end_level() {
    ++level;
    const bool improved = !children.empty() && ahead(children[0].score, round_best);
    if (improved) round_best = children[0].score, no_improve = 0;
    else ++no_improve;
    if (children.empty() || level >= options.max_rewrites || no_improve >= kPatience || optimal()) {
      end_round(children.empty());
      return;
    }
    frontier = std::move(children);
    begin_level();
  }

  void end_round(bool ran_out) {
    if (work_free_round) {
      work_free_round = false;
      if (!optimal()) {
        kinds = all_kinds;
        start_round();
        return;
      }
    }
    const int width = progress.beam_width;
    if (!cut || optimal() || width * 2 > options.max_beam_width) {
      progress.exhausted = !cut && ran_out;
      progress.phase = "prune";
      frontier.clear();
      children.clear();
      return;
    }
    progress.beam_width = width * 2;
    start_round();
  }

  // Tries one rewrite on one frontier graph.
  void expand_one() {
    if (expand_node >= frontier.size()) return end_level();
    if (expand_index >= expand_specs.size()) {
      ++expand_node;
      expand_index = 0;
      expand_specs = expand_node < frontier.size() ? candidates(frontier[expand_node].graph) : std::vector<std::string>{};
      return;
    }
    const Node& parent = frontier[expand_node];
    const std::string& spec = expand_specs[expand_index++];
    ++progress.evaluations;
    Node child;
    try {
      child.graph = apply(parent.graph, spec);
    } catch (const InputError&) {
      ++progress.refused;
      return;
    }
    if (!seen.insert(signature(child.graph)).second) return;
    child.specs = parent.specs;
    child.specs.push_back(spec);
    child.score = measure(child.graph, static_cast<int>(child.specs.size()));
    if (mac_cap && child.score.macs > *mac_cap) return;
    consider_best(child);
    // Keep the beam's width best children, best first.
    auto pos = std::find_if(children.begin(), children.end(), [&](const Node& n) { return ahead(child.score, n.score); });
    if (static_cast<int>(children.size()) >= progress.beam_width && pos == children.end()) {
      cut = true;
      return;
    }
    children.insert(pos, std::move(child));
    if (static_cast<int>(children.size()) > progress.beam_width) children.pop_back(), cut = true;
  }

  // Drops one rewrite of the best sequence when the rest is legal and at least as good.
  void prune_one() {
    if (prune_index >= best.specs.size()) {
      progress.phase = "done";
      return;
    }
    std::vector<std::string> fewer = best.specs;
    fewer.erase(fewer.begin() + static_cast<long>(prune_index));
    ++progress.evaluations;
    try {
      const Score s = measure(replay(fewer), static_cast<int>(fewer.size()));
      const bool within_cap = !mac_cap || s.macs <= *mac_cap;
      if (within_cap && !better(best.score, s)) {
        consider_best(Node{fewer, Graph{}, s});  // as good with fewer rewrites: strictly better
        prune_index = 0;
        return;
      }
    } catch (const InputError&) {
      ++progress.refused;  // a later rewrite needs this one
    }
    ++prune_index;
  }

  bool over_limits() const {
    return cancelled || (options.cancel && options.cancel->load()) || spent >= options.time_limit_seconds ||
           (options.max_evaluations > 0 && progress.evaluations >= options.max_evaluations);
  }
};

AutoRewriteSearch::AutoRewriteSearch(const Graph& g, AutoRewriteOptions options) : impl_(std::make_unique<Impl>()) {
  const auto set_up_start = Clock::now();
  Impl& m = *impl_;
  m.options = std::move(options);
  m.all_kinds = m.kinds = searched_kinds(m.options);
  if (m.options.budget_bytes) {
    std::vector<const RewriteKind*> work_free;
    for (const RewriteKind* k : m.all_kinds)
      if (!k->adds_macs) work_free.push_back(k);
    if (work_free.size() < m.all_kinds.size()) m.kinds = work_free, m.work_free_round = true;
  }
  m.original = normalized(g);
  m.root_score = measure(m.original, 0);
  m.best.graph = m.original;
  m.best.score = m.root_score;
  if (m.options.max_extra_macs_pct)
    m.mac_cap = m.root_score.macs + static_cast<int64_t>(static_cast<double>(m.root_score.macs) *
                                                         std::max(0.0, *m.options.max_extra_macs_pct) / 100.0);
  m.progress.start_peak = m.progress.best_peak = m.root_score.peak;
  m.progress.lower_bound_bytes = auto_lower_bound(m.original, m.all_kinds);
  m.progress.budget_met = !m.options.budget_bytes || m.feasible(m.root_score);
  m.start_round();
  // The set-up (one plan, the lower bound) counts against the time limit: on a large graph it is
  // a large part of it.
  m.spent = std::chrono::duration<double>(Clock::now() - set_up_start).count();
}

AutoRewriteSearch::~AutoRewriteSearch() = default;

bool AutoRewriteSearch::step(double seconds) {
  Impl& m = *impl_;
  const auto t0 = Clock::now();
  double slice = 0;
  while (!done()) {
    if (m.cancelled || (m.options.cancel && m.options.cancel->load())) {  // at once, in any phase
      m.progress.stopped = true;
      m.progress.phase = "done";
      break;
    }
    if (m.progress.phase == "search" && (m.over_limits() || m.optimal())) {
      m.progress.stopped = m.over_limits();
      m.progress.phase = "prune";  // bounded: at most (rewrites + 1)^2 / 2 replays
      continue;
    }
    if (m.progress.phase == "search") m.expand_one();
    else m.prune_one();
    slice = std::chrono::duration<double>(Clock::now() - t0).count();
    if (slice >= seconds) break;
  }
  m.spent += slice;
  m.progress.elapsed_seconds = m.spent;
  return done();
}

void AutoRewriteSearch::cancel() { impl_->cancelled = true; }
bool AutoRewriteSearch::done() const { return impl_->progress.phase == "done"; }
const AutoProgress& AutoRewriteSearch::progress() const { return impl_->progress; }
std::vector<std::string> AutoRewriteSearch::best_specs() const { return impl_->best.specs; }

AutoRewriteResult AutoRewriteSearch::result() const {
  const Impl& m = *impl_;
  auto_detail::Verified v;
  v.original = m.original;
  v.specs = m.best.specs;
  v.counted_macs_before = m.root_score.macs;
  v.replay = [&m](const std::vector<std::string>& specs) { return m.replay(specs); };
  v.peak_of = [](const Graph& g) { return measure(g, 0).peak; };
  // A rewrite the search's re-plan accepted but the simulator refuses, or whose outputs differ from
  // the original's (a rewrite whose legality check misses a case), is cut from the end with the
  // reason until the rest verifies: never shown as a result.
  std::vector<std::string> dropped;
  AutoRewriteResult r;
  while (true) {
    std::string why;
    try {
      r = auto_detail::verify(v, m.options);
      if (r.report.outputs_check != "differ" || v.specs.empty()) break;
      why = "the outputs differ from the original graph's";
    } catch (const InputError& e) {
      if (v.specs.empty()) throw;
      why = e.what();
    }
    dropped.push_back(v.specs.back() + ": " + why);
    v.specs.pop_back();
  }
  r.dropped = dropped;
  r.progress = m.progress;
  r.lower_bound_bytes = m.progress.lower_bound_bytes;
  for (const RewriteKind* k : m.all_kinds) r.kinds.push_back(k->name);
  return r;
}

AutoRewriteResult auto_rewrite(const Graph& g, const AutoRewriteOptions& options) {
  AutoRewriteSearch s(g, options);
  while (!s.step(1.0)) {
  }
  return s.result();
}

}  // namespace arenaplan
