// The frontier of peak against extra MACs (msf-CNN's trade-off): the automatic search run under a
// ladder of MAC caps, each result verified and simulated bit-exact through run_whatif, and the
// points no other point beats on both axes kept. A cap bounds what one search may spend; the
// search minimises the peak within it, so the ladder traces the curve from "no extra work" to
// "whatever it takes".
#include <algorithm>
#include <cstdio>
#include <sstream>

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
    return a.extra_macs != b.extra_macs ? a.extra_macs < b.extra_macs : a.peak_bytes < b.peak_bytes;
  });
  std::vector<ParetoPoint> out;
  for (ParetoPoint& p : points)
    if (p.verified && (out.empty() || p.peak_bytes < out.back().peak_bytes)) out.push_back(std::move(p));
  return out;
}

ParetoFrontier pareto_frontier(const Graph& g, const ParetoOptions& options) {
  ParetoFrontier f;
  std::vector<double> caps;
  for (double c : options.caps_pct)
    if (!options.search.max_extra_macs_pct || c <= *options.search.max_extra_macs_pct) caps.push_back(c);
  if (options.search.max_extra_macs_pct) caps.push_back(*options.search.max_extra_macs_pct);
  std::sort(caps.begin(), caps.end());
  caps.erase(std::unique(caps.begin(), caps.end()), caps.end());
  if (caps.empty()) throw InputError("--pareto", "no MAC cap to search: give caps of 0 or more");
  for (double cap : caps) {
    if (options.search.cancel && options.search.cancel->load()) break;
    AutoRewriteOptions o = options.search;
    o.budget_bytes.reset();  // the lowest peak within the cap, not the fewest MACs within a budget
    o.max_extra_macs_pct = cap;
    const AutoRewriteResult r = auto_rewrite(g, o);
    if (f.tried.empty()) {
      f.start_peak_bytes = r.report.before.peak_bytes;
      f.start_macs = r.report.before.macs;
    }
    f.tried.push_back(point_of(r, cap));
  }
  if (options.recipes) {
    // msf-CNN's recipe over a ladder of grids, verified like the search's results; a point
    // above the largest cap is dropped.
    const double cap_max = caps.back();
    for (const char* stem_grid : {"2x2", "3x3", "4x4", "5x5"})
      for (int bands : {0, 5, 10}) {
        if (options.search.cancel && options.search.cancel->load()) break;
        const std::vector<std::string> specs = recipe(normalized(g), stem_grid, bands, options.search.context);
        if (specs.empty()) continue;
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
          if (p.extra_macs_pct <= cap_max + 1e-9) f.tried.push_back(std::move(p));
        } catch (const InputError&) {
        }
      }
  }
  f.points = non_dominated(f.tried);
  return f;
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
