// What each TFLM reference kernel takes from the arena, per builtin operator and pointer size
// (tflite-micro 90b983c2, reference kernels, TF_LITE_STATIC_MEMORY): the builtin-data struct its
// parse function allocates, the OpData its Init allocates, and, in order, what its Prepare does:
// temporary TfLiteTensors (AllocateTemp{Input,Output}Tensor), persistent buffers (per-channel
// multiplier/shift arrays, LUTs) and scratch-buffer requests. Sizes were measured with sizeof on
// x86-64 (8-byte pointers) and wasm32 (4-byte pointers, 8-byte-aligned int64) builds of the TFLM
// headers; they are figures, not TFLM code. Internal to core/tflite.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tflite/detail/tflm_model.h"

namespace arenaplan::tflm {

struct StructSize {
  Bytes size = 0;
  Bytes align = 1;
};

// TFLM runtime structs whose size follows the pointer size.
struct RuntimeStructs {
  StructSize arena_allocator;       // SingleArenaBufferAllocator (Recording...: larger)
  StructSize memory_planner;        // GreedyMemoryPlanner
  StructSize micro_allocator;       // MicroAllocator (RecordingMicroAllocator: larger)
  StructSize builtin_data_allocator;
  StructSize subgraph_allocations;
  StructSize eval_tensor;           // TfLiteEvalTensor
  StructSize node_and_registration;
  StructSize tflite_tensor;         // TfLiteTensor (TF_LITE_STATIC_MEMORY)
  StructSize affine_quantization;   // TfLiteAffineQuantization
  StructSize scratch_request;       // internal::ScratchBufferRequest
  StructSize scratch_handle;        // ScratchBufferHandle
  StructSize allocation_info;       // AllocationInfo (memory planning, temporary)
  StructSize size_t_;               // size_t (subgraph offsets, temporary)
  Bytes pointer = 4;
};

// `recording`: the struct sizes of RecordingMicroAllocator's run (how TFLM's own category
// figures are measured). Throws InputError unless pointer_bytes is 4 or 8.
RuntimeStructs runtime_structs(int pointer_bytes, bool recording = false);

enum class PrepareStep {
  kTempInput,   // AllocateTempInputTensor(node, index): nothing when the input is absent
  kTempOutput,  // AllocateTempOutputTensor(node, index)
  kPersistent,  // context->AllocatePersistentBuffer(bytes): 16-byte aligned, in the tail
  kScratch,     // context->RequestScratchBufferInArena(bytes): planned in the head
};

struct PrepareAction {
  PrepareStep step = PrepareStep::kTempInput;
  int32_t index = 0;  // input/output position (temp tensors)
  Bytes bytes = 0;    // persistent / scratch
};

struct KernelAllocations {
  bool has_builtin_data = false;  // the parse function allocates builtin data
  StructSize builtin_data;
  bool has_init = false;          // Init allocates OpData
  Bytes op_data = 0;
  std::vector<PrepareAction> prepare;
  // Not a kernel this table knows: every figure above is a conservative over-estimate (a too small
  // arena makes AllocateTensors fail on the device; a larger one only wastes a little RAM).
  bool estimated = false;
};

KernelAllocations kernel_allocations(const Operator& op, const Subgraph& g, int pointer_bytes);

}  // namespace arenaplan::tflm
