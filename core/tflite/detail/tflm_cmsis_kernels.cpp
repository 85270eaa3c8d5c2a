#include "core/tflite/detail/tflm_cmsis_kernels.h"

#include <algorithm>

namespace arenaplan::tflm {
namespace {

// CMSIS-NN constants (Include/arm_nnsupportfunctions.h).
constexpr int64_t kChInBlockMve = 124;
// CONVERT_DW_CONV_WITH_ONE_INPUT_CH_AND_OUTPUT_CH_ABOVE_THRESHOLD: 1 unless Arm Compiler 6 (8).
constexpr int64_t kDwOneInputChannelThreshold = 1;

bool is_convolve_1x1(const Window& win, const NnDims& input, const NnDims& filter) {
  return win.pad_w == 0 && win.pad_h == 0 && filter.w == 1 && filter.h == 1 && win.dilation_w == 1 &&
         win.dilation_h == 1 && input.c == filter.c;
}
bool is_convolve_1_x_n(const Window& win, const NnDims& input, const NnDims& filter) {
  return input.h == 1 && win.dilation_w == 1 && filter.h == 1 && (win.stride_w * input.c) % 4 == 0 &&
         input.c == filter.c;
}

// arm_convolve_s8_get_buffer_size (im2col of two columns, int16).
int64_t convolve_s8_size(CmsisNnIsa isa, const NnDims& input, const NnDims& filter) {
  const int64_t cols = filter.w * filter.h * input.c;
  if (isa == CmsisNnIsa::kMve) return 4 * ((cols + 15) / 16) * 16;  // four im2col rows of whole Q registers
  const int64_t aligned = cols % 4 != 0 ? cols + 4 - cols % 4 : cols;
  return 2 * aligned * 2;
}

// arm_convolve_1_x_n_s8_get_buffer_size_mve (C integer arithmetic, negative padding included).
int64_t convolve_1_x_n_s8_size_mve(const Window& win, const NnDims& input, const NnDims& filter,
                                   const NnDims& output) {
  const int64_t total_pad = (output.w - 1) * win.stride_w + filter.w - input.w;
  const int64_t asym_pad = total_pad % 2;
  const int64_t right_pad_num =
      win.pad_w + asym_pad != 0 ? std::max<int64_t>(1, (win.pad_w + asym_pad + win.stride_w - 1) / win.stride_w) : 0;
  const int64_t left_pad_num = win.pad_w != 0 ? std::max<int64_t>(1, (win.pad_w + win.stride_w - 1) / win.stride_w) : 0;
  const int64_t no_pad_num = std::max<int64_t>(output.w - (right_pad_num + left_pad_num), 0);
  if (right_pad_num + no_pad_num + left_pad_num != output.w) return convolve_s8_size(CmsisNnIsa::kMve, input, filter);
  const int64_t pad_size_left = win.pad_w * input.c;
  const int64_t pad_size_right = asym_pad ? right_pad_num * input.c : pad_size_left;
  const int64_t num_elem_left = filter.w * input.c;
  const int64_t num_elem_right = num_elem_left - input.c;
  return std::max(num_elem_left + pad_size_left, num_elem_right + pad_size_right);
}

// arm_convolve_wrapper_s16_get_buffer_size.
int64_t convolve_wrapper_s16_size(CmsisNnIsa isa, const NnDims& input, const NnDims& filter) {
  const int64_t cols = input.c * filter.w * filter.h;
  if (isa == CmsisNnIsa::kMve) return 4 * ((cols + 7) / 8) * 8 * 2;
  return 2 * cols * 2;
}

// arm_depthwise_conv_s8_opt_get_buffer_size.
int64_t depthwise_opt_s8_size(CmsisNnIsa isa, const NnDims& input, const NnDims& filter) {
  switch (isa) {
    case CmsisNnIsa::kMve: return 4 * kChInBlockMve * filter.w * filter.h;
    case CmsisNnIsa::kDsp: return input.c * filter.w * filter.h * 2;
    default: return 0;
  }
}

// arm_depthwise_conv_wrapper_s4_get_buffer_size: the DSP size on every core without MVE.
int64_t depthwise_wrapper_s4_size(CmsisNnIsa isa, const Window& win, const NnDims& input, const NnDims& filter,
                                  const NnDims& output) {
  if (input.c != output.c || input.n != 1 || win.dilation_w != 1 || win.dilation_h != 1) return 0;
  return depthwise_opt_s8_size(isa == CmsisNnIsa::kMve ? isa : CmsisNnIsa::kDsp, input, filter);
}

NnDims nhwc(const Tensor* t) {
  NnDims d;
  if (!t || t->dims.size() != 4) return d;
  d.n = t->dims[0];
  d.h = t->dims[1];
  d.w = t->dims[2];
  d.c = t->dims[3];
  return d;
}

bool quantized(const Tensor* t) { return t && (t->type == kInt8 || t->type == kInt16); }

// OpData sizes of the cmsis_nn kernels, measured with sizeof: {8-byte pointers, 4-byte pointers}
// (the same with and without short enums).
struct OpDataSize {
  Bytes p64, p32;
  Bytes of(const TflmTarget& t) const { return t.pointer_bytes == 8 ? p64 : p32; }
};
constexpr OpDataSize kConvOpData{80, 60}, kFullyConnectedOpData{96, 72}, kPoolingOpData{36, 36},
    kSoftmaxOpData{88, 64}, kSvdfOpData{48, 40}, kTransposeConvOpData{88, 76}, kLstmOpData{1008, 912};

void conv_2d(const Operator& op, const Subgraph& g, const TflmTarget& t, KernelAllocations* k) {
  Recipe r{k->prepare};
  const Tensor* input = input_at(op, g, 0);
  const Tensor* filter = input_at(op, g, 1);
  k->has_init = true;
  k->op_data = kConvOpData.of(t);
  // Prepare takes the bias with AllocateTempOutputTensor(node, 2): a CONV_2D has one output, so
  // that is null and allocates nothing, and the int16 path always sees "no bias type".
  r.in(0); r.in(1); r.outp(0); r.outp(2);
  if (quantized(input)) {
    r.per_channel(dim_or(filter, 0, 1));
  }
  r.in(0); r.in(1); r.in(2); r.outp(0);  // CalculateOpDataConv
  NnDims in = nhwc(input), f = nhwc(filter), out = nhwc(output_at(op, g, 0));
  f.n = 1;
  int64_t size = 0;
  if (input && input->type == kInt8) size = convolve_wrapper_s8_buffer_size(t.isa, op.window, in, f, out);
  else if (input && input->type == kInt16) size = convolve_wrapper_s16_size(t.isa, in, f);
  if (size > 0) r.scratch(size);
}

void depthwise_conv_2d(const Operator& op, const Subgraph& g, const TflmTarget& t, KernelAllocations* k) {
  Recipe r{k->prepare};
  const Tensor* input = input_at(op, g, 0);
  const Tensor* filter = input_at(op, g, 1);
  k->has_init = true;
  k->op_data = kConvOpData.of(t);
  r.in(0); r.in(1); r.outp(0);
  if (quantized(input)) {
    r.per_channel(dim_or(filter, 3, 1));
  }
  r.in(0); r.in(1); r.in(2); r.outp(0);  // CalculateOpDataDepthwiseConv
  if (!input || input->type != kInt8) return;
  const NnDims in = nhwc(input), out = nhwc(output_at(op, g, 0));
  NnDims f = nhwc(filter);
  f.n = 1;
  f.c = out.c;
  const int64_t size = filter && filter->type == kInt4 ? depthwise_wrapper_s4_size(t.isa, op.window, in, f, out)
                                                       : depthwise_conv_wrapper_s8_buffer_size(t.isa, op.window, in, f, out);
  if (size > 0) r.scratch(size);
}

void fully_connected(const Operator& op, const Subgraph& g, const TflmTarget& t, KernelAllocations* k) {
  Recipe r{k->prepare};
  const Tensor* input = input_at(op, g, 0);
  const Tensor* filter = input_at(op, g, 1);
  const Tensor* bias = input_at(op, g, 2);
  const Tensor* output = output_at(op, g, 0);
  k->has_init = true;
  k->op_data = kFullyConnectedOpData.of(t);
  r.in(0); r.in(1); r.in(2); r.outp(0);
  const bool per_channel = input && input->type != kFloat32 && filter && filter->quant_channels > 1;
  if (per_channel) {  // CalculateOpDataFullyConnected
    r.per_channel(Bytes{filter->quant_channels});
  }
  if (!input || input->type != kInt8 || !filter || filter->type == kInt4) return;  // int16: no buffer
  const Bytes accum_depth = filter->dims.empty() ? 1 : filter->dims.back();
  const Bytes output_depth = output && !output->dims.empty() ? output->dims.back() : 1;
  const bool conv_1x1_possible = output && output->dims.size() > 2 && accum_depth % 4 == 0;
  if (conv_1x1_possible) {
    // Per-tensor quantization is run as a per-channel 1x1 convolution with faked arrays; the 1x1
    // fast path's own buffer is 0 with arm-none-eabi-gcc.
    if (!per_channel) r.scratch(output_depth * 4 * 2);
    return;
  }
  // arm_fully_connected_s8_get_buffer_size: MVE keeps kernel sums; optimised for speed they are
  // computed once into a persistent buffer when the weights (and bias) are constant.
  const Bytes size = t.isa == CmsisNnIsa::kMve ? output_depth * 4 : 0;
  if (size <= 0) return;
  if (filter->has_data && (!bias || bias->has_data)) r.persist(size);
  else r.scratch(size);
}

void pooling(const Operator& op, const Subgraph& g, const TflmTarget& t, KernelAllocations* k) {
  Recipe r{k->prepare};
  k->has_init = true;
  k->op_data = kPoolingOpData.of(t);
  r.in(0); r.outp(0);  // PoolingPrepare
  if (op.builtin != kAveragePool2D) return;
  r.in(0); r.outp(0);
  const Tensor* input = input_at(op, g, 0);
  // arm_avgpool_s8/s16_get_buffer_size: a row of int32 sums per channel on DSP only.
  if (quantized(input) && t.isa == CmsisNnIsa::kDsp) {
    const Bytes depth = dim_or(output_at(op, g, 0), 3, 1);
    if (depth > 0) r.scratch(depth * 4);
  }
}

void softmax(const Operator& op, const Subgraph& g, const TflmTarget& t, KernelAllocations* k) {
  Recipe r{k->prepare};
  k->has_init = true;
  k->op_data = kSoftmaxOpData.of(t);
  r.in(0); r.outp(0);
  const Tensor* input = input_at(op, g, 0);
  if (input && input->type == kInt16) {  // CalculateSoftmaxParams: exp and 1/(1+x) LUTs
    r.persist(2 * 513);
    r.persist(2 * 513);
  }
}

void svdf(const Operator& op, const Subgraph& g, const TflmTarget& t, KernelAllocations* k) {
  Recipe r{k->prepare};
  const Tensor* input = input_at(op, g, 0);
  const Tensor* weights_feature = input_at(op, g, 1);
  k->has_init = true;
  k->op_data = kSvdfOpData.of(t);
  r.in(0); r.in(1); r.in(2); r.in(3); r.in(4); r.outp(0);
  const Bytes batch = dim_or(input, 0, 1), filters = dim_or(weights_feature, 0, 1);
  const Bytes units = dim_or(output_at(op, g, 0), 1, filters);
  r.scratch(4 * batch * filters);
  if (!input || input->type != kInt8) return;
  r.scratch(4 * batch * units);
  // arm_svdf_s8_get_buffer_size: MVE's kernel sums, persistent when optimised for speed.
  if (t.isa == CmsisNnIsa::kMve && filters > 0) r.persist(4 * filters);
}

// arm_transpose_conv_s8_get_buffer_size and ..._get_reverse_conv_buffer_size: strides up to 2
// with more than 16 input channels run as a convolution of the dilated input with a reversed
// filter; otherwise a column of int32 sums.
constexpr int64_t kReverseTcolEfficientThreshold = 16;
bool reverse_conv(const Window& win, const NnDims& input) {
  return win.stride_w <= 2 && win.stride_h <= 2 && input.c > kReverseTcolEfficientThreshold;
}
int64_t transpose_conv_s8_size(CmsisNnIsa isa, const Window& win, const NnDims& input, const NnDims& filter,
                               const NnDims& output) {
  if (reverse_conv(win, input)) {
    const NnDims dilated{input.n, input.h * win.stride_h, input.w * win.stride_w, input.c};
    return convolve_s8_size(isa, dilated, filter);
  }
  // (sic: CMSIS-NN takes the height stride in the width term)
  const int64_t buf_x = ((input.w - 1) * win.stride_w + std::max<int64_t>(filter.w, win.stride_h)) * output.c;
  const int64_t buf_y = std::max<int64_t>(filter.h, win.stride_h);
  return buf_x * buf_y * 4;
}

void transpose_conv(const Operator& op, const Subgraph& g, const TflmTarget& t, KernelAllocations* k) {
  Recipe r{k->prepare};
  const Tensor* filter = input_at(op, g, 1);
  const Tensor* input = input_at(op, g, 2);
  const Tensor* output = output_at(op, g, 0);
  k->has_init = true;
  k->op_data = kTransposeConvOpData.of(t);
  r.outp(0); r.in(2); r.in(1);
  r.per_channel(dim_or(filter, 0, 1));
  if (input && input->type == kInt8) {
    const NnDims in = nhwc(input), out = nhwc(output);
    const NnDims f{out.c, dim_or(filter, 1, 1), dim_or(filter, 2, 1), in.c};
    r.scratch(transpose_conv_s8_size(t.isa, op.window, in, f, out));
    r.scratch(reverse_conv(op.window, in) ? in.c * f.w * f.h * f.n : 0);  // requested even when 0
  }
  if (input && input->type == kInt16) r.scratch(8 * elements(output));
  transpose_conv_op_data(op, g, r);
}

// cmsis_nn's UNIDIRECTIONAL_SEQUENCE_LSTM: for int8 or int16 activations with an int16 cell, eight
// kernel sums of `state` int32 (int8) or int64 (int16) computed once, and three scratch buffers.
void lstm(const Operator& op, const Subgraph& g, const TflmTarget& t, KernelAllocations* k) {
  Recipe r{k->prepare};
  k->has_init = true;
  k->op_data = kLstmOpData.of(t);
  lstm_temporaries(r);
  lstm_gate_parameters(op, g, r);
  const Tensor* input = input_at(op, g, 0);
  const Tensor* cell = input_at(op, g, kLstmCellStateInput);
  const bool integer = input && cell && cell->type == kInt16 && (input->type == kInt8 || input->type == kInt16);
  if (integer) {
    const Bytes state = dim_or(input_at(op, g, kLstmOutputStateInput), 1, 1);
    for (int gate = 0; gate < 8; ++gate) r.persist(state * (input->type == kInt8 ? 4 : 8));
  }
  lstm_scratch(op, g, integer ? 3 : 4, r);
}

}  // namespace

int64_t convolve_wrapper_s8_buffer_size(CmsisNnIsa isa, const Window& win, const NnDims& input,
                                        const NnDims& filter, const NnDims& output) {
  // 1x1: the unit-stride fast path asks for a buffer only under Arm Compiler 6; the other none.
  if (is_convolve_1x1(win, input, filter)) return 0;
  if (is_convolve_1_x_n(win, input, filter))
    return isa == CmsisNnIsa::kMve ? convolve_1_x_n_s8_size_mve(win, input, filter, output)
                                   : convolve_s8_size(isa, input, filter);
  return convolve_s8_size(isa, input, filter);
}

int64_t depthwise_conv_wrapper_s8_buffer_size(CmsisNnIsa isa, const Window& win, const NnDims& input,
                                              const NnDims& filter, const NnDims& output) {
  const bool opt = input.c == output.c && input.n == 1 && win.dilation_w == 1 && win.dilation_h == 1;
  if (isa == CmsisNnIsa::kMve && input.c == 1 && output.c > kDwOneInputChannelThreshold) {
    // Run as a convolution. TFLM's Prepare leaves the stride of these params unset, so the 1xN
    // test reads garbage: take the larger of the two buffers it can choose.
    const NnDims as_conv{filter.c, filter.h, filter.w, filter.n};
    Window with_stride = win;
    int64_t size = convolve_s8_size(isa, input, as_conv);
    for (int64_t stride : {1, 4}) {  // (stride * 1) % 4 decides the 1xN test
      with_stride.stride_w = stride;
      size = std::max(size, convolve_wrapper_s8_buffer_size(isa, with_stride, input, as_conv, output));
    }
    return size + filter.c * filter.h * filter.w * filter.n;
  }
  if (!opt) return 0;
  if (isa != CmsisNnIsa::kMve && filter.w == 3 && filter.h == 3 && win.pad_h <= 1 && win.pad_w <= 1) return 0;
  return depthwise_opt_s8_size(isa, input, filter);
}

CmsisNnKernel cmsis_nn_allocations(const Operator& op, const Subgraph& g, const TflmTarget& target,
                                   KernelAllocations* out) {
  switch (op.builtin) {
    case kConv2D: conv_2d(op, g, target, out); return CmsisNnKernel::kModelled;
    case kDepthwiseConv2D: depthwise_conv_2d(op, g, target, out); return CmsisNnKernel::kModelled;
    case kFullyConnected: fully_connected(op, g, target, out); return CmsisNnKernel::kModelled;
    case kAveragePool2D:
    case kMaxPool2D: pooling(op, g, target, out); return CmsisNnKernel::kModelled;
    case kSoftmax: softmax(op, g, target, out); return CmsisNnKernel::kModelled;
    case kSvdf: svdf(op, g, target, out); return CmsisNnKernel::kModelled;
    // cmsis_nn's ADD, MUL, PAD, TRANSPOSE, MAXIMUM and MINIMUM keep the reference Init and Prepare.
    case kAdd: case kMul: case kPad: case kPadV2: case kTranspose: case kMaximum: case kMinimum:
      return CmsisNnKernel::kReferenceKernel;
    case kTransposeConv: transpose_conv(op, g, target, out); return CmsisNnKernel::kModelled;
    case kUnidirectionalSequenceLstm: lstm(op, g, target, out); return CmsisNnKernel::kModelled;
    case kBatchMatMul: return CmsisNnKernel::kNotModelled;
    default:
      return CmsisNnKernel::kReferenceKernel;
  }
}

}  // namespace arenaplan::tflm
