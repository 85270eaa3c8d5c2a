// Import + optimal schedule + best layout for each fixture model (.cache/models), against TFLM's
// greedy planner in file order: time and bytes. Natively: build/<dir>/bench_tflite_bench; in Wasm:
// node --no-experimental-fetch build/<wasm dir>/bench_tflite_bench.js. Goal: under 1 s per model.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/layout/layout.h"
#include "core/graph/lifetime.h"
#include "core/schedule/schedule.h"
#include "core/tflite/tflite_import.h"

using namespace arenaplan;

int main(int argc, char** argv) {
  const double time_limit = argc > 1 ? std::atof(argv[1]) : 1.0;  // per search (schedule, layout)
  const char* files[] = {"face_detection_short_range.tflite", "selfie_segmentation.tflite",
                         "selfie_segmentation_landscape.tflite", "face_detection_full_range.tflite",
                         "face_detection_full_range_sparse.tflite", "hand_landmark_lite.tflite",
                         "hand_landmark_full.tflite"};
  std::printf("%-40s %5s %9s %9s %12s %12s %12s %12s %9s %9s %9s\n", "model (folded)", "ops", "import_ms",
              "total_ms", "tflm_file_B", "peak_file_B", "peak_opt_B", "best_B", "saved", "sched_ms", "layout_ms");
  int missing = 0;
  for (const char* f : files) {
    std::string bytes;
    if (!bench::read_text(bench::source_path(".cache/models/") + f, &bytes)) {
      std::printf("%-40s missing (run scripts/setup.sh)\n", f);
      ++missing;
      continue;
    }
    const double t0 = bench::now();
    TfliteModel m = import_tflite(bytes);
    double import_s = bench::now() - t0;

    LiveAnalysis file_live = analyze_lifetimes(m.graph, m.graph.file_order());
    ArenaPlan tflm = plan_arena(layout_problem(m.graph, file_live), {.planner = "tflm-greedy"});

    const double t1 = bench::now();
    ScheduleResult sched = optimize_schedule(m.graph, time_limit);
    double sched_s = bench::now() - t1;
    const double t2 = bench::now();
    LiveAnalysis live = analyze_lifetimes(m.graph, sched.order);
    ArenaPlan best = plan_arena(layout_problem(m.graph, live), {.planner = "best", .time_limit_seconds = time_limit});
    double layout_s = bench::now() - t2;
    double total_s = bench::now() - t0;
    double saved = tflm.arena_bytes ? 100.0 * (tflm.arena_bytes - best.arena_bytes) / tflm.arena_bytes : 0;
    std::printf("%-40s %5zu %9.2f %9.1f %12lld %12lld %12lld %12lld %8.1f%% %9.1f %9.1f\n", f, m.graph.ops.size(),
                import_s * 1e3, total_s * 1e3, static_cast<long long>(tflm.arena_bytes),
                static_cast<long long>(file_live.peak_bytes), static_cast<long long>(sched.peak_bytes),
                static_cast<long long>(best.arena_bytes), saved, sched_s * 1e3, layout_s * 1e3);
    std::printf("    schedule: %s%s; layout: %s%s\n", sched.method.c_str(), sched.proven_optimal ? " (proven optimal)" : "",
                best.detail.c_str(), best.proven_optimal ? " (proven optimal)" : "");
  }
  return missing ? 1 : 0;
}
