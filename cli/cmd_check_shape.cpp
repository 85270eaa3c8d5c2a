// arenaplan check-shape: does an input shape fall inside the graph's shape contract, and which
// validated plan serves it?
#include <iostream>

#include "cli/command.h"
#include "core/budget/shapes.h"

namespace arenaplan::cli {
namespace {

int run_check_shape(const Args& args) {
  Graph g = load_graph(args.positional_at(0, "GRAPH"));
  std::map<std::string, std::vector<int64_t>> inputs;
  for (const std::string& spec : args.options("input")) {
    auto eq = spec.find('=');
    if (eq == std::string::npos || eq == 0) throw InputError("--input", "expected NAME=SHAPE (x=2x16x16x3), found \"" + spec + "\"");
    std::string name = spec.substr(0, eq);
    if (inputs.count(name)) throw InputError("--input " + name, "given twice");
    inputs[name] = parse_shape(spec.substr(eq + 1), "--input " + name);
  }
  if (inputs.empty()) throw InputError("--input", "missing: give at least one --input NAME=SHAPE");
  std::vector<DimRanges> ranges;
  for (const std::string& r : args.options("range")) ranges.push_back(parse_ranges(r, "--range " + r));
  if (ranges.empty()) ranges = default_ranges(g);
  PlanOptions options;
  if (auto p = args.option("planner")) options.planner = *p;
  ShapeContract c = build_contract(g, order_from_args(g, args), ranges, options);
  ShapeCheck check = check_input_shapes(c, inputs);

  if (args.flag("json")) std::cout << shape_check_json(c, check).dump(2) << "\n";
  else std::cout << shape_check_text(c, check);
  return check.accepted ? 0 : 1;
}

}  // namespace

ARENAPLAN_COMMAND("check-shape",
                  "check-shape GRAPH --input NAME=SHAPE [--input ...] [--range N=1..2 ...] [--order A,B,...] "
                  "[--planner NAME] [--json]",
                  {"json"}, {"input", "range", "order", "planner"}, run_check_shape,
                  "Checks a shape contract: propagates the given input shapes through the graph, names the first mismatch, and plans the arena for those shapes.",
                  {{"input", "NAME=SHAPE of a graph input, e.g. x=2x16x16x3 (repeatable)"},
                   {"range", "N=LO..HI: check every value of a symbolic dimension (repeatable)"},
                   {"order", "the operator order (default: the file's order)"},
                   {"planner", "the arena planner (default: best)"},
                   {"json", "machine-readable output"}},
                  {"check-shape example:batch_contract --input x=2x16x16x3"});

}  // namespace arenaplan::cli
