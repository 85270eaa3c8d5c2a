// arenaplan verify: judge a plan file with the independent verifier; names the first broken rule.
#include <iostream>

#include "cli/command.h"
#include "core/layout/layout.h"
#include "core/graph/report.h"
#include "core/layout/verifier_plan.h"

namespace arenaplan::cli {

LayoutProblem load_layout_problem(const std::string& path, const Args& args);  // cmd_layout.cpp

namespace {

int run_verify(const Args& args) {
  LayoutProblem problem = load_layout_problem(args.positional_at(0, "INPUT"), args);
  const std::string& plan_path = args.positional_at(1, "PLAN");
  PlanFile plan;
  try {
    plan = parse_plan_file(problem, read_file(plan_path));
  } catch (const InputError& e) {
    throw InputError(plan_path + ": " + e.where(), std::string(e.what()).substr(e.where().size() + 2));
  }
  const Bytes arena = plan.arena_bytes.value_or(arena_extent(problem, plan.offsets));
  VerifyResult r = verify_plan(problem, plan.offsets, arena);
  const Bytes bound = layout_lower_bound(problem);
  if (args.flag("json")) {
    JsonOut out;
    out["ok"] = r.ok();
    out["rule"] = verify_rule_name(r.rule);
    out["message"] = r.message;
    out["buffers"] = JsonOut::array();
    for (int b : {r.buffer_a, r.buffer_b})
      if (b >= 0) out["buffers"].push_back(problem.buffers[b].name);
    out["arena_bytes"] = arena;
    out["lower_bound_bytes"] = bound;
    std::cout << out.dump(2) << "\n";
  } else if (r.ok()) {
    std::cout << "ok: " << problem.buffers.size() << " buffers fit in " << arena << " B (lower bound " << bound << " B)\n";
  } else {
    std::cout << "broken rule " << verify_rule_name(r.rule) << ": " << r.message << "\n";
  }
  return r.ok() ? 0 : 1;
}

}  // namespace

ARENAPLAN_COMMAND("verify", "verify INPUT PLAN [--order A,B,...] [--json]   (PLAN: layout --json output or CSV with offsets)",
                  {"json"}, {"order"}, run_verify);

}  // namespace arenaplan::cli
