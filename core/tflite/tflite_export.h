// Writes deployable .tflite files from an imported model's own bytes: nothing is decoded and
// re-encoded, so every field we do not model (builtin options, quantization, signatures) stays
// byte-identical.
//  - with_offline_plan: adds TFLM's OfflineMemoryAllocation metadata so an unmodified TFLM runtime
//    uses our offsets. The new Model table, metadata and buffers vectors are PREPENDED: flatbuffer
//    offsets only point forward, so a new root placed before the old bytes can reference every
//    old table unchanged; the old root becomes unreferenced bytes.
//  - reordered: permutes subgraph 0's operator vector in place (each entry is an offset relative
//    to its own slot, so entries are recomputed, the Operator tables themselves do not move).
// Both results are checked with flatbuffers::Verifier before they are returned.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/layout/layout.h"
#include "core/graph/lifetime.h"
#include "core/tflite/tflite_import.h"

namespace arenaplan {

// One offset per subgraph-0 tensor for TFLM: the planned offset of its buffer, -1 for tensors
// TFLM plans itself or keeps elsewhere (weights, variables in the persistent tail, unused ones).
// `offsets` are per LayoutProblem buffer (= live.buffers). Throws InputError when an offset does
// not fit in int32.
std::vector<int32_t> offline_offsets_for(const TfliteModel& m, const LiveAnalysis& live,
                                         const std::vector<Bytes>& offsets);

// Keeps the offsets an OfflineMemoryAllocation already in the model fixes (TFLM's -1 means
// "planned online" and stays free): the buffer of each such tensor gets that fixed offset, so a
// re-plan places everything else around them. A buffer whose tensors disagree stays free.
// Returns how many buffers it fixed. A model with an NPU op and an offline plan is refused
// (InputError naming the op, npu_plan_kept's reason).
int keep_offline_offsets(LayoutProblem& problem, const TfliteModel& m, const LiveAnalysis& live);

// Why the model's offline plan must stay as it is, or nullopt: it has an NPU op (`runs_on_npu`)
// and an offline plan. Vela places the NPU's feature maps inside its scratch tensor, at the
// offsets its command stream addresses, so the plan nests buffers and no disjoint re-plan exists.
// Sets *npu_op to the first NPU op when given.
std::optional<std::string> npu_plan_kept(const TfliteModel& m, std::string* npu_op = nullptr);

// The model with an OfflineMemoryAllocation entry (words: version 1, subgraph index 0, tensor
// count, one offset per tensor of the model; -1 also for subgraphs other than 0). An existing
// entry of that name is replaced. `offsets` has one entry per subgraph-0 tensor.
std::string tflite_with_offline_plan(std::string_view model_bytes, const std::vector<int32_t>& offsets);

// The model with subgraph 0's operators in `operator_order` (a permutation of operator indices,
// which must respect data dependencies: checked by re-importing the result).
std::string tflite_reordered(std::string_view model_bytes, const std::vector<int32_t>& operator_order);

// The operator order of the file for a schedule of m.graph: ops folded at initialisation first
// (file order), then the scheduled ops.
std::vector<int32_t> file_operator_order(const TfliteModel& m, const Schedule& order);

}  // namespace arenaplan
