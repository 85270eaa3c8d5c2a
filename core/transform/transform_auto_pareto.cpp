// The frontier of peak against extra MACs (msf-CNN's trade-off): the automatic search run under a
// ladder of MAC caps, each result verified and simulated bit-exact through run_whatif, and the
// points no other point beats on both axes kept. A cap bounds what one search may spend; the
// search minimises the peak within it, so the ladder traces the curve from "no extra work" to
// "whatever it takes".
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <tuple>

#include "core/graph/lifetime.h"
#include "core/transform/transform_auto.h"

namespace arenaplan {

namespace {

ParetoPoint point_of(const AutoRewriteResult& r, double cap) {
  ParetoPoint p;
  p.cap_pct = cap;
  p.peak_bytes = r.report.after.peak_bytes;
  p.arena_bytes = r.report.after.arena_bytes;
  p.extra_macs = r.extra_macs;
  const int64_t base = r.report.before.macs;
  p.extra_macs_pct = base > 0 ? 100.0 * static_cast<double>(r.extra_macs) / static_cast<double>(base) : 0.0;
  for (const AutoApplied& a : r.applied) p.rewrites.push_back(a.spec);
  p.outputs_check = r.report.outputs_check;
  p.verified = r.report.after.verified && (!r.report.after.simulated || r.report.after.sim_ok) && r.report.outputs_check != "differ";
  return p;
}

std::string pct(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.2f", v);
  return b;
}

// ---- msf-CNN's recipe, as a seed the beam search would need 30+ steps to reach ---------------

struct Shape {
  Bytes peak = 0, area = 0;
  bool operator<(const Shape& o) const { return peak != o.peak ? peak < o.peak : area < o.area; }
};

Shape shape_of(const Graph& g) {
  const LiveAnalysis a = analyze_lifetimes(g, topological_order(g));
  Shape s;
  s.peak = a.peak_bytes;
  for (const StepLive& st : a.steps) s.area += st.live_bytes;
  return s;
}

// Applies `spec` when it is legal and lowers (peak, then live-byte area summed over the steps):
// a zero-MAC rewrite that moves no peak may still shorten what is live elsewhere, and one that
// lengthens a lifetime (an in-place output living on in its input's larger buffer) is refused.
bool try_improve(Graph& g, Shape& now, std::vector<std::string>& specs, const std::string& spec, const TransformContext& context) {
  try {
    Graph next = apply_transformation(g, parse_transformation(spec), context).graph;
    const Shape s = shape_of(next);
    if (!(s < now)) return false;
    g = std::move(next);
    now = s;
    specs.push_back(spec);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

// Whether in-place spec `a` overwrites an input produced before `b`'s (specs "inplace:OP=T").
bool tie_earlier(const Graph& g, const std::string& a, const std::string& b) {
  auto producer = [&](const std::string& spec) -> OpId {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos) return -1;
    const std::optional<TensorId> t = g.find_tensor(spec.substr(eq + 1));
    return t ? g.tensors[*t].producer : -1;
  };
  return producer(a) < producer(b);
}

std::string with_grid(const std::string& spec, const std::string& grid) { return spec.substr(0, spec.rfind('=') + 1) + grid; }

// msf-CNN's recipe on a MobileNetV2-like graph: fold every PAD; the first stage (the longest msf
// stem candidate) over `stem_grid`; the inverted-residual blocks at the highest resolution over
// `bands` row bands (0: none); then every stream and in-place rewrite that lowers (peak, area).
std::vector<std::string> recipe(const Graph& original, const std::string& stem_grid, int bands, const TransformContext& context) {
  Graph g = original;
  Shape now = shape_of(g);
  std::vector<std::string> specs;
  for (const std::string& f : foldpad_candidates(original)) try_improve(g, now, specs, f, context);
  std::string stem;
  for (const std::string& m : msf_candidates(g))
    if (m.substr(m.rfind('=') + 1) == "2x2" && m.size() > stem.size()) stem = m;
  if (stem.empty()) return {};
  // The stem is applied even when it alone does not lower the peak (a later block may hold it).
  try {
    g = apply_transformation(g, parse_transformation(with_grid(stem, stem_grid)), context).graph;
    specs.push_back(with_grid(stem, stem_grid));
    now = shape_of(g);
  } catch (const InputError&) {
    return {};
  }
  // The blocks left after the stem, at their highest resolution.
  int64_t block_rows = 0;
  std::vector<std::string> blocks;
  if (bands > 0)
    for (const std::string& m : msf_candidates(g)) {
      if (m.substr(m.rfind('=') + 1) != "2") continue;
      const Transformation t = parse_transformation(m);
      const std::optional<OpId> first = g.find_op(t.names.front());
      if (!first) continue;
      const Tensor& x = g.tensors[g.ops[*first].inputs[0]];
      const int64_t rows = x.shape.size() >= 3 ? x.shape[x.shape.size() - 3].value : 0;
      if (rows > block_rows) blocks.clear(), block_rows = rows;
      if (rows == block_rows) blocks.push_back(with_grid(m, std::to_string(bands)));
    }
  for (const std::string& b : blocks) {
    try {
      g = apply_transformation(g, parse_transformation(b), context).graph;
      specs.push_back(b);
      now = shape_of(g);
    } catch (const InputError&) {
    }
  }
  for (int round = 0; round < 2; ++round) {
    for (const std::string& st : stream_candidates(g)) try_improve(g, now, specs, st, context);
    for (const std::string& f : foldpad_candidates(g)) try_improve(g, now, specs, f, context);
    // An op's in-place candidates (one per input) compete: the best of them, not the first.
    const std::vector<std::string> ips = inplace_candidates(g);
    for (size_t i = 0; i < ips.size();) {
      size_t j = i;
      const std::string op = ips[i].substr(0, ips[i].find('='));
      Graph best_graph;
      Shape best = now;
      std::string best_spec;
      for (; j < ips.size() && ips[j].substr(0, ips[j].find('=')) == op; ++j) {
        Graph trial = g;
        Shape s = now;
        std::vector<std::string> one;
        // On a tie, the input produced earlier (a residual's skip): the fresh one, the projection's
        // output, can then be written in place over the expansion before it.
        if (!try_improve(trial, s, one, ips[j], context)) continue;
        const bool tie = !best_spec.empty() && !(best < s) && !(s < best);
        if (s < best || (tie && tie_earlier(g, ips[j], best_spec)))
          best = s, best_graph = std::move(trial), best_spec = ips[j];
      }
      if (!best_spec.empty()) g = std::move(best_graph), now = best, specs.push_back(best_spec);
      i = j;
    }
  }
  return specs;
}

}  // namespace

std::vector<ParetoPoint> non_dominated(std::vector<ParetoPoint> points) {
  std::sort(points.begin(), points.end(), [](const ParetoPoint& a, const ParetoPoint& b) {
    // A total order (equal points: the fewest rewrites, then by their text), so the point kept is
    // the same with any standard library's sort.
    const size_t na = a.rewrites.size(), nb = b.rewrites.size();
    return std::tie(a.extra_macs, a.peak_bytes, na, a.rewrites) < std::tie(b.extra_macs, b.peak_bytes, nb, b.rewrites);
  });
  std::vector<ParetoPoint> out;
  for (ParetoPoint& p : points)
    if (p.verified && (out.empty() || p.peak_bytes < out.back().peak_bytes)) out.push_back(std::move(p));
  return out;
}

namespace {

// The recipe's ladder of grids: the stem over 2x2 to 5x5 patches, the blocks over 0, 5 or 10 bands.
struct RecipeGrid {
  const char* stem_grid;
  int bands;
};
const std::vector<RecipeGrid>& recipe_grids() {
  static const std::vector<RecipeGrid> grids = [] {
    std::vector<RecipeGrid> out;
    for (const char* stem_grid : {"2x2", "3x3", "4x4", "5x5"})
      for (int bands : {0, 5, 10}) out.push_back({stem_grid, bands});
    return out;
  }();
  return grids;
}

}  // namespace

// The work of pareto_frontier in stages a caller can interleave with other work: each cap's
// search (stepped like any AutoRewriteSearch), its verification, then one recipe per stage.
// Nothing depends on how the work is sliced (the searches count their own time), so a page that
// steps it and the CLI that runs it to the end with the same options get the same frontier.
struct ParetoSearch::Impl {
  Graph g;
  ParetoOptions options;
  std::vector<double> caps;
  size_t next_cap = 0;                         // caps whose search is finished and verified
  std::unique_ptr<AutoRewriteSearch> search;   // the search of caps[next_cap], once set up
  size_t next_recipe = 0;                      // recipe grids tried
  ParetoFrontier f;
  ParetoProgress progress;
  bool cancelled = false;

