// The frontier of peak against extra MACs (msf-CNN's trade-off): the automatic search run under a
// ladder of MAC caps, each result verified and simulated bit-exact through run_whatif, and the
// points no other point beats on both axes kept. A cap bounds what one search may spend; the
// search minimises the peak within it, so the ladder traces the curve from "no extra work" to
// "whatever it takes".
#include <algorithm>
#include <cstdio>
#include <sstream>

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
      << p.outputs_check << ", found under a cap of " << pct(p.cap_pct) << " %\n";
    for (const std::string& s : p.rewrites) o << "      " << s << "\n";
  }
  return o.str();
}

}  // namespace arenaplan
