// What TFLM's reference kernels allocate for the data-movement, math, reduction and matrix ops
// (GATHER, FILL, BROADCAST_TO, ABS, RSQRT, EXP, ..., DIV, SQUARED_DIFFERENCE, SUM, REDUCE_MAX,
// BATCH_MATMUL): none is estimated, and each Prepare's persistent buffers and scratch requests
// are the sizes its Init/Prepare ask for (sizeof of the OpData structs, TfLiteIntArray copies of
// dims, the transposed copies BATCH_MATMUL keeps), counted here by hand from the tensors' shapes.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/tflite/detail/tflm_kernel_sizes.h"

namespace arenaplan::tflm {
namespace {

Tensor tensor(int8_t type, std::vector<int32_t> dims, int bytes_per_element) {
  Tensor t;
  t.type = type;
  t.dims = std::move(dims);
  Bytes n = 1;
  for (int32_t d : t.dims) n *= d;
  t.bytes = n * bytes_per_element;
  return t;
}

// A subgraph of one op over the given tensors: inputs first, then outputs.
struct OneOp {
  Subgraph g;
  Operator op;
  OneOp(int32_t builtin, std::vector<Tensor> ins, std::vector<Tensor> outs) {
    op.builtin = builtin;
    op.kind = "op";
    for (Tensor& t : ins) {
      op.inputs.push_back(static_cast<int32_t>(g.tensors.size()));
      g.tensors.push_back(std::move(t));
    }
    for (Tensor& t : outs) {
      op.outputs.push_back(static_cast<int32_t>(g.tensors.size()));
      g.tensors.push_back(std::move(t));
    }
  }
  KernelAllocations at(int pointer_bytes, int enum_bytes = 4) const {
    TflmTarget t;
    t.pointer_bytes = pointer_bytes;
    t.enum_bytes = enum_bytes;
    return kernel_allocations(op, g, t);
  }
};

std::vector<Bytes> steps(const KernelAllocations& k, PrepareStep s) {
  std::vector<Bytes> out;
  for (const PrepareAction& a : k.prepare)
    if (a.step == s) out.push_back(a.bytes);
  return out;
}

int temporaries(const KernelAllocations& k) {
  int n = 0;
  for (const PrepareAction& a : k.prepare) n += a.step == PrepareStep::kTempInput || a.step == PrepareStep::kTempOutput;
  return n;
}

}  // namespace

TEST_CASE("every data-movement and math op this simulator runs has TFLM's exact allocations, none estimated") {
  const Tensor f4 = tensor(kFloat32, {2, 3}, 4), i8 = tensor(kInt8, {2, 3}, 1), shape = tensor(kInt32, {2}, 4);
  struct Unary {
    int32_t code;
    bool init;
  };
  // Unary ops: input and output as temporaries; ABS and RSQRT keep an OpData, the others none.
  for (Unary u : {Unary{kExp, false}, Unary{kLog, false}, Unary{kSqrt, false}, Unary{kSquare, false},
                  Unary{kSin, false}, Unary{kCos, false}, Unary{kZerosLike, false}, Unary{kAbs, true},
                  Unary{kRsqrt, true}}) {
    const KernelAllocations k = OneOp(u.code, {f4}, {f4}).at(4);
    CHECK_MESSAGE(!k.estimated, "builtin " << u.code);
    CHECK(k.has_init == u.init);
    CHECK(!k.has_builtin_data);
    CHECK(temporaries(k) == 2);
  }
  // OpDataAbsRsqrt: five ints, a bool and two enums; arm-none-eabi-gcc's one-byte enums pack after the bool.
  CHECK(OneOp(kAbs, {i8}, {i8}).at(4, 4).op_data == 28);
  CHECK(OneOp(kAbs, {i8}, {i8}).at(4, 1).op_data == 20);
  const KernelAllocations neg = OneOp(kNeg, {f4}, {f4}).at(8);
  CHECK(!neg.estimated);
  CHECK(neg.prepare.empty());  // NEG has no Prepare

  // Binary ops: two inputs and the output; DIV's OpData of seven int32s, SQUARED_DIFFERENCE's bool
  // then ArithmeticParams (8-byte aligned for its int64 members).
  const KernelAllocations div = OneOp(kDiv, {i8, i8}, {i8}).at(4);
  CHECK(!div.estimated);
  CHECK(div.op_data == 28);
  CHECK(temporaries(div) == 3);
  CHECK(OneOp(kSquaredDifference, {i8, i8}, {i8}).at(8).op_data == 112);
  for (int32_t code : {kFill, kBroadcastTo}) {
    const KernelAllocations k = OneOp(code, {shape, f4}, {f4}).at(4);
    CHECK(!k.estimated);
    CHECK(!k.has_init);
    CHECK(temporaries(k) == 3);
  }
}

TEST_CASE("gather copies its output's dims; reductions request TFLM's index scratches") {
  // GATHER's CreateWritableTensorDimsWithCopy: a TfLiteIntArray of the output's rank (4 + 4 x 3).
  const KernelAllocations g =
      OneOp(kGather, {tensor(kInt8, {4, 5}, 1), tensor(kInt32, {2, 3}, 4)}, {tensor(kInt8, {2, 3, 5}, 1)}).at(4);
  CHECK(!g.estimated);
  CHECK(steps(g, PrepareStep::kPersistent) == std::vector<Bytes>{16});

  // SUM int8 over a [2, 3, 4] input with 2 axes into 3 outputs: int32 accumulators, then the
  // input-iterator (rank) and resolved-axis (axis count) index buffers.
  const Tensor x8 = tensor(kInt8, {2, 3, 4}, 1), axes = tensor(kInt32, {2}, 4), y8 = tensor(kInt8, {3}, 1);
  const KernelAllocations sum = OneOp(kSum, {x8, axes}, {y8}).at(4);
  CHECK(!sum.estimated);
  CHECK(steps(sum, PrepareStep::kScratch) == std::vector<Bytes>{12, 12, 8});
  CHECK(temporaries(sum) == 6);  // its own three, then PrepareSimple's input, axis and (int8) output
  const Tensor xf = tensor(kFloat32, {2, 3, 4}, 4), yf = tensor(kFloat32, {3}, 4);
  const KernelAllocations sum_f = OneOp(kSum, {xf, axes}, {yf}).at(4);
  CHECK(steps(sum_f, PrepareStep::kScratch) == std::vector<Bytes>{12, 8});
  CHECK(temporaries(sum_f) == 5);

  const KernelAllocations max = OneOp(kReduceMax, {xf, axes}, {yf}).at(8);
  CHECK(!max.estimated);
  CHECK(max.op_data == 44);
  CHECK(steps(max, PrepareStep::kScratch) == std::vector<Bytes>{12, 8});
}

TEST_CASE("batch_matmul keeps transposed copies of the inputs it transposes, and its quantization") {
  const Tensor a = tensor(kInt8, {2, 3, 5}, 1), b = tensor(kInt8, {2, 5, 4}, 1), y = tensor(kInt8, {2, 3, 4}, 1);
  OneOp plain(kBatchMatMul, {a, b}, {y});
  // No adj_y: rhs is copied transposed (eval tensor, its dims, its 40 bytes); int8: the
  // quantization block; then the output's writable dims.
  const KernelAllocations k32 = plain.at(4);
  CHECK(!k32.estimated);
  CHECK(k32.op_data == 16);
  CHECK(steps(k32, PrepareStep::kPersistent) == std::vector<Bytes>{28, 12, 16, 40, 16});
  CHECK(plain.at(8).op_data == 32);
  CHECK(steps(plain.at(8), PrepareStep::kPersistent) == std::vector<Bytes>{28, 24, 16, 40, 16});

  OneOp both(kBatchMatMul, {tensor(kFloat32, {5, 3}, 4), tensor(kFloat32, {4, 5}, 4)}, {tensor(kFloat32, {3, 4}, 4)});
  both.op.adj_x = true, both.op.adj_y = true;
  // adj_x copies lhs (60 bytes); adj_y leaves rhs as it is; float has no quantization block.
  CHECK(steps(both.at(4), PrepareStep::kPersistent) == std::vector<Bytes>{12, 12, 60, 12});
}

TEST_CASE("comparisons, select_v2, space_to_depth and depth_to_space: TFLM's Prepare, not an estimate") {
  const Tensor a = tensor(kInt8, {1, 4, 4, 8}, 1), b = tensor(kInt8, {1, 2, 2, 32}, 1);
  for (int32_t code : {kEqual, kNotEqual, kGreater, kGreaterEqual, kLess, kLessEqual}) {
    const KernelAllocations k = OneOp(code, {a, a}, {tensor(6, {1, 4, 4, 8}, 1)}).at(4);
    CHECK(!k.estimated);
    CHECK(k.op_data == 32);
    CHECK(temporaries(k) == 2);  // both inputs, never the output
  }
  const KernelAllocations sel = OneOp(kSelectV2, {tensor(6, {4}, 1), a, a}, {a}).at(4);
  CHECK(!sel.estimated);
  CHECK(temporaries(sel) == 4);
  // Both copy the output's dims (rank 4: 20 bytes) while their two temporaries are held.
  CHECK(steps(OneOp(kSpaceToDepth, {a}, {b}).at(4), PrepareStep::kPersistent) == std::vector<Bytes>{20});
  CHECK(steps(OneOp(kDepthToSpace, {b}, {a}).at(8), PrepareStep::kPersistent) == std::vector<Bytes>{20});
  // MIRROR_PAD: five ints of OpData, two per-dim element-count scratches of the input's rank.
  const KernelAllocations mp = OneOp(kMirrorPad, {a, tensor(kInt32, {4, 2}, 4)}, {a}).at(4);
  CHECK(!mp.estimated);
  CHECK(mp.op_data == 20);
  CHECK(steps(mp, PrepareStep::kScratch) == std::vector<Bytes>{16, 16});
  // SPACE_TO_BATCH_ND keeps its 4-byte params, BATCH_TO_SPACE_ND has no Init; both hold two temporaries.
  const Tensor shape2 = tensor(kInt32, {2}, 4), pads = tensor(kInt32, {2, 2}, 4);
  const KernelAllocations s2b = OneOp(kSpaceToBatchNd, {a, shape2, pads}, {a}).at(4);
  CHECK(!s2b.estimated);
  CHECK(s2b.op_data == 4);
  CHECK(temporaries(s2b) == 2);
  const KernelAllocations b2s = OneOp(kBatchToSpaceNd, {a, shape2, pads}, {a}).at(4);
  CHECK(!b2s.estimated);
  CHECK(!b2s.has_init);
}

TEST_CASE("the Signal library's stateless custom ops: Init's options and Prepare's temporaries") {
  const Tensor frame = tensor(kInt16, {512}, 2), weights = tensor(kInt16, {512}, 2);
  OneOp window(kCustomCode, {frame, weights}, {frame});
  window.op.kind = "SignalWindow";
  const KernelAllocations w = window.at(4);
  CHECK(!w.estimated);
  CHECK(!w.has_builtin_data);  // custom ops carry flexbuffer options, not builtin data
  CHECK(w.op_data == 8);       // shift, input size
  CHECK(temporaries(w) == 3);
  OneOp scale(kCustomCode, {frame}, {frame, tensor(kInt32, {}, 4)});
  scale.op.kind = "SignalFftAutoScale";
  CHECK(!scale.at(8).estimated);
  CHECK(!scale.at(8).has_init);
  CHECK(temporaries(scale.at(8)) == 3);
}

TEST_CASE("the Signal library's stateful custom ops: their state sized from the flexbuffer options") {
  // SignalFramer over one row of 512 samples, 400-sample frames every 160: Init's params (four
  // int32s, a bool, two pointers), then a pointer array each for the state buffers and the
  // circular buffers, and one circular buffer of whole steps covering a frame (3 x 160 samples),
  // its 24-byte struct (32-bit) and two int16 per sample.
  const Tensor row = tensor(kInt16, {512}, 2);
  OneOp framer(kCustomCode, {row}, {tensor(kInt16, {3, 400}, 2), tensor(6, {}, 1)});
  framer.op.kind = "SignalFramer";
  framer.op.custom_options = {{"frame_size", 400}, {"frame_step", 160}, {"prefill", 0}};
  const KernelAllocations f = framer.at(4);
  CHECK(!f.estimated);
  CHECK(f.op_data == 28);
  CHECK(temporaries(f) == 3);
  CHECK(steps(f, PrepareStep::kPersistent) == std::vector<Bytes>{4, 4, 24 + 4 * 480});
  CHECK(steps(framer.at(8), PrepareStep::kPersistent) == std::vector<Bytes>{8, 8, 40 + 4 * 480});
  // SignalStacker keeps its circular buffer from Init: 40 channels x (2 + 1 + 1) frames.
  OneOp stacker(kCustomCode, {tensor(kInt16, {40}, 2)}, {tensor(kInt16, {160}, 2), tensor(6, {}, 1)});
  stacker.op.kind = "SignalStacker";
  stacker.op.custom_options = {{"num_channels", 40}, {"stacker_left_context", 2}, {"stacker_right_context", 1}, {"stacker_step", 1}};
  CHECK(stacker.at(4).init_buffers == std::vector<Bytes>{24 + 4 * 160});
  // SignalFilterBank: its params (FilterbankConfig and a pointer), then num_channels + 1 uint64
  // sums from Init; spectral subtraction: its params, then the noise estimate.
  OneOp bank(kCustomCode, {row}, {row});
  bank.op.kind = "SignalFilterBank";
  bank.op.custom_options = {{"num_channels", 40}};
  CHECK(!bank.at(4).estimated);
  CHECK(bank.at(4).op_data == 36);
  CHECK(bank.at(8).op_data == 64);
  CHECK(bank.at(4).init_buffers == std::vector<Bytes>{41 * 8});
  OneOp subtraction(kCustomCode, {row}, {row, row});
  subtraction.op.kind = "SignalFilterBankSpectralSubtraction";
  subtraction.op.custom_options = {{"num_channels", 40}};
  CHECK(subtraction.at(4).op_data == 44);
  CHECK(subtraction.at(8).init_buffers == std::vector<Bytes>{160});
  // SignalRfft int16 of 512: kissfft's real-FFT state for 256 complex points (three pointers,
  // the 264-byte complex FFT struct plus 256 twiddles of 4 bytes, 384 more complex values) and a
  // scratch of 512 int16. The float SignalIrfft puts 8 bytes (32-bit) before kissfft's state.
  OneOp rfft(kCustomCode, {row}, {tensor(kInt16, {514}, 2)});
  rfft.op.kind = "SignalRfft";
  rfft.op.custom_options = {{"T", kInt16}, {"fft_length", 512}};
  CHECK(rfft.at(4).init_buffers == std::vector<Bytes>{12 + 264 + 4 * 256 + 4 * 384});
  CHECK(steps(rfft.at(4), PrepareStep::kScratch) == std::vector<Bytes>{1024});
  OneOp irfft(kCustomCode, {tensor(kFloat32, {514}, 4)}, {tensor(kFloat32, {512}, 4)});
  irfft.op.kind = "SignalIrfft";
  irfft.op.custom_options = {{"T", kFloat32}, {"fft_length", 512}};
  CHECK(irfft.at(4).init_buffers == std::vector<Bytes>{8 + 12 + 264 + 8 * 256 + 8 * 384});
  CHECK(steps(irfft.at(4), PrepareStep::kScratch).empty());
  // An unknown custom op stays estimated.
  OneOp unknown(kCustomCode, {row}, {row});
  unknown.op.kind = "SignalSomethingNew";
  CHECK(unknown.at(4).estimated);
}

}  // namespace arenaplan::tflm
