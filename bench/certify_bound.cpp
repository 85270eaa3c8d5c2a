// Lower-bound certificates for MiniMalloc's instances, and the figures beside them: per instance
// the live-bytes peak (the bound everyone has), the certified bound (if a core was found), our
// best packing and its time, and MiniMalloc's time told that packing's capacity.
//
//   bench_certify_bound [--data DIR] [--only D,J] [--pack-time S] [--core-time S] [--core-nodes N]
//                       [--write DIR] [--no-minimalloc]
//
// A certificate is a *core*: a subset of the buffers that cannot be packed within a capacity C
// above the peak. Every packing of the instance packs the core, so the instance needs more than C
// (the first multiple of the sizes' common divisor above C; see bench/check_bound/check_bound.h).
// Cores tried: time windows grown around the peak section, one section at a time toward the busier
// side, each decided at C = the peak with arenaplan's exact search (decide_capacity, node limit
// --core-nodes per static order) until --core-time runs out. A core proven infeasible has C raised
// while it stays infeasible, is checked by the independent search of check_bound.h (which must
// agree, or nothing is written) and is written as DIR/<name>.bound.json (--write). The separate
// `check_bound CSV CERT` program re-checks a written file without any arenaplan code.
//
// --pack-time: seconds for the best packing (portfolio seed, then the exact solver minimising).
// MiniMalloc: $ARENAPLAN_MINIMALLOC, as for bench_minimalloc_side_by_side; its limit is --pack-time.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "bench/check_bound/check_bound.h"
#include "bench/minimalloc_runner.h"
#include "core/layout/layout.h"
#include "core/layout/minimalloc_csv.h"
#include "core/layout/planner_exact.h"

using namespace arenaplan;

namespace {

const char* const kNames[] = {"A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K"};

struct Packing {
  Bytes arena = 0;
  double seconds = 0;  // to reach `arena`
};

Packing best_packing(const LayoutProblem& problem, double limit) {
  const double t0 = bench::now();
  ArenaPlan seed = plan_arena(problem, {"portfolio", std::min(limit, 5.0)});
  ExactSolver solver(problem, seed.offsets, seed.arena_bytes);
  Packing p{solver.best_arena_bytes(), bench::now() - t0};
  while (!solver.done() && bench::now() - t0 < limit) {
    solver.step(2000);
    if (solver.best_arena_bytes() < p.arena) p = {solver.best_arena_bytes(), bench::now() - t0};
  }
  return p;
}

// The instance's time sections (between consecutive lifetime ends) and the live bytes in each.
struct Sections {
  std::vector<Step> start;  // section i is [start[i], start[i + 1])
  std::vector<Bytes> live;
};

Sections sections_of(const LayoutProblem& problem) {
  std::set<Step> cuts;
  for (const LayoutBuffer& b : problem.buffers) cuts.insert(b.first), cuts.insert(b.last + 1);
  Sections s;
  s.start.assign(cuts.begin(), cuts.end());
  for (size_t i = 0; i + 1 < s.start.size(); ++i) {
    Bytes live = 0;
    for (const LayoutBuffer& b : problem.buffers)
      if (b.first <= s.start[i] && s.start[i] <= b.last) live += b.size;
    s.live.push_back(live);
  }
  return s;
}

// Buffers (indices into the problem) live somewhere in sections [lo, hi).
std::vector<int> window_core(const LayoutProblem& problem, const Sections& s, size_t lo, size_t hi) {
  std::vector<int> core;
  for (size_t i = 0; i < problem.buffers.size(); ++i) {
    const LayoutBuffer& b = problem.buffers[i];
    if (b.first < s.start[hi] && s.start[lo] <= b.last) core.push_back(static_cast<int>(i));
  }
  return core;
}

LayoutProblem sub_problem(const LayoutProblem& problem, const std::vector<int>& core) {
  LayoutProblem sub;
  for (int i : core) sub.buffers.push_back(problem.buffers[i]);
  return sub;
}

// Is the core proven not to fit in `capacity` (any of the three static orders)? *undecided is set
// when every order ran out of nodes.
bool proven_infeasible(const LayoutProblem& problem, const std::vector<int>& core, Bytes capacity, int64_t nodes,
                       bool* undecided) {
  const LayoutProblem sub = sub_problem(problem, core);
  *undecided = false;
  for (int h = 0; h < 3; ++h) {
    const CapacityDecision d = decide_capacity(sub, capacity, nodes, h);
    if (d.verdict == CapacityVerdict::kDoesNotFit) return true;
    if (d.verdict == CapacityVerdict::kFits) return false;
  }
  *undecided = true;
  return false;
}

struct CoreResult {
  std::vector<int> core;
  Bytes capacity = -1;           // proven infeasible (-1: no core found)
  size_t largest_feasible = 0;   // buffers in the largest window that fit at the peak
  size_t smallest_undecided = 0; // buffers in the smallest window left undecided (0: none)
  int windows = 0;
};

CoreResult find_core(const LayoutProblem& problem, Bytes peak, Bytes g, double time_limit, int64_t nodes) {
  const double t0 = bench::now();
  const Sections s = sections_of(problem);
  const size_t peak_section = std::max_element(s.live.begin(), s.live.end()) - s.live.begin();
  size_t lo = peak_section, hi = peak_section + 1;
  CoreResult r;
  size_t last_size = 0;
  while (bench::now() - t0 < time_limit) {
    const std::vector<int> core = window_core(problem, s, lo, hi);
    if (core.size() != last_size) {
      last_size = core.size();
      ++r.windows;
      bool undecided = false;
      if (proven_infeasible(problem, core, peak, nodes, &undecided)) {
        r.core = core;
        r.capacity = peak;
        while (bench::now() - t0 < time_limit && proven_infeasible(problem, core, r.capacity + g, nodes, &undecided))
          r.capacity += g;
        return r;
      }
      if (undecided && r.smallest_undecided == 0) r.smallest_undecided = core.size();
      if (!undecided) r.largest_feasible = core.size();
    }
    if (lo == 0 && hi == s.live.size()) break;
    // Grow toward the busier neighbouring section (the one more likely to add a conflict).
    const bool left = lo > 0 && (hi == s.live.size() || s.live[lo - 1] >= s.live[hi]);
    if (left) --lo; else ++hi;
  }
  return r;
}

std::string certificate_json(const std::string& file, const std::string& sha, Bytes capacity, Bytes bound,
                             const LayoutProblem& problem, const std::vector<int>& core) {
  std::string ids;
  for (size_t i = 0; i < core.size(); ++i) ids += (i ? ", " : "") + problem.buffers[core[i]].name;
  return "{\n  \"instance\": \"" + file + "\",\n  \"sha256\": \"" + sha + "\",\n  \"capacity\": " +
         std::to_string(capacity) + ",\n  \"claim\": \"no packing of the core's buffers fits in capacity bytes, so every arena of the instance is at least " +
         std::to_string(bound) + " B\",\n  \"core\": [" + ids + "]\n}\n";
}

}  // namespace

