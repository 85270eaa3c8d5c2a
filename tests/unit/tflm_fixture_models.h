// The models behind tests/unit/data/tflm/: built here in code and written with the project's own
// .tflite writer (tflite_from_graph), so every fixture's provenance is this file. The figures the
// real TFLM runtime gave for them are recorded in tests/unit/data/tflm/README.md.
//
// Every draw comes from a portable generator (splitmix64), never from <random>'s distributions,
// whose sequences differ between libstdc++ (native) and libc++ (Emscripten): the bytes written
// must be the same on every platform for the recorded sha256 to hold.
#pragma once

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tests/unit/model_builder.h"

namespace arenaplan::test {

struct PortableDraws {
  uint64_t state;
  explicit PortableDraws(uint64_t seed) : state(seed) {}
  uint64_t next() {  // splitmix64
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  int64_t between(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(next() % static_cast<uint64_t>(hi - lo + 1)); }
  float unit() { return static_cast<float>(next() >> 40) / static_cast<float>(1ull << 24); }  // [0, 1)
  std::vector<uint8_t> bytes(size_t n) {
    std::vector<uint8_t> b(n);
    for (uint8_t& x : b) x = static_cast<uint8_t>(next() >> 56);
    return b;
  }
};

// The graph's one input drawn from `seed`: raw bytes, or floats spread evenly over +-spread/2.
inline std::vector<uint8_t> drawn_input(const Graph& g, uint64_t seed, bool float32, float spread) {
  PortableDraws d(seed);
  if (!float32) return d.bytes(static_cast<size_t>(g.tensors[g.inputs[0]].bytes));
  std::vector<float> v(static_cast<size_t>(g.tensors[g.inputs[0]].bytes / 4));
  for (float& f : v) f = d.unit() * spread - spread / 2;
  return bytes_of(v);
}

// A keyword-spotting-style stack, as TFLM's keyword_scrambled models are built: FULLY_CONNECTED
// and SVDF layers (rank 1 and rank 2, memory carried in variable tensors) down to a SOFTMAX.
// int8 activations with int16 state and time weights, or float32 throughout.
class SvdfStack : public ModelBuilder {
 public:
  SvdfStack(uint64_t seed, bool float32) : draws_(seed), float32_(float32) {
    g.name = float32 ? "svdf_float" : "svdf_int8";
    constexpr int64_t kInput = 40;
    TensorId x = activation("input", kInput, 0.05f);
    TensorId t = fully_connected("fc0", x, kInput, 32, 1);
    t = svdf("svdf1", t, 32, 16, 1, 8);
    t = fully_connected("fc2", t, 16, 24, 0);
    t = svdf("svdf3", t, 24, 16, 2, 6);
    t = fully_connected("fc4", t, 8, 4, 0, true);
    TensorId y = float32 ? tensor("softmax.out", {1, 4}, DType::kFloat32)
                         : tensor("softmax.out", {1, 4}, DType::kInt8, quant(1.f / 256, -128));
    op("softmax", "softmax", {t}, {y}, {{"beta_f32", 0x3f800000}});
    g.inputs = {x};
    g.outputs = {y};
    link_tensors(g);
    validate_graph(g);
  }
  // The input a measurement fed: raw bytes of the input tensor.
  std::vector<uint8_t> input_bytes(uint64_t seed) const {
    return drawn_input(g, seed, float32_, 4.f);
  }

 private:
  PortableDraws draws_;
  bool float32_;
  
  // An activation whose spread is about 40 steps of `scale`.
  TensorId activation(const std::string& name, int64_t n, float scale, int64_t zero_point = 0) {
    if (float32_) return tensor(name, {1, n}, DType::kFloat32);
    return tensor(name, {1, n}, DType::kInt8, quant(scale, zero_point));
  }
  float scale_of(TensorId t) const { return g.tensors[t].quant ? g.tensors[t].quant->scale[0] : 1.f; }

  template <class T>
  TensorId constant(const std::string& name, std::vector<int64_t> shape, DType type, float scale, int64_t lo, int64_t hi) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    if (float32_) {
      std::vector<float> v(static_cast<size_t>(n));
      for (float& f : v) f = static_cast<float>(draws_.between(lo, hi)) * scale;
      return tensor(name, shape, DType::kFloat32, {}, bytes_of(v));
    }
    std::vector<T> v(static_cast<size_t>(n));
    for (T& x : v) x = static_cast<T>(draws_.between(lo, hi));
    return tensor(name, shape, type, quant(scale, 0), bytes_of(v));
  }

  // Output scale for a sum of `terms` products of values spread like uniform int8 (about 74 steps
  // standard deviation) so that the result spreads over about 40 steps.
  static float output_scale(float in_scale, float w_scale, int64_t terms) {
    return std::sqrt(static_cast<float>(terms)) * 74.f * in_scale * w_scale;
  }

  // `logits`: the layer feeding the softmax, its outputs spread about 1.5 (not saturating it).
  TensorId fully_connected(const std::string& name, TensorId x, int64_t in, int64_t out, int64_t act, bool logits = false) {
    const float sw = logits ? 1.5f / output_scale(scale_of(x), 1.f, in) / 40.f : 0.01f;
    const float sy = output_scale(scale_of(x), sw, in);
    TensorId w = constant<int8_t>(name + ".w", {out, in}, DType::kInt8, sw, -127, 127);
    TensorId b = constant<int32_t>(name + ".b", {out}, DType::kInt32, scale_of(x) * sw, -2000, 2000);
    TensorId y = activation(name + ".out", out, sy, act == 1 ? -128 : 0);
    op(name, "fully_connected", {x, w, b}, {y}, {{"activation", act}, {"keep_num_dims", 0}});
    return y;
  }

  TensorId svdf(const std::string& name, TensorId x, int64_t in, int64_t filters, int64_t rank, int64_t memory) {
    const int64_t units = filters / rank;
    const float swf = 0.01f, ss = output_scale(scale_of(x), swf, in) * 40.f / 3000.f;  // state spread ~3000
    // Time weights spread uniformly over +-3000 (about 1,732 standard deviation).
    const float swt = 0.0005f, sy = std::sqrt(static_cast<float>(memory * rank)) * 1732.f * swt * 3000.f * ss / 40.f;
    TensorId wf = constant<int8_t>(name + ".weights_feature", {filters, in}, DType::kInt8, swf, -127, 127);
    TensorId wt = constant<int16_t>(name + ".weights_time", {filters, memory}, DType::kInt16, swt, -3000, 3000);
    TensorId b = constant<int32_t>(name + ".bias", {units}, DType::kInt32, ss * swt, -2000, 2000);
    TensorId s = float32_ ? tensor(name + ".state", {1, filters * memory}, DType::kFloat32)
                          : tensor(name + ".state", {1, filters * memory}, DType::kInt16, quant(ss, 0));
    g.tensors[s].persistent = true;
    TensorId y = activation(name + ".out", units, sy);
    op(name, "svdf", {x, wf, wt, b, s}, {y}, {{"rank", rank}, {"activation", 1}});
    return y;
  }
};

// int8 CNN layers with per-channel weights drawn portably (the same bytes natively and in Wasm):
// what DsCnnStack and SwiftNetStem are built of.
class PortableCnn : public ModelBuilder {
 public:
  std::vector<uint8_t> input_bytes(uint64_t seed) const { return drawn_input(g, seed, false, 0.f); }

