#include "core/tflite/detail/tflm_kernel_sizes.h"

#include "core/tflite/detail/tflm_cmsis_kernels.h"

#include <algorithm>
#include <map>

namespace arenaplan::tflm {
namespace {

// The builtin-data struct each parse function allocates (size, alignment), with 4-byte enums and
// with arm-none-eabi-gcc's short enums (the structs that hold an enum shrink); pointer-free
// structs except VarHandle's. Codes absent here allocate nothing (ParseAbs, ParseLogistic, ...).
struct BuiltinData {
  StructSize enum4, enum1;
};
bool builtin_data_of(int32_t code, const TflmTarget& target, StructSize* out) {
  static const std::map<int32_t, BuiltinData> table = {
      {kAdd, {{8, 4}, {2, 1}}}, {kAveragePool2D, {{40, 4}, {40, 4}}}, {kConcatenation, {{8, 4}, {8, 4}}},
      {kConv2D, {{28, 4}, {28, 4}}}, {kDepthwiseConv2D, {{28, 4}, {28, 4}}}, {kDepthToSpace, {{4, 4}, {4, 4}}},
      {kFullyConnected, {{16, 4}, {5, 1}}}, {kL2Normalization, {{4, 4}, {1, 1}}}, {kL2Pool2D, {{40, 4}, {40, 4}}},
      {kMaxPool2D, {{40, 4}, {40, 4}}}, {kMul, {{4, 4}, {1, 1}}}, {kReshape, {{36, 4}, {36, 4}}},
      {kResizeBilinear, {{2, 1}, {2, 1}}}, {kSoftmax, {{4, 4}, {4, 4}}}, {kSpaceToDepth, {{4, 4}, {4, 4}}},
      {kSvdf, {{12, 4}, {8, 4}}}, {kGather, {{8, 4}, {8, 4}}}, {kMean, {{1, 1}, {1, 1}}}, {kSub, {{8, 4}, {2, 1}}},
      {kDiv, {{4, 4}, {1, 1}}}, {kSqueeze, {{36, 4}, {36, 4}}}, {kUnidirectionalSequenceLstm, {{16, 4}, {16, 4}}},
      {kStridedSlice, {{24, 4}, {24, 4}}}, {kSplit, {{4, 4}, {4, 4}}}, {kCast, {{8, 4}, {2, 1}}},
      {kArgMax, {{4, 4}, {1, 1}}}, {kTransposeConv, {{20, 4}, {16, 4}}}, {kSum, {{1, 1}, {1, 1}}},
      {kShape, {{4, 4}, {1, 1}}}, {kArgMin, {{4, 4}, {1, 1}}}, {kReduceProd, {{1, 1}, {1, 1}}},
      {kReduceMax, {{1, 1}, {1, 1}}}, {kPack, {{8, 4}, {8, 4}}}, {kUnpack, {{8, 4}, {8, 4}}},
      {kReduceMin, {{1, 1}, {1, 1}}}, {kReduceAny, {{1, 1}, {1, 1}}}, {kReduceAll, {{1, 1}, {1, 1}}}, {kResizeNearestNeighbor, {{2, 1}, {2, 1}}},
      {kLeakyRelu, {{4, 4}, {4, 4}}}, {kMirrorPad, {{4, 4}, {1, 1}}}, {kSplitV, {{4, 4}, {4, 4}}},
      {kIf, {{8, 4}, {8, 4}}}, {kWhile, {{8, 4}, {8, 4}}}, {kBatchMatMul, {{3, 1}, {3, 1}}},
      {kCumsum, {{2, 1}, {2, 1}}}, {kCallOnce, {{4, 4}, {4, 4}}}, {kGelu, {{1, 1}, {1, 1}}},
  };
  if (code == kVarHandle) {
    *out = target.pointer_bytes == 8 ? StructSize{16, 8} : StructSize{8, 4};
    return true;
  }
  auto it = table.find(code);
  if (it == table.end()) return false;
  *out = target.enum_bytes == 1 ? it->second.enum1 : it->second.enum4;
  return true;
}

// Builtins whose parse function allocates nothing: known, with no builtin data.
bool parses_without_data(int32_t code) {
  static const int32_t codes[] = {kDequantize, kFloor, kLogistic, kRelu, kReluN1To1, kRelu6, kTanh,
                                  kPad, kBatchToSpaceNd, kSpaceToBatchNd, kTranspose, kExp,
                                  kLogSoftmax, kPrelu, kMaximum, kMinimum, kPadV2, kExpandDims,
                                  kQuantize, kHardSwish, kAbs, kNeg, kLog, kSqrt, kRsqrt, kSquare, kSin,
                                  kCos, kLogicalNot, kZerosLike, kFill, kBroadcastTo, kSquaredDifference,
                                  kEqual, kNotEqual, kGreater, kGreaterEqual, kLess, kLessEqual, kSelectV2,
                                  kLogicalOr, kLogicalAnd, kCeil, kRound, kReverseV2, kAddN, kGatherNd, kElu,
                                  kEmbeddingLookup, kFloorDiv, kFloorMod, kDynamicUpdateSlice, kBroadcastArgs};
  return std::find(std::begin(codes), std::end(codes), code) != std::end(codes);
}

// Reference-kernel OpData sizes (Init's AllocatePersistentBuffer), {8-byte, 4-byte pointers}.
struct OpDataSize {
  Bytes p64, p32;
};
bool op_data_of(int32_t code, const TflmTarget& target, bool* has_init, Bytes* bytes) {
  const int pointer_bytes = target.pointer_bytes;
  // ABS and RSQRT share an OpData of five ints and a bool and two enums (quantization and type).
  if (code == kAbs || code == kRsqrt) {
    *has_init = true;
    *bytes = target.enum_bytes == 1 ? 20 : 28;
    return true;
  }
  static const std::map<int32_t, OpDataSize> table = {
      {kConv2D, {72, 56}},        {kDepthwiseConv2D, {72, 56}}, {kFullyConnected, {64, 48}},
      {kAveragePool2D, {32, 32}}, {kMaxPool2D, {32, 32}},       {kSoftmax, {80, 56}},
      {kQuantize, {32, 32}},      {kDequantize, {32, 32}},      {kSvdf, {36, 36}},
      {kAdd, {60, 60}},           {kMul, {36, 36}},             {kSub, {52, 52}},
      {kLogistic, {16, 16}},      {kRelu, {28, 28}},            {kRelu6, {8, 8}},
      {kLeakyRelu, {24, 24}},     {kMean, {44, 44}},            {kSum, {44, 44}},
      {kReduceMax, {44, 44}},     {kReduceMin, {44, 44}},       {kReduceAll, {44, 44}},       {kPad, {56, 56}},
      {kPadV2, {56, 56}},         {kStridedSlice, {84, 84}},    {kHardSwish, {20, 20}},
      {kPrelu, {28, 28}},         {kConcatenation, {40, 24}},   {kTanh, {16, 16}},
      {kTransposeConv, {80, 72}}, {kSpaceToBatchNd, {4, 4}},    {kL2Normalization, {4, 4}},
      {kUnidirectionalSequenceLstm, {688, 688}},
      {kEqual, {32, 32}},         {kNotEqual, {32, 32}},        {kGreater, {32, 32}},  // ComparisonParams
      {kGreaterEqual, {32, 32}},  {kLess, {32, 32}},            {kLessEqual, {32, 32}},
      {kSelectV2, {1, 1}},        // requires_broadcast
      {kDiv, {28, 28}},
      {kMirrorPad, {20, 20}},  // five ints
      {kBatchMatMul, {32, 16}},         // three pointers and three bools
      {kSquaredDifference, {112, 112}},  // a bool, then ArithmeticParams (int64 aligned)
      {kElu, {256, 256}},               // the int8 lookup table
  };
  // Kernels without Init (RegisterOp(nullptr, ...)).
  static const int32_t no_init[] = {kReshape, kSqueeze, kExpandDims, kTranspose, kResizeNearestNeighbor,
                                    kResizeBilinear, kMaximum, kMinimum, kSplit, kSplitV, kPack,
                                    kUnpack, kShape, kFloor, kGather, kBatchToSpaceNd, kDepthToSpace,
                                    kSpaceToDepth, kCast, kArgMax, kArgMin, kNeg, kExp, kLog, kSqrt,
                                    kSquare, kSin, kCos, kLogicalNot, kZerosLike, kFill, kBroadcastTo,
                                    kLogicalOr, kLogicalAnd, kCeil, kRound, kReverseV2, kAddN, kGatherNd,
                                    kCumsum, kLogSoftmax, kEmbeddingLookup, kDynamicUpdateSlice, kL2Pool2D,
                                    // Init returns nullptr: nothing allocated.
                                    kFloorDiv, kFloorMod, kBroadcastArgs};
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

// Prepare of the kernels this table knows, in TFLM's order; false for any other kernel.
bool known_prepare(const Operator& op, const Subgraph& g, int pointer_bytes, Recipe r) {
  const Tensor* in0 = input_at(op, g, 0);
  const Tensor* in1 = input_at(op, g, 1);
  switch (op.builtin) {
    case kConv2D:
    case kDepthwiseConv2D: {
      // ConvPrepare / DepthwiseConvPrepare hold output, input, filter while CalculateOpData...
      // takes its own input, filter, bias, output: seven temporaries at the peak.
      r.outp(0); r.in(0); r.in(1);
      r.per_channel(dim_or(in1, op.builtin == kConv2D ? 0 : 3, 1));
      if (in1 && in1->type == kInt4) r.scratch(elements(in1));  // unpacked int4 filter
      r.in(0); r.in(1); r.in(2); r.outp(0);
      return true;
    }
    case kFullyConnected: {
      r.in(0); r.in(1); r.in(2); r.outp(0);
      if (in1 && in1->type == kInt4) r.scratch(elements(in1));
      if (in0 && in0->type != kFloat32 && in1 && in1->quant_channels > 1) {
        r.per_channel(Bytes{in1->quant_channels});
      }
      return true;
    }
    case kSpaceToBatchNd: case kBatchToSpaceNd:
      r.in(0); r.outp(0);
      return true;
    case kAveragePool2D: case kMaxPool2D:
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
    case kResizeNearestNeighbor: case kResizeBilinear: case kExpandDims:
    case kFill: case kBroadcastTo: case kSquaredDifference: case kDiv:
      r.in(0); r.in(1); r.outp(0);
      return true;
    case kSelectV2:
      r.in(0); r.in(1); r.in(2); r.outp(0);
      return true;
    case kMirrorPad: {
      r.in(0); r.in(1); r.outp(0);
      const Bytes rank = static_cast<Bytes>(in0 ? in0->dims.size() : 0);
      r.scratch(4 * rank);  // the output's and the input's per-dim element counts
      r.scratch(4 * rank);
      return true;
    }
    case kDepthToSpace: case kSpaceToDepth: {
      r.in(0); r.outp(0);
      const Tensor* out0 = output_at(op, g, 0);
      r.persist(4 + 4 * static_cast<Bytes>(out0 ? out0->dims.size() : 0));  // the output's writable dims
      return true;
    }
    case kGather: {
      r.in(0); r.in(1); r.outp(0);
      // CreateWritableTensorDimsWithCopy: a TfLiteIntArray (size word + dims) of the output's rank.
      const Tensor* out0 = output_at(op, g, 0);
      r.persist(4 + 4 * static_cast<Bytes>(out0 ? out0->dims.size() : 0));
      return true;
    }
    case kAbs: case kRsqrt: case kSin: case kCos: case kLog: case kSqrt: case kSquare:
    case kLogicalNot: case kExp: case kZerosLike: case kCeil: case kRound:
      r.in(0); r.outp(0);
      return true;
    case kCast:
      r.in(0); r.outp(0);
      return true;
    case kEqual: case kNotEqual: case kGreater: case kGreaterEqual: case kLess: case kLessEqual:
      r.in(0); r.in(1);  // ComparisonsPrepare never takes the output
      return true;
    case kSplit:  // only the axis tensor
      r.in(0);
      return true;
    case kSplitV:
      r.in(2);
      return true;
    case kTranspose: case kMaximum: case kMinimum: case kPack: case kUnpack: case kFloor: case kShape: case kNeg:
    case kLogicalOr: case kLogicalAnd: case kArgMax: case kArgMin:
      return true;  // no temporaries, no persistent buffers
    case kPrelu: case kReverseV2: case kFloorDiv: case kFloorMod:
      r.in(0); r.in(1); r.outp(0);
      return true;
    case kDynamicUpdateSlice:
      r.in(0); r.in(1); r.in(2); r.outp(0);
      return true;
    case kBroadcastArgs:
      r.in(0); r.in(1); r.outp(0);
      return true;
    case kReduceAll:
      // PrepareAllHelper's temporaries, then PrepareSimple's (bool: no output), then its two scratches.
      r.in(0); r.outp(0); r.in(1);
      r.in(0); r.in(1);
      r.scratch(4 * static_cast<Bytes>(in0 ? in0->dims.size() : 0));
      r.scratch(4 * elements(in1));
      return true;
    case kL2Pool2D:
      r.outp(0); r.in(0);
      r.persist(4 + 4 * 4);  // the output's writable dims (NHWC)
      return true;
    case kEmbeddingLookup: {
      r.in(0); r.in(1); r.outp(0);
      const Tensor* out0 = output_at(op, g, 0);
      r.persist(4 + 4 * static_cast<Bytes>(out0 ? out0->dims.size() : 0));  // the output's writable dims
      r.persist(pointer_bytes == 8 ? 16 : 8);  // OpData: a float scale and a size_t column count
      return true;
    }
    case kElu: case kL2Normalization:
      r.in(0); r.outp(0);
      return true;
    case kLogSoftmax:
      r.in(0); r.outp(0);
      // LogSoftmaxOpData: five int32s and two size_t.
      if (in0 && in0->type == kInt8) r.persist(pointer_bytes == 8 ? 40 : 28);
      return true;
    case kCumsum: {
      r.in(0); r.in(1); r.outp(0);
      if (in0 && in0->type == kInt8) r.persist(36);  // OpData: nine int32s
      return true;
    }
    case kAddN: {
      // Input 0 and the output, then each other input in turn; a scratch array of one data
      // pointer per input; int8 keeps its OpData (ten int32s) first.
      r.in(0); r.outp(0);
      for (size_t i = 1; i < op.inputs.size(); ++i) r.in(static_cast<int32_t>(i));
      const Tensor* out0 = output_at(op, g, 0);
      if (out0 && out0->type == kInt8) r.persist(40);
      r.scratch(static_cast<Bytes>(pointer_bytes) * static_cast<Bytes>(op.inputs.size()));
      return true;
    }
    case kGatherNd: {
      r.in(0); r.in(1); r.outp(0);
      const Tensor* out0 = output_at(op, g, 0);
      r.persist(4 + 4 * static_cast<Bytes>(out0 ? out0->dims.size() : 0));  // the output's writable dims
      return true;
    }
    case kMean: case kSum: {
      // PrepareMeanOrSumHelper, then PrepareSimple's own input, axis (and output for int8).
      r.in(0); r.outp(0); r.in(1);
      const Tensor* out0 = output_at(op, g, 0);
      if (in0 && (in0->type == kInt8 || in0->type == kInt16)) r.scratch(4 * elements(out0));
      r.scratch(4 * static_cast<Bytes>(in0 ? in0->dims.size() : 0));
      r.scratch(4 * elements(in1));
      r.in(0); r.in(1);
      if (in0 && in0->type == kInt8) r.outp(0);
      return true;
    }
    case kReduceMax: case kReduceMin:
      // PrepareSimple first, then PrepareMinMaxHelper's temporaries and its two index scratches.
      r.in(0); r.in(1);
      if (in0 && in0->type == kInt8) r.outp(0);
      r.in(0); r.outp(0); r.in(1);
      r.scratch(4 * static_cast<Bytes>(in0 ? in0->dims.size() : 0));
      r.scratch(4 * elements(in1));
      return true;
    case kTransposeConv: {
      r.outp(0); r.in(2); r.in(1);
      r.per_channel(dim_or(in1, 0, 1));
      const Tensor* input = input_at(op, g, 2);
      const Bytes out = elements(output_at(op, g, 0));
      if (input && input->type == kInt8) r.scratch(4 * out);
      if (input && input->type == kInt16) r.scratch(8 * out);
      transpose_conv_op_data(op, g, r);
      return true;
    }
    case kBatchMatMul: {
      r.in(0); r.in(1); r.outp(0);
      if (in0 && (in0->type == kInt8 || in0->type == kInt16)) r.persist(28);  // QuantizationOpDataBatchMatmul
      // The transposed copy of an input (a TfLiteEvalTensor, its dims, its data): lhs with adj_x,
      // rhs without adj_y.
      const Bytes eval_tensor = pointer_bytes == 8 ? 24 : 12;
      auto transposed_copy = [&](const Tensor* t) {
        r.persist(eval_tensor);
        r.persist(4 + 4 * static_cast<Bytes>(t ? t->dims.size() : 0));
        r.persist(t ? t->bytes : 0);
      };
      if (op.adj_x) transposed_copy(in0);
      if (!op.adj_y) transposed_copy(in1);
      const Tensor* out0 = output_at(op, g, 0);
      r.persist(4 + 4 * static_cast<Bytes>(out0 ? out0->dims.size() : 0));  // the output's writable dims
      return true;
    }
    case kUnidirectionalSequenceLstm:
      lstm_temporaries(r);
      lstm_gate_parameters(op, g, r);
      lstm_scratch(op, g, 4, r);
      return true;
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


void transpose_conv_op_data(const Operator& op, const Subgraph& g, Recipe r) {
  const Tensor* input = input_at(op, g, 2);
  if (!input || input->type == kFloat32) return;
  r.in(2); r.in(1); r.in(3); r.outp(0);
  const Tensor* bias = input_at(op, g, 3);
  if (input->type == kInt16 && bias && bias->type == kInt16) r.scratch(8 * elements(bias));  // 64-bit copy
}

void lstm_temporaries(Recipe r) {
  for (int32_t i = 0; i < 24; ++i) r.in(i);  // LstmTensors: every input the op has
  r.outp(0);
}

void lstm_gate_parameters(const Operator& op, const Subgraph& g, Recipe r) {
  const Tensor* input = input_at(op, g, 0);
  const Tensor* cell = input_at(op, g, kLstmCellStateInput);
  if (!input || !cell || cell->type != kInt16 || input->type == kFloat32) return;
  // Forget, input, cell, output gates; each its input weights (slots 1-4), then recurrent (5-8).
  for (size_t gate : {2, 1, 3, 4})
    for (size_t weights : {gate, gate + 4})
      if (const Tensor* w = input_at(op, g, weights); w && w->quant_channels > 1) r.per_channel(Bytes{w->quant_channels});
}

void lstm_scratch(const Operator& op, const Subgraph& g, int buffers, Recipe r) {
  const Tensor* hidden = input_at(op, g, kLstmOutputStateInput);
  const Tensor* cell = input_at(op, g, kLstmCellStateInput);
  const Bytes per_buffer = dim_or(hidden, 0, 1) * dim_or(hidden, 1, 1) * (cell && cell->type == kInt16 ? 2 : 4);
  for (int i = 0; i < buffers; ++i) r.scratch(per_buffer);
}

RuntimeStructs runtime_structs(const TflmTarget& target, bool recording) {
  check_tflm_target(target);
  RuntimeStructs s;
  const bool p64 = target.pointer_bytes == 8;
  const Bytes a = p64 ? 8 : 4;
  s.pointer = target.pointer_bytes;
  s.arena_allocator = recording ? StructSize{p64 ? 104 : 52, a} : StructSize{p64 ? 72 : 36, a};
  s.micro_allocator = recording ? StructSize{p64 ? 248 : 124, a} : StructSize{p64 ? 72 : 36, a};
  s.memory_planner = {p64 ? 72 : 44, a};
  s.builtin_data_allocator = {p64 ? 16 : 8, a};
  s.subgraph_allocations = {p64 ? 16 : 8, a};
  s.eval_tensor = {p64 ? 24 : 12, a};
  s.node_and_registration = {p64 ? 64 : 32, a};
  // TfLiteTensor holds three enums (type, allocation_type, quantization.type).
  s.tflite_tensor = {p64 ? 64 : (target.enum_bytes == 1 ? 32 : 40), a};
  s.affine_quantization = {p64 ? 24 : 12, a};
  s.scratch_request = {p64 ? 16 : 12, a};
  s.scratch_handle = {p64 ? 8 : 4, a};
  s.allocation_info = {p64 ? 32 : 24, a};
  s.size_t_ = {p64 ? 8 : 4, a};
  return s;
}

// TFLM's `ethos-u` custom op (kernels/ethos_u/ethosu.cc, TFLM built for an Ethos-U NPU): a 12-byte
// OpData, two scratch arrays of one base address (uint64_t) and one size (size_t) per input and
// output, and the command stream as a temporary. Vela's scratch tensors are ordinary tensors.
KernelAllocations ethos_u_allocations(const Operator& op, const TflmTarget& target) {
  KernelAllocations k;
  k.has_init = true;
  k.op_data = 12;
  Recipe r{k.prepare};
  const Bytes addresses = static_cast<Bytes>(op.inputs.size() + op.outputs.size());
  r.scratch(addresses * 8);
  r.scratch(addresses * target.pointer_bytes);
  r.in(0);
  return k;
}

// TFLM's Signal library (signal/micro/kernels, registered as custom ops). The stateless ones:
// Init keeps the options read from the flexbuffer (a few int32s), Prepare takes its tensors as
// temporaries. The stateful ones size their state from the options and the input's shape:
// framer, delay and overlap-add per outer row (a pointer array, then one buffer per row),
// stacker once in Init; filter bank (its num_channels + 1 uint64 sums) and spectral subtraction
// (its noise estimate) in Init after their params; the FFTs keep kissfft's real-FFT state
// (kiss_fftr_alloc) after theirs.
bool stateless_signal_allocations(const Operator& op, KernelAllocations* k) {
  struct SignalOp {
    const char* code;
    Bytes params;        // Init's persistent params struct, 0 without Init
    int inputs, outputs;  // Prepare's temporaries, in order
  };
  static const SignalOp ops[] = {
      {"SignalWindow", 8, 2, 1},     {"SignalEnergy", 8, 1, 1},        {"SignalFilterBankLog", 8, 1, 1},
      {"SignalPCAN", 4, 3, 1},       {"SignalFilterBankSquareRoot", 0, 2, 1},
      {"SignalFftAutoScale", 0, 1, 2},
  };
  for (const SignalOp& s : ops) {
    if (op.kind != s.code) continue;
    k->has_init = s.params > 0;
    k->op_data = s.params;
    Recipe r{k->prepare};
    for (int i = 0; i < s.inputs; ++i) r.in(i);
    for (int i = 0; i < s.outputs; ++i) r.outp(i);
    return true;
  }
  return false;
}

// tflm_signal::CircularBufferGetNeededMemory: the struct (three size_t, two int32, a pointer)
// and two int16 per element of capacity.
Bytes circular_buffer_bytes(Bytes capacity, int pointer_bytes) {
  return (pointer_bytes == 8 ? 40 : 24) + 4 * capacity;
}

// kissfft v130's kiss_fftr_alloc(fft_length) size, as TFLM's Rfft/Irfft GetNeededMemory ask for it:
// the real-FFT struct (three pointers), the half-length complex FFT's state (nfft, inverse, 64
// factors, then nfft twiddles) and 3/2 x nfft complex values (buffer and super-twiddles). An odd
// length gives 0 (kissfft refuses it).
Bytes kiss_fftr_bytes(Bytes fft_length, Bytes complex_bytes, int pointer_bytes) {
  if (fft_length <= 0 || fft_length % 2 != 0) return 0;
  const Bytes half = fft_length / 2;
  const Bytes fft_state = 8 + 256 + complex_bytes * half;  // kiss_fft_state with twiddles[1], then nfft - 1 more
  return 3 * pointer_bytes + fft_state + complex_bytes * (half * 3 / 2);
}

bool stateful_signal_allocations(const Operator& op, const Subgraph& g, const TflmTarget& target, KernelAllocations* k) {
  const bool p64 = target.pointer_bytes == 8;
  const Bytes pointer = target.pointer_bytes;
  auto option = [&](const char* key) {
    auto it = op.custom_options.find(key);
    return it == op.custom_options.end() ? Bytes{0} : static_cast<Bytes>(it->second);
  };
  const Tensor* in0 = input_at(op, g, 0);
  const Bytes innermost = dim_or(in0, in0 ? in0->dims.size() - 1 : 0, 1);
  Recipe r{k->prepare};
  k->has_init = true;
  if (op.kind == "SignalDelay") {
    k->op_data = p64 ? 32 : 20;  // three int32s, two pointers
    r.in(0); r.outp(0);
    const Bytes rows = innermost > 0 ? elements(in0) / innermost : 0;
    r.persist(rows * pointer);
    r.persist(rows * pointer);
    r.persist(circular_buffer_bytes(innermost + option("delay_length"), target.pointer_bytes), rows);
    return true;
  }
  if (op.kind == "SignalFramer") {
    k->op_data = p64 ? 40 : 28;  // four int32s, a bool, two pointers
    r.in(0); r.outp(0); r.outp(1);
    const Bytes rows = innermost > 0 ? elements(in0) / innermost : 0;
    const Bytes size = option("frame_size"), step = option("frame_step");
    r.persist(rows * pointer);
    r.persist(rows * pointer);
    const Bytes capacity = step > 0 ? (size + step - 1) / step * step : 0;
    r.persist(circular_buffer_bytes(capacity, target.pointer_bytes), rows);
    return true;
  }
  if (op.kind == "SignalOverlapAdd") {
    k->op_data = p64 ? 32 : 24;  // four int32s, the type, a pointer
    r.in(0); r.outp(0);
    const Bytes frame = innermost, frames = dim_or(in0, in0 && in0->dims.size() >= 2 ? in0->dims.size() - 2 : 0, 1);
    const Bytes rows = frame * frames > 0 ? elements(in0) / (frame * frames) : 0;
    r.persist(rows * pointer);
    const Bytes element = in0 && in0->type == kFloat32 ? 4 : 2;
    r.persist(frame * element, rows);
    return true;
  }
  if (op.kind == "SignalFilterBank") {
    k->op_data = p64 ? 64 : 36;  // FilterbankConfig (an int32, five pointers, two int32s), a pointer
    k->init_buffers.push_back((option("num_channels") + 1) * 8);
    for (int i = 0; i < 6; ++i) r.in(i);
    r.outp(0);
    return true;
  }
  if (op.kind == "SignalFilterBankSpectralSubtraction") {
    k->op_data = p64 ? 56 : 44;  // SpectralSubtractionConfig (eight 32-bit fields, a bool), a pointer, a size_t
    k->init_buffers.push_back(option("num_channels") * 4);
    r.in(0); r.outp(0); r.outp(1);
    return true;
  }
  if (op.kind == "SignalRfft" || op.kind == "SignalIrfft") {
    const Bytes type = option("T");  // TensorType: INT16 7, INT32 2, FLOAT32 0
    const Bytes scalar = type == kInt16 ? 2 : 4, fft_length = option("fft_length");
    const bool forward = op.kind == "SignalRfft";
    // Rfft: four int32s, the type, a T*, an int, a pointer; Irfft: four int32s, the type, a pointer.
    k->op_data = forward ? (p64 ? 48 : 32) : (p64 ? 32 : 24);
    // The float Irfft puts its fft_length and the kissfft pointer before kissfft's state.
    const Bytes prefix = !forward && type == kFloat32 ? (p64 ? 16 : 8) : 0;
    k->init_buffers.push_back(prefix + kiss_fftr_bytes(fft_length, 2 * scalar, target.pointer_bytes));
    r.in(0); r.outp(0);
    if (forward) r.scratch(fft_length * scalar);
    return true;
  }
  if (op.kind == "SignalStacker") {
    k->op_data = p64 ? 56 : 36;  // four int32s, two size_t, a bool, two pointers
    const Bytes size = option("num_channels") * (option("stacker_left_context") + option("stacker_right_context") + 1);
    k->init_buffers.push_back(circular_buffer_bytes(size, target.pointer_bytes));
    r.in(0); r.outp(0); r.outp(1);
    return true;
  }
  k->has_init = false;
  return false;
}

KernelAllocations kernel_allocations(const Operator& op, const Subgraph& g, const TflmTarget& target) {
  if (op.builtin == kCustomCode && op.kind == "ethos-u") return ethos_u_allocations(op, target);
  if (KernelAllocations k; op.builtin == kCustomCode && stateless_signal_allocations(op, &k)) return k;
  if (KernelAllocations k; op.builtin == kCustomCode && stateful_signal_allocations(op, g, target, &k)) return k;
  KernelAllocations k;
  bool known = true;
  if (op.builtin == kCustomCode) {
    known = false;  // custom op: whatever its Init/Prepare do is unknown
  } else if (builtin_data_of(op.builtin, target, &k.builtin_data)) {
    k.has_builtin_data = true;
  } else if (!parses_without_data(op.builtin)) {
    known = false;
  }
  if (target.kernels == TflmKernels::kCmsisNn) {
    switch (cmsis_nn_allocations(op, g, target, &k)) {
      case CmsisNnKernel::kModelled: return k;
      case CmsisNnKernel::kNotModelled: known = false; break;
      case CmsisNnKernel::kReferenceKernel: break;
    }
  }
  if (known && !op_data_of(op.builtin, target, &k.has_init, &k.op_data)) known = false;
  if (known && !known_prepare(op, g, target.pointer_bytes, Recipe{k.prepare})) known = false;
  if (known) return k;

  // Unknown kernel: round every part up. The largest builtin-data struct and OpData of the
  // reference kernels stay well below 256 bytes; every input and output is held twice as a
  // temporary (the worst any reference Prepare does); per-channel arrays for every per-channel
  // quantized input; a scratch buffer as large as the op's largest non-constant tensor.
  k = KernelAllocations{};
  k.estimated = true;
  k.has_builtin_data = op.builtin != kCustomCode;
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
        r.per_channel(Bytes{t->quant_channels});
      }
      if (!t->has_data) largest = std::max(largest, t->bytes);
    }
  for (int32_t t : op.outputs) largest = std::max(largest, g.tensors[t].bytes);
  r.scratch(largest);
  return k;
}

}  // namespace arenaplan::tflm
