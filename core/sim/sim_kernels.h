// Kernels of the simulated MCU, on raw bytes, in three families:
// - model kernels (detail/model_kernels.h): ops of imported networks whose tensors carry
//   quantization or float32 data run with TFLite Micro's reference arithmetic (int8) or in float32;
// - a byte-level stand-in for any op no kernel can run (an unknown kind, an unsupported type or
//   option): it reads every input byte and writes every output byte (`mix` below), so the plan
//   oracles still hold for the whole model, but its output bytes are not the model's;
// - the simplified int8 kernels below, for hand-written graphs (no quantization).
//
// For hand-written graphs, quantisation is deliberately simplified (it is a memory simulator, not an accuracy tool):
// - every int8 tensor is symmetric (zero point 0); weights are int8, biases int32;
// - conv / depthwise / dense accumulate in int32 and requantise with one power-of-two scale:
//   y = saturate_int8(round_half_up(acc / 2^shift)), shift from the op's "shift" attribute or,
//   by default, 7 + ceil(log2(reduction length) / 2), which keeps random data away from saturation;
// - add saturates a + b; relu6 clamps to [0, 96] (6.0 at an implied scale of 1/16);
// - avg pool rounds the mean half away from zero; max/avg pools ignore padded positions;
// - softmax reads int8 at scale 1/16 and writes TFLite's int8 output (scale 1/256, zero point -128).
// Layouts are NHWC; a 3-D shape [H, W, C] is batch 1. Conv weights are [OC, KH, KW, IC], depthwise
// weights [1, KH, KW, C] (multiplier 1), dense weights [OUT, IN].
//
// Kernels never allocate: they get pointers to bytes already placed in the arena (or flash).
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "core/graph/graph.h"

