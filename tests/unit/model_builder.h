// Model graphs built in code for the rewrite and model-kernel tests, as the importer builds them from a .tflite:
// NHWC shapes, int8 quantization (per-channel weights) or float32, constant weights and biases,
// TFLite's attrs. `mobilenet_style(seed)` generates a MobileNet-style network with PADs before
// its depthwise convs (no fixture has one).
#pragma once

#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/graph/graph.h"

namespace arenaplan::test {

inline Quantization quant(float scale, int64_t zp) { return Quantization{{scale}, {zp}, 0}; }

template <class T>
inline std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// A graph of model tensors built in code, the way the importer builds one from a .tflite:
// shapes, types, quantization, constant data, ops with TFLite's attrs. No randomness: the tests
// that need random weights use Net below.
struct ModelBuilder {
  Graph g;

  TensorId tensor(const std::string& name, const std::vector<int64_t>& shape, DType type,
                  std::optional<Quantization> q = {}, std::vector<uint8_t> data = {}) {
    Tensor t;
    t.name = name;
    int64_t n = 1;
    for (int64_t d : shape) t.shape.push_back(ShapeDim{d, ""}), n *= d;
    t.dtype = type;
    t.bytes = n * dtype_width(type);
    t.quant = std::move(q);
    if (!data.empty()) {
      t.constant = true;
      t.data = std::make_shared<const std::vector<uint8_t>>(std::move(data));
    }
    g.tensors.push_back(t);
    return static_cast<TensorId>(g.tensors.size() - 1);
  }
  OpId op(const std::string& name, const std::string& kind, std::vector<TensorId> in, std::vector<TensorId> out,
          std::map<std::string, int64_t> attrs = {}) {
    Op o;
    o.name = name;
    o.kind = kind;
    o.inputs = std::move(in);
    o.outputs = std::move(out);
    o.attrs = std::move(attrs);
    g.ops.push_back(o);
    return static_cast<OpId>(g.ops.size() - 1);
  }
  std::vector<int64_t> dims(TensorId t) const {
    std::vector<int64_t> d;
    for (const ShapeDim& s : g.tensors[t].shape) d.push_back(s.value);
    return d;
  }
  bool is_float(TensorId t) const { return g.tensors[t].dtype == DType::kFloat32; }
};

// A ModelBuilder with random draws from one seed: int8 activations with random quantization,
// random weights and biases, and the window ops (conv, depthwise, pad, pool) that make them.
struct Net : ModelBuilder {
  std::mt19937 rng;
  explicit Net(uint64_t seed) : rng(static_cast<uint32_t>(seed)) { g.name = "net"; }

  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  float uniform_f(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); }

