// The page's two searches with a fixed amount of work: the exact layout solver
// (a node budget) and the schedule search (a state budget), on the same inputs whichever machine
// runs it. Built natively and as Wasm from this one file; bench/wasm_native_bench.mjs runs both in
// one go and prints the Wasm/native ratio per instance. A work budget, not a time limit, so both
// builds do exactly the same search: the result columns must match between them.
//
//   bench_search_budget_bench [--nodes N] [--states N] [--data DIR] [--only A,B] [--json] [--graph FILE]
// --json prints one JSON object per instance (what the .mjs driver reads); --graph runs both
// searches on that graph JSON only (its file order for the layout), as the page would.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/graph/graph_json.h"
#include "core/graph/lifetime.h"
#include "core/layout/layout.h"
#include "core/layout/layout_generators.h"
#include "core/layout/minimalloc_csv.h"
#include "core/layout/pipeline.h"
#include "core/layout/planner.h"
#include "core/schedule/schedule.h"
#include "core/schedule/schedule_generators.h"

using namespace arenaplan;

namespace {

struct Row {
  std::string kind, name;
  int64_t work = 0;       // nodes or states actually expanded
  long long result = 0;   // arena or peak bytes reached: equal in both builds when the work is
  double seconds = 0;
};

void print(const Row& r, bool json) {
  if (json)
    std::printf("{\"kind\":\"%s\",\"name\":\"%s\",\"work\":%lld,\"result\":%lld,\"seconds\":%.6f}\n", r.kind.c_str(),
                r.name.c_str(), static_cast<long long>(r.work), r.result, r.seconds);
  else
    std::printf("%-8s %-22s work %10lld  result %10lld B  %8.3f s\n", r.kind.c_str(), r.name.c_str(),
                static_cast<long long>(r.work), r.result, r.seconds);
  std::fflush(stdout);
}

// The slices web/worker/search_session.cpp steps in (the page's searches): with the same slices
// and budget, a page search and this bench do the same search (tests/browser/search_worker.test.mjs
// compares them).
constexpr int64_t kLayoutSlice = 2048;
constexpr int64_t kScheduleSlice = 512;

// The registry's anytime planner (the exact solver), seeded like the page seeds it, stepped in the
// page's slices until `nodes` nodes were handed to it or it finished.
Row exact_layout(const std::string& name, const LayoutProblem& problem, int64_t nodes) {
  AnytimeLayout anytime = start_anytime_layout(problem);
  AnytimeLayoutSearch* search = anytime.search.get();
  const double t0 = bench::cpu_now();
  int64_t spent = 0;
  for (; !search->done() && spent < nodes; spent += kLayoutSlice) search->step(std::min(kLayoutSlice, nodes - spent));
  Row r{"layout", name, spent, static_cast<long long>(search->best_arena_bytes()), bench::cpu_now() - t0};
  return r;
}

// The schedule search stepped in the page's slices until `states` states were handed to it.
Row schedule_search(const std::string& name, const Graph& g, int64_t states) {
  const double t0 = bench::cpu_now();
  ScheduleSearch search(g);
  for (int64_t spent = 0; !search.done() && spent < states; spent += kScheduleSlice)
    search.step(std::min(kScheduleSlice, states - spent));
  const ScheduleResult res = search.result();
  Row r{"schedule", name, res.states_explored, static_cast<long long>(res.peak_bytes), bench::cpu_now() - t0};
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t nodes = 300000, states = 400000;
  std::string dir, only, graph_file;
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--nodes") && i + 1 < argc) nodes = std::atoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--states") && i + 1 < argc) states = std::atoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--data") && i + 1 < argc) dir = argv[++i];
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!std::strcmp(argv[i], "--json")) json = true;
    else if (!std::strcmp(argv[i], "--graph") && i + 1 < argc) graph_file = argv[++i];
    else {
      std::fprintf(stderr, "usage: bench_search_budget_bench [--nodes N] [--states N] [--data DIR] [--only A,B] [--json] [--graph FILE]\n");
      return 2;
    }
  }
  dir = bench::minimalloc_data_dir(dir);
  if (!graph_file.empty()) {
    std::string text;
    if (!bench::read_text(graph_file, &text)) {
      std::fprintf(stderr, "%s: cannot read\n", graph_file.c_str());
      return 2;
    }
    try {
      const Graph g = parse_graph_json(text);
      print(exact_layout("graph", layout_problem(g, analyze_lifetimes(g, g.file_order())), nodes), json);
      print(schedule_search("graph", g, states), json);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: %s\n", graph_file.c_str(), e.what());
      return 2;
    }
    return 0;
  }
  auto wanted = [&](const std::string& name) {
    if (only.empty()) return true;
    std::stringstream ss(only);
    for (std::string item; std::getline(ss, item, ',');)
      if (item == name) return true;
    return false;
  };
  // Layout: MiniMalloc's challenging instances when present (the solver's hardest known inputs),
  // and generated NN-like problems that every machine has.
  for (const char* inst : {"A", "D", "J"}) {
    std::string text;
    if (!wanted(inst)) continue;
    if (!bench::read_text(dir + "/" + inst + ".1048576.csv", &text)) {
      if (!json) std::printf("layout   %-22s absent (%s)\n", inst, dir.c_str());
      continue;
    }
    print(exact_layout(std::string("minimalloc-") + inst, parse_minimalloc_csv(text).problem, nodes), json);
  }
  for (auto [n, dense] : {std::pair{1000, true}}) {
    const std::string name = std::string(dense ? "dense-" : "nn-") + std::to_string(n);
    if (wanted(name)) print(exact_layout(name, random_layout_problem(n, 42 + n, dense), nodes), json);
  }
  // Schedule: an irregular graph the exact search handles and wide DAGs that go to the beam.
  const std::vector<std::pair<std::string, std::function<Graph()>>> graphs = {
      {"nas-100", [] { return nas_cells_graph(100, 7); }},
      {"wide-250", [] { return wide_random_dag(250, 3); }},
      {"wide-1000", [] { return wide_random_dag(1000, 5); }},
  };
  for (const auto& [name, make] : graphs)
    if (wanted(name)) print(schedule_search(name, make(), states), json);
  return 0;
}