 protected:
  explicit PortableCnn(uint64_t seed) : draws_(seed) {}
  PortableDraws draws_;

  TensorId activation(const std::string& name, std::vector<int64_t> shape) {
    const float scale = 0.02f + 0.03f * draws_.unit();
    return tensor(name, shape, DType::kInt8, quant(scale, draws_.between(-20, 20)));
  }
  TensorId weights(const std::string& name, std::vector<int64_t> shape, int64_t channels, int axis) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<int8_t> v(static_cast<size_t>(n));
    for (int8_t& w : v) w = static_cast<int8_t>(draws_.between(-127, 127));
    Quantization q;
    for (int64_t c = 0; c < channels; ++c) q.scale.push_back(0.002f + 0.018f * draws_.unit()), q.zero_point.push_back(0);
    q.axis = axis;
    return tensor(name, shape, DType::kInt8, q, bytes_of(v));
  }
  TensorId bias(const std::string& name, int64_t n) {
    std::vector<int32_t> v(static_cast<size_t>(n));
    for (int32_t& b : v) b = static_cast<int32_t>(draws_.between(-3000, 3000));
    return tensor(name, {n}, DType::kInt32, {}, bytes_of(v));
  }
  // TFLite's SAME rule for one dim (the odd pixel after), or VALID.
  static void padding(bool same, int64_t in, int64_t k, int64_t stride, int64_t* out, int64_t* before, int64_t* after) {
    *out = same ? (in + stride - 1) / stride : (in - k) / stride + 1;
    const int64_t total = std::max<int64_t>(0, (*out - 1) * stride + k - in);
    *before = total / 2;
    *after = total - *before;
  }
  TensorId window_op(const std::string& name, const std::string& kind, TensorId x, TensorId w, TensorId b,
                     int64_t cout, int64_t kh, int64_t kw, int64_t stride, bool same, int64_t act) {
    const auto d = dims(x);
    int64_t oh, ow, top, bottom, left, right;
    padding(same, d[1], kh, stride, &oh, &top, &bottom);
    padding(same, d[2], kw, stride, &ow, &left, &right);
    TensorId y = activation(name + ".out", {d[0], oh, ow, cout});
    std::map<std::string, int64_t> attrs{{"stride_h", stride}, {"stride_w", stride}, {"pad_h", top},
                                         {"pad_w", left}, {"pad_bottom", bottom}, {"pad_right", right},
                                         {"activation", act}};
    if (kind == "depthwise_conv_2d") attrs["depth_multiplier"] = 1;
    op(name, kind, {x, w, b}, {y}, attrs);
    return y;
  }
  TensorId conv(const std::string& name, TensorId x, int64_t cout, int64_t kh, int64_t kw, int64_t stride, bool same) {
    const int64_t cin = dims(x)[3];
    TensorId w = weights(name + ".w", {cout, kh, kw, cin}, cout, 0);
    return window_op(name, "conv_2d", x, w, bias(name + ".b", cout), cout, kh, kw, stride, same, 1);
  }
  TensorId depthwise(const std::string& name, TensorId x, int64_t k, bool same) {
    const int64_t c = dims(x)[3];
    TensorId w = weights(name + ".w", {1, k, k, c}, c, 3);
    return window_op(name, "depthwise_conv_2d", x, w, bias(name + ".b", c), c, k, k, 1, same, 1);
  }
  TensorId add(const std::string& name, TensorId a, TensorId b) {
    TensorId y = activation(name + ".out", dims(a));
    op(name, "add", {a, b}, {y}, {{"activation", 0}});
    return y;
  }
  TensorId pool(const std::string& name, TensorId x, bool average, int64_t k, int64_t stride) {
    const auto d = dims(x);
    const int64_t kh = std::min(k, d[1]), kw = std::min(k, d[2]);
    TensorId y = tensor(name + ".out", {d[0], (d[1] - kh) / stride + 1, (d[2] - kw) / stride + 1, d[3]}, DType::kInt8,
                        g.tensors[x].quant);
    op(name, average ? "average_pool_2d" : "max_pool_2d", {x}, {y},
       {{"kernel_h", kh}, {"kernel_w", kw}, {"stride_h", stride}, {"stride_w", stride}, {"pad_h", 0}, {"pad_w", 0},
        {"pad_bottom", 0}, {"pad_right", 0}, {"activation", 0}});
    return y;
  }
  TensorId fully_connected(const std::string& name, TensorId x, int64_t in, int64_t out) {
    TensorId w = weights(name + ".w", {out, in}, 1, 0);  // per-tensor: the FC kernels' own path
    TensorId y = activation(name + ".out", {1, out});
    op(name, "fully_connected", {x, w, bias(name + ".b", out)}, {y}, {{"activation", 0}, {"keep_num_dims", 0}});
    return y;
  }
};

// A keyword-spotting CNN in the shape of MLPerf Tiny's DS-CNN, small, int8 with per-channel
// weights: a 10x4 stride-2 SAME stem (asymmetric padding), depthwise 3x3 and 5x5, pointwise 1x1,
// a 3x3 VALID conv, a residual ADD, max and average pooling, RESHAPE, FULLY_CONNECTED and SOFTMAX.
// It walks the CMSIS-NN kernels' buffer rules: im2col convs, the 3x3 depthwise fast path (no
// buffer on DSP, 4,464 B on MVE), the generic depthwise buffer, avgpool's DSP sums, FC kernel sums.
class DsCnnStack : public PortableCnn {
 public:
  explicit DsCnnStack(uint64_t seed) : PortableCnn(seed) {
    g.name = "ds_cnn_small";
    TensorId x = activation("input", {1, 49, 10, 1});
    TensorId t = conv("stem", x, 16, 10, 4, 2, true);
    t = depthwise("dw1", t, 3, true);
    TensorId p1 = conv("pw1", t, 24, 1, 1, 1, true);
    TensorId d2 = depthwise("dw2", p1, 5, true);
    TensorId r = add("residual", p1, d2);
    t = pool("maxpool", r, false, 2, 2);        // 25x5 -> 12x2
    t = conv("conv3", t, 32, 3, 3, 1, true);    // SAME, pads of 1
    t = conv("conv4", t, 32, 3, 2, 1, false);   // VALID -> 10x1
    t = pool("avgpool", t, true, 10, 1);        // global -> 1x1x32
    TensorId flat = tensor("flatten.out", {1, 32}, DType::kInt8, g.tensors[t].quant);
    TensorId shape = tensor("flatten.shape", {2}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{1, 32}));
    op("flatten", "reshape", {t, shape}, {flat});
    t = fully_connected("fc", flat, 32, 12);
    TensorId y = tensor("softmax.out", {1, 12}, DType::kInt8, quant(1.f / 256, -128));
    op("softmax", "softmax", {t}, {y}, {{"beta_f32", 0x3f800000}});
    g.inputs = {x};
    g.outputs = {y};
    link_tensors(g);
    validate_graph(g);
  }
};

