// Graph-view layout benchmark: layout_dag on random network-like DAGs (2,000 ops and more) and on
// the real models in .cache/models, with the crossings before and after the sweeps. Prints
// figures; never a pass/fail test. The Graph tab lays out once per edit, so this is its latency.
//
//   bench_dag_layout_bench [--ops N] [--reach R] [--repeat K]
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/schedule/schedule_generators.h"
#include "core/teach/dag_layout.h"
#include "core/tflite/tflite_import.h"

using namespace arenaplan;

namespace {

void report(const char* name, const Graph& g, int repeat) {
  double best = 1e300;
  DagLayout d;
  for (int i = 0; i < repeat; ++i) {
    const double t0 = bench::now();
    d = layout_dag(g);
    best = std::min(best, 1e3 * (bench::now() - t0));
  }
  std::printf("%-36s %6zu ops %5zu layers %7d joints  crossings %8lld -> %8lld  %8.2f ms (best of %d)\n", name,
              g.ops.size(), d.layers.size(), d.joints, (long long)d.crossings_initial, (long long)d.crossings, best,
              repeat);
}

}  // namespace

int main(int argc, char** argv) {
  int ops = 2000, reach = 8, repeat = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--ops")) ops = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--reach")) reach = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--repeat")) repeat = std::atoi(argv[i + 1]);
  }
  for (int r : {2, reach, 4 * reach}) {
    const std::string name = "random, skips up to " + std::to_string(r) + " back";
    report(name.c_str(), skip_chain_graph(ops, r, 1), repeat);
  }
  report("random, 5x ops", skip_chain_graph(5 * ops, reach, 2), repeat);
  const std::filesystem::path models = std::filesystem::path(bench::source_path(".cache/models"));
  if (!std::filesystem::exists(models)) return 0;
  for (const auto& entry : std::filesystem::directory_iterator(models)) {
    if (entry.path().extension() != ".tflite") continue;
    std::string bytes;
    if (!bench::read_text(entry.path().string(), &bytes)) {
      std::printf("%-36s unreadable\n", entry.path().filename().c_str());
      continue;
    }
    try {
      report(entry.path().filename().c_str(), import_tflite(bytes).graph, repeat);
    } catch (const std::exception& e) {
      std::printf("%-36s refused: %s\n", entry.path().filename().c_str(), e.what());
    }
  }
  return 0;
}
