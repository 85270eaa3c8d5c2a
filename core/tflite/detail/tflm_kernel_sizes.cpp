#include "core/tflite/detail/tflm_kernel_sizes.h"

#include <algorithm>
#include <map>

namespace arenaplan::tflm {
namespace {

// BuiltinOperator codes of the published schema.
enum Builtin : int32_t {
  kAdd = 0, kAveragePool2D = 1, kConcatenation = 2, kConv2D = 3, kDepthwiseConv2D = 4,
  kDepthToSpace = 5, kDequantize = 6, kFloor = 8, kFullyConnected = 9, kL2Normalization = 11,
  kL2Pool2D = 12, kLogistic = 14, kMaxPool2D = 17, kMul = 18, kRelu = 19, kReluN1To1 = 20,
  kRelu6 = 21, kReshape = 22, kResizeBilinear = 23, kSoftmax = 25, kSpaceToDepth = 26, kSvdf = 27,
  kTanh = 28, kPad = 34, kGather = 36, kBatchToSpaceNd = 37, kSpaceToBatchNd = 38, kTranspose = 39,
  kMean = 40, kSub = 41, kDiv = 42, kSqueeze = 43, kUnidirectionalSequenceLstm = 44,
  kStridedSlice = 45, kExp = 47, kSplit = 49, kLogSoftmax = 50, kCast = 53, kPrelu = 54,
  kMaximum = 55, kArgMax = 56, kMinimum = 57, kPadV2 = 60, kTransposeConv = 67, kExpandDims = 70,
  kSum = 74, kShape = 77, kArgMin = 79, kReduceProd = 81, kReduceMax = 82, kPack = 83,
  kUnpack = 88, kReduceMin = 89, kReduceAny = 91, kResizeNearestNeighbor = 97, kLeakyRelu = 98,
  kMirrorPad = 100, kSplitV = 102, kQuantize = 114, kHardSwish = 117, kIf = 118, kWhile = 119,
  kBatchMatMul = 126, kCumsum = 128, kCallOnce = 129, kVarHandle = 142, kGelu = 150,
};

// The builtin-data struct each parse function allocates (size, alignment); pointer-free structs
// except VarHandle's. Codes absent here allocate nothing (ParseAbs, ParseLogistic, ...).
bool builtin_data_of(int32_t code, int pointer_bytes, StructSize* out) {
  static const std::map<int32_t, StructSize> table = {
      {kAdd, {8, 4}}, {kAveragePool2D, {40, 4}}, {kConcatenation, {8, 4}}, {kConv2D, {28, 4}},
      {kDepthwiseConv2D, {28, 4}}, {kDepthToSpace, {4, 4}}, {kFullyConnected, {16, 4}},
      {kL2Normalization, {4, 4}}, {kL2Pool2D, {40, 4}}, {kMaxPool2D, {40, 4}}, {kMul, {4, 4}},
      {kReshape, {36, 4}}, {kResizeBilinear, {2, 1}}, {kSoftmax, {4, 4}}, {kSpaceToDepth, {4, 4}},
      {kSvdf, {12, 4}}, {kGather, {8, 4}}, {kMean, {1, 1}}, {kSub, {8, 4}}, {kDiv, {4, 4}},
      {kSqueeze, {36, 4}}, {kUnidirectionalSequenceLstm, {16, 4}}, {kStridedSlice, {24, 4}},
      {kSplit, {4, 4}}, {kCast, {8, 4}}, {kArgMax, {4, 4}}, {kTransposeConv, {20, 4}},
      {kSum, {1, 1}}, {kShape, {4, 4}}, {kArgMin, {4, 4}}, {kReduceProd, {1, 1}},
      {kReduceMax, {1, 1}}, {kPack, {8, 4}}, {kUnpack, {8, 4}}, {kReduceMin, {1, 1}},
      {kReduceAny, {1, 1}}, {kResizeNearestNeighbor, {2, 1}}, {kLeakyRelu, {4, 4}},
      {kMirrorPad, {4, 4}}, {kSplitV, {4, 4}}, {kIf, {8, 4}}, {kWhile, {8, 4}},
      {kBatchMatMul, {3, 1}}, {kCumsum, {2, 1}}, {kCallOnce, {4, 4}}, {kGelu, {1, 1}},
  };
  if (code == kVarHandle) {
    *out = pointer_bytes == 8 ? StructSize{16, 8} : StructSize{8, 4};
    return true;
  }
  auto it = table.find(code);
  if (it == table.end()) return false;
  *out = it->second;
  return true;
}

// Builtins whose parse function allocates nothing: known, with no builtin data.
bool parses_without_data(int32_t code) {
  static const int32_t codes[] = {kDequantize, kFloor, kLogistic, kRelu, kReluN1To1, kRelu6, kTanh,
                                  kPad, kBatchToSpaceNd, kSpaceToBatchNd, kTranspose, kExp,
                                  kLogSoftmax, kPrelu, kMaximum, kMinimum, kPadV2, kExpandDims,
                                  kQuantize, kHardSwish};
  return std::find(std::begin(codes), std::end(codes), code) != std::end(codes);
}

// Reference-kernel OpData sizes (Init's AllocatePersistentBuffer), {8-byte, 4-byte pointers}.
struct OpDataSize {
  Bytes p64, p32;
};
bool op_data_of(int32_t code, int pointer_bytes, bool* has_init, Bytes* bytes) {
  static const std::map<int32_t, OpDataSize> table = {
      {kConv2D, {72, 56}},        {kDepthwiseConv2D, {72, 56}}, {kFullyConnected, {64, 48}},
      {kAveragePool2D, {32, 32}}, {kMaxPool2D, {32, 32}},       {kSoftmax, {80, 56}},
      {kQuantize, {32, 32}},      {kDequantize, {32, 32}},      {kSvdf, {36, 36}},
      {kAdd, {60, 60}},           {kMul, {36, 36}},             {kSub, {52, 52}},
      {kLogistic, {16, 16}},      {kRelu, {28, 28}},            {kRelu6, {8, 8}},
      {kLeakyRelu, {24, 24}},     {kMean, {44, 44}},            {kSum, {44, 44}},
      {kReduceMax, {44, 44}},     {kReduceMin, {44, 44}},       {kPad, {56, 56}},
      {kPadV2, {56, 56}},         {kStridedSlice, {84, 84}},    {kHardSwish, {20, 20}},
      {kPrelu, {28, 28}},         {kConcatenation, {40, 24}},   {kTanh, {16, 16}},
      {kTransposeConv, {80, 72}}, {kSpaceToBatchNd, {4, 4}},    {kL2Normalization, {4, 4}},
  };
  // Kernels without Init (RegisterOp(nullptr, ...)).
  static const int32_t no_init[] = {kReshape, kSqueeze, kExpandDims, kTranspose, kResizeNearestNeighbor,
                                    kResizeBilinear, kMaximum, kMinimum, kSplit, kSplitV, kPack,
                                    kUnpack, kShape, kFloor, kGather, kBatchToSpaceNd, kDepthToSpace,
                                    kSpaceToDepth, kCast, kArgMax, kArgMin};
  auto it = table.find(code);
  if (it != table.end()) {
    *has_init = true;
    *bytes = pointer_bytes == 8 ? it->second.p64 : it->second.p32;
    return true;
  }
  if (std::find(std::begin(no_init), std::end(no_init), code) != std::end(no_init)) {
    *has_init = false;
    *bytes = 0;
    return true;
  }
  return false;
}

const Tensor* input_at(const Operator& op, const Subgraph& g, size_t i) {
  if (i >= op.inputs.size() || op.inputs[i] < 0) return nullptr;
  return &g.tensors[op.inputs[i]];
}
const Tensor* output_at(const Operator& op, const Subgraph& g, size_t i) {
  if (i >= op.outputs.size()) return nullptr;
  return &g.tensors[op.outputs[i]];
}
Bytes dim_or(const Tensor* t, size_t d, Bytes fallback) {
  return t && d < t->dims.size() ? t->dims[d] : fallback;
}
Bytes elements(const Tensor* t) {
  Bytes n = 1;
  if (t)
    for (int32_t d : t->dims) n *= d;
  return n;
}

constexpr int8_t kFloat32 = 0, kInt16 = 7, kInt8 = 9, kInt4 = 17;

struct Recipe {
  std::vector<PrepareAction>& out;
  void in(int32_t i) { out.push_back({PrepareStep::kTempInput, i, 0}); }
  void outp(int32_t i) { out.push_back({PrepareStep::kTempOutput, i, 0}); }
  void persist(Bytes b) { out.push_back({PrepareStep::kPersistent, 0, b}); }
  void scratch(Bytes b) { out.push_back({PrepareStep::kScratch, 0, b}); }
  void all_inputs(const Operator& op) {
    for (size_t i = 0; i < op.inputs.size(); ++i) in(static_cast<int32_t>(i));
  }
  void all_outputs(const Operator& op) {
    for (size_t i = 0; i < op.outputs.size(); ++i) outp(static_cast<int32_t>(i));
  }
};

// Prepare of the kernels this table knows, in TFLM's order; false for any other kernel.
bool known_prepare(const Operator& op, const Subgraph& g, Recipe r) {
  const Tensor* in0 = input_at(op, g, 0);
  const Tensor* in1 = input_at(op, g, 1);
  switch (op.builtin) {
    case kConv2D:
    case kDepthwiseConv2D: {
      // ConvPrepare / DepthwiseConvPrepare hold output, input, filter while CalculateOpData...
      // takes its own input, filter, bias, output: seven temporaries at the peak.
      r.outp(0); r.in(0); r.in(1);
      const Bytes channels = dim_or(in1, op.builtin == kConv2D ? 0 : 3, 1);
      r.persist(4 * channels);  // per_channel_output_multiplier
      r.persist(4 * channels);  // per_channel_output_shift
      if (in1 && in1->type == kInt4) r.scratch(elements(in1));  // unpacked int4 filter
      r.in(0); r.in(1); r.in(2); r.outp(0);
      return true;
    }
    case kFullyConnected: {
      r.in(0); r.in(1); r.in(2); r.outp(0);
      if (in1 && in1->type == kInt4) r.scratch(elements(in1));
      if (in0 && in0->type != kFloat32 && in1 && in1->quant_channels > 1) {
        r.persist(4 * Bytes{in1->quant_channels});
        r.persist(4 * Bytes{in1->quant_channels});
      }
      return true;
    }
    case kAveragePool2D: case kMaxPool2D: case kL2Pool2D:
    case kQuantize: case kDequantize: case kReshape: case kLogistic: case kRelu:
    case kLeakyRelu: case kHardSwish: case kTanh: case kSqueeze:
      r.in(0); r.outp(0);
      return true;
    case kRelu6:  // Relu6Prepare reads only its input
      r.in(0);
      return true;
    case kSoftmax:
      r.in(0); r.outp(0);
      if (in0 && in0->type == kInt16) {  // exp and 1/(1+x) LUTs of 513 int16 each
        r.persist(2 * 513);
        r.persist(2 * 513);
      }
      return true;
    case kAdd: case kMul: case kSub:
      r.in(0); r.in(1); r.outp(0);
      return true;
    case kConcatenation:
      r.in(0); r.outp(0);
      r.all_inputs(op);
      return true;
    case kPad: case kPadV2:
      r.in(0); r.in(1); if (op.builtin == kPadV2) r.in(2); r.outp(0);
      return true;
    case kStridedSlice:
      r.in(0); r.in(1); r.in(2); r.in(3); r.outp(0);
      return true;
    case kResizeNearestNeighbor: case kResizeBilinear: case kExpandDims: case kGather:
      r.in(0); r.in(1); r.outp(0);
      return true;
    case kCast:
      r.in(0); r.outp(0);
      return true;
    case kSplit:  // only the axis tensor
      r.in(0);
      return true;
    case kSplitV:
      r.in(2);
      return true;
    case kTranspose: case kMaximum: case kMinimum: case kPack: case kUnpack: case kFloor: case kShape:
      return true;  // no temporaries, no persistent buffers
    case kMean: case kSum: {
      // PrepareMeanOrSumHelper, then PrepareSimple's own input, axis, output.
      r.in(0); r.outp(0); r.in(1);
      const Tensor* out0 = output_at(op, g, 0);
      if (in0 && (in0->type == kInt8 || in0->type == kInt16)) r.scratch(4 * elements(out0));
      r.scratch(4 * static_cast<Bytes>(in0 ? in0->dims.size() : 0));
      r.scratch(4 * elements(in1));
      r.in(0); r.in(1); r.outp(0);
      return true;
    }
    case kSvdf: {
      r.in(0); r.in(1); r.in(2); r.in(3); r.in(4); r.outp(0);
      const Bytes batch = dim_or(in0, 0, 1), filters = dim_or(in1, 0, 1);
      const Bytes units = dim_or(output_at(op, g, 0), 1, filters);
      r.scratch(4 * batch * filters);
      if (in0 && in0->type == kInt8) r.scratch(4 * batch * units);
      return true;
    }
    default:
      return false;
  }
}

}  // namespace

RuntimeStructs runtime_structs(int pointer_bytes, bool recording) {
  if (pointer_bytes != 4 && pointer_bytes != 8)
    throw InputError("--pointer-bytes", "expected 4 or 8, found " + std::to_string(pointer_bytes));
  RuntimeStructs s;
  const bool p64 = pointer_bytes == 8;
  const Bytes a = p64 ? 8 : 4;
  s.pointer = pointer_bytes;
  s.arena_allocator = recording ? StructSize{p64 ? 104 : 52, a} : StructSize{p64 ? 72 : 36, a};
  s.micro_allocator = recording ? StructSize{p64 ? 248 : 124, a} : StructSize{p64 ? 72 : 36, a};
  s.memory_planner = {p64 ? 72 : 44, a};
  s.builtin_data_allocator = {p64 ? 16 : 8, a};
  s.subgraph_allocations = {p64 ? 16 : 8, a};
  s.eval_tensor = {p64 ? 24 : 12, a};
  s.node_and_registration = {p64 ? 64 : 32, a};
  s.tflite_tensor = {p64 ? 64 : 40, a};
  s.affine_quantization = {p64 ? 24 : 12, a};
  s.scratch_request = {p64 ? 16 : 12, a};
  s.scratch_handle = {p64 ? 8 : 4, a};
  s.allocation_info = {p64 ? 32 : 24, a};
  s.size_t_ = {p64 ? 8 : 4, a};
  return s;
}

KernelAllocations kernel_allocations(const Operator& op, const Subgraph& g, int pointer_bytes) {
  KernelAllocations k;
  bool known = true;
  if (op.builtin == 32) {
    known = false;  // custom op: whatever its Init/Prepare do is unknown
  } else if (builtin_data_of(op.builtin, pointer_bytes, &k.builtin_data)) {
    k.has_builtin_data = true;
  } else if (!parses_without_data(op.builtin)) {
    known = false;
  }
  if (!op_data_of(op.builtin, pointer_bytes, &k.has_init, &k.op_data)) known = false;
  if (!known_prepare(op, g, Recipe{k.prepare})) known = false;
  if (known) return k;

  // Unknown kernel: round every part up. The largest builtin-data struct and OpData of the
  // reference kernels stay well below 256 bytes; every input and output is held twice as a
  // temporary (the worst any reference Prepare does); per-channel arrays for every per-channel
  // quantized input; a scratch buffer as large as the op's largest non-constant tensor.
  k = KernelAllocations{};
  k.estimated = true;
  k.has_builtin_data = op.builtin != 32;
  k.builtin_data = {256, 8};
  k.has_init = true;
  k.op_data = 256;
  Recipe r{k.prepare};
  for (int pass = 0; pass < 2; ++pass) {
    r.all_inputs(op);
    r.all_outputs(op);
  }
  Bytes largest = 0;
  for (size_t i = 0; i < op.inputs.size(); ++i)
    if (const Tensor* t = input_at(op, g, i)) {
      if (t->quant_channels > 1) {
        r.persist(4 * Bytes{t->quant_channels});
        r.persist(4 * Bytes{t->quant_channels});
      }
      if (!t->has_data) largest = std::max(largest, t->bytes);
    }
  for (int32_t t : op.outputs) largest = std::max(largest, g.tensors[t].bytes);
  r.scratch(largest);
  return k;
}

}  // namespace arenaplan::tflm
