// What-if graph rewrites: each is a pure Graph -> Graph function with its legality
// check. A refused rewrite throws InputError("<spec>", "<reason>"), e.g.
//   "inplace:relu: refused: input y is still read by op q, which runs after relu".
// Every result has gone through link_tensors + validate_graph, and its file order is a valid
// schedule (the order the rewrite put the ops in), so analyze_lifetimes(g, g.file_order()) works.
//
// Usage:
//   Rewrite r = apply_transformation(graph, parse_transformation("fuse:conv1,bn1,relu1"), {});
//   // r.graph is the new graph, r.summary says what changed in words.
//
// How rewritten ops keep their meaning (evaluate_outputs below and the browser rely on it):
//   fused op     name "A+B+C", kind "conv2d+batchnorm+relu"; part 0's attrs as they were, part k's
//                attrs prefixed "k." plus "k.slot" (where A's result enters part k's inputs),
//                "k.inputs" (how many inputs part k adds) and "k.bytes" (the vanished intermediate)
//   streamed     name "PW+DW", kind "pointwise_depthwise_stream": PW's attrs as they were, DW's
//                prefixed "1.", plus "pw_inputs", "mid_h", "mid_w", "mid_scale", "mid_zero_point"
//                (core/sim/kernels_stream.cpp); no "fused_parts": the simulator runs it as one kernel
//   recomputed   name "P@C" (P again, for consumer C), attrs of P plus "recompute": 1
//   quantized    ops "quantize" (T -> T.q) after T's producer and "dequantize" (T.q -> T.dq.C)
//                before each consumer C; attr "scale_log2" is unused by the memory model
//   patched      ops "slice" (attrs "axis", "begin", "size") cut each spatial tile with its halo,
//                stage ops run once per tile ("conv1.p0", ...), one "concat" assembles the output
//   pooled       models merged under "model/" name prefixes, run one after the other
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "core/graph/lifetime.h"
#include "core/graph/op_kinds.h"