  bool external_cancel() const { return options.search.cancel && options.search.cancel->load(); }

  // One stage's worth of work, or `seconds` of the running search.
  void work(double seconds) {
    if (next_cap < caps.size()) {
      progress.cap_pct = caps[next_cap];
      if (!search) {
        if (external_cancel()) {  // as before: a cancel between caps skips the caps left
          next_cap = caps.size();
          return;
        }
        AutoRewriteOptions o = options.search;
        o.budget_bytes.reset();  // the lowest peak within the cap, not the fewest MACs within a budget
        o.max_extra_macs_pct = caps[next_cap];
        search = std::make_unique<AutoRewriteSearch>(g, o);
        progress.search = search->progress();
        progress.phase = "search";
      } else if (!search->done()) {
        search->step(seconds);
        progress.search = search->progress();
        if (search->done()) progress.phase = "verify";
      } else {
        const AutoRewriteResult r = search->result();
        if (f.tried.empty()) {
          f.start_peak_bytes = r.report.before.peak_bytes;
          f.start_macs = r.report.before.macs;
        }
        f.tried.push_back(point_of(r, caps[next_cap]));
        search.reset();
        ++next_cap;
        ++progress.stage;
      }
      return;
    }
    if (options.recipes && next_recipe < recipe_grids().size()) {
      progress.phase = "recipe";
      if (external_cancel()) {
        next_recipe = recipe_grids().size();
        return;
      }
      try_recipe(recipe_grids()[next_recipe++]);
      ++progress.stage;
      return;
    }
    finish();
  }

