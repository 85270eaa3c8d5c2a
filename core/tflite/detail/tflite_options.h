// What the simulator's kernels need from a .tflite operator and tensor, read from the flatbuffer:
// builtin options as integer attrs (with SAME/VALID padding turned into explicit pads the way TFLM
// computes them) and affine quantization. Internal to core/tflite (needs the generated reader).
#pragma once

#include <flatbuffers/flatbuffers.h>

#include <optional>
#include <string>

#include "core/graph/graph.h"
#include "tflite_schema_generated.h"

namespace arenaplan::tflite_ops {

// Sets op.attrs from the operator's builtin options (its opcode says which table they are):
//   conv_2d, depthwise_conv_2d, average/max_pool_2d: stride_h, stride_w, dilation_h, dilation_w,
//     kernel_h, kernel_w, pad_h, pad_w (top, left), pad_bottom, pad_right, depth_multiplier;
//   every op with a fused activation: activation (0 none, 1 relu, 2 relu_n1_to_1, 3 relu6, 4 tanh);
//   concatenation: axis; mean/sum/reduce_*: keep_dims; fully_connected: keep_num_dims;
//   strided_slice: begin_mask, end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask, offset;
//   softmax: beta_f32, leaky_relu: alpha_f32 (a float's IEEE bit pattern);
//   resize_bilinear, resize_nearest_neighbor: align_corners, half_pixel_centers;
//   depth_to_space, space_to_depth: block_size; split, split_v: num_splits; arg_max, arg_min: output_type
//   (TensorType); cumsum: exclusive, reverse; l2_normalization: activation; gather: axis, batch_dims; pack: values_count, axis; unpack: num, axis;
//   batch_matmul: adj_x, adj_y; transpose_conv: padding_same, stride_h, stride_w; mirror_pad: reflect;
//   custom ops: the integer and boolean values of their flexbuffer options map, under their keys.
// The options table is verified first; a malformed one is an InputError naming `where`.
void read_operator_attrs(int32_t builtin, const tfl::Operator* op, const tfl::SubGraph* sg,
                         flatbuffers::Verifier& verifier, const std::string& where, Op& out);

// The tensor's affine quantization, or nullopt when it has none (float tensors).
std::optional<Quantization> read_quantization(const tfl::Tensor* t, const std::string& where);

// DEQUANTIZE of constant data, as TFLM runs it: float16 (IEEE half) or int8 (scale x (q - zero
// point), per channel along the quantized dimension) to float32. Null when the types or sizes do
// not fit (the simulator then generates the bytes and says so).
ConstantData fold_dequantize(const tfl::Tensor* in, const std::vector<uint8_t>& data, const tfl::Tensor* out);

// TFLM's padding of one spatial dim (tensorflow/lite/kernels/padding.h): the output size that
// SAME (ceil(in / stride)) or VALID gives, and the padding before the first element; `after` is
// the rest of the total padding (the odd pixel goes after, as in TFLite).
struct PaddedDim {
  int64_t out = 0, before = 0, after = 0;
};
PaddedDim tflite_padding(bool same, int64_t in, int64_t filter, int64_t stride, int64_t dilation);

}  // namespace arenaplan::tflite_ops
