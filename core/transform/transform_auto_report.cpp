// The automatic search's result: the chosen sequence verified through run_whatif, each rewrite's
// saving on the combined graph, and the JSON / text views `transform --auto` prints.
#include <sstream>

#include "core/transform/detail/transform_auto_internal.h"
#include "core/transform/transform_auto.h"

namespace arenaplan {

namespace auto_detail {

AutoRewriteResult verify(const Verified& v, const AutoRewriteOptions& options) {
  AutoRewriteResult r;
  r.budget_bytes = options.budget_bytes;
  r.max_extra_macs_pct = options.max_extra_macs_pct;
  WhatIfOptions w = options.whatif;
  if (options.budget_bytes && !w.arena_budget_bytes) w.arena_budget_bytes = options.budget_bytes;
  w.measure_alone = false;  // each saving is measured on the combined graph below instead
  w.stop_on_error = true;   // the search applied every step: a refusal here is a bug
  std::vector<WhatIfSpec> list;
  for (const std::string& s : v.specs) list.push_back({s, true});
  r.report = run_whatif(v.original, list, w, options.context);
  const PlanFigures& before = r.report.before;
  const PlanFigures& after = r.report.after;
  r.extra_macs = before.simulated && after.simulated ? after.macs - before.macs
                                                     : count_macs(r.report.result) - v.counted_macs_before;
  r.budget_met = !options.budget_bytes || (after.peak_bytes <= *options.budget_bytes &&
                                           after.arena_bytes <= *options.budget_bytes);
  for (size_t i = 0; i < v.specs.size(); ++i) {
    AutoApplied a;
    a.spec = v.specs[i];
    for (const WhatIfStep& st : r.report.steps)
      if (st.spec == a.spec && st.applied) a.interface_change = st.interface_change;
    std::vector<std::string> others = v.specs;
    others.erase(others.begin() + static_cast<long>(i));
    try {
      a.peak_without_bytes = v.peak_of(v.replay(others));
      a.saving_bytes = *a.peak_without_bytes - after.peak_bytes;
    } catch (const InputError& e) {
      a.note = std::string("a later rewrite needs it: without it ") + e.what();
    }
    r.applied.push_back(a);
  }
  return r;
}

}  // namespace auto_detail

JsonOut auto_rewrite_json(const AutoRewriteResult& r) {
  JsonOut j = whatif_json(r.report);
  auto opt = [](const auto& v) { return v ? JsonOut(*v) : JsonOut(nullptr); };
  JsonOut applied = JsonOut::array();
  for (const AutoApplied& a : r.applied)
    applied.push_back({{"spec", a.spec},
                       {"saving_bytes", opt(a.saving_bytes)},
                       {"peak_without_bytes", opt(a.peak_without_bytes)},
                       {"note", a.note},
                       {"interface_change", a.interface_change}});
  const AutoProgress& p = r.progress;
  j["auto"] = {{"budget_bytes", opt(r.budget_bytes)},
               {"lower_bound_bytes", r.lower_bound_bytes},
               {"budget_met", r.budget_met},
               {"max_extra_macs_pct", opt(r.max_extra_macs_pct)},
               {"extra_macs", r.extra_macs},
               {"kinds", r.kinds},
               {"search",
                {{"evaluations", p.evaluations},
                 {"refused", p.refused},
                 {"beam_width", p.beam_width},
                 {"exhausted", p.exhausted},
                 {"stopped", p.stopped},
                 {"elapsed_seconds", p.elapsed_seconds}}},
               {"applied", applied},
               {"dropped", r.dropped}};
  return j;
}

std::string auto_budget_shortfall(const AutoRewriteResult& r) {
  if (r.budget_met || !r.budget_bytes) return "";
  const Bytes budget = *r.budget_bytes;
  const PlanFigures& a = r.report.after;
  const Bytes worst = std::max(a.peak_bytes, a.arena_bytes);
  std::string s = "budget " + format_bytes_exact(budget) + " not met: the best sequence found peaks at " +
                  format_bytes_exact(a.peak_bytes) + ", arena " + format_bytes_exact(a.arena_bytes) + ": " +
                  format_bytes_exact(worst - budget) + " over; lower bound " + format_bytes_exact(r.lower_bound_bytes);
  if (r.lower_bound_bytes > budget) s += ", so no sequence of the searched rewrites fits";
  else if (r.progress.stopped) s += "; the search stopped at its limit (a longer --time-limit may find more)";
  return s;
}

std::string auto_rewrite_text(const AutoRewriteResult& r) {
  std::ostringstream o;
  o << whatif_text(r.report);
  const AutoProgress& p = r.progress;
  o << "\nautomatic search over";
  for (const std::string& k : r.kinds) o << " " << k;
  o << ": " << p.evaluations << " rewrites tried (" << p.refused << " refused), beam width " << p.beam_width << ", "
    << (p.exhausted ? "every reachable graph tried" : p.stopped ? "stopped at its limit" : "converged") << "\n";
  o << "lower bound " << format_kib(r.lower_bound_bytes, 2)
    << " (bytes around an op that no searched rewrite touches, live together in any order)\n";
  if (r.budget_bytes) o << "budget " << format_kib(*r.budget_bytes, 2) << ": " << (r.budget_met ? "met" : "NOT met") << "\n";
  o << "extra MACs " << r.extra_macs << "\n";
  if (r.applied.empty()) o << "no rewrite lowers the peak\n";
  for (const AutoApplied& a : r.applied) {
    o << "  " << a.spec << ": ";
    if (a.saving_bytes)
      o << "saves " << format_kib(*a.saving_bytes, 2) << " on the combined graph (peak without it "
        << format_kib(*a.peak_without_bytes, 2) << ")\n";
    else
      o << a.note << "\n";
    if (!a.interface_change.empty()) o << "    interface change: " << a.interface_change << "\n";
  }
  for (const std::string& d : r.dropped) o << "  dropped (verification refused it): " << d << "\n";
  if (const std::string s = auto_budget_shortfall(r); !s.empty()) o << s << "\n";
  return o.str();
}

}  // namespace arenaplan