  // msf-CNN's recipe over one grid, verified like the search's results; a point above the
  // largest cap is dropped.
  void try_recipe(const RecipeGrid& grid) {
    const std::vector<std::string> specs = recipe(normalized(g), grid.stem_grid, grid.bands, options.search.context);
    if (specs.empty()) return;
    std::vector<WhatIfSpec> list;
    for (const std::string& sp : specs) list.push_back({sp, true});
    WhatIfOptions w = options.search.whatif;
    w.measure_alone = false;
    try {
      const WhatIfReport rep = run_whatif(g, list, w, options.search.context);
      ParetoPoint p;
      p.cap_pct = -1;  // a recipe, not a search under a cap
      p.peak_bytes = rep.after.peak_bytes;
      p.arena_bytes = rep.after.arena_bytes;
      p.extra_macs = rep.after.macs - rep.before.macs;
      p.extra_macs_pct = rep.before.macs > 0 ? 100.0 * static_cast<double>(p.extra_macs) / static_cast<double>(rep.before.macs) : 0;
      p.rewrites = specs;
      p.outputs_check = rep.outputs_check;
      p.verified = rep.after.verified && (!rep.after.simulated || rep.after.sim_ok) && rep.outputs_check != "differ" &&
                   rep.after.simulated;
      if (p.extra_macs_pct <= caps.back() + 1e-9) f.tried.push_back(std::move(p));
    } catch (const InputError&) {
    }
  }