// SwiftNet's stem at SwiftNet's size: the 224x224x3 int8 image goes through a SPLIT into one part
// (a copy of the image, as the converter wrote SwiftNet), then a 3x3 stride-2 conv to 10 channels
// (125,440 B), a 3x3 depthwise and a 1x1 conv to 4 channels, the graph output. Both copies of the
// image are live while the split runs (301,056 B, in every order); with the split a view
// (`transform --apply view:split`) the peak is the first conv's image + output, 275,968 B.
class SwiftNetStem : public PortableCnn {
 public:
  explicit SwiftNetStem(uint64_t seed) : PortableCnn(seed) {
    g.name = "split_stem";
    TensorId image = activation("image", {1, 224, 224, 3});
    TensorId axis = tensor("split.axis", {}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{3}));
    TensorId copy = tensor("split.out", dims(image), DType::kInt8, g.tensors[image].quant);
    op("split", "split", {axis, image}, {copy}, {{"num_splits", 1}});
    TensorId t = conv("conv1", copy, 10, 3, 3, 2, true);
    t = depthwise("dw", t, 3, true);
    t = conv("conv2", t, 4, 1, 1, 1, true);
    g.inputs = {image};
    g.outputs = {t};
    link_tensors(g);
    validate_graph(g);
  }
};

// Two stacked UNIDIRECTIONAL_SEQUENCE_LSTMs, as a noise-suppression model stacks them: the first
// batch-major over [batch 2, time 4, 12 features] with a [2, 16] state, the second time-major
// over its [2, 4, 16] output (2 time steps of 4 batch rows, a [4, 8] state, its cell clipped),
// then the graph output. Hidden and cell states are variable tensors (they carry over runs).
// `act`: kInt8 (8x8->16: int32 biases, int16 cell), kInt16 (16x8->16: int64 biases) or kFloat32.
class LstmStack : public ModelBuilder {
 public:
  // `per_channel`: weights with one scale per output row. TFLM's LSTM then allocates per-channel
  // multiplier arrays it never reads (and leaves its multipliers unset: the outputs mean nothing).
  LstmStack(uint64_t seed, DType act, bool per_channel = false) : draws_(seed), act_(act), per_channel_(per_channel) {
    g.name = act == DType::kFloat32 ? "lstm_float" : act == DType::kInt16 ? "lstm_int16" : "lstm_int8";
    TensorId x = activation("input", {2, 4, 12}, act == DType::kInt16 ? 1.f / 16384 : 0.02f, act == DType::kInt8 ? 5 : 0);
    TensorId h = lstm("lstm1", x, 12, 16, 2, false, 0.f);
    TensorId y = lstm("lstm2", h, 16, 8, 4, true, 1.5f);
    g.inputs = {x};
    g.outputs = {y};
    link_tensors(g);
    validate_graph(g);
  }
  std::vector<uint8_t> input_bytes(uint64_t seed) const {
    return drawn_input(g, seed, act_ == DType::kFloat32, 5.f);
  }

 private:
  PortableDraws draws_;
  DType act_;
  bool per_channel_;

  bool quantized() const { return act_ != DType::kFloat32; }
  TensorId activation(const std::string& name, std::vector<int64_t> shape, float scale, int64_t zero_point) {
    if (!quantized()) return tensor(name, shape, DType::kFloat32);
    return tensor(name, shape, act_, quant(scale, zero_point));
  }
  float scale_of(TensorId t) const { return g.tensors[t].quant ? g.tensors[t].quant->scale[0] : 1.f; }
  // int8 weights of `scale`, or their real values in float32.
  TensorId weights(const std::string& name, std::vector<int64_t> shape, float scale) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<int8_t> q(static_cast<size_t>(n));
    for (int8_t& w : q) w = static_cast<int8_t>(draws_.between(-127, 127));
    if (quantized() && per_channel_) {
      Quantization pc;
      pc.scale.assign(static_cast<size_t>(shape[0]), scale);
      pc.zero_point.assign(static_cast<size_t>(shape[0]), 0);
      return tensor(name, shape, DType::kInt8, pc, bytes_of(q));
    }
    if (quantized()) return tensor(name, shape, DType::kInt8, quant(scale, 0), bytes_of(q));
    std::vector<float> v(q.size());
    for (size_t i = 0; i < q.size(); ++i) v[i] = q[i] * scale;
    return tensor(name, shape, DType::kFloat32, {}, bytes_of(v));
  }
  // A gate bias of about +-0.4 on the gates' input, at scale input x weights.
  TensorId bias(const std::string& name, int64_t n, float scale) {
    std::vector<int64_t> q(static_cast<size_t>(n));
    for (int64_t& b : q) b = static_cast<int64_t>(std::lround(static_cast<double>(draws_.between(-400, 400)) / 1000.0 / scale));
    if (act_ == DType::kInt8) {
      std::vector<int32_t> v(q.begin(), q.end());
      return tensor(name, {n}, DType::kInt32, quant(scale, 0), bytes_of(v));
    }
    if (act_ == DType::kInt16) return tensor(name, {n}, DType::kInt64, quant(scale, 0), bytes_of(q));
    std::vector<float> v(q.size());
    for (size_t i = 0; i < q.size(); ++i) v[i] = static_cast<float>(q[i]) * scale;
    return tensor(name, {n}, DType::kFloat32, {}, bytes_of(v));
  }
  TensorId lstm(const std::string& name, TensorId x, int64_t in, int64_t state, int64_t rows, bool time_major, float clip) {
    const auto xd = dims(x);
    const float w_scale = quantized() ? 0.3f / 74.f : 0.004f;  // gate inputs spread about +-1.5
    std::vector<TensorId> operands(24, -1);
    operands[0] = x;
    static const char* gates[] = {"input", "forget", "cell", "output"};
    for (int k = 0; k < 4; ++k) operands[1 + k] = weights(name + "." + gates[k] + ".input_weights", {state, in}, w_scale);
    TensorId hidden = activation(name + ".hidden", {rows, state}, act_ == DType::kInt16 ? 1.f / 32768 : 1.f / 128,
                                 act_ == DType::kInt8 ? -3 : 0);
    g.tensors[hidden].persistent = true;
    for (int k = 0; k < 4; ++k) operands[5 + k] = weights(name + "." + gates[k] + ".recurrent_weights", {state, state}, w_scale);
    for (int k = 0; k < 4; ++k) operands[12 + k] = bias(name + "." + gates[k] + ".bias", state, scale_of(x) * w_scale);
    TensorId cell = quantized() ? tensor(name + ".cell", {rows, state}, DType::kInt16, quant(1.f / 2048, 0))
                                : tensor(name + ".cell", {rows, state}, DType::kFloat32);
    g.tensors[cell].persistent = true;
    operands[18] = hidden;
    operands[19] = cell;
    std::vector<TensorId> present;
    int64_t absent = 0;
    for (int k = 0; k < 24; ++k) {
      if (operands[k] == static_cast<TensorId>(-1)) absent |= int64_t{1} << k;
      else present.push_back(operands[k]);
    }
    TensorId y = activation(name + ".out", {xd[0], xd[1], state}, scale_of(hidden),
                            g.tensors[hidden].quant ? g.tensors[hidden].quant->zero_point[0] : 0);
    std::map<std::string, int64_t> attrs{{"activation", 4}, {"time_major", time_major ? 1 : 0}, {"absent_inputs", absent}};
    if (clip > 0) {
      uint32_t bits;
      std::memcpy(&bits, &clip, 4);
      attrs["cell_clip_f32"] = bits;
    }
    op(name, "unidirectional_sequence_lstm", present, {y}, attrs);
    return y;
  }
};