int main(int argc, char** argv) {
  double pack_time = 60, core_time = 120;
  int64_t core_nodes = 200000;
  std::string dir, only, write_dir;
  bool minimalloc = true;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--data") && i + 1 < argc) dir = argv[++i];
    else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else if (!std::strcmp(argv[i], "--pack-time") && i + 1 < argc) pack_time = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--core-time") && i + 1 < argc) core_time = std::atof(argv[++i]);
    else if (!std::strcmp(argv[i], "--core-nodes") && i + 1 < argc) core_nodes = std::atoll(argv[++i]);
    else if (!std::strcmp(argv[i], "--write") && i + 1 < argc) write_dir = argv[++i];
    else if (!std::strcmp(argv[i], "--no-minimalloc")) minimalloc = false;
    else {
      std::fprintf(stderr,
                   "usage: %s [--data DIR] [--only D,J] [--pack-time S] [--core-time S] [--core-nodes N] [--write DIR] "
                   "[--no-minimalloc]\n",
                   argv[0]);
      return 2;
    }
  }
  dir = bench::minimalloc_data_dir(dir);
  const std::string binary = minimalloc ? bench::minimalloc_binary() : "";
  if (minimalloc && binary.empty()) std::printf("MiniMalloc: skipped: no executable in $ARENAPLAN_MINIMALLOC\n");
  std::printf("%-3s %7s %9s %9s %9s %8s %8s  %s\n", "", "buffers", "peak", "bound", "packing", "ours s", "mm s",
              "core search");
  for (const char* name : kNames) {
    if (!only.empty() && only.find(name) == std::string::npos) continue;
    const std::string file = std::string(name) + ".1048576.csv", path = dir + "/" + file;
    std::string text;
    if (!bench::read_text(path, &text)) {
      std::printf("%-3s absent (%s)\n", name, path.c_str());
      continue;
    }
    const LayoutProblem problem = parse_minimalloc_csv(text).problem;
    const Bytes peak = layout_lower_bound(problem);
    Bytes g = 0;
    for (const LayoutBuffer& b : problem.buffers) g = std::gcd(g, b.size);
    const Packing packing = best_packing(problem, pack_time);
    std::string note;
    Bytes bound = peak;
    if (packing.arena <= peak) {
      note = "packing meets the peak: optimal, nothing to certify";
    } else {
      const CoreResult core = find_core(problem, peak, g, core_time, core_nodes);
      if (core.capacity < 0) {
        note = "no core above the peak in " + std::to_string(core.windows) + " windows (largest fitting at the peak: " +
               std::to_string(core.largest_feasible) + " buffers; smallest undecided: " +
               (core.smallest_undecided ? std::to_string(core.smallest_undecided) + " buffers" : "none") + ")";
      } else {
        // The independent checker must agree before anything is claimed or written.
        const std::string cert = certificate_json(file, boundcheck::sha256_hex(text), core.capacity,
                                                  (core.capacity / g + 1) * g, problem, core.core);
        const boundcheck::Verdict v = boundcheck::check_certificate(text, cert, 50'000'000);
        if (v.accepted) {
          bound = v.bound;
          note = std::to_string(core.core.size()) + "-buffer core infeasible at " + std::to_string(core.capacity) +
                 " B, confirmed by check_bound";
          if (!write_dir.empty()) std::ofstream(write_dir + "/" + name + ".bound.json") << cert;
        } else {
          note = "core found by the exact search but check_bound says: " + v.message;
        }
      }
    }
    std::string mm_text = "skipped";
    if (!binary.empty()) {
      std::string why;
      const double mm = bench::run_minimalloc(binary, path, packing.arena, pack_time, &why);
      mm_text = mm < 0 ? why : std::to_string(mm).substr(0, 6);
    }
    std::printf("%-3s %7zu %9lld %9lld %9lld %8.2f %8s  %s\n", name, problem.buffers.size(),
                static_cast<long long>(peak), static_cast<long long>(bound), static_cast<long long>(packing.arena),
                packing.seconds, mm_text.c_str(), note.c_str());
    std::fflush(stdout);
  }
  return 0;
}
