// A replay of what TFLM's MicroInterpreter asks of its arena, from construction to the end of
// AllocateTensors(), as a list of allocator calls; and a SingleArenaBufferAllocator replica that
// runs that list over an arena of N bytes (16-byte-aligned start), so the smallest N that works,
// arena_used_bytes() and each category come out as TFLM computes them, padding included.
// Internal to core/tflite (the TFLM arena model).
#pragma once

#include <string>
#include <vector>

#include "core/tflite/detail/tflm_kernel_sizes.h"
#include "core/tflite/detail/tflm_model.h"

namespace arenaplan::tflm {

// RecordingMicroAllocator's categories, plus what it does not record.
enum class Category {
  kNone,                // allocator structs, builtin data, scratch handles (not recorded)
  kEvalTensors,         // TfLiteEvalTensor data
  kPersistentTensors,   // persistent TfLiteTensor data (graph inputs/outputs)
  kQuantization,        // their quantization data
  kPersistentBuffers,   // MicroAllocator::AllocatePersistentBuffer (kernels, input/output arrays)
  kVariables,           // variable tensor buffers
  kNodes,               // NodeAndRegistration arrays
  kCount,
};
const char* category_key(Category c);

enum class Call {
  kPersistent,   // AllocatePersistentBuffer(size, align): tail grows down
  kTemp,         // AllocateTemp(size, align): above the head, until ResetTemp
  kResetTemp,
  kResizeHead,   // the resizable buffer at the arena start (scratch requests, then the plan)
  kPlanner,      // memory planning: the rest of the arena must hold `size` planner bytes
};

struct ArenaCall {
  Call call = Call::kPersistent;
  Bytes size = 0;
  Bytes align = 1;
  Category category = Category::kNone;
  int count = 1;       // allocations this call stands for in its category's count
  std::string phase;   // for "what sets the minimum": "init op 3 (conv_2d)", ...
  Bytes times = 1;     // kPersistent: the call made this many times in a row (one per row of a
                       // Signal op's state; a corrupt model may ask for millions)
};

struct ReplayInput {
  const Model* model = nullptr;
  RuntimeStructs structs;
  std::vector<KernelAllocations> kernels;  // per subgraph-0... per op, all subgraphs in order
  Bytes head_bytes = 0;                    // the plan's size (GetMaximumMemorySize)
  int planned_buffers = 0;                 // buffers given to the planner
  int scratch_requests = 0;
};

std::vector<ArenaCall> replay_calls(const ReplayInput& in);

struct CategoryFigure {
  int64_t count = 0;
  Bytes used = 0;       // tail growth, alignment padding included
  Bytes requested = 0;  // sizes asked for
};

struct ArenaRun {
  bool ok = false;
  std::string failed_at;   // phase of the first call that did not fit
  Bytes head = 0;          // non-persistent bytes at the end (max of head and temp)
  Bytes tail = 0;          // persistent bytes at the end
  CategoryFigure categories[static_cast<int>(Category::kCount)];
};

// Runs the calls over an arena of `arena_bytes` bytes.
ArenaRun run_arena(const std::vector<ArenaCall>& calls, Bytes arena_bytes);

// The smallest arena for which every call fits (the arena one byte smaller fails), by binary
// search from an upper bound that fits.
Bytes minimum_arena(const std::vector<ArenaCall>& calls, std::string* limited_by);

}  // namespace arenaplan::tflm