// int16 activations with int8 weights (TFLM's 16x8 quantization), as audio models use them: a 3x3
// SAME CONV_2D (per-channel, int64 bias, RELU), a 3x3 DEPTHWISE_CONV_2D (int64 bias), a residual
// ADD and RELU (onto a new scale), a MUL of two branches and RELU6, SPLIT and CONCATENATION of the
// channels, RESHAPE, a
// FULLY_CONNECTED with an int64 bias and one with an int32 bias (TFLM then sums in int32), SOFTMAX;
// the logits and the softmax are both graph outputs.
// Activation zero points are 0 (the 16x8 spec); scales are drawn.
class Int16Stack : public ModelBuilder {
 public:
  explicit Int16Stack(uint64_t seed) : draws_(seed) {
    g.name = "int16_conv_fc";
    TensorId x = activation("input", {1, 6, 6, 4}, 1.f / 8192);
    TensorId c1 = conv("conv", x, 8, false);
    TensorId d1 = conv("depthwise", c1, 8, true);
    TensorId r = unary("relu", binary("residual", "add", c1, d1), 1.25f);
    TensorId m = unary("relu6", binary("gate", "mul", r, c1), 1.f);
    TensorId axis = tensor("split.axis", {}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{3}));
    TensorId h1 = tensor("split.out0", {1, 6, 6, 4}, DType::kInt16, g.tensors[m].quant);
    TensorId h2 = tensor("split.out1", {1, 6, 6, 4}, DType::kInt16, g.tensors[m].quant);
    op("split", "split", {axis, m}, {h1, h2}, {{"num_splits", 2}});
    TensorId cat = tensor("concat.out", {1, 6, 6, 8}, DType::kInt16, g.tensors[m].quant);
    op("concat", "concatenation", {h2, h1}, {cat}, {{"axis", 3}, {"activation", 0}});
    TensorId flat = tensor("flatten.out", {1, 288}, DType::kInt16, g.tensors[m].quant);
    TensorId shape = tensor("flatten.shape", {2}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{1, 288}));
    op("flatten", "reshape", {cat, shape}, {flat});
    TensorId f1 = fully_connected("fc1", flat, 288, 16, DType::kInt64);
    TensorId logits = fully_connected("fc2", f1, 16, 6, DType::kInt32);
    TensorId y = tensor("softmax.out", {1, 6}, DType::kInt16, quant(1.f / 32768, 0));
    // beta spreads the logits' ~1,000 steps over about 3 units: the softmax neither saturates nor flattens.
    const float beta = 3.f / (1000.f * scale_of(logits));
    uint32_t beta_bits;
    std::memcpy(&beta_bits, &beta, 4);
    op("softmax", "softmax", {logits}, {y}, {{"beta_f32", beta_bits}});
    g.inputs = {x};
    g.outputs = {logits, y};
    link_tensors(g);
    validate_graph(g);
  }
  // Raw int16 input drawn byte by byte: the whole int16 range.
  std::vector<uint8_t> input_bytes(uint64_t seed) const { return drawn_input(g, seed, false, 0.f); }

 private:
  PortableDraws draws_;

  TensorId activation(const std::string& name, std::vector<int64_t> shape, float scale) {
    return tensor(name, shape, DType::kInt16, quant(scale, 0));
  }
  float scale_of(TensorId t) const { return g.tensors[t].quant->scale[0]; }
  std::vector<int8_t> int8s(int64_t n) {
    std::vector<int8_t> v(static_cast<size_t>(n));
    for (int8_t& w : v) w = static_cast<int8_t>(draws_.between(-127, 127));
    return v;
  }
  // Output scale for `terms` products: about 1,000 steps of spread out of int16's 32,768.
  static float output_scale(float in_scale, float w_scale, int64_t terms) {
    return std::sqrt(static_cast<float>(terms)) * 18918.f * 74.f * in_scale * w_scale / 1000.f;
  }
  TensorId conv(const std::string& name, TensorId x, int64_t cout, bool depthwise) {
    const auto d = dims(x);
    const int64_t cin = d[3], terms = depthwise ? 9 : 9 * cin;
    Quantization q;
    for (int64_t c = 0; c < cout; ++c) q.scale.push_back(0.002f + 0.008f * draws_.unit()), q.zero_point.push_back(0);
    q.axis = depthwise ? 3 : 0;
    const std::vector<int64_t> wshape = depthwise ? std::vector<int64_t>{1, 3, 3, cout} : std::vector<int64_t>{cout, 3, 3, cin};
    TensorId w = tensor(name + ".w", wshape, DType::kInt8, q, bytes_of(int8s(cout * 9 * (depthwise ? 1 : cin))));
    std::vector<int64_t> bias(static_cast<size_t>(cout));
    for (int64_t& b : bias) b = draws_.between(-200000, 200000);
    TensorId b = tensor(name + ".b", {cout}, DType::kInt64, {}, bytes_of(bias));
    TensorId y = activation(name + ".out", {d[0], d[1], d[2], cout}, output_scale(scale_of(x), 0.006f, terms));
    std::map<std::string, int64_t> attrs{{"stride_h", 1}, {"stride_w", 1}, {"pad_h", 1}, {"pad_w", 1},
                                         {"pad_bottom", 1}, {"pad_right", 1}, {"activation", depthwise ? 0 : 1}};
    if (depthwise) attrs["depth_multiplier"] = 1;
    op(name, depthwise ? "depthwise_conv_2d" : "conv_2d", {x, w, b}, {y}, attrs);
    return y;
  }
  // RELU requantizes onto its output's scale (here `rescale` x the input's); RELU6 keeps it.
  TensorId unary(const std::string& kind, TensorId x, float rescale) {
    TensorId y = activation(kind + ".out", dims(x), scale_of(x) * rescale);
    op(kind, kind, {x}, {y});
    return y;
  }
  TensorId binary(const std::string& name, const std::string& kind, TensorId a, TensorId b) {
    const float s = kind == "mul" ? scale_of(a) * scale_of(b) * 700.f : std::max(scale_of(a), scale_of(b)) * 1.5f;
    TensorId y = activation(name + ".out", dims(a), s);
    op(name, kind, {a, b}, {y}, {{"activation", 0}});
    return y;
  }
  TensorId fully_connected(const std::string& name, TensorId x, int64_t in, int64_t out, DType bias_type) {
    const float sw = 0.004f;
    TensorId w = tensor(name + ".w", {out, in}, DType::kInt8, quant(sw, 0), bytes_of(int8s(out * in)));
    const float sb = scale_of(x) * sw;
    TensorId b;
    if (bias_type == DType::kInt64) {
      std::vector<int64_t> v(static_cast<size_t>(out));
      for (int64_t& e : v) e = draws_.between(-100000, 100000);
      b = tensor(name + ".b", {out}, DType::kInt64, quant(sb, 0), bytes_of(v));
    } else {
      std::vector<int32_t> v(static_cast<size_t>(out));
      for (int32_t& e : v) e = static_cast<int32_t>(draws_.between(-100000, 100000));
      b = tensor(name + ".b", {out}, DType::kInt32, quant(sb, 0), bytes_of(v));
    }
    // Its input spreads over about 1,000 steps (not int16's whole range): 1000 / 18918 of output_scale.
    TensorId y = activation(name + ".out", {1, out}, output_scale(scale_of(x), sw, in) * 1000.f / 18918.f);
    op(name, "fully_connected", {x, w, b}, {y}, {{"activation", 0}, {"keep_num_dims", 0}});
    return y;
  }
};