namespace arenaplan {

struct Rewrite {
  Graph graph;
  std::string summary;  // one or two sentences: what changed and what it costs
  // Numbers the rewrite measured, by name: "halo_macs", "stage_macs" (patch), "vanished_bytes" (fuse).
  std::map<std::string, int64_t> figures;
  // What the firmware around the model must now do differently ("" when nothing: the rewrite
  // only changes how the model runs). callerquant: feed int8 input quantized with (scale, zp).
  std::string interface_change;
};

// ---- The rewrites ---------------------------------------------------------------------------

// Fuses a chain A -> B -> C into one op whose kernel applies B and C to A's result as it is
// written: the intermediates disappear. B, C must be elementwise, each intermediate read only by
// the next op of the chain, and no other input of a later op may depend on A.
Rewrite fuse_ops(const Graph& g, const std::vector<std::string>& chain);

// Lets `op` write its output over one of its inputs (`input` empty: the first legal one). Legal
// for elementwise and reshape kinds when the input dies at this op in the current order, and for
// depthwise (multiplier 1) and pointwise (1x1, unpadded, Cout <= Cin) convs running the model
// kernels, through a temporary added to the op's scratch (one channel / one output pixel).
Rewrite make_in_place(const Graph& g, const std::string& op, const std::string& input = "");
// make_in_place's first check: whether the op's kernel may overwrite an input at all (its kind),
// whatever the order and the other ops. The automatic search lists in-place candidates by it.
bool may_run_in_place(const Graph& g, OpId op);

// Folds a PAD/PADV2 into its only consumer (conv, depthwise conv, max/average pool), which then
// reads the PAD's input with explicit pad amounts and the border as the pad value; the padded
// tensor disappears. For a conv the pad value must be the input's zero point (0.0 for float32).
Rewrite fold_pad(const Graph& g, const std::string& pad_op);

// Removes an op that only copies its input (a SPLIT into one part, a CONCATENATION of one tensor,
// a whole-tensor SLICE, a QUANTIZE to the same parameters, ...): its readers read the input, whose
// bytes are the same, and the copy is never stored. Refused for a graph output (the application
// reads it by name) and for anything that changes a byte, the shape or the quantization.
Rewrite view_of_input(const Graph& g, const std::string& op);

// Runs a pointwise (1x1) conv and the depthwise conv reading its output channel by channel
// (transform_stream.cpp): plane c of the conv's output goes to a one-plane scratch, then the
// depthwise's output channel c; the expanded tensor is never stored, no MACs are added. Legal when
// the depthwise (multiplier 1) is the intermediate's only reader and it is no graph output; a PAD
// between them must be folded first. The op: name "PW+DW", kind "pointwise_depthwise_stream".
Rewrite stream_pointwise_depthwise(const Graph& g, const std::string& pointwise, const std::string& depthwise);

// Moves the model's entry QUANTIZE (a float32 graph input -> int8) or exit DEQUANTIZE (int8 ->
// a float32 graph output) to the caller: the int8 tensor becomes the graph input/output and
// Rewrite::interface_change says what the firmware must do, with the scale and zero point.
Rewrite quantize_in_caller(const Graph& g, const std::string& op);

// Stores tensor T as `to` (narrower): a quantize op after T's producer and a dequantize op just
// before each consumer, so only the short-lived ends keep the wide type.
Rewrite quantize_tensor(const Graph& g, const std::string& tensor, DType to);

// Drops T's long lifetime towards `consumer`: T's producer runs again just before `consumer`,
// which reads the fresh copy. Costs the producer's work again and keeps its inputs alive.
Rewrite recompute_tensor(const Graph& g, const std::string& tensor, const std::string& consumer);

// Runs a chain of spatial ops (conv, depthwise, pools, PAD, single-input elementwise) patch by
// patch over a grid of its output (MCUNetV2 patch-based inference): `tiles` row bands, or
// rows x cols patches. Each patch is cut from the stage input with the halo its receptive field
// needs and padded only where it touches the image border, so outputs stay bit-exact. Requires
// shaped NHWC tensors; hand-written graphs must not pad along a tiled axis.
struct PatchGrid {
  int rows = 1, cols = 1;
};
Rewrite patch_stage(const Graph& g, const std::vector<std::string>& stage, int tiles);
Rewrite patch_stage(const Graph& g, const std::vector<std::string>& stage, PatchGrid grid);
// Multi-stage fusion (msf-CNN): patch_stage, then in every patch each 1x1 conv and its depthwise
// consumer (a PAD between them folded) run channel by channel (stream_pointwise_depthwise).
Rewrite multi_stage_fusion(const Graph& g, const std::vector<std::string>& stage, PatchGrid grid);
// "4" (row bands) or "3x3" (rows x columns); InputError(where) otherwise.
PatchGrid parse_patch_grid(const std::string& value, const std::string& where);

// Puts the ops in `order` (a valid schedule) so the file order is that schedule.
Rewrite reorder_ops(const Graph& g, const Schedule& order);

// Several models in one arena, run one after the other (never at once): names prefixed with
// "<model name>/", ops of model 0 first. Each model's outputs stay live to the end.
Rewrite merge_models(const std::vector<Graph>& models);

// ---- Specs: the CLI's --apply and the browser's list ----------------------------------------

// "fuse:A,B", "inplace:C" or "inplace:C=X", "foldpad:PAD", "view:OP", "stream:PW,DW", "callerquant:Q",
// "quantize:T=int8", "recompute:T@C", "patch:A,B,C=4", "order:A,B,C" or "order:best", "pool:NAME".
struct Transformation {
  std::string kind;               // "fuse", "inplace", "foldpad", "stream", "callerquant", "quantize", ...
  std::vector<std::string> names; // ops or tensors the spec names, in order
  std::string value;              // after '=' or '@' ("int8", "4", consumer, input tensor); may be empty
  std::string text;               // the spec as written
};

// Throws InputError("<spec>", expected forms) for anything else.
Transformation parse_transformation(const std::string& spec);

// Every "foldpad:PAD" spec that is legal on g (for the rewrite search's kind table).
std::vector<std::string> foldpad_candidates(const Graph& g);
// Every "callerquant:OP" spec that may be legal: QUANTIZE of a graph input, DEQUANTIZE to an output.
std::vector<std::string> callerquant_candidates(const Graph& g);

// What specs can refer to besides the graph: other models for "pool:NAME".
struct TransformContext {
  std::map<std::string, Graph> models;
  // "order:best" searches this many states, so the same graph gets the same order on any machine
  // (the What-if list on the page, the CLI, native or Wasm); the time limit only guards graphs so
  // big that the states take longer.
  int64_t order_max_states = 50000;
  double order_time_limit_seconds = 2.0;
};

Rewrite apply_transformation(const Graph& g, const Transformation& t, const TransformContext& context);

// The spec forms, one per line, for usage texts and the browser.
const char* transformation_help();

// ---- Meaning of rewritten graphs ------------------------------------------------------------

// Runs the graph once with every tensor in its own bytes, using the simulator's kernels and its
// fills for inputs (stream 1) and constants/state (stream 0), and honouring the rewritten ops
// above (fused parts run one after the other, recomputed ops salt their kernel with the original
// name, slices cut rows). Returns the graph outputs back to back, as ArenaSimulator::captured does
// for one run of one session. For graphs without rewritten ops the bytes equal the simulator's.
std::vector<uint8_t> evaluate_outputs(const Graph& g, uint64_t seed = 1);

// Whether `rewritten` computes what `original` does: its outputs against the original's tensors
// of the same names, bit for bit. Inputs of `rewritten` that `original` computes (an entry
// QUANTIZE moved to the caller) are fed the original's values, i.e. quantize(original input);
// outputs that are tensors inside `original` (an exit DEQUANTIZE moved out) compare with those.
// `note` (optional) says which inputs were fed and which outputs compared that way.
bool outputs_match(const Graph& original, const Graph& rewritten, uint64_t seed, std::string* note = nullptr);

// True when the graph holds quantize/dequantize ops: their values change by design, so outputs
// are compared with a tolerance on the conversion, not bit for bit.
bool changes_values(const Graph& g);

// Symmetric int8 quantization of float32 values, the meaning of the inserted ops: q = round(x /
// scale) clamped to [-127, 127] with scale = max |x| / 127 (non-finite values count as 0).
// dequantize(quantize(x)) is within scale / 2 of x for every finite x: the documented tolerance.
float quantize_scale(const float* x, int64_t count);
void quantize_values(const float* x, int64_t count, float scale, int8_t* q);
void dequantize_values(const int8_t* q, int64_t count, float scale, float* x);

// Which kinds fuse into their producer and may run in place: the elementwise family of the one
// op-kind table (is_elementwise_kind, core/graph/op_kinds.h).

}  // namespace arenaplan
