// The automatic rewrite search against two baselines in the same run: the best single rewrite
// and its own first round (the greedy search, beam width 1): peaks before, single, greedy, auto
// and the lower bound, on the examples and on generated
// ResNet-, inception- and random-shaped graphs. Prints figures; never a pass/fail test.
//
//   bench_transform_auto_bench [--seconds S]   (time limit per search, default 5)
//   bench_transform_auto_bench --model PATH [--model PATH ...] [--seconds S]
//     the frontier of peak vs extra MACs (pareto_frontier, float input outside the arena as
//     TinyEngine counts it) of each model, against msf-CNN's four published MCUNet-VWW points,
//     saying which the frontier beats (a point at or below both its peak and its extra MACs).
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/graph/examples.h"
#include "core/graph/graph_json.h"
#include "core/schedule/schedule_generators.h"
#include "core/tflite/tflite_import.h"
#include "core/transform/transform_auto.h"

using namespace arenaplan;

namespace {

struct Run {
  Bytes peak = 0;
  int64_t evaluations = 0;
  double seconds = 0;
  size_t rewrites = 0;
};

Run search(const Graph& g, double seconds, int width, Bytes* before, Bytes* bound) {
  AutoRewriteOptions o;
  o.time_limit_seconds = seconds;
  o.max_beam_width = width;
  o.whatif.simulate = false;  // the figures are the peaks; the CLI and tests check the simulation
  o.whatif.plan_time_limit_seconds = 0.2;
  const double t0 = bench::now();
  const AutoRewriteResult r = auto_rewrite(g, o);
  Run run;
  run.seconds = bench::now() - t0;
  run.peak = r.report.after.peak_bytes;
  run.evaluations = r.progress.evaluations;
  run.rewrites = r.applied.size();
  *before = r.report.before.peak_bytes;
  *bound = r.lower_bound_bytes;
  return run;
}

// The lowest peak one rewrite alone reaches (what a user trying each in turn would find).
Bytes best_single(const Graph& original) {
  AutoRewriteOptions o;
  const Graph g = normalized(original);
  Bytes best = analyze_lifetimes(g, topological_order(g)).peak_bytes;
  for (const RewriteKind* k : searched_kinds(o))
    for (const std::string& spec : k->candidates(g)) {
      try {
        const Graph r = k->apply(g, parse_transformation(spec), o.context).graph;
        best = std::min(best, analyze_lifetimes(r, topological_order(r)).peak_bytes);
      } catch (const InputError&) {
      }
    }
  return best;
}

// msf-CNN (NeurIPS 2025), MCUNet-VWW (80x80): published peak RAM at extra MACs.
struct Published {
  Bytes peak;
  double extra_pct;
};
constexpr Published kMsfCnnVww[] = {{45283, 2.3}, {26240, 11.3}, {17904, 34.5}, {15368, 95.7}};

int frontier_of(const std::string& path, double seconds) {
  Graph g;
  try {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(path, "cannot read the model file");
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    g = import_tflite(bytes).graph;
  } catch (const InputError& e) {
    std::fprintf(stderr, "%s: %s\n", path.c_str(), e.what());
    return 2;
  }
  g.input_policy = InputPolicy::kCallerOwned;  // the camera frame outside the arena (TinyEngine's count)
  ParetoOptions o;
  o.search.time_limit_seconds = seconds;
  o.search.max_rewrites = 16;
  const double t0 = bench::now();
  const ParetoFrontier f = pareto_frontier(g, o);
  std::printf("%s: start peak %lld B, %lld MACs; frontier in %.1f s (verified, bit-exact points only)\n", path.c_str(),
              (long long)f.start_peak_bytes, (long long)f.start_macs, bench::now() - t0);
  for (const ParetoPoint& p : f.points)
    std::printf("  %8lld B at +%5.2f %% MACs (%lld), %zu rewrites, outputs %s\n", (long long)p.peak_bytes, p.extra_macs_pct,
                (long long)p.extra_macs, p.rewrites.size(), p.outputs_check.c_str());
  for (const Published& m : kMsfCnnVww) {
    const ParetoPoint* beat = nullptr;
    for (const ParetoPoint& p : f.points)
      if (p.peak_bytes <= m.peak && p.extra_macs_pct <= m.extra_pct) {
        beat = &p;
        break;
      }
    if (beat)
      std::printf("  msf-CNN %6lld B at +%5.1f %%: beaten (%lld B at +%.2f %%)\n", (long long)m.peak, m.extra_pct,
                  (long long)beat->peak_bytes, beat->extra_macs_pct);
    else
      std::printf("  msf-CNN %6lld B at +%5.1f %%: not beaten\n", (long long)m.peak, m.extra_pct);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  double seconds = 5;
  std::vector<std::string> models;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--seconds")) seconds = std::atof(argv[i + 1]);
    if (!std::strcmp(argv[i], "--model")) models.push_back(argv[i + 1]);
  }
  if (!models.empty()) {
    int status = 0;
    for (const std::string& m : models) status = std::max(status, frontier_of(m, seconds));
    return status;
  }
  std::vector<std::pair<std::string, Graph>> graphs;
  for (const char* name : {"whatif_fusion", "whatif_interact", "whatif_patch", "residual_block", "inception_cell"})
    graphs.push_back({name, parse_graph_json(*find_example(name))});
  graphs.push_back({"residual_chain(4)", residual_chain_graph(4, 1)});
  graphs.push_back({"inception(2)", inception_graph(2, 1)});
  for (uint64_t seed = 1; seed <= 3; ++seed) graphs.push_back({"random_small(12) #" + std::to_string(seed), random_small_graph(seed, 12)});
  std::printf("%-24s %5s %10s %10s %10s %10s %10s %8s %8s %8s %8s\n", "graph", "ops", "before", "single", "greedy",
              "auto", "bound", "greedy s", "auto s", "evals", "auto/sgl");
  for (const auto& [name, g] : graphs) {
    Bytes before = 0, bound = 0;
    const Run greedy = search(g, seconds, 1, &before, &bound);
    const Run full = search(g, seconds, 64, &before, &bound);
    const Bytes single = best_single(g);
    std::printf("%-24s %5zu %10lld %10lld %10lld %10lld %10lld %8.2f %8.2f %8lld %8.3f\n", name.c_str(), g.ops.size(),
                (long long)before, (long long)single, (long long)greedy.peak, (long long)full.peak, (long long)bound,
                greedy.seconds, full.seconds, (long long)full.evaluations, single ? double(full.peak) / double(single) : 1.0);
  }
  return 0;
}