// The rest of TFLM's op resolver in one chain, int8, int16 or float32 (`resolver_int8`,
// `resolver_int16`, `resolver_float`). int8 and float32: ELU, REVERSE_V2, ADD_N (three inputs), CUMSUM (reverse),
// L2_NORMALIZATION, GATHER_ND, ARG_MIN, PRELU, LOG_SOFTMAX; int16: AVERAGE_POOL_2D,
// MAX_POOL_2D, LEAKY_RELU, PRELU with int8 slopes. Several graph outputs, concatenated when
// hashed.
class ResolverOpsStack : public ModelBuilder {
 public:
  ResolverOpsStack(uint64_t seed, DType type) : draws_(seed), type_(type) {
    g.name = type == DType::kInt8 ? "resolver_int8" : type == DType::kInt16 ? "resolver_int16" : "resolver_float";
    if (type == DType::kInt16) {
      build_int16();
    } else {
      build_int8_or_float();
    }
    link_tensors(g);
    validate_graph(g);
  }
  std::vector<uint8_t> input_bytes(uint64_t seed) const { return drawn_input(g, seed, type_ == DType::kFloat32, 6.f); }

 private:
  PortableDraws draws_;
  DType type_;

  std::optional<Quantization> q(float scale, int64_t zero_point) const {
    if (type_ == DType::kFloat32) return std::nullopt;
    return quant(scale, zero_point);
  }
  TensorId act(const std::string& name, std::vector<int64_t> shape, float scale, int64_t zero_point) {
    return tensor(name, shape, type_, q(scale, zero_point));
  }
  TensorId ints(const std::string& name, std::vector<int64_t> shape, std::vector<int32_t> v) {
    return tensor(name, shape, DType::kInt32, {}, bytes_of(v));
  }
  std::vector<int8_t> slopes(size_t n) {
    std::vector<int8_t> v(n);
    for (int8_t& a : v) a = static_cast<int8_t>(draws_.between(-100, 100));
    return v;
  }
  TensorId prelu(const std::string& name, TensorId x, float out_scale, int64_t out_zp) {
    const auto d = dims(x);
    TensorId alpha = type_ == DType::kFloat32
                         ? tensor(name + ".alpha", {d.back()}, DType::kFloat32, {}, bytes_of(std::vector<float>{0.25f, -0.5f, 0.125f, 1.5f}))
                         : tensor(name + ".alpha", {d.back()}, DType::kInt8, quant(0.01f, 4), bytes_of(slopes(static_cast<size_t>(d.back()))));
    TensorId y = act(name + ".out", d, out_scale, out_zp);
    op(name, "prelu", {x, alpha}, {y});
    return y;
  }

  void build_int8_or_float() {
    TensorId x = act("input", {1, 6, 6, 4}, 0.05f, -3);
    TensorId e = act("elu.out", {1, 6, 6, 4}, 0.04f, -60);
    op("elu", "elu", {x}, {e});
    TensorId r = act("reverse.out", {1, 6, 6, 4}, 0.04f, -60);
    op("reverse", "reverse_v2", {e, ints("reverse.axes", {2}, {1, 2})}, {r});
    TensorId r2 = act("reverse_channels.out", {1, 6, 6, 4}, 0.04f, -60);
    op("reverse_channels", "reverse_v2", {e, ints("reverse_channels.axes", {1}, {-1})}, {r2});
    TensorId s = act("add_n.out", {1, 6, 6, 4}, 0.08f, 5);
    op("add_n", "add_n", {e, r, r2}, {s});
    TensorId c = act("cumsum.out", {1, 6, 6, 4}, 0.3f, -10);
    op("cumsum", "cumsum", {s, ints("cumsum.axis", {1}, {2})}, {c}, {{"exclusive", 0}, {"reverse", 1}});
    TensorId n = act("l2.out", {1, 6, 6, 4}, 1.f / 128, 0);
    op("l2", "l2_normalization", {c}, {n}, {{"activation", 0}});
    TensorId gnd = act("gather_nd.out", {3, 4}, 1.f / 128, 0);
    op("gather_nd", "gather_nd", {n, ints("gather_nd.indices", {3, 3}, {0, 1, 2, 0, 5, 5, 0, 3, 0})}, {gnd});
    TensorId am = tensor("arg_min.out", {1, 6, 6}, DType::kInt32);
    op("arg_min", "arg_min", {c, ints("arg_min.axis", {1}, {3})}, {am}, {{"output_type", 2}});
    TensorId p = prelu("prelu", x, 0.05f, -3);
    g.inputs = {x};
    TensorId lsm = act("log_softmax.out", {1, 6, 6, 4}, 16.f / 256, 127);  // TFLM's int8 output quantization
    op("log_softmax", "log_softmax", {c}, {lsm});
    g.outputs = {gnd, am, p, lsm};
  }