  // An int8 activation with a random scale and zero point, or float32 when `float32`.
  TensorId activation(const std::string& name, const std::vector<int64_t>& shape, bool float32 = false) {
    if (float32) return tensor(name, shape, DType::kFloat32);
    return tensor(name, shape, DType::kInt8, quant(uniform_f(0.01f, 0.05f), uniform(-20, 20)));
  }
  // Same quantization as `like` (what a PAD keeps).
  TensorId activation_like(const std::string& name, const std::vector<int64_t>& shape, TensorId like) {
    return tensor(name, shape, *g.tensors[like].dtype, g.tensors[like].quant);
  }
  TensorId weights(const std::string& name, const std::vector<int64_t>& shape, int64_t channels, int axis, bool float32) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    if (float32) {
      std::vector<float> v(static_cast<size_t>(n));
      for (float& f : v) f = uniform_f(-0.5f, 0.5f);
      return tensor(name, shape, DType::kFloat32, {}, bytes_of(v));
    }
    std::vector<int8_t> v(static_cast<size_t>(n));
    for (int8_t& x : v) x = static_cast<int8_t>(uniform(-127, 127));
    Quantization q;
    for (int64_t c = 0; c < channels; ++c) q.scale.push_back(uniform_f(0.002f, 0.02f)), q.zero_point.push_back(0);
    q.axis = axis;
    return tensor(name, shape, DType::kInt8, q, bytes_of(v));
  }
  TensorId bias(const std::string& name, int64_t n, bool float32) {
    if (float32) {
      std::vector<float> v(static_cast<size_t>(n));
      for (float& f : v) f = uniform_f(-1.f, 1.f);
      return tensor(name, {n}, DType::kFloat32, {}, bytes_of(v));
    }
    std::vector<int32_t> v(static_cast<size_t>(n));
    for (int32_t& x : v) x = uniform(-3000, 3000);
    return tensor(name, {n}, DType::kInt32, {}, bytes_of(v));
  }

  // Window ops with TFLite's attrs (explicit pads as the importer writes them).
  TensorId conv(const std::string& name, TensorId x, int64_t cout, int64_t k, int64_t stride, int64_t pad,
                int64_t activation = 0) {
    const auto d = dims(x);
    const int64_t oh = (d[1] + 2 * pad - k) / stride + 1, ow = (d[2] + 2 * pad - k) / stride + 1;
    const bool f = is_float(x);
    TensorId w = weights(name + ".w", {cout, k, k, d[3]}, cout, 0, f);
    TensorId b = bias(name + ".b", cout, f);
    TensorId y = activation_tensor(name + ".out", {d[0], oh, ow, cout}, f);
    op(name, "conv_2d", {x, w, b}, {y},
       {{"stride_h", stride}, {"stride_w", stride}, {"pad_h", pad}, {"pad_w", pad}, {"pad_bottom", pad},
        {"pad_right", pad}, {"activation", activation}});
    return y;
  }
  TensorId depthwise(const std::string& name, TensorId x, int64_t k, int64_t stride, int64_t pad, int64_t mult = 1,
                     int64_t activation = 0) {
    const auto d = dims(x);
    const int64_t oh = (d[1] + 2 * pad - k) / stride + 1, ow = (d[2] + 2 * pad - k) / stride + 1;
    const bool f = is_float(x);
    TensorId w = weights(name + ".w", {1, k, k, d[3] * mult}, d[3] * mult, 3, f);
    TensorId b = bias(name + ".b", d[3] * mult, f);
    TensorId y = activation_tensor(name + ".out", {d[0], oh, ow, d[3] * mult}, f);
    op(name, "depthwise_conv_2d", {x, w, b}, {y},
       {{"stride_h", stride}, {"stride_w", stride}, {"pad_h", pad}, {"pad_w", pad}, {"pad_bottom", pad},
        {"pad_right", pad}, {"depth_multiplier", mult}, {"activation", activation}});
    return y;
  }
  // PAD (value: the zero point) or PADV2 with an explicit int8 value.
  TensorId pad(const std::string& name, TensorId x, int64_t top, int64_t left, int64_t bottom, int64_t right,
               std::optional<int8_t> padv2_value = {}, int64_t channels_after = 0) {
    const auto d = dims(x);
    std::vector<int32_t> p{0, 0, static_cast<int32_t>(top), static_cast<int32_t>(bottom), static_cast<int32_t>(left),
                           static_cast<int32_t>(right), 0, static_cast<int32_t>(channels_after)};
    TensorId pads = tensor(name + ".paddings", {4, 2}, DType::kInt32, {}, bytes_of(p));
    TensorId y = activation_like(name + ".out", {d[0], d[1] + top + bottom, d[2] + left + right, d[3] + channels_after}, x);
    if (padv2_value) {
      TensorId v = tensor(name + ".value", {1}, DType::kInt8, g.tensors[x].quant, bytes_of(std::vector<int8_t>{*padv2_value}));
      op(name, "padv2", {x, pads, v}, {y});
    } else {
      op(name, "pad", {x, pads}, {y});
    }
    return y;
  }
  TensorId pool(const std::string& name, TensorId x, bool average, int64_t k, int64_t stride) {
    const auto d = dims(x);
    TensorId y = activation_like(name + ".out", {d[0], (d[1] - k) / stride + 1, (d[2] - k) / stride + 1, d[3]}, x);
    op(name, average ? "average_pool_2d" : "max_pool_2d", {x}, {y},
       {{"kernel_h", k}, {"kernel_w", k}, {"stride_h", stride}, {"stride_w", stride}});
    return y;
  }
  // QUANTIZE of a float32 tensor to int8 (a converted model's entry), DEQUANTIZE back (its exit).
  TensorId quantize(const std::string& name, TensorId x) {
    TensorId y = activation(name + ".out", dims(x));
    op(name, "quantize", {x}, {y});
    return y;
  }
  TensorId dequantize(const std::string& name, TensorId x) {
    TensorId y = tensor(name + ".out", dims(x), DType::kFloat32);
    op(name, "dequantize", {x}, {y});
    return y;
  }
  TensorId activation_tensor(const std::string& name, const std::vector<int64_t>& shape, bool f) {
    return activation(name, shape, f);
  }
  Graph finish(TensorId input, std::vector<TensorId> outputs) {
    g.inputs = {input};
    g.outputs = std::move(outputs);
    link_tensors(g);
    validate_graph(g);
    return g;
  }
};

// MobileNet-style int8 (or float32) network: a stem conv, blocks of PAD -> depthwise (stride 1
// or 2, valid) -> pointwise conv(s), a padded pool at the end. Every draw comes from the seed.
inline Graph mobilenet_style(uint64_t seed, bool float32 = false) {
  Net n(seed);
  const int64_t hw = n.uniform(9, 14), c0 = n.uniform(2, 4);
  TensorId x = n.activation("input", {1, hw, hw, c0}, float32);
  TensorId t = n.conv("stem", x, n.uniform(4, 8), 3, 1, 1, 3);
  const int blocks = n.uniform(2, 3);
  for (int b = 0; b < blocks; ++b) {
    const std::string id = std::to_string(b);
    const bool asym = n.uniform(0, 1) == 1;  // TF's stride-2 "same": pad bottom/right only
    t = n.pad("pad" + id, t, asym ? 0 : 1, asym ? 0 : 1, 1, 1);
    t = n.depthwise("dw" + id, t, 3, n.uniform(1, 2), 0, 1, 3);
    const int64_t c = n.dims(t)[3];
    const int64_t widen = std::max<int64_t>(1, c * n.uniform(1, 4) / 2);  // c/2 .. 2c
    t = n.conv("pw" + id, t, widen, 1, 1, 0, n.uniform(0, 1) * 3);
    if (n.uniform(0, 1)) t = n.conv("pw" + id + "b", t, std::max<int64_t>(1, n.dims(t)[3] - n.uniform(0, 2)), 1, 1, 0);
  }
  t = n.pad("pad_tail", t, 1, 1, 1, 1);
  t = n.pool("pool", t, n.uniform(0, 1) == 1, 3, 1);
  return n.finish(x, {t});
}

