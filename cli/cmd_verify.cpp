// arenaplan verify: judge a plan file with the independent verifier; names the first broken rule.
#include <iostream>

#include "cli/command.h"
#include "core/layout/layout.h"
#include "core/layout/verifier_plan.h"
#include "core/session/session.h"

namespace arenaplan::cli {

LayoutInput read_layout_input(const std::string& path);  // cmd_layout.cpp
Schedule layout_order(const LayoutInput& in, const Args& args);

namespace {

int run_verify(const Args& args) {
  const std::string& input = args.positional_at(0, "INPUT");
  const LayoutInput in = read_layout_input(input);
  const LayoutProblem problem = layout_problem_of(in, layout_order(in, args));
  const std::string& plan_path = args.positional_at(1, "PLAN");
  const PlanFile plan = in_file(plan_path, [&] { return parse_plan_file(problem, read_file(plan_path)); });
  const Bytes arena = plan.arena_bytes.value_or(arena_extent(problem, plan.offsets));
  const VerifyResult r = verify_plan(problem, plan.offsets, arena);
  if (args.flag("json")) std::cout << verify_json(problem, r, arena).dump(2) << "\n";
  else std::cout << verify_text(problem, r, arena);
  return r.ok() ? 0 : 1;
}

}  // namespace

ARENAPLAN_COMMAND("verify", "verify INPUT PLAN [--order A,B,...] [--json]   (PLAN: layout --json output or CSV with offsets)",
                  {"json"}, {"order"}, run_verify,
                  "Checks a plan (offsets) against the graph's lifetimes with the independent verifier and names the first broken rule.",
                  {{"order", "the operator order the plan is for (default: the file's order)"},
                   {"json", "machine-readable output"}},
                  {"verify example:two_branch examples/plans/two_branch_tflm_greedy.json"});

}  // namespace arenaplan::cli
