// Side by side on MiniMalloc's challenging instances, in one run on one machine: arenaplan's exact
// solver NOT told the capacity (portfolio seed, then the solver minimises on its own) against
// MiniMalloc (google/minimalloc, built from its public source outside this repository) told each
// best known capacity. Per instance: best known, ours (bytes, time and nodes to first reach the
// best known, proof), MiniMalloc's time, ratio. Prints figures; not part of the test command.
//
//   bench_minimalloc_side_by_side [--time-limit S] [--data DIR] [--only D,J] [--max-nodes N]
//                                 [--no-minimalloc] [--keep-going] [--trace] [--told]
// MiniMalloc's binary: $ARENAPLAN_MINIMALLOC (a build of google/minimalloc made by hand);
// when it is absent that half prints "skipped: ..." and ours still runs. --max-nodes stops our
// search after N nodes instead of (as well as) the time limit: node counts do not depend on the
// machine's load, so strategies can be compared with them on a shared machine. Ours stops at the
// best known unless --keep-going (then it searches on for a smaller arena or a proof). --trace
// prints every capacity our solver asked, with its nodes and time (where the time goes). --told:
// ours is told the best known capacity too, as MiniMalloc is (decide_capacity at that capacity,
// the three static orders in turn with node limits doubling from 10k: no seed, no ladder).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "bench/minimalloc_runner.h"
#include "core/layout/layout.h"
#include "core/layout/minimalloc_csv.h"
#include "core/layout/planner_exact.h"

using namespace arenaplan;

