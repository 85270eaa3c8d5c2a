// The whole arena TFLM needs for a .tflite model: the number to pass as `tensor_arena_size` to
// tflite::MicroInterpreter, before the firmware ever runs. A model of TFLM's MicroAllocator at a
// pinned TFLM version, with its reference kernels or CMSIS-NN's (plain C, DSP or MVE): the head (the non-persistent plan with the scratch
// buffers kernels request in Prepare, 16-byte rules as TFLM applies them), the tail (allocator
// objects, TfLiteEvalTensor per tensor, NodeAndRegistration per op, builtin data, kernel OpData
// and per-channel arrays, variable tensors, the interpreter's input/output TfLiteTensors, every
// alignment pad) and the temporaries of Prepare and of memory planning, which can make the
// minimum arena larger than arena_used_bytes(). Struct sizes follow the target's pointer and enum
// sizes.
//
// Usage:
//   TflmArenaOptions o;
//   o.target = tflm_target_for_core("cortex-m55", TflmKernels::kCmsisNn);
//   TflmArena a = tflm_arena(model_bytes, o);
//   // a.min_arena_bytes: the smallest tensor_arena_size for which AllocateTensors and Invoke work.
//
// This sizes a file as it is. The figures of the files arenaplan writes (an offline plan, a new
// order) come from core/session (tflm_comparison_of, tflm_arena_of), which writes the file first.
//
// An operator whose kernel the model does not know is estimated conservatively (never rounded
// down: a too small arena makes AllocateTensors fail on the device) and named in estimated_ops.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/graph.h"