  void finish() {
    search.reset();
    f.points = non_dominated(f.tried);
    progress.phase = "done";
  }
};

ParetoSearch::ParetoSearch(const Graph& g, ParetoOptions options) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.g = g;
  m.options = std::move(options);
  for (double c : m.options.caps_pct)
    if (!m.options.search.max_extra_macs_pct || c <= *m.options.search.max_extra_macs_pct) m.caps.push_back(c);
  if (m.options.search.max_extra_macs_pct) m.caps.push_back(*m.options.search.max_extra_macs_pct);
  std::sort(m.caps.begin(), m.caps.end());
  m.caps.erase(std::unique(m.caps.begin(), m.caps.end()), m.caps.end());
  if (m.caps.empty()) throw InputError("--pareto", "no MAC cap to search: give caps of 0 or more");
  m.progress.stages = static_cast<int>(m.caps.size() + (m.options.recipes ? recipe_grids().size() : 0));
}

ParetoSearch::~ParetoSearch() = default;

bool ParetoSearch::step(double seconds) {
  Impl& m = *impl_;
  const auto t0 = std::chrono::steady_clock::now();
  double slice = 0;
  while (!done()) {
    if (m.cancelled) {
      m.progress.stopped = true;
      m.finish();
      break;
    }
    m.work(std::max(0.0, seconds - slice));
    slice = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (slice >= seconds) break;
  }
  m.progress.elapsed_seconds += slice;
  m.progress.tried_points = static_cast<int>(m.f.tried.size());
  return done();
}

void ParetoSearch::cancel() { impl_->cancelled = true; }
bool ParetoSearch::done() const { return impl_->progress.phase == "done"; }
const ParetoProgress& ParetoSearch::progress() const { return impl_->progress; }
ParetoFrontier ParetoSearch::frontier() const {
  ParetoFrontier f = impl_->f;
  f.points = non_dominated(f.tried);
  return f;
}

ParetoFrontier pareto_frontier(const Graph& g, const ParetoOptions& options) {
  ParetoSearch s(g, options);
  while (!s.step(1.0)) {
  }
  return s.frontier();
}

JsonOut pareto_json(const ParetoFrontier& f) {
  JsonOut out;
  out["start_peak_bytes"] = f.start_peak_bytes;
  out["start_macs"] = f.start_macs;
  auto point = [](const ParetoPoint& p) {
    JsonOut j;
    j["peak_bytes"] = p.peak_bytes;
    j["arena_bytes"] = p.arena_bytes;
    j["extra_macs"] = p.extra_macs;
    j["extra_macs_pct"] = p.extra_macs_pct;
    j["cap_pct"] = p.cap_pct;
    j["verified"] = p.verified;
    j["outputs_check"] = p.outputs_check;
    j["rewrites"] = p.rewrites;
    return j;
  };
  out["points"] = JsonOut::array();
  for (const ParetoPoint& p : f.points) out["points"].push_back(point(p));
  out["tried"] = JsonOut::array();
  for (const ParetoPoint& p : f.tried) out["tried"].push_back(point(p));
  return out;
}

std::string pareto_text(const ParetoFrontier& f) {
  std::ostringstream o;
  o << "frontier of peak vs extra MACs (start: peak " << f.start_peak_bytes << " B, " << f.start_macs << " MACs); each point "
    << "re-planned, verified and simulated, outputs compared with the original\n";
  for (const ParetoPoint& p : f.points) {
    o << "  peak " << p.peak_bytes << " B at +" << p.extra_macs << " MACs (+" << pct(p.extra_macs_pct) << " %), outputs "
      << p.outputs_check << ", "
      << (p.cap_pct < 0 ? std::string("msf-CNN's recipe") : "found by the search under a cap of " + pct(p.cap_pct) + " %") << "\n";
    for (const std::string& s : p.rewrites) o << "      " << s << "\n";
  }
  return o.str();
}

}  // namespace arenaplan
