// What each TFLM reference kernel takes from the arena, per builtin operator and pointer size
// (tflite-micro 90b983c2, reference kernels, TF_LITE_STATIC_MEMORY): the builtin-data struct its
// parse function allocates, the OpData its Init allocates, and, in order, what its Prepare does:
// temporary TfLiteTensors (AllocateTemp{Input,Output}Tensor), persistent buffers (per-channel
// multiplier/shift arrays, LUTs) and scratch-buffer requests. Sizes were measured with sizeof on
// x86-64 (8-byte pointers), wasm32 (4-byte pointers, 8-byte-aligned int64) and arm-none-eabi-gcc
// (4-byte pointers, short enums) builds of the TFLM headers; they are figures, not TFLM code.
// The OpData of the elementwise, comparison, select, div, squared-difference and batch-matmul
// kernels were laid out by hand from their declarations under those ABIs (int64 members 8-byte
// aligned on all three), not measured.
// CMSIS-NN's kernels are in tflm_cmsis_kernels.h. Internal to core/tflite.
#pragma once

#include <cstdint>
#include <vector>

#include "core/tflite/detail/tflm_model.h"
#include "core/tflite/tflm_arena.h"

namespace arenaplan::tflm {

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
  kCustomCode = 32, kLess = 58, kNeg = 59, kGreater = 61, kGreaterEqual = 62, kLessEqual = 63,
  kSelect = 64, kSin = 66, kEqual = 71, kNotEqual = 72, kLog = 73, kSqrt = 75, kRsqrt = 76,
  kLogicalNot = 87, kSquare = 92, kZerosLike = 93, kFill = 94, kSquaredDifference = 99, kAbs = 101,
  kCos = 108, kSelectV2 = 123, kBroadcastTo = 130, kLogicalOr = 84, kLogicalAnd = 86, kCeil = 104,
  kRound = 116, kReverseV2 = 105, kAddN = 106, kGatherNd = 107, kElu = 111, kEmbeddingLookup = 7, kFloorDiv = 90,
  kFloorMod = 95, kDynamicUpdateSlice = 151, kReduceAll = 140, kBroadcastArgs = 145,
};

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
// figures are measured). The target is checked (check_tflm_target) first.
RuntimeStructs runtime_structs(const TflmTarget& target, bool recording = false);

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
  Bytes times = 1;    // persistent: this many equal buffers one after another (a Signal op's rows)
};

struct KernelAllocations {
  bool has_builtin_data = false;  // the parse function allocates builtin data
  StructSize builtin_data;
  bool has_init = false;          // Init allocates OpData
  Bytes op_data = 0;
  std::vector<Bytes> init_buffers;  // further persistent buffers Init allocates after it (a Signal op's state)
  std::vector<PrepareAction> prepare;
  // Not a kernel this table knows: every figure above is a conservative over-estimate (a too small
  // arena makes AllocateTensors fail on the device; a larger one only wastes a little RAM).
  bool estimated = false;
};

// The kernel the target links for the op: CMSIS-NN's where it has one, else the reference one.
KernelAllocations kernel_allocations(const Operator& op, const Subgraph& g, const TflmTarget& target);

// Builders shared by the reference and CMSIS-NN tables.
struct Recipe {
  std::vector<PrepareAction>& out;
  void in(int32_t i) { out.push_back({PrepareStep::kTempInput, i, 0}); }
  void outp(int32_t i) { out.push_back({PrepareStep::kTempOutput, i, 0}); }
  void persist(Bytes b, Bytes times = 1) { out.push_back({PrepareStep::kPersistent, 0, b, times}); }
  void scratch(Bytes b) { out.push_back({PrepareStep::kScratch, 0, b}); }
  // Per-channel output multiplier and shift arrays (int32 each), as conv-like kernels keep them.
  void per_channel(Bytes channels) {
    persist(4 * channels);
    persist(4 * channels);
  }
  void all_inputs(const Operator& op) {
    for (size_t i = 0; i < op.inputs.size(); ++i) in(static_cast<int32_t>(i));
  }
  void all_outputs(const Operator& op) {
    for (size_t i = 0; i < op.outputs.size(); ++i) outp(static_cast<int32_t>(i));
  }
};
const Tensor* input_at(const Operator& op, const Subgraph& g, size_t i);  // null when absent
const Tensor* output_at(const Operator& op, const Subgraph& g, size_t i);
Bytes dim_or(const Tensor* t, size_t d, Bytes fallback);
Bytes elements(const Tensor* t);
// TRANSPOSE_CONV's CalculateOpData (both kernels): temporaries, and the int16 bias copy.
void transpose_conv_op_data(const Operator& op, const Subgraph& g, Recipe r);
// UNIDIRECTIONAL_SEQUENCE_LSTM (both kernels): LstmTensors' temporaries of every input and the
// output, then `buffers` scratch buffers of batch x state x the cell state's element size (the
// hidden state input is [batch, state]).
constexpr size_t kLstmOutputStateInput = 18, kLstmCellStateInput = 19;
void lstm_temporaries(Recipe r);
// The integer LSTM's PrepareGateParametersInteger: each gate's input and recurrent FC parameters
// through CalculateOpDataFullyConnected, which allocates per-channel multiplier and shift arrays
// for per-channel weights (the LSTM then never reads them, but they stay in the tail).
void lstm_gate_parameters(const Operator& op, const Subgraph& g, Recipe r);
void lstm_scratch(const Operator& op, const Subgraph& g, int buffers, Recipe r);
// TensorType codes the kernels branch on.
constexpr int8_t kFloat32 = 0, kInt32 = 2, kInt64 = 4, kInt16 = 7, kInt8 = 9, kInt4 = 17;

}  // namespace arenaplan::tflm
