// arenaplan transform: apply what-if rewrites to a graph, write the result and/or report the
// re-planned, re-verified, re-simulated numbers before and after (core/transform/whatif.h);
// with --auto, the rewrites are found by the automatic search (core/transform/transform_auto.h).
#include <iostream>

#include "cli/command.h"
#include "core/graph/graph_edit.h"
#include "core/graph/graph_json.h"
#include "core/tflite/tflite_write.h"
#include "core/transform/transform.h"
#include "core/transform/transform_auto.h"
#include "core/transform/whatif.h"

namespace arenaplan::cli {
namespace {

// The rewritten graph as the file OUT asks for: a .tflite (the project's writer, which refuses a
// rewrite stock TFLite cannot express, naming the op) or graph JSON.
std::string rewritten_file(const Graph& g, const std::string& out_path) {
  const bool tflite = out_path.size() >= 7 && out_path.compare(out_path.size() - 7, 7, ".tflite") == 0;
  return tflite ? tflite_from_graph(g) : graph_to_json(g) + "\n";
}

WhatIfOptions whatif_options(const Args& args) {
  WhatIfOptions options;
  options.stop_on_error = true;
  if (auto p = args.option("planner")) options.planner = *p;
  if (auto p = args.option("profile")) options.profile = *p;
  if (auto b = args.option("budget")) options.arena_budget_bytes = parse_byte_size(*b, "--budget");
  options.plan_time_limit_seconds = args.double_option("seconds", 1.0, 0.01, 600);
  options.seed = static_cast<uint64_t>(args.int_option("seed", 1, 0, INT64_MAX));
  return options;
}

// --auto: the search chooses the rewrites; exit 1 when the budget is not met or a check failed.
int run_auto(const Args& args, const Graph& g, const std::string& out_path) {
  AutoRewriteOptions o;
  o.whatif = whatif_options(args);
  o.budget_bytes = o.whatif.arena_budget_bytes;
  if (args.option("max-extra-macs")) o.max_extra_macs_pct = args.double_option("max-extra-macs", 0, 0, 1e6);
  o.time_limit_seconds = args.time_limit_left("time-limit", 10.0, 86400);
  o.max_evaluations = args.int_option("max-evaluations", 0, 0, INT64_MAX);
  o.max_rewrites = static_cast<int>(args.int_option("max-rewrites", 12, 1, 1000));
  o.allow_value_changes = args.flag("allow-quantize");
  if (auto k = args.option("kinds"))
    for (const std::string& name : split_names(*k)) o.kinds.push_back(name);
  o.context.order_time_limit_seconds = args.double_option("order-seconds", 2.0, 0.01, 600);
  if (args.flag("pareto")) {
    if (o.budget_bytes) throw InputError("--pareto", "the frontier spans every peak: give --max-extra-macs to cap it, not --budget");
    if (!out_path.empty()) throw InputError("--pareto", "prints the frontier; -o writes one rewritten graph (use --apply with a point's rewrites)");
    ParetoOptions po;
    po.search = o;
    if (!args.option("max-rewrites")) po.search.max_rewrites = ParetoOptions::kDefaultMaxRewrites;
    const ParetoFrontier f = pareto_frontier(g, po);
    if (args.flag("json")) std::cout << pareto_json(f).dump(2) << "\n";
    else std::cout << pareto_text(f);
    return f.points.empty() ? 1 : 0;
  }
  const AutoRewriteResult r = auto_rewrite(g, o);
  const bool report = args.flag("report") || args.flag("json");
  if (args.flag("json")) std::cout << auto_rewrite_json(r).dump(2) << "\n";
  else if (report) std::cout << auto_rewrite_text(r);
  else
    for (const AutoApplied& a : r.applied) std::cerr << a.spec << "\n";
  if (!out_path.empty()) write_file(out_path, rewritten_file(r.report.result, out_path));
  else if (!report) std::cout << graph_to_json(r.report.result) << "\n";
  const WhatIfReport& w = r.report;
  const bool checks_ok = w.after.verified && (!w.after.simulated || w.after.sim_ok) && w.outputs_check != "differ";
  if (!r.budget_met) std::cerr << auto_budget_shortfall(r) << "\n";
  return checks_ok && r.budget_met ? 0 : 1;
}

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
  Graph g = load_graph(graph_path);
  // TinyEngine's count: the camera frame (the float graph input) sits in its own buffer, outside
  // the arena, so only what the model computes from it is planned.
  if (args.flag("input-outside-arena")) g.input_policy = InputPolicy::kCallerOwned;
  const std::vector<std::string> specs = args.options("apply");
  if (args.flag("auto")) {
    if (!specs.empty()) throw InputError("--auto", "give --apply or --auto, not both");
    return run_auto(args, g, out_path);
  }
  if (args.flag("pareto")) throw InputError("--pareto", "only with --auto");
  for (const char* only_auto : {"time-limit", "max-extra-macs", "max-evaluations", "max-rewrites", "kinds"})
    if (args.option(only_auto)) throw InputError(std::string("--") + only_auto, "only with --auto");
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
    WhatIfReport r = run_whatif(g, list, whatif_options(args), context);
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
  if (!out_path.empty()) write_file(out_path, rewritten_file(result, out_path));
  else if (!report) std::cout << graph_to_json(result) << "\n";
  return status;
}

}  // namespace