namespace {

struct Instance {
  const char* name;
  Bytes best_known;  // the smallest arena known (data README; D and J from arenaplan's own runs)
};
const Instance kInstances[] = {{"A", 1048576}, {"B", 1048576}, {"C", 1039360}, {"D", 1025024},
                               {"E", 1048576}, {"F", 1048576}, {"G", 1048576}, {"H", 1048576},
                               {"I", 1048576}, {"J", 1029120}, {"K", 1048576}};

using bench::now;
using bench::read_text;

struct OursResult {
  Bytes arena = 0;
  double seconds_to_best_known = -1;  // < 0: not reached
  int64_t nodes_to_best_known = -1;
  double seconds = 0;
  std::string status;
};

OursResult run_ours(const LayoutProblem& problem, Bytes best_known, double limit, int64_t max_nodes, bool keep_going,
                    bool trace) {
  OursResult r;
  const double t0 = now();
  ArenaPlan seed = plan_arena(problem, {"portfolio", limit});
  ExactSolver solver(problem, seed.offsets, seed.arena_bytes);
  auto check_reached = [&] {
    if (r.seconds_to_best_known < 0 && solver.best_arena_bytes() <= best_known) {
      r.seconds_to_best_known = now() - t0;
      r.nodes_to_best_known = solver.nodes();
    }
  };
  check_reached();
  // --trace: one line per capacity the solver asks, with the nodes and time spent when it moved on.
  Bytes traced_capacity = -1, traced_best = solver.best_arena_bytes(), traced_bound = solver.lower_bound_bytes();
  int64_t traced_nodes = 0;
  double traced_at = now();
  auto trace_line = [&] {
    if (traced_capacity >= 0)
      std::printf("    capacity %lld: %lld nodes, %.3f s -> best %lld, bound %lld\n", static_cast<long long>(traced_capacity),
                  static_cast<long long>(solver.nodes() - traced_nodes), now() - traced_at,
                  static_cast<long long>(solver.best_arena_bytes()), static_cast<long long>(solver.lower_bound_bytes()));
  };
  while (!solver.done() && now() - t0 < limit && (max_nodes <= 0 || solver.nodes() < max_nodes) &&
         (keep_going || r.seconds_to_best_known < 0)) {
    solver.step(200);
    check_reached();
    if (trace && (solver.trying_capacity() != traced_capacity || solver.best_arena_bytes() != traced_best ||
                  solver.lower_bound_bytes() != traced_bound)) {
      trace_line();
      traced_capacity = solver.trying_capacity();
      traced_best = solver.best_arena_bytes();
      traced_bound = solver.lower_bound_bytes();
      traced_nodes = solver.nodes();
      traced_at = now();
    }
  }
  if (trace) trace_line();
  r.arena = solver.best_arena_bytes();
  r.seconds = now() - t0;
  r.status = solver.proven_optimal() ? "optimal: " + solver.optimality_proof() : solver.status_text();
  return r;
}

// Ours told `capacity`: seconds to a plan within it (seconds_to_best_known < 0 when none in `limit`).
OursResult run_ours_told(const LayoutProblem& problem, Bytes capacity, double limit) {
  OursResult r;
  const double t0 = now();
  int64_t nodes = 0;
  for (int64_t node_limit = 10000; now() - t0 < limit; node_limit *= 2) {
    for (int h = 0; h < 3 && now() - t0 < limit; ++h) {
      const CapacityDecision d = decide_capacity(problem, capacity, node_limit, h);
      nodes += d.nodes;
      if (d.verdict == CapacityVerdict::kFits) {
        r.arena = arena_extent(problem, d.offsets);
        r.seconds_to_best_known = r.seconds = now() - t0;
        r.nodes_to_best_known = nodes;
        r.status = "told: static order " + std::to_string(h) + ", node limit " + std::to_string(node_limit);
        return r;
      }
      if (d.verdict == CapacityVerdict::kDoesNotFit) {
        r.status = "told: proven not to fit";
        r.seconds = now() - t0;
        return r;
      }
    }
  }
  r.seconds = now() - t0;
  r.status = "told: no verdict";
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  double limit = 60.0;
  int64_t max_nodes = 0;
  std::string dir, only;
  bool minimalloc = true, keep_going = false, trace = false, told = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--time-limit") && i + 1 < argc) limit = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--data") && i + 1 < argc) dir = argv[++i];
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!std::strcmp(argv[i], "--max-nodes") && i + 1 < argc) max_nodes = std::atoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--no-minimalloc")) minimalloc = false;
    else if (!std::strcmp(argv[i], "--keep-going")) keep_going = true;
    else if (!std::strcmp(argv[i], "--trace")) trace = true;
    else if (!std::strcmp(argv[i], "--told")) told = true;
    else {
      std::fprintf(stderr, "usage: %s [--time-limit S] [--data DIR] [--only D,J] [--max-nodes N] [--no-minimalloc] [--keep-going] [--trace] [--told]\n", argv[0]);
      return 2;
    }
  }
  dir = bench::minimalloc_data_dir(dir);
  const std::string binary = bench::minimalloc_binary();
  if (minimalloc && binary.empty()) {
    std::printf("MiniMalloc: skipped: no executable in $ARENAPLAN_MINIMALLOC (a build of google/minimalloc)\n");
    minimalloc = false;
  }
  std::printf("exact solver %s the capacity vs MiniMalloc told the best known, limit %.0f s each\n", told ? "told" : "not told", limit);
  std::printf("%-3s %8s %10s %10s %9s %9s %10s  %s\n", "", "buffers", "best-known", "ours", "ours s", "mm s", "ours/mm",
              "ours: nodes to best known, proof or status");
  int reached = 0, present = 0, faster = 0, compared = 0;
  for (const Instance& inst : kInstances) {
    if (!only.empty() && only.find(inst.name) == std::string::npos) continue;
    const std::string path = dir + "/" + inst.name + ".1048576.csv";
    std::string text;
    if (!read_text(path, &text)) {
      std::printf("%-3s absent (%s)\n", inst.name, path.c_str());
      continue;
    }
    ++present;
    const LayoutProblem problem = parse_minimalloc_csv(text).problem;
    const OursResult ours = told ? run_ours_told(problem, inst.best_known, limit)
                                 : run_ours(problem, inst.best_known, limit, max_nodes, keep_going, trace);
    reached += ours.seconds_to_best_known >= 0;
    std::string mm_text = "skipped", ratio_text = "-", why;
    double mm = -1;
    if (minimalloc) {
      mm = bench::run_minimalloc(binary, path, inst.best_known, limit, &why);
      mm_text = mm < 0 ? why : std::to_string(mm).substr(0, 6);
    }
    if (mm > 0 && ours.seconds_to_best_known >= 0) {
      ratio_text = std::to_string(ours.seconds_to_best_known / mm).substr(0, 5) + "x";
      ++compared;
      faster += ours.seconds_to_best_known <= mm;
    }
    const std::string ours_secs = ours.seconds_to_best_known < 0 ? "not in " + std::to_string(static_cast<int>(ours.seconds)) : std::to_string(ours.seconds_to_best_known).substr(0, 6);
    std::printf("%-3s %8zu %10lld %10lld %9s %9s %10s  %lld nodes, %s\n", inst.name, problem.buffers.size(),
                static_cast<long long>(inst.best_known), static_cast<long long>(ours.arena), ours_secs.c_str(),
                mm_text.c_str(), ratio_text.c_str(), static_cast<long long>(ours.nodes_to_best_known), ours.status.c_str());
    std::fflush(stdout);
  }
  std::printf("ours at the best known on %d of %d instances; no slower than MiniMalloc told the capacity on %d of %d compared\n",
              reached, present, faster, compared);
  return 0;
}
