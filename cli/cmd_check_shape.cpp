// arenaplan check-shape: does an input shape fall inside the graph's shape contract, and which
// validated plan serves it?
#include <iostream>

#include "cli/command.h"
#include "core/graph/report.h"
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

  if (args.flag("json")) {
    JsonOut out;
    out["accepted"] = check.accepted;
    if (!check.accepted) out["reason"] = check.message;
    JsonOut binding = JsonOut::object();
    for (const auto& [k, v] : check.binding) binding[k] = v;
    out["binding"] = binding;
    JsonOut plans = JsonOut::array();
    for (size_t i = 0; i < c.plans.size(); ++i) {
      const ContractPlan& p = c.plans[i];
      JsonOut ranges_json = JsonOut::object();
      for (const auto& [k, b] : p.ranges) ranges_json[k] = {{"min", b.min}, {"max", b.max}};
      plans.push_back({{"ranges", ranges_json},
                       {"arena_bytes", p.plan.arena_bytes},
                       {"planner", p.plan.planner},
                       {"verified_bindings", p.verified_bindings},
                       {"exhaustive", p.exhaustive},
                       {"selected", static_cast<int>(i) == check.plan}});
    }
    out["plans"] = plans;
    if (check.accepted) {
      out["selected_plan"] = check.plan;
      out["arena_bytes"] = c.plans[check.plan].plan.arena_bytes;
      JsonOut tensors = JsonOut::array();
      for (size_t t = 0; t < g.tensors.size(); ++t)
        tensors.push_back({{"name", g.tensors[t].name},
                           {"shape", check.instance.shapes[t]},
                           {"bytes", check.instance.bytes[t]},
                           {"planned_bytes", c.plans[check.plan].upper.bytes[t]}});
      out["tensors"] = tensors;
    }
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << "graph " << g.name << ": " << c.plans.size() << " validated plans\n";
    for (size_t i = 0; i < c.plans.size(); ++i) {
      const ContractPlan& p = c.plans[i];
      const std::string exact = format_bytes(p.plan.arena_bytes);
      std::cout << (static_cast<int>(i) == check.plan ? " -> " : "    ") << ranges_text(p.ranges) << ": arena "
                << exact << (exact.back() == 'B' && exact.find("iB") == std::string::npos ? "" : " (" + std::to_string(p.plan.arena_bytes) + " B)")
                << ", verified at "
                << p.verified_bindings << (p.exhaustive ? " bindings (all)" : " bindings (corners)") << "\n";
    }
    if (check.accepted) {
      std::cout << "accepted: ";
      for (const auto& [k, v] : check.binding) std::cout << k << " = " << v << " ";
      if (check.binding.empty()) std::cout << "(no symbolic dims) ";
      std::cout << "-> plan for " << ranges_text(c.plans[check.plan].ranges) << ", arena "
                << format_bytes(c.plans[check.plan].plan.arena_bytes) << "\n";
    } else {
      std::cout << "rejected: " << check.message << "\n";
    }
  }
  return check.accepted ? 0 : 1;
}

}  // namespace

ARENAPLAN_COMMAND("check-shape",
                  "check-shape GRAPH --input NAME=SHAPE [--input ...] [--range N=1..2 ...] [--order A,B,...] "
                  "[--planner NAME] [--json]",
                  {"json"}, {"input", "range", "order", "planner"}, run_check_shape);

}  // namespace arenaplan::cli
