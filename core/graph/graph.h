// The graph model every other unit shares: tensors, operators, graph inputs and outputs.
// Parsing and validation live in graph_json.h; this header is plain data plus lookups.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace arenaplan {

using Bytes = int64_t;     // sizes and offsets in bytes; KiB only at the edges
using TensorId = int32_t;  // index into Graph::tensors
using OpId = int32_t;      // index into Graph::ops
using Step = int32_t;      // position of an op in a schedule (0-based)

// An error in user input, naming the place (JSON pointer, op or tensor name) and what was expected.
class InputError : public std::runtime_error {
 public:
  InputError(std::string where, const std::string& what)
      : std::runtime_error(where.empty() ? what : where + ": " + what), where_(std::move(where)) {}
  const std::string& where() const { return where_; }

 private:
  std::string where_;
};

// kUInt32 and kUInt64: TFLM's Signal library (energies, filter bank sums, noise estimates).
enum class DType { kInt8, kUInt8, kInt16, kInt32, kFloat16, kFloat32, kInt64, kBool, kUInt32, kUInt64 };

// Width in bytes of one element; names are the JSON spellings ("int8", "float32", ...).
int dtype_width(DType t);
const char* dtype_name(DType t);
std::optional<DType> dtype_from_name(const std::string& name);

// The value of an IEEE 754 half (DType::kFloat16), exactly: zero, subnormals, infinities, NaN.
inline float float16_to_float32(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1u, exp = (h >> 10) & 0x1fu, frac = h & 0x3ffu;
  uint32_t bits;
  if (exp == 31) {
    bits = (sign << 31) | 0x7f800000u | (frac << 13);
  } else if (exp != 0) {
    bits = (sign << 31) | ((exp + 112u) << 23) | (frac << 13);
  } else if (frac == 0) {
    bits = sign << 31;
  } else {  // subnormal half: normalise into a float
    int e = -1;
    uint32_t f = frac;
    do {
      ++e;
      f <<= 1;
    } while ((f & 0x400u) == 0);
    bits = (sign << 31) | ((112u - static_cast<uint32_t>(e)) << 23) | ((f & 0x3ffu) << 13);
  }
  float out;
  __builtin_memcpy(&out, &bits, 4);
  return out;
}

// One dimension of a shape: a constant, or a symbol bounded by Graph::dims.
struct ShapeDim {
  int64_t value = 0;   // the constant, or the symbol's upper bound once resolved
  std::string symbol;  // empty for constant dims
};

// Affine quantization of a tensor (TFLite's): real = scale * (q - zero_point). One scale and zero
// point per tensor, or one per slice along `axis` (per-channel weights). Empty scale: none.
struct Quantization {
  std::vector<float> scale;
  std::vector<int64_t> zero_point;  // same count as scale (TFLite allows one shared: repeated here)
  int axis = 0;                     // the quantized dimension when per-channel
  bool per_channel() const { return scale.size() > 1; }
};

// The bytes a constant tensor holds in the model file (weights, biases, shape operands), shared
// between copies of the graph. Read-only: the simulator keeps them in flash and never writes them.
using ConstantData = std::shared_ptr<const std::vector<uint8_t>>;

struct Tensor {
  std::string name;
  Bytes bytes = 0;              // size in bytes (upper bound when the shape is symbolic)
  std::vector<ShapeDim> shape;  // empty when the size was given as "bytes"
  std::optional<DType> dtype;   // set when the size came from shape x dtype
  bool constant = false;        // weights in flash: not an arena tensor, never live
  bool persistent = false;      // variable/state tensor: live for the whole run (TFLM "tail")
  bool retained = false;        // the caller keeps a pointer: live until the end of the run
  // From a .tflite (absent for hand-written graphs). Graph JSON does not carry them: a graph
  // written as JSON and read back simulates with generated weights and the simplified kernels.
  std::optional<Quantization> quant;
  ConstantData data;            // constant bytes from a .tflite (null: the simulator generates them)
  OpId producer = -1;           // -1 for graph inputs, constants and persistent state
  std::vector<OpId> consumers;  // ops reading it, in op-index order, no duplicates
};

