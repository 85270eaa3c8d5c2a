// arenaplan transform: apply what-if rewrites to a graph, write the result and/or report the
// re-planned, re-verified, re-simulated numbers before and after (core/transform/whatif.h).
#include <iostream>

#include "cli/command.h"
#include "core/graph/graph_json.h"
#include "core/transform/transform.h"
#include "core/transform/whatif.h"

namespace arenaplan::cli {
namespace {

int run_transform(const Args& args) {
  std::string graph_path, out_path;
  if (auto o = args.option("out")) out_path = *o;
  // "-o OUT" is not a --option, so it arrives among the positionals.
  for (size_t i = 0; i < args.positional.size(); ++i) {
    const std::string& a = args.positional[i];
    if (a == "-o") {
      if (i + 1 >= args.positional.size()) throw InputError("-o", "needs a file name");
      out_path = args.positional[++i];
    } else if (graph_path.empty()) {
      graph_path = a;
    } else {
      throw InputError("arguments", "unexpected \"" + a + "\"; usage: arenaplan transform GRAPH --apply SPEC ...");
    }
  }
  if (graph_path.empty()) throw InputError("arguments", "missing GRAPH");
  const Graph g = load_graph(graph_path);
  const std::vector<std::string> specs = args.options("apply");
  if (specs.empty())
    throw InputError("--apply", std::string("give at least one transformation:\n") + transformation_help());

  TransformContext context;
  context.order_time_limit_seconds = args.double_option("order-seconds", 2.0, 0.01, 600);
  std::vector<WhatIfSpec> list;
  for (const std::string& s : specs) {
    const Transformation t = parse_transformation(s);
    if (t.kind == "pool" && !context.models.count(t.names[0])) context.models[t.names[0]] = load_graph(t.names[0]);
    list.push_back({s, true});
  }

  const bool report = args.flag("report") || args.flag("json");
  Graph result;
  int status = 0;
  if (report) {
    WhatIfOptions options;
    options.stop_on_error = true;
    if (auto p = args.option("planner")) options.planner = *p;
    if (auto p = args.option("profile")) options.profile = *p;
    if (auto b = args.option("budget")) options.arena_budget_bytes = parse_byte_size(*b, "--budget");
    options.plan_time_limit_seconds = args.double_option("seconds", 1.0, 0.01, 600);
    options.seed = static_cast<uint64_t>(args.int_option("seed", 1, 0, INT64_MAX));
    WhatIfReport r = run_whatif(g, list, options, context);
    result = r.result;
    if (args.flag("json")) std::cout << whatif_json(r).dump(2) << "\n";
    else std::cout << whatif_text(r);
    const bool sims_ok = !r.after.simulated || r.after.sim_ok;
    if (r.outputs_check == "differ" || !sims_ok || !r.after.verified) status = 1;
  } else {
    result = g;
    for (const WhatIfSpec& s : list) {
      Rewrite rw = apply_transformation(result, parse_transformation(s.spec), context);
      std::cerr << s.spec << ": " << rw.summary << "\n";
      result = std::move(rw.graph);
    }
  }
  if (!out_path.empty()) write_file(out_path, graph_to_json(result) + "\n");
  else if (!report) std::cout << graph_to_json(result) << "\n";
  return status;
}

}  // namespace

ARENAPLAN_COMMAND("transform",
                  "transform GRAPH --apply SPEC [--apply SPEC ...] [-o OUT.json | --out OUT.json] [--report] [--json] "
                  "[--budget SIZE] [--planner NAME] [--profile MCU] [--seconds S] [--order-seconds S] [--seed N]",
                  {"report", "json"}, {"apply", "out", "budget", "planner", "profile", "seconds", "order-seconds", "seed"},
                  run_transform);

}  // namespace arenaplan::cli