  void build_int16() {
    TensorId x = act("input", {1, 6, 6, 4}, 1.f / 4096, 0);
    TensorId a = act("avg_pool.out", {1, 4, 4, 4}, 1.f / 4096, 0);
    op("avg_pool", "average_pool_2d", {x}, {a},
       {{"kernel_h", 3}, {"kernel_w", 3}, {"stride_h", 1}, {"stride_w", 1}, {"pad_h", 0}, {"pad_w", 0}, {"activation", 0}});
    TensorId m = act("max_pool.out", {1, 2, 2, 4}, 1.f / 4096, 0);
    op("max_pool", "max_pool_2d", {a}, {m},
       {{"kernel_h", 2}, {"kernel_w", 2}, {"stride_h", 2}, {"stride_w", 2}, {"pad_h", 0}, {"pad_w", 0}, {"activation", 0}});
    TensorId l = act("leaky.out", {1, 2, 2, 4}, 1.f / 3000, 0);
    uint32_t alpha_bits;
    const float alpha = 0.2f;
    std::memcpy(&alpha_bits, &alpha, 4);
    op("leaky", "leaky_relu", {m}, {l}, {{"alpha_f32", alpha_bits}});
    TensorId p = prelu("prelu", x, 1.f / 2048, 0);
    g.inputs = {x};
    g.outputs = {a, l, p};
  }
};

// More of the op resolver, float32 (`resolver_float_more`): L2_POOL_2D, FLOOR_DIV and FLOOR_MOD
// by per-channel constants, DYNAMIC_UPDATE_SLICE (start indices that clamp), EMBEDDING_LOOKUP
// of an int8 table into float32, REDUCE_ALL of GREATER(x, 0) over the image, BROADCAST_ARGS.
class ResolverMoreStack : public ModelBuilder {
 public:
  explicit ResolverMoreStack(uint64_t seed) : draws_(seed) {
    g.name = "resolver_float_more";
    TensorId x = tensor("input", {1, 6, 6, 4}, DType::kFloat32);
    TensorId pooled = tensor("l2_pool.out", {1, 3, 3, 4}, DType::kFloat32);
    op("l2_pool", "l2_pool_2d", {x}, {pooled},
       {{"kernel_h", 2}, {"kernel_w", 2}, {"stride_h", 2}, {"stride_w", 2}, {"pad_h", 0}, {"pad_w", 0}, {"activation", 0}});
    TensorId divisor = tensor("divisor", {4}, DType::kFloat32, {}, bytes_of(std::vector<float>{0.7f, -1.3f, 2.1f, -0.4f}));
    TensorId q = tensor("floor_div.out", {1, 6, 6, 4}, DType::kFloat32);
    op("floor_div", "floor_div", {x, divisor}, {q});
    TensorId r = tensor("floor_mod.out", {1, 6, 6, 4}, DType::kFloat32);
    op("floor_mod", "floor_mod", {x, divisor}, {r});
    TensorId start = tensor("update.start", {4}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{0, 2, 4, 1}));
    TensorId updated = tensor("update.out", {1, 6, 6, 4}, DType::kFloat32);
    op("update", "dynamic_update_slice", {x, pooled, start}, {updated});
    std::vector<int8_t> table(5 * 6);
    for (int8_t& v : table) v = static_cast<int8_t>(draws_.between(-127, 127));
    TensorId ids = tensor("embedding.ids", {3}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{2, 0, 4}));
    TensorId t = tensor("embedding.table", {5, 6}, DType::kInt8, quant(0.1f, 0), bytes_of(table));
    TensorId e = tensor("embedding.out", {3, 6}, DType::kFloat32);
    op("embedding", "embedding_lookup", {ids, t}, {e});
    TensorId zero = tensor("zero", {1}, DType::kFloat32, {}, bytes_of(std::vector<float>{0.f}));
    TensorId positive = tensor("positive", {1, 6, 6, 4}, DType::kBool);
    op("positive", "greater", {x, zero}, {positive});
    TensorId all = tensor("reduce_all.out", {1, 4}, DType::kBool);
    op("reduce_all", "reduce_all", {positive, tensor("reduce_all.axes", {2}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{1, 2}))},
       {all}, {{"keep_dims", 0}});
    TensorId shape = tensor("broadcast_args.out", {4}, DType::kInt32);
    op("broadcast_args", "broadcast_args",
       {tensor("shape_a", {4}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{1, 6, 1, 4})),
        tensor("shape_b", {3}, DType::kInt32, {}, bytes_of(std::vector<int32_t>{6, 5, 1}))},
       {shape});
    g.inputs = {x};
    g.outputs = {pooled, q, r, updated, e, all, shape};
    link_tensors(g);
    validate_graph(g);
  }
  std::vector<uint8_t> input_bytes(uint64_t seed) const { return drawn_input(g, seed, true, 6.f); }

 private:
  PortableDraws draws_;
};

// TFLM's stateful Signal ops (`signal_stateful`): SignalDelay over an int16 [2, 2, 8] input,
// then SignalOverlapAdd of its rows as two frames of 8 every 4 samples and SignalFramer of them;
// SignalStacker over a second int16 input of 8 channels. The options are the custom ops'
// flexbuffer maps (written from the attrs).
class SignalStatefulStack : public ModelBuilder {
 public:
  SignalStatefulStack() {
    g.name = "signal_stateful";
    TensorId x = tensor("input", {2, 2, 8}, DType::kInt16);
    TensorId channels = tensor("channels", {8}, DType::kInt16);
    TensorId delayed = tensor("delay.out", {2, 2, 8}, DType::kInt16);
    op("delay", "SignalDelay", {x}, {delayed}, {{"delay_length", 3}});
    TensorId added = tensor("overlap_add.out", {2, 8}, DType::kInt16);
    op("overlap_add", "SignalOverlapAdd", {delayed}, {added}, {{"T", 7}, {"frame_step", 4}});
    TensorId frames = tensor("framer.out", {2, 2, 2, 8}, DType::kInt16);
    TensorId frames_valid = tensor("framer.valid", {}, DType::kBool);
    op("framer", "SignalFramer", {delayed}, {frames, frames_valid}, {{"frame_size", 8}, {"frame_step", 4}, {"prefill", 0}});
    TensorId stacked = tensor("stacker.out", {32}, DType::kInt16);
    TensorId stacked_valid = tensor("stacker.valid", {}, DType::kBool);
    op("stacker", "SignalStacker", {channels}, {stacked, stacked_valid},
       {{"num_channels", 8}, {"stacker_left_context", 2}, {"stacker_right_context", 1}, {"stacker_step", 1}});
    g.inputs = {x, channels};
    g.outputs = {delayed, added, frames, frames_valid, stacked, stacked_valid};
    link_tensors(g);
    validate_graph(g);
  }
  // The first input's raw bytes (the second is not fed).
  std::vector<uint8_t> input_bytes(uint64_t seed) const { return drawn_input(g, seed, false, 0.f); }
};