// An MCUNet/MobileNetV2-style int8 network as a converter writes it: float32 input -> QUANTIZE ->
// stem conv -> inverted-residual blocks (1x1 expansion with relu6, [PAD ->] depthwise with relu6,
// stride 1 or 2, 1x1 projection) -> DEQUANTIZE to a float32 output. Every draw from the seed.
inline Graph inverted_residual_style(uint64_t seed) {
  Net n(seed);
  const int64_t hw = n.uniform(8, 13);
  TensorId x = n.tensor("image", {1, hw, hw, n.uniform(1, 3)}, DType::kFloat32);
  TensorId t = n.conv("stem", n.quantize("quant_in", x), n.uniform(3, 6), 3, 1, 1, 3);
  const int blocks = n.uniform(2, 3);
  for (int b = 0; b < blocks; ++b) {
    const std::string id = std::to_string(b);
    t = n.conv("expand" + id, t, n.dims(t)[3] * n.uniform(2, 4), 1, 1, 0, 3);
    const int64_t stride = n.uniform(1, 2);
    if (n.uniform(0, 1)) {  // TF's padding as a PAD op (bottom/right only before a stride 2)
      t = n.pad("pad" + id, t, stride == 2 ? 0 : 1, stride == 2 ? 0 : 1, 1, 1);
      t = n.depthwise("dw" + id, t, 3, stride, 0, 1, 3);
    } else {
      t = n.depthwise("dw" + id, t, 3, stride, 1, 1, n.uniform(0, 1) * 3);
    }
    t = n.conv("project" + id, t, n.uniform(2, 6), 1, 1, 0);
  }
  return n.finish(x, {n.dequantize("dequant_out", t)});
}

// MCUNet-like with residuals: int8 input -> stem 3x3 -> two inverted-residual blocks (1x1
// expansion relu6, depthwise 3x3 same relu6, 1x1 projection back to the stem's channels, ADD of the
// block input) -> pool. The ADDs make patch stages span residual blocks (transform_patch.cpp).
inline Graph residual_mcunet_style(uint64_t seed) {
  Net n(seed);
  const int64_t hw = n.uniform(12, 17), c = n.uniform(3, 6);
  TensorId x = n.activation("input", {1, hw, hw, n.uniform(1, 3)});
  TensorId t = n.conv("stem", x, c, 3, 1, 1, 3);
  for (int b = 0; b < 2; ++b) {
    const std::string id = std::to_string(b);
    TensorId e = n.conv("expand" + id, t, c * n.uniform(2, 4), 1, 1, 0, 3);
    e = n.depthwise("dw" + id, e, 3, 1, 1, 1, 3);
    e = n.conv("project" + id, e, c, 1, 1, 0);
    TensorId sum = n.activation_like("add" + id + ".out", n.dims(t), t);
    n.op("add" + id, "add", {e, t}, {sum});
    t = sum;
  }
  t = n.pool("pool", t, true, 2, 2);
  return n.finish(x, {t});
}

// The first stage of MCUNet-VWW (mcunet-vww0, 80x80 input), shapes as in the published model:
// float32 [1,80,80,3] -> QUANTIZE -> PAD 1 -> conv 3x3/2 to 16 ch -> depthwise 3x3 (same) -> 1x1
// to 8 ch -> 1x1 expansion to 48 ch (40x40x48 = 76,800 B) -> PAD 1 -> depthwise 3x3/2 -> 1x1 to 16
// ch, then a pool to a small output. Weights are random; the shapes decide the memory.
inline Graph vww_first_stage(uint64_t seed = 7) {
  Net n(seed);
  TensorId x = n.tensor("image", {1, 80, 80, 3}, DType::kFloat32);
  TensorId t = n.pad("pad_1", n.quantize("quantize_0", x), 1, 1, 1, 1);
  t = n.conv("conv_2d_2", t, 16, 3, 2, 0, 3);
  t = n.depthwise("depthwise_conv_2d_3", t, 3, 1, 1, 1, 3);
  t = n.conv("conv_2d_4", t, 8, 1, 1, 0);
  t = n.conv("conv_2d_5", t, 48, 1, 1, 0, 3);
  t = n.pad("pad_6", t, 1, 1, 1, 1);
  t = n.depthwise("depthwise_conv_2d_7", t, 3, 2, 0, 1, 3);
  t = n.conv("conv_2d_8", t, 16, 1, 1, 0);
  t = n.pool("pool", t, true, 4, 4);
  return n.finish(x, {t});
}

}  // namespace arenaplan::test