namespace arenaplan {

// The TFLM commit the model reproduces (tensorflow/tflite-micro), and the CMSIS-NN commit it pins
// (tensorflow/lite/micro/tools/make/ext_libs/cmsis_nn_download.sh).
inline constexpr const char* kTflmVersion = "tflite-micro@90b983c2b3f1480642e040bbd2ddb37b998f3424";
inline constexpr const char* kCmsisNnVersion = "CMSIS-NN@4ab83cc3cc98fb85ed6dafb55e8ca02f1628dcae";

// The kernels the firmware links: TFLM's reference kernels, or OPTIMIZED_KERNEL_DIR=cmsis_nn
// (what Arduino, Zephyr, Mbed and most vendor SDKs ship on Cortex-M). CMSIS-NN kernels ask for
// scratch buffers and keep other persistent data, so they change the arena.
enum class TflmKernels { kReference, kCmsisNn };
// The code path CMSIS-NN compiles for a core (ARM_MATH_DSP / ARM_MATH_MVEI): plain C (M0, M0+, M3,
// M23), DSP (M4, M7, M33, M35P) or MVE, Helium (M52, M55, M85). Each sizes its buffers differently.
enum class CmsisNnIsa { kPlainC, kDsp, kMve };

// Everything about the firmware build that changes what TFLM takes from the arena.
struct TflmTarget {
  int pointer_bytes = 4;  // 4: 32-bit MCU; 8: a 64-bit host
  // sizeof of a C enum: 1 for arm-none-eabi-gcc, whose AAPCS default is short enums (TfLiteTensor
  // and several builtin-data structs shrink); 4 for most other compilers (wasm32, hosts).
  int enum_bytes = 4;
  TflmKernels kernels = TflmKernels::kReference;
  CmsisNnIsa isa = CmsisNnIsa::kDsp;  // with kCmsisNn
  std::string core;                   // the core it was derived from ("cortex-m4"), "" if none
};
const char* tflm_kernels_name(TflmKernels k);      // "reference", "cmsis-nn"
TflmKernels parse_tflm_kernels(const std::string& name);  // InputError naming --kernels
const char* cmsis_nn_isa_name(CmsisNnIsa isa);     // "plain-c", "dsp", "mve"
// The target of a core built with arm-none-eabi-gcc (4-byte pointers, short enums) and the
// CMSIS-NN path that core compiles; "x86-64" is a 64-bit host (8-byte pointers, 4-byte enums,
// plain C). InputError naming --core for a core it does not know, listing those it does.
TflmTarget tflm_target_for_core(const std::string& core, TflmKernels kernels);
// The target of a board's core (MemoryMap::core): a Cortex-M core as above; any other core (an
// ESP32's Xtensa) or none gives the default 32-bit target, and refuses CMSIS-NN (InputError
// naming --kernels).
TflmTarget tflm_target_for_board_core(const std::string& board_core, TflmKernels kernels);
// Throws InputError unless pointer_bytes is 4 or 8 and enum_bytes 1 or 4 (short enums: 32-bit only).
void check_tflm_target(const TflmTarget& t);
// "CMSIS-NN (DSP) for cortex-m4, 32-bit pointers, 1-byte enums"
std::string tflm_target_text(const TflmTarget& t);

enum class TflmPlan {
  kTflm,       // the file as it is: TFLM's greedy planner (or the offline plan the file carries)
  kOffline,    // arenaplan's offline plan, file order (`export --format tflite-offline`)
  kReordered,  // arenaplan's order and offline plan (`export --format tflite-reordered`)
};
const char* tflm_plan_name(TflmPlan p);
TflmPlan parse_tflm_plan(const std::string& name);  // InputError naming --plan

struct TflmArenaOptions {
  TflmTarget target;
};

// One of RecordingMicroAllocator's categories (tail allocations it records).
struct TflmCategory {
  std::string name;      // "eval_tensors", "persistent_tensors", ..., as in tflm_arena_json
  int64_t count = 0;     // allocations (tensors, ops, buffers) it stands for
  Bytes used_bytes = 0;  // tail bytes taken, alignment padding included
  Bytes requested_bytes = 0;
};

// What an OfflineMemoryAllocation entry in the file holds (TFLM reads only count and offsets).
struct TflmOfflinePlanInfo {
  int32_t version = 0;
  int32_t subgraph = 0;
  int32_t offsets = 0;       // the count word
  int32_t fixed = 0;         // offsets other than -1 (planned offline)
  int32_t online = 0;        // -1 entries (planned by TFLM at run time)
};

struct TflmArena {
  std::string tflm_version = kTflmVersion;
  TflmTarget target;
  TflmPlan plan = TflmPlan::kTflm;
  Bytes min_arena_bytes = 0;   // smallest tensor_arena_size for AllocateTensors() + Invoke()
  Bytes arena_used_bytes = 0;  // MicroInterpreter::arena_used_bytes() with a larger arena
  Bytes head_bytes = 0;        // non-persistent: the plan, scratch buffers included
  Bytes tail_bytes = 0;        // persistent
  Bytes scratch_bytes = 0;     // scratch buffers requested in Prepare (16-byte rounded sum)
  int scratch_buffers = 0;
  // RecordingMicroAllocator's view (its own objects are larger, so the same allocations can pad
  // differently): eval_tensors, persistent_tensors, persistent_tensor_quantization,
  // kernel_persistent_buffers, variable_tensors, node_and_registrations.
  std::vector<TflmCategory> categories;
  // Tail bytes outside those categories with the plain allocator: the allocator's own objects,
  // builtin data of each op, scratch-buffer handles, padding between them.
  Bytes unrecorded_tail_bytes = 0;
  std::string limited_by;      // what fails first one byte below the minimum
  std::vector<std::string> estimated_ops;  // "op 7 (custom_op)": over-estimated figures
  std::optional<TflmOfflinePlanInfo> offline_plan;  // of the model that was sized
  std::vector<std::string> assumptions;
};

// Everything TFLM needs beyond the planned head: the tail plus what AllocateTensors needs on top
// (what a board budget reserves for the model besides the plan).
inline Bytes tflm_persistent_bytes(const TflmArena& a) { return a.min_arena_bytes - a.head_bytes; }

// Gives each op of `m` (imported from `model_bytes`) the scratch its kernel for `target` asks for in
// Prepare (the 16-byte rounded sum of its requests), so that a plan of the graph leaves the room
// where TFLM then places them. Kernels the model estimates get none (their size is a guess).
struct TfliteModel;
void add_tflm_kernel_scratch(TfliteModel& m, std::string_view model_bytes, const TflmTarget& target);

// Throws InputError for a model TFLM cannot run (dynamic shapes, string tensors, corrupt file).
TflmArena tflm_arena(std::string_view model_bytes, const TflmArenaOptions& options = {});

// `arenaplan tflm-arena --json`: {"tflm_version", "pointer_bytes", "enum_bytes", "kernels", ("cmsis_nn_version",
// "cmsis_nn_isa" with CMSIS-NN), "core", "plan", "min_arena_bytes",
// "arena_used_bytes", "head_bytes", "tail_bytes", "categories": {name: {"count", "used_bytes",
// "requested_bytes"}}, "estimated_ops", ...}.
nlohmann::ordered_json tflm_arena_json(const TflmArena& a);
// A readable breakdown (several lines).
std::string tflm_arena_text(const TflmArena& a);

// TFLM's own planner next to arenaplan's offline plan, for one target (core/session's
// tflm_comparison_of: `offline` is the arena of the file the tflite-offline export writes).
struct TflmArenaComparison {
  TflmArena tflm;     // TflmPlan::kTflm
  TflmArena offline;  // TflmPlan::kOffline; a copy of `tflm` when the model's plan is kept
  // Why arenaplan kept the model's own offline plan instead of planning one (an NPU model:
  // npu_plan_kept), else empty.
  std::string offline_kept;
  Bytes saved_bytes() const { return tflm.min_arena_bytes - offline.min_arena_bytes; }
};
// "TFLM's own planner: X bytes; with arenaplan's offline plan: Y bytes (saves Z)".
std::string tflm_comparison_sentence(const TflmArenaComparison& c);
// {"tflm_version", "pointer_bytes", "enum_bytes", "kernels", ..., "tflm_planner_arena_bytes", "offline_plan_arena_bytes",
//  "saved_bytes", "tflm_planner": tflm_arena_json, "offline_plan": tflm_arena_json}.
nlohmann::ordered_json tflm_comparison_json(const TflmArenaComparison& c);
// The lines `arenaplan import` prints: the model's own offline plan (if any) and the comparison,
// or why TFLM cannot run the model (`c` null, `refused` the reason).
std::string tflm_import_text(const TflmArenaComparison* c, const std::string& refused);

}  // namespace arenaplan
