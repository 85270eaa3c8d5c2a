// arenaplan budget: does the whole firmware fit the board (arena per region + reservations)?
#include <iostream>

#include "cli/command.h"
#include "core/budget/board.h"
#include "core/budget/budget.h"
#include "core/budget/budget_report.h"
#include "core/graph/lifetime.h"

namespace arenaplan::cli {
namespace {

MemoryMap load_board(const std::string& path) {
  if (is_example(path)) return parse_board_json(example_text(path));
  return in_file(path, [&] { return parse_board_json(read_file(path)); });
}

int run_budget(const Args& args) {
  Graph g = load_graph(args.positional_at(0, "GRAPH"));
  auto board_path = args.option("board");
  if (!board_path) throw InputError("--board", "missing: give the board JSON (--board BOARD.json or example:NAME)");
  MemoryMap board = load_board(*board_path);
  BudgetOptions options;
  if (auto p = args.option("planner")) options.plan.planner = *p;
  options.plan.time_limit_seconds = args.double_option("time-limit", options.plan.time_limit_seconds, 0, 3600);
  if (auto s = args.option("scratch")) {
    if (*s == "in_arena" || *s == "arena") options.scratch = ScratchPolicy::kInArena;
    else if (*s == "separate") options.scratch = ScratchPolicy::kSeparate;
    else throw InputError("--scratch", "expected \"in_arena\" or \"separate\", found \"" + *s + "\"");
  }
  LiveAnalysis live = analyze_lifetimes(g, order_from_args(g, args));
  Budget b = plan_budget(g, live, board, options);
  if (args.flag("json")) std::cout << budget_json(g, live, board, b).dump(2) << "\n";
  else std::cout << budget_text(g, live, board, b);
  return b.fits ? 0 : 1;
}

}  // namespace

ARENAPLAN_COMMAND("budget",
                  "budget GRAPH --board BOARD.json [--order A,B,...] [--planner NAME] [--scratch in_arena|separate] "
                  "[--time-limit S] [--json]",
                  {"json"}, {"board", "order", "planner", "scratch", "time-limit"}, run_budget);

}  // namespace arenaplan::cli
