#include "core/tflite/tflite_write.h"

#include <flatbuffers/flexbuffers.h>

#include <bit>
#include <cstring>
#include <functional>
#include <map>
#include <set>

#include "core/tflite/detail/tflite_options.h"
#include "core/tflite/tflite_ops.h"

namespace arenaplan {
namespace {

namespace fb = flatbuffers;
using tflite_ops::PaddedDim;
using tflite_ops::tflite_padding;

int8_t tensor_type(DType t) {
  switch (t) {
    case DType::kFloat32: return 0;
    case DType::kFloat16: return 1;
    case DType::kInt32: return 2;
    case DType::kUInt8: return 3;
    case DType::kInt64: return 4;
    case DType::kBool: return 6;
    case DType::kInt16: return 7;
    case DType::kInt8: return 9;
    case DType::kUInt64: return 12;
    case DType::kUInt32: return 15;
  }
  return 0;
}

// TFLM's Signal library registers its ops as custom codes ("SignalDelay", ...) whose options are
// a flexbuffer map; Vela's ethos-u is a custom op too; the writer writes every other kind as a
// builtin.
bool is_signal_op(const Op& op) { return op.kind.rfind("Signal", 0) == 0; }
// Vela's `ethos-u` op: a custom op whose options are the flexbuffer of one int8, CO_TYPE_ETHOSU
// (1), which TFLM's kernel checks in Eval; Prepare refuses empty options.
constexpr const char* kEthosU = "ethos-u";
const std::vector<uint8_t> kEthosUOptions = {0x01, 0x04, 0x01};  // value 1, type int (width 1), root width 1

// Vela's operand order: command stream and flash (constants), then scratch and fast scratch
// (working memory no op writes and the caller does not feed). An imported Vela model holds its
// scratch as the NPU op's outputs and depends on Vela's offline plan: it cannot be written back.
void check_vela_operands(const Graph& g, const Op& op) {
  std::vector<char> written(g.tensors.size(), 0);
  for (const Op& o : g.ops)
    for (TensorId t : o.outputs) written[t] = 1;
  bool ok = op.inputs.size() >= 4;
  for (size_t k = 0; ok && k < 4; ++k) {
    const TensorId t = op.inputs[k];
    ok = k < 2 ? g.tensors[t].constant : !g.tensors[t].constant && !written[t] && !g.is_input(t);
  }
  if (!ok)
    throw InputError("op " + op.name, "an ethos-u op is written with Vela's operands first (command stream and flash "
                                      "constants, then scratch and fast scratch that no op writes); an imported Vela "
                                      "model holds its scratch as the op's outputs and its command stream addresses "
                                      "Vela's offline plan, so a rewritten model cannot keep them");
}

bool is_custom_op(const Op& op) { return is_signal_op(op) || op.kind == kEthosU; }

int32_t builtin_code(const Op& op) {
  if (is_custom_op(op)) return tflite_ops::kCustom;
  for (int32_t code = 0; const char* name = tflite_ops::builtin_name(code); ++code)
    if (op.kind == name && op.kind != "custom" && op.kind != "placeholder_for_greater_op_codes") return code;
  throw InputError("op " + op.name, "kind \"" + op.kind + "\" is not a TFLite builtin operator");
}

// The attrs of one op, each read once: what is left unread at the end has no place in the file.
class AttrReader {
 public:
  explicit AttrReader(const Op& op) : op_(op) {}
  int64_t get(const std::string& key, int64_t fallback) {
    read_.insert(key);
    auto it = op_.attrs.find(key);
    return it == op_.attrs.end() ? fallback : it->second;
  }
  bool has(const std::string& key) const { return op_.attrs.count(key) > 0; }
  float get_float(const std::string& key, float fallback) {
    if (!has(key)) return get(key, 0), fallback;
    const uint32_t bits = static_cast<uint32_t>(get(key, 0));
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  void check_all_read() const {
    for (const auto& [key, value] : op_.attrs)
      if (!read_.count(key))
        throw InputError("op " + op_.name, "attr \"" + key + "\" has no field in TFLite's options for " + op_.kind);
  }

 private:
  const Op& op_;
  std::set<std::string> read_;
};

std::vector<int64_t> dims_of(const Graph& g, TensorId t) {
  std::vector<int64_t> d;
  for (const ShapeDim& s : g.tensors[t].shape) d.push_back(s.value);
  return d;
}

// TFLite names a window's padding SAME or VALID; explicit pads (as the importer and the test
// builders write them) must be one of the two for the input's size, or the file cannot say them.
int8_t window_padding(const Graph& g, const Op& op, AttrReader& a, int64_t kh, int64_t kw) {
  const int64_t sh = a.get("stride_h", 1), sw = a.get("stride_w", 1);
  const int64_t dh = a.get("dilation_h", 1), dw = a.get("dilation_w", 1);
  const int64_t top = a.get("pad_h", 0), bottom = a.get("pad_bottom", 0);
  const int64_t left = a.get("pad_w", 0), right = a.get("pad_right", 0);
  const bool said_same = a.get("padding_same", -1) == 1;
  const std::vector<int64_t> in = op.inputs.empty() ? std::vector<int64_t>{} : dims_of(g, op.inputs[0]);
  if (in.size() != 4) throw InputError("op " + op.name, "a window op's input must be 4-d NHWC to write its padding");
  for (bool same : {said_same, !said_same}) {
    const PaddedDim h = tflite_padding(same, in[1], kh, sh, dh), w = tflite_padding(same, in[2], kw, sw, dw);
    if (h.before == top && h.after == bottom && w.before == left && w.after == right) return same ? 0 : 1;
  }
  throw InputError("op " + op.name, "pads (top " + std::to_string(top) + ", left " + std::to_string(left) + ", bottom " +
                                        std::to_string(bottom) + ", right " + std::to_string(right) +
                                        ") are neither SAME nor VALID: TFLite needs a PAD op for them");
}

int64_t filter_dim(const Graph& g, const Op& op, size_t d) {
  if (op.inputs.size() < 2) throw InputError("op " + op.name, "needs a filter input");
  const std::vector<int64_t> f = dims_of(g, op.inputs[1]);
  if (f.size() != 4) throw InputError("op " + op.name, "filter must be 4-d");
  return f[d];
}

struct Options {
  uint8_t type = 0;  // the BuiltinOptions union's member (published schema order)
  fb::Offset<void> table;
};

// BuiltinOptions union members of the published schema.
enum OptionsType : uint8_t {
  kConv2DOptions = 1, kDepthwiseConv2DOptions = 2, kPool2DOptions = 5, kSVDFOptions = 6, kFullyConnectedOptions = 8,
  kSoftmaxOptions = 9, kConcatenationOptions = 10, kAddOptions = 11, kResizeBilinearOptions = 15, kMulOptions = 21,
  kReducerOptions = 27, kSubOptions = 28, kDivOptions = 29, kStridedSliceOptions = 32, kSplitOptions = 35,
  kArgMaxOptions = 40, kResizeNearestNeighborOptions = 74, kLeakyReluOptions = 75, kSplitVOptions = 79,
  kDepthToSpaceOptions = 94, kL2NormOptions = 12, kArgMinOptions = 57, kCumsumOptions = 102,
  // Recurrent ops.
  kUnidirectionalSequenceLSTMOptions = 71
};

// The builtin options of `op` (the inverse of read_operator_attrs); none for ops without options.
Options write_options(fb::FlatBufferBuilder& b, const Graph& g, const Op& op, AttrReader& a) {
  const std::string& k = op.kind;
  auto act = [&] { return static_cast<int8_t>(a.get("activation", 0)); };
  if (k == "conv_2d" || k == "depthwise_conv_2d") {
    const int8_t padding = window_padding(g, op, a, filter_dim(g, op, 1), filter_dim(g, op, 2));
    const int32_t sw = static_cast<int32_t>(a.get("stride_w", 1)), sh = static_cast<int32_t>(a.get("stride_h", 1));
    const int32_t dw = static_cast<int32_t>(a.get("dilation_w", 1)), dh = static_cast<int32_t>(a.get("dilation_h", 1));
    if (k == "conv_2d") return {kConv2DOptions, tfl::CreateConv2DOptions(b, padding, sw, sh, act(), dw, dh).Union()};
    const int32_t mult = static_cast<int32_t>(a.get("depth_multiplier", 1));
    return {kDepthwiseConv2DOptions, tfl::CreateDepthwiseConv2DOptions(b, padding, sw, sh, mult, act(), dw, dh).Union()};
  }
  if (k == "average_pool_2d" || k == "max_pool_2d" || k == "l2_pool_2d") {
    const int32_t kh = static_cast<int32_t>(a.get("kernel_h", 1)), kw = static_cast<int32_t>(a.get("kernel_w", 1));
    const int8_t padding = window_padding(g, op, a, kh, kw);
    return {kPool2DOptions, tfl::CreatePool2DOptions(b, padding, static_cast<int32_t>(a.get("stride_w", 1)),
                                                     static_cast<int32_t>(a.get("stride_h", 1)), kw, kh, act())
                                .Union()};
  }
  if (k == "fully_connected")
    return {kFullyConnectedOptions,
            tfl::CreateFullyConnectedOptions(b, act(), static_cast<int8_t>(a.get("weights_format", 0)),
                                             a.get("keep_num_dims", 0) != 0)
                .Union()};
  if (k == "svdf")
    return {kSVDFOptions, tfl::CreateSVDFOptions(b, static_cast<int32_t>(a.get("rank", 1)), act()).Union()};
  if (k == "add" || k == "sub" || k == "mul" || k == "div") {
    const uint8_t type = k == "add" ? kAddOptions : k == "sub" ? kSubOptions : k == "mul" ? kMulOptions : kDivOptions;
    return {type, tfl::CreateActivationOptions(b, act()).Union()};
  }
  if (k == "concatenation")
    return {kConcatenationOptions,
            tfl::CreateConcatenationOptions(b, static_cast<int32_t>(a.get("axis", 0)), act()).Union()};
  if (k == "softmax") return {kSoftmaxOptions, tfl::CreateSoftmaxOptions(b, a.get_float("beta_f32", 1.0f)).Union()};
  if (k == "resize_bilinear")
    return {kResizeBilinearOptions, tfl::CreateResizeBilinearOptions(b, 0, 0, a.get("align_corners", 0) != 0,
                                                                     a.get("half_pixel_centers", 0) != 0)
                                        .Union()};
  if (k == "resize_nearest_neighbor")
    return {kResizeNearestNeighborOptions,
            tfl::CreateResizeNearestNeighborOptions(b, a.get("align_corners", 0) != 0, a.get("half_pixel_centers", 0) != 0)
                .Union()};
  if (k == "split")
    return {kSplitOptions, tfl::CreateSplitOptions(b, static_cast<int32_t>(a.get("num_splits", 1))).Union()};
  if (k == "split_v")
    return {kSplitVOptions, tfl::CreateSplitVOptions(b, static_cast<int32_t>(a.get("num_splits", 1))).Union()};
  if (k == "arg_max")
    return {kArgMaxOptions, tfl::CreateArgMaxOptions(b, static_cast<int8_t>(a.get("output_type", 2))).Union()};
  if (k == "arg_min")
    return {kArgMinOptions, tfl::CreateArgMinOptions(b, static_cast<int8_t>(a.get("output_type", 2))).Union()};
  if (k == "cumsum")
    return {kCumsumOptions, tfl::CreateCumsumOptions(b, a.get("exclusive", 0) != 0, a.get("reverse", 0) != 0).Union()};
  if (k == "l2_normalization")
    return {kL2NormOptions, tfl::CreateL2NormOptions(b, static_cast<int8_t>(a.get("activation", 0))).Union()};
  if (k == "depth_to_space")
    return {kDepthToSpaceOptions, tfl::CreateDepthToSpaceOptions(b, static_cast<int32_t>(a.get("block_size", 1))).Union()};
  if (k == "unidirectional_sequence_lstm")
    return {kUnidirectionalSequenceLSTMOptions,
            tfl::CreateUnidirectionalSequenceLSTMOptions(b, act(), a.get_float("cell_clip_f32", 0.0f),
                                                         a.get_float("proj_clip_f32", 0.0f), a.get("time_major", 0) != 0,
                                                         false, a.get("diagonal_recurrent_tensors", 0) != 0)
                .Union()};
  if (k == "leaky_relu") return {kLeakyReluOptions, tfl::CreateLeakyReluOptions(b, a.get_float("alpha_f32", 0.2f)).Union()};
  if (k == "mean" || k == "sum" || k == "reduce_prod" || k == "reduce_max" || k == "reduce_min" || k == "reduce_any" ||
      k == "reduce_all")
    return {kReducerOptions, tfl::CreateReducerOptions(b, a.get("keep_dims", 0) != 0).Union()};
  if (k == "strided_slice")
    return {kStridedSliceOptions,
            tfl::CreateStridedSliceOptions(
                b, static_cast<int32_t>(a.get("begin_mask", 0)), static_cast<int32_t>(a.get("end_mask", 0)),
                static_cast<int32_t>(a.get("ellipsis_mask", 0)), static_cast<int32_t>(a.get("new_axis_mask", 0)),
                static_cast<int32_t>(a.get("shrink_axis_mask", 0)), a.get("offset", 0) != 0)
                .Union()};
  return {};
}

// Every sub-object is built in its own statement: the order in which a call's arguments are
// evaluated differs between compilers (g++ right to left, clang left to right), and the builder's
// bytes depend on the order of its calls. One order keeps the file the same on every platform.
fb::Offset<tfl::QuantizationParameters> write_quantization(fb::FlatBufferBuilder& b, const Tensor& t) {
  if (!t.quant) return 0;
  const Quantization& q = *t.quant;
  const auto scale = b.CreateVector(q.scale);
  const auto zero_point = b.CreateVector(q.zero_point);
  return tfl::CreateQuantizationParameters(b, 0, 0, scale, zero_point, 0, 0, q.axis);
}

std::vector<int32_t> write_shape(const Tensor& t) {
  std::vector<int32_t> shape;
  for (const ShapeDim& d : t.shape) {
    if (!d.symbol.empty() || d.value < 0 || d.value > INT32_MAX)
      throw InputError("tensor " + t.name, "a TFLite shape needs constant dims of at most 2^31-1");
    shape.push_back(static_cast<int32_t>(d.value));
  }
  return shape;
}

std::vector<int32_t> ids(const std::vector<TensorId>& v) { return std::vector<int32_t>(v.begin(), v.end()); }

// The op's inputs with -1 in the slots `absent_inputs` marks (the importer's record of optional
// operands left out before present ones).
std::vector<int32_t> operand_slots(const Op& op, AttrReader& a) {
  const int64_t absent = a.get("absent_inputs", 0);
  if (absent == 0) return ids(op.inputs);
  const size_t slots = op.inputs.size() + static_cast<size_t>(std::popcount(static_cast<uint64_t>(absent)));
  if (absent < 0 || slots > 62 || (absent >> slots) != 0)
    throw InputError("op " + op.name, "absent_inputs marks slots beyond its " + std::to_string(slots) + " operands");
  std::vector<int32_t> v;
  size_t next = 0;
  for (size_t k = 0; k < slots; ++k) v.push_back((absent >> k) & 1 ? -1 : static_cast<int32_t>(op.inputs[next++]));
  return v;
}

}  // namespace

std::string tflite_from_graph(const Graph& g) {
  fb::FlatBufferBuilder b;
  // Buffer 0 is the empty buffer every activation points at (the schema's convention).
  std::vector<fb::Offset<tfl::Buffer>> buffers = {tfl::CreateBuffer(b)};
  std::vector<fb::Offset<tfl::Tensor>> tensors;
  for (const Tensor& t : g.tensors) {
    if (!t.dtype || (t.shape.empty() && t.bytes != dtype_width(*t.dtype)))
      throw InputError("tensor " + t.name, "a TFLite tensor needs a dtype and a shape");
    uint32_t buffer = 0;
    if (t.constant) {
      if (!t.data || static_cast<Bytes>(t.data->size()) != t.bytes)
        throw InputError("tensor " + t.name, "a constant needs its " + std::to_string(t.bytes) + " bytes to be written");
      buffer = static_cast<uint32_t>(buffers.size());
      b.ForceVectorAlignment(t.data->size(), 1, 16);  // as the schema's force_align: 16
      buffers.push_back(tfl::CreateBuffer(b, b.CreateVector(*t.data)));
    }
    const auto shape = b.CreateVector(write_shape(t));
    const auto name = b.CreateString(t.name);
    const auto quantization = write_quantization(b, t);
    tensors.push_back(tfl::CreateTensor(b, shape, tensor_type(*t.dtype), buffer, name, quantization, t.persistent));
  }
  // Operator codes in first-use order (opcode_index points here): the builtin code, and the custom
  // code's name for custom ops.
  std::vector<std::pair<int32_t, std::string>> codes;
  std::vector<fb::Offset<tfl::Operator>> ops;
  for (const Op& op : g.ops) {
    const std::pair<int32_t, std::string> code{builtin_code(op), is_custom_op(op) ? op.kind : std::string()};
    auto at = std::find(codes.begin(), codes.end(), code);
    const uint32_t index = static_cast<uint32_t>(at - codes.begin());
    if (at == codes.end()) codes.push_back(code);
    AttrReader attrs(op);
    if (op.kind == kEthosU) {  // its operands as the graph lists them: command stream, flash, scratch, fast scratch, inputs
      check_vela_operands(g, op);
      attrs.check_all_read();
      const auto inputs = b.CreateVector(ids(op.inputs));
      const auto outputs = b.CreateVector(ids(op.outputs));
      const auto custom = b.CreateVector(kEthosUOptions);
      ops.push_back(tfl::CreateOperator(b, index, inputs, outputs, 0, 0, custom));
      continue;
    }
    const Options options = is_signal_op(op) ? Options{} : write_options(b, g, op, attrs);
    fb::Offset<fb::Vector<uint8_t>> custom_options;
    if (is_signal_op(op)) {
      flexbuffers::Builder map;  // keys sorted, as TFLM reads them by index
      map.Map([&] {
        for (const auto& [key, value] : op.attrs) map.Int(key.c_str(), attrs.get(key, value));
      });
      map.Finish();
      custom_options = b.CreateVector(map.GetBuffer());
    }
    const std::vector<int32_t> slots = operand_slots(op, attrs);
    attrs.check_all_read();
    const auto inputs = b.CreateVector(slots);
    const auto outputs = b.CreateVector(ids(op.outputs));
    ops.push_back(tfl::CreateOperator(b, index, inputs, outputs, options.type, fb::Offset<tfl::Opaque>(options.table.o),
                                      custom_options));
  }
  std::vector<fb::Offset<tfl::OperatorCode>> opcodes;
  for (const auto& [code, custom] : codes)
    opcodes.push_back(tfl::CreateOperatorCode(b, static_cast<int8_t>(std::min<int32_t>(code, 127)),
                                              custom.empty() ? 0 : b.CreateString(custom), 1, code));
  const auto tensor_vector = b.CreateVector(tensors);
  const auto graph_inputs = b.CreateVector(ids(g.inputs));
  const auto graph_outputs = b.CreateVector(ids(g.outputs));
  const auto op_vector = b.CreateVector(ops);
  const auto subgraph_name = b.CreateString("main");
  const auto subgraph = tfl::CreateSubGraph(b, tensor_vector, graph_inputs, graph_outputs, op_vector, subgraph_name);
  const auto opcode_vector = b.CreateVector(opcodes);
  const auto subgraphs = b.CreateVector(&subgraph, 1);
  const auto description = b.CreateString(g.name.empty() ? "arenaplan" : g.name);
  const auto buffer_vector = b.CreateVector(buffers);
  const auto model = tfl::CreateModel(b, 3, opcode_vector, subgraphs, description, buffer_vector);
  tfl::FinishModelBuffer(b, model);
  return std::string(reinterpret_cast<const char*>(b.GetBufferPointer()), b.GetSize());
}

}  // namespace arenaplan
