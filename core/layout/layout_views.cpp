// The text views of layout results: a plan (`arenaplan layout` without --json: headline, picture,
// fragmentation, per-category usage) and a verifier verdict (`arenaplan verify`, text and JSON).
#include <sstream>

#include "core/layout/fragmentation.h"
#include "core/layout/layout.h"

namespace arenaplan {

std::string layout_text(const LayoutProblem& problem, const ArenaPlan& plan, int width) {
  std::ostringstream out;
  out << "planner " << plan.planner << " (" << plan.detail << "): arena " << format_bytes(plan.arena_bytes) << " ("
      << plan.arena_bytes << " B), lower bound " << format_bytes(plan.lower_bound_bytes) << " ("
      << plan.lower_bound_bytes << " B)" << (plan.proven_optimal ? ", optimal: " + plan.optimality : "") << ", verified, " << plan.seconds
      << " s\n\n";
  out << "time down, address across:\n" << plan_picture(problem, plan.offsets, width);
  const FragmentationReport frag = fragmentation_summary(problem, plan.arena_bytes);
  out << "\nabove the bound: " << frag.excess_bytes << " B (" << frag.excess_percent << " %)\n";
  for (const CategoryUsage& u : category_usage(problem, plan.offsets))
    if (u.buffers > 0)
      out << category_name(u.category) << ": " << u.buffers << " buffers, peak live " << format_bytes(u.peak_live_bytes)
          << ", spans " << format_bytes(u.span_bytes) << "\n";
  return out.str();
}

std::string verify_text(const LayoutProblem& problem, const VerifyResult& result, Bytes arena_bytes) {
  if (!result.ok()) return std::string("broken rule ") + verify_rule_name(result.rule) + ": " + result.message + "\n";
  return "ok: " + std::to_string(problem.buffers.size()) + " buffers fit in " + std::to_string(arena_bytes) +
         " B (lower bound " + std::to_string(layout_lower_bound(problem)) + " B)\n";
}

nlohmann::ordered_json verify_json(const LayoutProblem& problem, const VerifyResult& result, Bytes arena_bytes) {
  nlohmann::ordered_json out;
  out["ok"] = result.ok();
  out["rule"] = verify_rule_name(result.rule);
  out["message"] = result.message;
  out["buffers"] = nlohmann::ordered_json::array();
  for (int b : {result.buffer_a, result.buffer_b})
    if (b >= 0) out["buffers"].push_back(problem.buffers[b].name);
  out["arena_bytes"] = arena_bytes;
  out["lower_bound_bytes"] = layout_lower_bound(problem);
  return out;
}

}  // namespace arenaplan