// An op reads `tensor` asynchronously (DMA, delegate) until `extra_steps` steps after it runs.
struct AsyncRead {
  TensorId tensor = -1;
  int extra_steps = 0;
};

// Output `output` reuses the buffer of input `input` (legal only when the input dies at this op).
struct InPlace {
  TensorId output = -1;
  TensorId input = -1;
};

struct Op {
  std::string name;
  std::string kind;  // "conv2d", "add", ... ; free text for graphs that give only byte sizes
  std::vector<TensorId> inputs;
  std::vector<TensorId> outputs;
  Bytes scratch_bytes = 0;  // temporary buffer live only while this op runs
  std::vector<AsyncRead> async_reads;
  std::vector<InPlace> in_place;
  // Integer attributes for kernels. Hand-written graphs: kernel, stride, padding, pad, filters,
  // units, axis, shift (sim_kernels.h). Imported .tflite ops (tflite_import.h lists them):
  // stride_h/_w, dilation_h/_w, pad_top/_left/_bottom/_right, kernel_h/_w, depth_multiplier,
  // activation (TFLite's fused activation code), axis, keep_dims, begin/end/ellipsis/new_axis/
  // shrink_axis_mask, beta_f32 (a float's bit pattern) ...
  std::map<std::string, int64_t> attrs;
};

struct DimBound {
  int64_t min = 1;
  int64_t max = 1;
};

// Where graph inputs live (docs/DESIGN.md "Graph inputs are live from the first step ...").
enum class InputPolicy {
  kInArena,      // in the arena from step 0 until their last consumer (default)
  kCallerOwned,  // outside the arena: not planned, not counted
  kRetained,     // in the arena for the whole run
};

struct Graph {
  std::string name;
  Bytes alignment = 16;  // every buffer offset is a multiple of this
  std::vector<Tensor> tensors;
  std::vector<Op> ops;
  std::vector<TensorId> inputs;
  std::vector<TensorId> outputs;
  std::map<std::string, DimBound> dims;
  InputPolicy input_policy = InputPolicy::kInArena;

  std::optional<TensorId> find_tensor(const std::string& name) const;
  std::optional<OpId> find_op(const std::string& name) const;
  bool is_input(TensorId t) const;
  bool is_output(TensorId t) const;
  // The file's op order, which is the default schedule.
  std::vector<OpId> file_order() const;
};

// Round up to a multiple of `alignment` (> 0); throws InputError on overflow.
Bytes align_up(Bytes value, Bytes alignment);

// The byte formatters every front end shares (CLI, panels, text views): sizes stay int64 bytes
// everywhere else.
// Exact: "2 MiB" / "136 KiB" when a whole number of them, else "1234 B".
std::string format_bytes(Bytes b);
// Exact with the byte count when the short form hides it: "136 KiB (139264 B)", "1234 B".
std::string format_bytes_exact(Bytes b);
// Rounded for displays: "136 KiB" when a whole number of KiB, else "1.5 KiB" with `decimals` places.
std::string format_kib(Bytes b, int decimals = 1);
// The page's unit rule, rounded for displays: below 1 KiB in bytes ("12 B"), below 1 MiB in KiB
// ("136 KiB", "12.5 KiB" with `decimals` places), from 1 MiB in MiB ("3.50 MiB").
std::string format_size(Bytes b, int decimals = 1);

// Fills producer/consumers from ops; throws InputError for a tensor produced twice.
void link_tensors(Graph& g);

// Structural checks shared by every way of building a graph (JSON, .tflite, transformations):
// tensor produced twice, input never produced, cycles, ops that reach no output, bad in-place
// and async declarations. Throws InputError naming the op/tensor.
void validate_graph(const Graph& g);

// For each op, the ops that must run before it: producers of its inputs and, for an in-place op,
// every other reader of the input it overwrites. Schedulers use this, never the raw edges.
std::vector<std::vector<OpId>> op_predecessors(const Graph& g);

// Topological order closest to the file order (Kahn's algorithm, smallest op index first).
std::vector<OpId> topological_order(const Graph& g);

}  // namespace arenaplan
