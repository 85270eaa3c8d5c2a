// libFuzzer target: any bytes into TFLM's arena model (reference and CMSIS-NN kernels, 32- and
// 64-bit) and, when the importer takes them, into the simulator under a small memory limit.
// The only acceptable failure is an InputError: never a crash, a bad_alloc or a hang.
// Build: cmake -DARENAPLAN_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ ... && ./fuzz_tflm corpus/
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/sim/sim.h"
#include "core/tflite/tflite_import.h"
#include "core/tflite/tflm_arena.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace arenaplan;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (const char* core : {"cortex-m4", "cortex-m55", "x86-64"}) {
    try {
      TflmArenaOptions o;
      o.target = tflm_target_for_core(core, TflmKernels::kCmsisNn);
      tflm_arena(bytes, o);
      o.target.kernels = TflmKernels::kReference;
      tflm_arena(bytes, o);
    } catch (const InputError&) {
    }
  }
  try {
    const TfliteModel m = import_tflite(bytes);
    sim::SimRequest req;
    req.plan.planner = "portfolio";
    req.memory_limit_bytes = Bytes{4} << 20;  // a mutated shape must be refused, not allocated
    sim::simulate(m.graph, req);
  } catch (const InputError&) {
  }
  return 0;
}
