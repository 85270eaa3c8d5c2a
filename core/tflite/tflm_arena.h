// The whole arena TFLM needs for a .tflite model: the number to pass as `tensor_arena_size` to
// tflite::MicroInterpreter, before the firmware ever runs. A model of TFLM's MicroAllocator at a
// pinned TFLM version (reference kernels): the head (the non-persistent plan with the scratch
// buffers kernels request in Prepare, 16-byte rules as TFLM applies them), the tail (allocator
// objects, TfLiteEvalTensor per tensor, NodeAndRegistration per op, builtin data, kernel OpData
// and per-channel arrays, variable tensors, the interpreter's input/output TfLiteTensors, every
// alignment pad) and the temporaries of Prepare and of memory planning, which can make the
// minimum arena larger than arena_used_bytes(). Struct sizes follow the target's pointer size.
//
// Usage:
//   TflmArena a = tflm_arena(model_bytes, {.pointer_bytes = 4, .plan = TflmPlan::kOffline});
//   // a.min_arena_bytes: the smallest tensor_arena_size for which AllocateTensors and Invoke work.
//   TflmArenaComparison c = tflm_arena_comparison(model_bytes, 4);
//   // tflm_comparison_sentence(c): "TFLM's own planner: X bytes; with arenaplan's offline plan: ..."
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

// The TFLM commit the model reproduces (tensorflow/tflite-micro).
inline constexpr const char* kTflmVersion = "tflite-micro@90b983c2b3f1480642e040bbd2ddb37b998f3424";

enum class TflmPlan {
  kTflm,       // the file as it is: TFLM's greedy planner (or the offline plan the file carries)
  kOffline,    // arenaplan's offline plan, file order (`export --format tflite-offline`)
  kReordered,  // arenaplan's order and offline plan (`export --format tflite-reordered`)
};
const char* tflm_plan_name(TflmPlan p);
TflmPlan parse_tflm_plan(const std::string& name);  // InputError naming --plan

struct TflmArenaOptions {
  int pointer_bytes = 4;        // 4: 32-bit targets (Cortex-M, the default); 8: a 64-bit host
  TflmPlan plan = TflmPlan::kTflm;
  std::string planner = "best";  // arenaplan's planner for kOffline / kReordered (as export)
  double time_limit_seconds = 5.0;
};

// One of RecordingMicroAllocator's categories (tail allocations it records).
struct TflmCategory {
  std::string name;      // "eval_tensors", "persistent_tensors", ..., as in tflm_arena_json
  int count = 0;         // allocations (tensors, ops, buffers) it stands for
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
  int pointer_bytes = 4;
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

// Throws InputError for a model TFLM cannot run (dynamic shapes, string tensors, corrupt file).
TflmArena tflm_arena(std::string_view model_bytes, const TflmArenaOptions& options = {});

// `arenaplan tflm-arena --json`: {"tflm_version", "pointer_bytes", "plan", "min_arena_bytes",
// "arena_used_bytes", "head_bytes", "tail_bytes", "categories": {name: {"count", "used_bytes",
// "requested_bytes"}}, "estimated_ops", ...}.
nlohmann::ordered_json tflm_arena_json(const TflmArena& a);
// A readable breakdown (several lines).
std::string tflm_arena_text(const TflmArena& a);

// TFLM's own planner next to arenaplan's offline plan, for one pointer size.
struct TflmArenaComparison {
  TflmArena tflm;     // TflmPlan::kTflm
  TflmArena offline;  // TflmPlan::kOffline
  Bytes saved_bytes() const { return tflm.min_arena_bytes - offline.min_arena_bytes; }
};
TflmArenaComparison tflm_arena_comparison(std::string_view model_bytes, int pointer_bytes = 4,
                                          const std::string& planner = "best", double time_limit_seconds = 5.0);
// "TFLM's own planner: X bytes; with arenaplan's offline plan: Y bytes (saves Z)".
std::string tflm_comparison_sentence(const TflmArenaComparison& c);
// {"tflm_version", "pointer_bytes", "tflm_planner_arena_bytes", "offline_plan_arena_bytes",
//  "saved_bytes", "tflm_planner": tflm_arena_json, "offline_plan": tflm_arena_json}.
nlohmann::ordered_json tflm_comparison_json(const TflmArenaComparison& c);
// The lines `arenaplan import` prints: the model's own offline plan (if any) and the comparison,
// or why TFLM cannot run the model (`c` null, `refused` the reason).
std::string tflm_import_text(const TflmArenaComparison* c, const std::string& refused);

}  // namespace arenaplan