ARENAPLAN_COMMAND("transform",
                  "transform GRAPH (--apply SPEC [--apply SPEC ...] | --auto [--pareto] [--time-limit S] [--max-extra-macs PCT] "
                  "[--max-evaluations N] [--max-rewrites N] [--kinds fuse,inplace,...] [--allow-quantize]) "
                  "[-o OUT.json | --out OUT.json] [--report] [--json] [--input-outside-arena] [--budget SIZE] [--planner NAME] [--profile MCU] "
                  "[--seconds S] [--order-seconds S] [--seed N]",
                  {"report", "json", "auto", "allow-quantize", "input-outside-arena", "pareto"},
                  {"apply", "out", "budget", "planner", "profile", "seconds", "order-seconds", "seed", "time-limit",
                   "max-extra-macs", "max-evaluations", "max-rewrites", "kinds"},
                  run_transform,
                  "What-if rewrites: apply rewrites (fuse, in place, foldpad, stream, patch, ...) and see the new peak, or let --auto search for the smallest arena.",
                  {{"apply", "a rewrite SPEC, e.g. fuse:A,B or inplace:C (repeatable; arenaplan transform --apply x lists the forms)"},
                   {"out", "write the rewritten graph here (also -o FILE): graph JSON, or a model when FILE ends in .tflite"},
                   {"budget", "--auto: stop once the arena fits SIZE (e.g. 64KiB); exit 1 when it cannot"},
                   {"planner", "the arena planner of each evaluation (default: best)"},
                   {"profile", "the MCU profile of the simulated check (default: cortex-m4)"},
                   {"seconds", "planner seconds per evaluation (default: 1)"},
                   {"order-seconds", "at most this many seconds for order:best (default: 2); it searches a fixed number of states, so its order is the same on any machine unless the graph is so big that this limit ends it first"},
                   {"seed", "simulation seed (default: 1)"},
                   {"time-limit", "--auto: seconds for the search (default: 10)"},
                   {"max-extra-macs", "--auto: extra work allowed, in percent (default: none)"},
                   {"max-evaluations", "--auto: stop after N evaluations (default: no limit)"},
                   {"max-rewrites", "--auto: at most N rewrites in a sequence (default: 12)"},
                   {"kinds", "--auto: the rewrite kinds to search, comma-separated (default: all bit-exact ones)"},
                   {"report", "print the before/after report instead of the graph"},
                   {"json", "machine-readable output"},
                   {"auto", "search for the rewrite sequence with the smallest arena"},
                   {"pareto", "--auto: the frontier of peak vs extra MACs, each point with its rewrites and verified (the search once per MAC cap 0, 1, 2.5, 5, 10, 20, 40, 100 %, up to --max-extra-macs; --time-limit per cap)"},
                   {"allow-quantize", "--auto: also try quantize rewrites (not bit-exact)"},
                   {"input-outside-arena", "the graph inputs live outside the arena (caller-owned, as TinyEngine counts the camera frame): not planned, not counted"}},
                  {"transform examples/whatif_fusion.json --apply fuse:c2,r2 --report", "transform examples/whatif_fusion.json --auto --report --time-limit 2"});

}  // namespace arenaplan::cli