namespace arenaplan::sim {

// Geometry of a 2-D window operator (conv, depthwise, pool); output dims follow from the rest.
struct Window2d {
  int64_t n = 1, h = 1, w = 1, c = 1;   // input NHWC
  int64_t kh = 1, kw = 1;               // window
  int64_t oc = 1;                       // output channels (conv); = c for depthwise / pool
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_h = 0, pad_w = 0;         // top/left padding (bottom/right implied by output dims)
  int64_t oh = 1, ow = 1;               // output spatial dims
  int shift = 0;                        // requantisation shift (conv, depthwise)
  int64_t macs() const;                 // multiply-accumulates of a conv with this geometry
};

// Output size of one spatial dim: (in + 2 pad - k) / stride + 1, or 0 when the window never fits.
int64_t window_out_dim(int64_t in, int64_t k, int64_t stride, int64_t pad);

// a + b in 32 bits, wrapping as TFLM's int32 accumulators do on every MCU and host it runs on (a
// model's bias can take a sum past 2^31; C++ leaves signed overflow undefined).
inline int32_t wrapping_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
// The same for TFLM's int64 accumulators (16-bit activations with int64 biases).
inline int64_t wrapping_add(int64_t a, int64_t b) {
  return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
// With the padding before and after apart (TFLite's SAME puts the odd pixel after).
int64_t window_out_dim(int64_t in, int64_t k, int64_t stride, int64_t pad_before, int64_t pad_after);

// The default requantisation shift for a reduction of `length` int8 x int8 products.
int default_shift(int64_t length);

int8_t requantize(int32_t acc, int shift);

// Typed kernels. Inputs may alias outputs only where noted (elementwise ops are in-place capable).
void conv2d_int8(const Window2d& g, const int8_t* x, const int8_t* w, const int32_t* bias, int8_t* y);
void depthwise_conv2d_int8(const Window2d& g, const int8_t* x, const int8_t* w, const int32_t* bias, int8_t* y);
void fully_connected_int8(int64_t batch, int64_t in, int64_t out, int shift, const int8_t* x,
                          const int8_t* w, const int32_t* bias, int8_t* y);
void max_pool2d_int8(const Window2d& g, const int8_t* x, int8_t* y);
void avg_pool2d_int8(const Window2d& g, const int8_t* x, int8_t* y);
void add_int8(int64_t count, const int8_t* a, const int8_t* b, int8_t* y);            // y may be a or b
void clamp_int8(int64_t count, int8_t lo, int8_t hi, const int8_t* x, int8_t* y);    // relu, relu6; y may be x
void softmax_int8(int64_t rows, int64_t depth, const int8_t* x, int8_t* y);           // y may be x
// Concatenation of `count` parts along an axis: `outer` repeats of each part's `chunk` bytes in turn,
// where part(i) is the first byte of part i (an array of pointers, the operands of a bound op): the
// one copy loop of the simplified and the model concatenation kernels.
template <class PartData>
void concat_parts(int64_t outer, size_t count, PartData&& part, const int64_t* chunk, uint8_t* y) {
  for (int64_t o = 0; o < outer; ++o)
    for (size_t i = 0; i < count; ++i) {
      std::memmove(y, part(i) + o * chunk[i], static_cast<size_t>(chunk[i]));
      y += chunk[i];
    }
}
void concat_bytes(int64_t outer, size_t count, const uint8_t* const* parts, const int64_t* chunk, uint8_t* y);
// The generic kernel for graphs that give only byte sizes: a digest of every input byte
// (mix_digest, chained over the inputs from mix_seed(salt)), then each output filled from a
// stream keyed by that digest and the output's index. One flipped input bit changes every output
// byte, so a clobbered input always shows in the outputs.
uint64_t mix_seed(uint64_t salt);
uint64_t mix_digest(uint64_t digest, const uint8_t* data, int64_t bytes);
void mix_fill(uint64_t digest, size_t output_index, uint8_t* out, int64_t bytes);

// ---- Binding graph ops to kernels -------------------------------------------------------------

// Where one operand of a bound op lives at run time.
struct Operand {
  uint8_t* data = nullptr;
  int64_t bytes = 0;  // the tensor's bytes (not the aligned buffer size)
};

// The work an op did, for the cycle model.
struct KernelWork {
  int64_t macs = 0;     // multiply-accumulates
  int64_t alu_ops = 0;  // other per-element operations (compare, add, copy, exp)
  int64_t temp_bytes = 0;  // bytes staged through a kernel temporary (in-place convs): stored, loaded back
  int64_t reread_bytes = 0;  // input bytes loaded again beyond the first time (the streamed kernel's per-channel passes)
  bool pointwise = false;    // a 1x1 convolution: kernel libraries run a faster loop (cost_kind_of)
};

enum class KernelKind {
  kMix, kConv2d, kDepthwiseConv2d, kFullyConnected, kAdd, kRelu, kRelu6, kMaxPool2d, kAvgPool2d,
  kConcat, kReshape, kSoftmax,
  kModel  // a model kernel (TFLM arithmetic or float32): KernelPlan::run
};
const char* kernel_name(KernelKind k);

// Everything a kernel needs besides the operand addresses, decided once per op before running.
struct KernelPlan {
  KernelKind kind = KernelKind::kMix;
  Window2d win;                 // conv, depthwise, pools
  int64_t batch = 1, in = 0, out = 0;   // dense; elementwise count in `out`; softmax rows x depth
  int shift = 0;                // dense
  int x_index = -1;             // which op input is the activation (window ops, dense)
  int weight_index = -1;        // which op input holds the weights; -1: implicit weights
  int bias_index = -1;          // which op input is the int32 bias; -1: none
  int64_t implicit_weight_bytes = 0;  // weights the simulator generates when the graph has none
  std::string note;             // why a known kind runs mix ("no weight tensor and no kernel attrs")
  int64_t outer = 1;            // concat
  std::vector<int64_t> chunk;   // concat: bytes per outer step of each input
  uint64_t salt = 0;            // mix
  KernelWork work;              // what one invocation costs (macs, alu ops)
  // kModel: the prepared kernel and its name ("conv_2d int8"), a string literal.
  const char* model_kernel = nullptr;
  std::function<void(const Operand* in, const Operand* out)> run;
  std::function<void(const Operand* in, const Operand* out, const Operand& scratch)> run_with_scratch;  // or this
  // Or this: a kernel that keeps `state_bytes` of its own across runs, outside the arena, as TFLM's
  // Signal ops keep theirs in persistent buffers (zero before the first run, one per session).
  std::function<void(const Operand* in, const Operand* out, const Operand& state)> run_with_state;
  int64_t state_bytes = 0;
  // kMix standing in for an op no kernel can run (`note` says why): its outputs are not the model's.
  bool stand_in = false;
  // An op that runs on an NPU (`runs_on_npu`): not simulated; kMix keeps the plan checks running,
  // and its outputs and everything computed from them are reported as not computed.
  bool on_npu = false;
};

// What reports call the kernel of a plan: "conv_2d int8", "stand-in", "mix", "conv2d", ...
const char* plan_kernel_name(const KernelPlan& plan);

// True when the op carries model arithmetic: a tensor with quantization or model data, or a
// shaped activation that is not int8. It runs a model kernel or a stand-in, never the simplified
// kernels of hand-written graphs (rewrites that build new ops use it to pick the model's kinds).
bool uses_model_kernels(const Graph& g, const Op& op);

// Chooses the kernel for an op. An op whose tensors carry quantization or float32 shapes (an
// imported network) gets its model kernel, or the stand-in with the reason in `note`: it is never
// refused. Otherwise, for hand-written graphs: checks the kernel for an op (attrs as in the shape unit: kernel[_h/_w],
// stride[_h/_w], padding 0 valid / 1 same, pad[_h/_w], filters, units, axis, plus "shift").
// A known kind runs its kernel when the graph describes it: activation shapes, and weights as a
// constant tensor or as attrs (kernel + filters / units; the simulator then generates them);
// what is described must be consistent, else InputError naming the op. A pool without window
// attrs whose output divides its input pools non-overlapping windows of input / output. A known kind the graph
// only sizes (tensors given as bytes, no weights nor attrs) and unknown kinds run `mix`.
KernelPlan plan_kernel(const Graph& g, OpId op);

// Runs a planned kernel. inputs/outputs follow op.inputs / op.outputs; constants included.
// `state`: the op's own state (plan.state_bytes; std::invalid_argument when it is missing).
void run_kernel(const KernelPlan& plan, const Operand* inputs, size_t input_count,
                const Operand* outputs, size_t output_count, const Operand& scratch,
                const uint8_t* implicit_weights = nullptr, const Operand& state = Operand{});

}  // namespace arenaplan::sim
