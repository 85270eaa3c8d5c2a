// Model kernels that add many int8 values into one: ADD_N (the sum of N inputs, element by
// element) and CUMSUM (running sums along an axis); int8 with TFLM's reference arithmetic, float32.
#include <algorithm>

#include "core/sim/detail/model_kernels.h"

namespace arenaplan::sim {

namespace {

// TFLM's int8 summation of ADD_N and CUMSUM: every term (q - zero point) is shifted left by 20
// and halved (the input multiplier is scale / (2 x scale)), the terms are summed in int32, and the
// sum is requantized by 2 x scale / (2^20 x output scale). The sum starts from the input offset
// (the term of a stored 0), not from zero: TFLM's loops seed their accumulator so.
struct Int8Summation {
  static constexpr int kLeftShift = 20;
  int32_t input_offset = 0, output_offset = 0;
  tflm::Multiplier input, output;

  int32_t term(int32_t q) const {
    return tflm::multiply_by_quantized_multiplier_smaller_than_one((q + input_offset) * (1 << kLeftShift), input);
  }
  int32_t start() const { return term(0); }
  int8_t finish(int32_t sum) const {
    const int32_t r = tflm::multiply_by_quantized_multiplier_smaller_than_one(sum, output) + output_offset;
    return static_cast<int8_t>(std::clamp(r, -128, 127));
  }
};

Int8Summation int8_summation(const KernelContext& c, const Tensor& x, const Tensor& y) {
  Int8Summation s;
  s.input_offset = -c.zero_point(x);
  s.output_offset = c.zero_point(y);
  const double twice_scale = 2 * static_cast<double>(c.scale(x));
  s.input = tflm::quantize_multiplier(static_cast<double>(c.scale(x)) / twice_scale);
  s.output = tflm::quantize_multiplier(twice_scale / ((1 << Int8Summation::kLeftShift) * static_cast<double>(c.scale(y))));
  // QuantizeMultiplierSmallerThanOneExp: both multipliers are below one.
  c.require(s.input.shift <= 0 && s.output.shift <= 0, "the sum's output scale is below 2 x input scale / 2^20");
  return s;
}

}  // namespace

// ADD_N: every input has the output's shape and type (int8: one quantization for all inputs).
ModelKernel prepare_add_n(const KernelContext& c) {
  c.require(c.inputs() >= 2 && c.outputs() == 1, "add_n expects two or more inputs and one output");
  const Tensor& yt = c.out(0);
  const auto shape = c.dims(yt);
  const int64_t n = c.count(yt);
  const size_t inputs = c.inputs();
  for (size_t i = 0; i < inputs; ++i) {
    const Tensor& x = c.in(i);
    c.require(x.dtype == yt.dtype && c.dims(x) == shape, "add_n's inputs must have the output's shape and type");
  }
  ModelKernel k;
  k.work.alu_ops = n * static_cast<int64_t>(inputs);
  if (c.is(yt, DType::kInt8)) {
    const Tensor& x0 = c.in(0);
    for (size_t i = 1; i < inputs; ++i)
      c.require(c.scale(c.in(i)) == c.scale(x0) && c.zero_point(c.in(i)) == c.zero_point(x0),
                "add_n's int8 inputs must share one quantization (TFLM)");
    const Int8Summation s = int8_summation(c, x0, yt);
    k.name = "add_n int8";
    k.run = [=](const Operand* in, const Operand* out) {
      int8_t* y = as_mut<int8_t>(out[0]);
      for (int64_t e = 0; e < n; ++e) {
        int32_t sum = s.start();
        for (size_t i = 0; i < inputs; ++i) sum = wrapping_add(sum, s.term(as<int8_t>(in[i])[e]));
        y[e] = s.finish(sum);
      }
    };
    return k;
  }
  c.require(c.is(yt, DType::kFloat32), "add_n runs int8 or float32 (TFLM)");
  k.name = "add_n float32";
  k.run = [=](const Operand* in, const Operand* out) {
    float* y = as_mut<float>(out[0]);
    for (int64_t e = 0; e < n; ++e) {
      float sum = 0;
      for (size_t i = 0; i < inputs; ++i) sum += as<float>(in[i])[e];
      y[e] = sum;
    }
  };
  return k;
}

namespace {

// The running sum along one axis, element (outer, k, inner) at (outer x depth + k) x inner; with
// `reverse` from the axis's end; `exclusive` writes the sum before adding the element.
// Sum: start() -> A, add(A, i) -> A, write(A, i).
struct CumsumWalk {
  int64_t outer = 1, depth = 1, inner = 1;
  bool exclusive = false, reverse = false;
  template <class Start, class Add, class Write>
  void run(Start start, Add add, Write write) const {
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        auto acc = start();
        for (int64_t s = 0; s < depth; ++s) {
          const int64_t k = reverse ? depth - 1 - s : s;
          const int64_t at = (o * depth + k) * inner + i;
          if (exclusive) {
            write(acc, at);
            acc = add(acc, at);
          } else {
            acc = add(acc, at);
            write(acc, at);
          }
        }
      }
  }
};

}  // namespace

ModelKernel prepare_cumsum(const KernelContext& c) {
  c.require(c.inputs() == 2 && c.outputs() == 1, "cumsum expects an input, an axis and one output");
  const Tensor &xt = c.in(0), &yt = c.out(0);
  const auto x = c.dims(xt);
  c.require(xt.dtype == yt.dtype && c.dims(yt) == x, "cumsum's output must have the input's shape and type");
  c.require(c.is(c.in(1), DType::kInt32), "TFLM's cumsum takes an int32 axis");
  const auto axis_values = c.const_ints(c.in(1));
  c.require(axis_values.size() == 1, "cumsum needs exactly one axis");
  const int64_t rank = static_cast<int64_t>(x.size());
  const int64_t axis = axis_values[0] < 0 ? axis_values[0] + rank : axis_values[0];
  c.require(axis >= 0 && axis < rank, "axis " + std::to_string(axis_values[0]) + " out of range");
  CumsumWalk w;
  for (int64_t d = 0; d < axis; ++d) w.outer *= x[d];
  for (int64_t d = axis + 1; d < rank; ++d) w.inner *= x[d];
  w.depth = x[axis];
  w.exclusive = c.attr("exclusive", 0) != 0;
  w.reverse = c.attr("reverse", 0) != 0;
  ModelKernel k;
  k.work.alu_ops = c.count(xt);
  if (c.is(xt, DType::kInt8)) {
    const Int8Summation s = int8_summation(c, xt, yt);
    k.name = "cumsum int8";
    k.run = [=](const Operand* in, const Operand* out) {
      const int8_t* a = as<int8_t>(in[0]);
      int8_t* y = as_mut<int8_t>(out[0]);
      w.run([&] { return s.start(); }, [&](int32_t acc, int64_t at) { return wrapping_add(acc, s.term(a[at])); },
            [&](int32_t acc, int64_t at) { y[at] = s.finish(acc); });
    };
    return k;
  }
  c.require(c.is(xt, DType::kFloat32), "cumsum runs int8 or float32 (TFLM)");
  k.name = "cumsum float32";
  k.run = [=](const Operand* in, const Operand* out) {
    const float* a = as<float>(in[0]);
    float* y = as_mut<float>(out[0]);
    w.run([] { return 0.0f; }, [&](float acc, int64_t at) { return acc + a[at]; }, [&](float acc, int64_t at) { y[at] = acc; });
  };
  return k;
}

}  // namespace arenaplan::sim