// TFLM's Signal audio front end after the FFT (`signal_front_end`): an int16 complex spectrum of
// 17 bins (the graph's input, as SignalRfft would give it for a 32-sample frame) -> SignalEnergy
// -> SignalFilterBank (4 triangular channels, Q12 weights) -> SignalFilterBankSquareRoot (scaled
// down by a constant shift, as FftAutoScale's would be) -> SignalFilterBankSpectralSubtraction
// (noise estimate carried across invokes) -> SignalPCAN (a drawn 125-entry gain table) ->
// SignalFilterBankLog. Every stage is a graph output. The options' keys are exactly the ones
// TFLM reads, by position in sorted order, from each op's flexbuffer.
class SignalFrontEndStack : public ModelBuilder {
 public:
  static constexpr int64_t kBins = 17, kChannels = 4;
  explicit SignalFrontEndStack(uint64_t seed) : draws_(seed) {
    g.name = "signal_front_end";
    TensorId spectrum = tensor("spectrum", {2 * kBins}, DType::kInt16);
    TensorId energy = tensor("energy.out", {kBins}, DType::kUInt32);
    op("energy", "SignalEnergy", {spectrum}, {energy}, {{"end_index", kBins}, {"start_index", 0}});
    // Channel i spans bins [starts[i], starts[i] + widths[i]); index 0 is TFLM's scratch channel.
    const std::vector<int16_t> freq_starts{1, 3, 6, 9, 12}, widths{2, 3, 3, 3, 4}, weight_starts{0, 2, 5, 8, 11};
    std::vector<int16_t> weights(15), unweights(15);
    for (size_t i = 0; i < weights.size(); ++i) {
      weights[i] = static_cast<int16_t>(draws_.between(0, 4096));
      unweights[i] = static_cast<int16_t>(4096 - weights[i]);
    }
    auto table = [&](const std::string& name, const std::vector<int16_t>& v) {
      return tensor(name, {static_cast<int64_t>(v.size())}, DType::kInt16, std::nullopt, bytes_of(v));
    };
    TensorId banked = tensor("filter_bank.out", {kChannels}, DType::kUInt64);
    op("filter_bank", "SignalFilterBank",
       {energy, table("filter_bank.weights", weights), table("filter_bank.unweights", unweights),
        table("filter_bank.freq_starts", freq_starts), table("filter_bank.weight_starts", weight_starts),
        table("filter_bank.widths", widths)},
       {banked}, {{"num_channels", kChannels}});
    TensorId shift = tensor("sqrt.shift", {}, DType::kInt32, std::nullopt, bytes_of(std::vector<int32_t>{1}));
    TensorId root = tensor("sqrt.out", {kChannels}, DType::kUInt32);
    op("sqrt", "SignalFilterBankSquareRoot", {banked, shift}, {root});
    TensorId cleaned = tensor("spectral_subtraction.out", {kChannels}, DType::kUInt32);
    TensorId noise = tensor("spectral_subtraction.noise", {kChannels}, DType::kUInt32);
    op("spectral_subtraction", "SignalFilterBankSpectralSubtraction", {root}, {cleaned, noise},
       {{"alternate_one_minus_smoothing", 15401}, {"alternate_smoothing", 983}, {"clamping", 0},
        {"min_signal_remaining", 819}, {"num_channels", kChannels}, {"one_minus_smoothing", 15729},
        {"smoothing", 655}, {"smoothing_bits", 10}, {"spectral_subtraction_bits", 14}});
    std::vector<int16_t> lut(125);
    for (int16_t& v : lut) v = static_cast<int16_t>(draws_.between(0, 4096));
    TensorId gained = tensor("pcan.out", {kChannels}, DType::kUInt32);
    op("pcan", "SignalPCAN", {cleaned, noise, table("pcan.gain_lut", lut)}, {gained}, {{"snr_shift", 6}});
    TensorId logged = tensor("log.out", {kChannels}, DType::kInt16);
    op("log", "SignalFilterBankLog", {gained}, {logged}, {{"input_correction_bits", 3}, {"output_scale", 1600}});
    g.inputs = {spectrum};
    g.outputs = {energy, banked, root, cleaned, noise, gained, logged};
    link_tensors(g);
    validate_graph(g);
  }
  // Spectrum values within +-3000, so that the stages stay well inside their types.
  std::vector<uint8_t> input_bytes(uint64_t seed) const {
    PortableDraws d(seed);
    std::vector<int16_t> v(2 * kBins);
    for (int16_t& x : v) x = static_cast<int16_t>(d.between(-3000, 3000));
    return bytes_of(v);
  }

 private:
  PortableDraws draws_;
};

// Every input of an FFT fixture, drawn to stress kissfft, in graph input order: integers over
// their whole range, every other row at the extremes only (full-scale square waves, where the
// fixed-point sums wrap); floats over +-32768, every other row with magnitudes from 1e-3 to 1e7
// (where float rounding shows). Each input's rows are its last dim.
inline std::vector<uint8_t> fft_stress_inputs(const Graph& g, uint64_t seed) {
  PortableDraws d(seed);
  std::vector<uint8_t> all;
  auto append = [&](auto v) {
    const std::vector<uint8_t> b = bytes_of(v);
    all.insert(all.end(), b.begin(), b.end());
  };
  for (TensorId id : g.inputs) {
    const Tensor& t = g.tensors[id];
    const int64_t row = t.shape.back().value, n = t.bytes / static_cast<int64_t>(dtype_width(*t.dtype));
    if (t.dtype == DType::kFloat32) {
      const float spans[] = {1e-3f, 1.f, 3e4f, 1e7f};
      std::vector<float> v(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        const float span = (i / row) % 2 == 0 ? 32768.f : spans[d.next() % 4];
        v[static_cast<size_t>(i)] = (d.unit() * 2 - 1) * span;
      }
      append(v);
      continue;
    }
    const bool wide = t.dtype == DType::kInt32;
    const int64_t lo = wide ? INT32_MIN : INT16_MIN, hi = wide ? INT32_MAX : INT16_MAX;
    std::vector<int64_t> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = (i / row) % 2 == 0 ? d.between(lo, hi) : (d.next() & 1) ? hi : lo;
    if (wide) append(std::vector<int32_t>(v.begin(), v.end()));
    else append(std::vector<int16_t>(v.begin(), v.end()));
  }
  return all;
}

