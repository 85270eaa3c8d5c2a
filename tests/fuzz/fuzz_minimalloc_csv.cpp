// libFuzzer target: MiniMalloc CSV -> plan with the fast planners -> independent verifier. Bad
// input ends in InputError; every plan a planner returns must verify and respect the lower bound.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/layout/minimalloc_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace arenaplan;
  try {
    MiniMallocCsv csv = parse_minimalloc_csv(std::string_view(reinterpret_cast<const char*>(data), size));
    if (csv.problem.buffers.size() > 2000) return 0;
    for (const char* planner : {"naive", "tflm-greedy", "portfolio"}) {
      ArenaPlan plan = plan_arena(csv.problem, {planner, 0.05});
      if (!verify_plan(csv.problem, plan.offsets, plan.arena_bytes).ok()) __builtin_trap();
      if (plan.arena_bytes < plan.lower_bound_bytes) __builtin_trap();
    }
    // The writer's output parses back to the same problem size.
    if (parse_minimalloc_csv(minimalloc_csv(csv.problem)).problem.buffers.size() != csv.problem.buffers.size())
      __builtin_trap();
  } catch (const InputError&) {
  }
  return 0;
}
