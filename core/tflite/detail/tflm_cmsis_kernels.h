// What TFLM's CMSIS-NN kernels (tensorflow/lite/micro/kernels/cmsis_nn/, OPTIMIZED_KERNEL_DIR=
// cmsis_nn, KERNELS_OPTIMIZED_FOR_SPEED as TFLM's Makefile sets it) take from the arena, per code
// path: their OpData, and in order what their Prepare does, with the scratch sizes of CMSIS-NN's
// *_get_buffer_size rules as arm-none-eabi-gcc compiles them (some rules differ under Arm Compiler
// 6: the DSP 1x1 fast path's buffer and MVE's one-input-channel depthwise threshold). Versions:
// kTflmVersion and kCmsisNnVersion. Internal to core/tflite.
#pragma once

#include "core/tflite/detail/tflm_kernel_sizes.h"

namespace arenaplan::tflm {

enum class CmsisNnKernel {
  kModelled,         // *out holds the kernel's OpData and Prepare
  kReferenceKernel,  // TFLM links the reference kernel for this op (or an identical Init/Prepare)
  kNotModelled,      // a CMSIS-NN kernel this table does not know: estimate it
};

// Fills out->has_init, op_data and prepare (not the builtin data, which TFLM's parser allocates
// whatever the kernels).
CmsisNnKernel cmsis_nn_allocations(const Operator& op, const Subgraph& g, const TflmTarget& target,
                                   KernelAllocations* out);

// CMSIS-NN's buffer-size rules, exposed for the tests (dims as cmsis_nn_dims: n, h, w, c). In 64
// bits: CMSIS-NN's int32 arithmetic overflows on absurd shapes, where this stays an upper bound.
struct NnDims {
  int64_t n = 1, h = 1, w = 1, c = 1;
};
int64_t convolve_wrapper_s8_buffer_size(CmsisNnIsa isa, const Window& win, const NnDims& input,
                                        const NnDims& filter, const NnDims& output);
int64_t depthwise_conv_wrapper_s8_buffer_size(CmsisNnIsa isa, const Window& win, const NnDims& input,
                                              const NnDims& filter, const NnDims& output);

}  // namespace arenaplan::tflm