// TFLM's Signal FFTs (`signal_fft`): SignalRfft and SignalIrfft in each type TFLM registers them
// for (int16 over 32 samples; int32 over two rows of 16; float32 over 20 samples zero-padded to an
// fft_length of 32), each FFT's spectrum fed back through the inverse; the graph's outputs are the
// inverses'. Its inputs are `fft_stress_inputs`.
class SignalFftStack : public ModelBuilder {
 public:
  SignalFftStack() {
    g.name = "signal_fft";
    struct Path {
      const char* name;
      DType type;
      int8_t tflite_type;
      std::vector<int64_t> in, spectrum, out;
      int64_t fft_length;
    };
    const Path paths[] = {{"int16", DType::kInt16, 7, {32}, {34}, {32}, 32},
                          {"int32", DType::kInt32, 2, {2, 16}, {2, 18}, {2, 16}, 16},
                          {"float", DType::kFloat32, 0, {20}, {34}, {32}, 32}};
    for (const Path& p : paths) {
      const std::string n = p.name;
      TensorId x = tensor(n + ".input", p.in, p.type);
      TensorId spectrum = tensor(n + ".rfft", p.spectrum, p.type);
      TensorId back = tensor(n + ".irfft", p.out, p.type);
      op(n + ".rfft", "SignalRfft", {x}, {spectrum}, {{"T", p.tflite_type}, {"fft_length", p.fft_length}});
      op(n + ".irfft", "SignalIrfft", {spectrum}, {back}, {{"T", p.tflite_type}, {"fft_length", p.fft_length}});
      g.inputs.push_back(x);
      g.outputs.push_back(back);
    }
    link_tensors(g);
    validate_graph(g);
  }
  std::vector<uint8_t> input_bytes(uint64_t seed) const { return fft_stress_inputs(g, seed); }
};

// TFLM's Signal FFTs over kissfft's radices (`signal_fft_lengths`): for each type (int16, int32,
// float32) and fft_length 64 (radices 4 4 2), 128 (4 4 4), 256 (4 4 4 2), 512 (4 4 4 4; rows of
// 480 zero-padded, as the audio front ends frame them), 480 (4 4 3 5) and 100 (2 5 5; rows of 80
// zero-padded): two rows through SignalRfft, its spectra back through SignalIrfft, and a spectrum
// input of its own through a second SignalIrfft. Every FFT's output is a graph output (the
// forward spectra, the round trips, the inverses of drawn spectra, in that order per length).
class SignalFftLengthsStack : public ModelBuilder {
 public:
  SignalFftLengthsStack() {
    g.name = "signal_fft_lengths";
    struct Type {
      const char* name;
      DType type;
      int64_t tflite_type;
    };
    const Type types[] = {{"int16", DType::kInt16, 7}, {"int32", DType::kInt32, 2}, {"float", DType::kFloat32, 0}};
    const std::pair<int64_t, int64_t> lengths[] = {{64, 64}, {128, 128}, {256, 256}, {512, 480}, {480, 480}, {100, 80}};
    for (const Type& t : types) {
      for (const auto& [fft_length, row] : lengths) {
        const std::string n = std::string(t.name) + "." + std::to_string(fft_length);
        const std::map<std::string, int64_t> options{{"T", t.tflite_type}, {"fft_length", fft_length}};
        TensorId frames = tensor(n + ".frames", {2, row}, t.type);
        TensorId spectra = tensor(n + ".rfft", {2, fft_length + 2}, t.type);
        TensorId round_trip = tensor(n + ".round_trip", {2, fft_length}, t.type);
        TensorId drawn = tensor(n + ".spectrum", {fft_length + 2}, t.type);
        TensorId inverse = tensor(n + ".irfft", {fft_length}, t.type);
        op(n + ".rfft", "SignalRfft", {frames}, {spectra}, options);
        op(n + ".round_trip", "SignalIrfft", {spectra}, {round_trip}, options);
        op(n + ".irfft", "SignalIrfft", {drawn}, {inverse}, options);
        g.inputs.insert(g.inputs.end(), {frames, drawn});
        g.outputs.insert(g.outputs.end(), {spectra, round_trip, inverse});
      }
    }
    link_tensors(g);
    validate_graph(g);
  }
  std::vector<uint8_t> input_bytes(uint64_t seed) const { return fft_stress_inputs(g, seed); }
};

// A model shaped as Vela writes one for an Ethos-U NPU, around CPU ops: QUANTIZE (CPU) -> ethos-u
// (NPU: command stream and flash constants, scratch and fast scratch that TFLM allocates, then
// the input) -> DEQUANTIZE (CPU). The command stream and flash are drawn bytes, not a program an
// NPU could run: the fixture is for planning, sizing and refusing, never for numbers.
// `vela_offsets` is Vela's offline plan, one offset per tensor in tensor order: the scratch (and
// the fast scratch, as Vela writes it when both share the SRAM) at 0, every feature map INSIDE it
// (Vela addresses them through the scratch's base address), the constants -1 (not in the arena).
class VelaStack : public ModelBuilder {
 public:
  static constexpr Bytes kScratch = 1024;
  explicit VelaStack(uint64_t seed) {
    PortableDraws d(seed);
    g.name = "vela_npu";
    const TensorId input = tensor("input", {1, 16}, DType::kFloat32);
    const TensorId x = tensor("x", {1, 16}, DType::kInt8, quant(0.05f, 3));
    const TensorId cmd = tensor("main_split_1_command_stream", {96}, DType::kUInt8, std::nullopt, d.bytes(96));
    const TensorId flash = tensor("main_split_1_flash", {320}, DType::kUInt8, std::nullopt, d.bytes(320));
    const TensorId scratch = tensor("main_split_1_scratch", {kScratch}, DType::kUInt8);
    const TensorId scratch_fast = tensor("main_split_1_scratch_fast", {kScratch}, DType::kUInt8);
    const TensorId y = tensor("y", {1, 8}, DType::kInt8, quant(0.1f, -2));
    const TensorId out = tensor("output", {1, 8}, DType::kFloat32);
    op("quantize", "quantize", {input}, {x});
    op("npu", "ethos-u", {cmd, flash, scratch, scratch_fast, x}, {y});
    op("dequantize", "dequantize", {y}, {out});
    g.inputs = {input};
    g.outputs = {out};
    // input [0, 64), x [64, 80), y [80, 88), output [0, 32) once input is dead; all inside the scratch.
    vela_offsets = {0, 64, -1, -1, 0, 0, 80, 0};
  }
  std::vector<int32_t> vela_offsets;
  std::vector<uint8_t> input_bytes(uint64_t seed) const { return drawn_input(g, seed, true, 4.f); }
};

}  // namespace arenaplan::test
