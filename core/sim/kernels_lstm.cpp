// UNIDIRECTIONAL_SEQUENCE_LSTM with TFLM's reference arithmetic (unidirectional_sequence_lstm.cc,
// lstm_eval.h / lstm_eval.cc / lstm_eval_common.cc): the standard LSTM only, as TFLM supports it
// (no peephole, projection or layer norm; TFLM refuses those tensors), in three type families:
// int8 activations x int8 weights with int32 biases and an int16 cell (TFLM's 8x8->16), int16
// activations x int8 weights with int64 biases and an int16 cell (16x8->16), and float32.
//
// Inputs by position: 0 input [batch, time, in] (or [time, batch, in] when time_major),
// 1-4 input weights of the input, forget, cell and output gates [state, in], 5-8 their recurrent
// weights [state, state], 12-15 the gate biases [state], 18 the hidden (output) state and 19 the
// cell state, both variable tensors the op rewrites: they carry over from run to run, as TFLM keeps
// them across Invoke(). Each time step computes, per gate, FC(input) + FC(hidden) (the bias on the
// input FC only), saturated to int16 on the gates' Q3.12 scale, then sigmoid (tanh for the cell
// gate); cell = forget * cell + input * cell_gate (saturating, optionally clipped); hidden =
// tanh(cell) * output gate; the hidden state is copied into the output's time step.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "core/sim/detail/model_kernels.h"

namespace arenaplan::sim {

namespace {

constexpr int kPositions = 24;  // TFLite's LSTM operand slots, absent ones included
enum Slot : int {
  kInput = 0,
  kInputWeights = 1,      // input, forget, cell, output gates: 1, 2, 3, 4
  kRecurrentWeights = 5,  // 5, 6, 7, 8
  kPeepholeFirst = 9,     // 9-11
  kGateBias = 12,         // 12-15
  kProjectionFirst = 16,  // 16-17
  kHiddenState = 18,
  kCellState = 19,
  kLayerNormFirst = 20,   // 20-23
};
// The gates in lstm_eval's storage order (input, forget, cell, output), and the order the step
// computes them in (forget, input, cell, then output after the cell update).
enum Gate : int { kInputGate = 0, kForgetGate = 1, kCellGate = 2, kOutputGate = 3 };

// Where each of the 24 positions sits in op.inputs: the importer drops absent operands and records
// them in the `absent_inputs` bit mask; -1 for an absent one.
struct Slots {
  int at[kPositions];
  bool has(int s) const { return at[s] >= 0; }
};

Slots lstm_slots(const KernelContext& c) {
  Slots s{};
  const int64_t absent = c.attr("absent_inputs", -1);
  c.require(absent >= 0 && absent < (int64_t{1} << kPositions),
            "unidirectional_sequence_lstm needs the positions of its optional operands (absent_inputs)");
  int next = 0;
  for (int p = 0; p < kPositions; ++p) s.at[p] = (absent >> p) & 1 ? -1 : next++;
  c.require((absent >> kPositions) == 0 && static_cast<size_t>(next) == c.inputs(),
            "unidirectional_sequence_lstm lists " + std::to_string(c.inputs()) + " operands where its 24 slots say " +
                std::to_string(next) + " (an operand used twice?)");
  for (int p = kPeepholeFirst; p < kPeepholeFirst + 3; ++p)
    c.require(!s.has(p), "TFLM's unidirectional_sequence_lstm has no peephole connections");
  for (int p = kProjectionFirst; p < kProjectionFirst + 2; ++p)
    c.require(!s.has(p), "TFLM's unidirectional_sequence_lstm has no projection");
  for (int p = kLayerNormFirst; p < kLayerNormFirst + 4; ++p)
    c.require(!s.has(p), "TFLM's unidirectional_sequence_lstm has no layer normalization");
  for (int p : {kInput, kHiddenState, kCellState}) c.require(s.has(p), "unidirectional_sequence_lstm lacks operand " + std::to_string(p));
  for (int g = 0; g < 4; ++g)
    c.require(s.has(kInputWeights + g) && s.has(kRecurrentWeights + g) && s.has(kGateBias + g),
              "TFLM's unidirectional_sequence_lstm needs all four gates' weights and biases (no CIFG)");
  return s;
}

// LstmSizeInfo, checked as ValidateTensorSize does.
struct LstmSize {
  bool time_major = false;
  int64_t batch = 0, time = 0, input = 0, state = 0;
};

LstmSize lstm_size(const KernelContext& c, const Slots& s) {
  const Tensor& x = c.in(s.at[kInput]);
  const auto xd = c.dims(x), hd = c.dims(c.in(s.at[kHiddenState])), yd = c.dims(c.out(0));
  c.require(xd.size() == 3, "unidirectional_sequence_lstm input must be 3-D");
  c.require(hd.size() == 2, "unidirectional_sequence_lstm hidden state must be 2-D [batch, state]");
  LstmSize z;
  z.time_major = c.attr("time_major", 0) != 0;
  z.batch = z.time_major ? xd[1] : xd[0];
  z.time = z.time_major ? xd[0] : xd[1];
  z.input = xd[2];
  z.state = hd[1];
  c.require(z.batch >= 1 && z.time >= 1 && z.input >= 1 && z.state >= 1, "unidirectional_sequence_lstm has an empty dim");
  for (int g = 0; g < 4; ++g) {
    c.require(c.dims(c.in(s.at[kInputWeights + g])) == std::vector<int64_t>{z.state, z.input},
              "unidirectional_sequence_lstm input weights must be [state, input]");
    c.require(c.dims(c.in(s.at[kRecurrentWeights + g])) == std::vector<int64_t>{z.state, z.state},
              "unidirectional_sequence_lstm recurrent weights must be [state, state]");
    c.require(c.dims(c.in(s.at[kGateBias + g])) == std::vector<int64_t>{z.state},
              "unidirectional_sequence_lstm gate biases must be [state]");
  }
  c.require(c.count(c.in(s.at[kHiddenState])) == z.batch * z.state && c.count(c.in(s.at[kCellState])) == z.batch * z.state,
            "unidirectional_sequence_lstm states must hold batch x state values");
  c.require(yd.size() == 3 && yd[0] == xd[0] && yd[1] == xd[1] && yd[2] == z.state,
            "unidirectional_sequence_lstm output must be the input's [batch, time] (or [time, batch]) x state");
  return z;
}

// Where one step reads and writes: `rows` batch rows at once (all of them when time_major, one
// otherwise), each row of input width, state width.
struct StepView {
  int64_t input_at = 0, state_at = 0, output_at = 0, rows = 1;
};

template <class F>
void for_each_step(const LstmSize& z, F&& step) {
  if (z.time_major) {
    for (int64_t t = 0; t < z.time; ++t) step(StepView{t * z.batch * z.input, 0, t * z.batch * z.state, z.batch});
    return;
  }
  for (int64_t b = 0; b < z.batch; ++b)
    for (int64_t t = 0; t < z.time; ++t)
      step(StepView{(b * z.time + t) * z.input, b * z.state, (b * z.time + t) * z.state, 1});
}

int16_t saturate16(int64_t v) { return static_cast<int16_t>(std::clamp<int64_t>(v, -32768, 32767)); }

// One quantized fully connected layer of a gate onto the gates' int16 Q3.12 scale.
struct GateFc {
  int32_t input_offset = 0, weights_offset = 0;
  tflm::Multiplier m;
};

// The integer LSTM; Act = activations (int8 or int16), Bias = biases and accumulators (int32 or
// int64), as TFLM instantiates EvalLstm.
template <class Act, class Bias>
struct IntegerLstm {
  LstmSize z;
  Slots s;
  GateFc input_fc[4], recurrent_fc[4];
  tflm::Multiplier forget_cell, input_cell, hidden_out;
  int32_t hidden_zp = 0;
  int16_t cell_clip = 0;  // quantized; 0: no clipping
  bool clip = false;
  tflm::Int16SigmoidInput cell_tanh;

  // One FC of a gate, row by row, requantized onto Q3.12 and saturated to int16.
  void fc(const GateFc& p, const Act* x, int64_t depth, int64_t rows, const int8_t* w, const Bias* bias,
          int16_t* out) const {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t o = 0; o < z.state; ++o) {
        // TFLM accumulates in Bias: an int32 sum wraps, which the cast to 32 bits below reproduces.
        int64_t acc = 0;
        for (int64_t d = 0; d < depth; ++d)
          acc += int64_t{int32_t{w[o * depth + d]} + p.weights_offset} * (int32_t{x[r * depth + d]} + p.input_offset);
        if (bias) acc = wrapping_add(acc, int64_t{bias[o]});
        int32_t v;
        if constexpr (sizeof(Bias) == 4)
          v = tflm::multiply_by_quantized_multiplier(static_cast<int32_t>(static_cast<uint32_t>(acc)), p.m);
        else
          v = tflm::multiply_by_quantized_multiplier(acc, p.m);
        out[r * z.state + o] = saturate16(v);
      }
  }

  void gate(int g, const Operand* in, const StepView& v, const Act* hidden, int16_t* out, int16_t* scratch) const {
    const int64_t n = v.rows * z.state;
    fc(input_fc[g], as<Act>(in[s.at[kInput]]) + v.input_at, z.input, v.rows, as<int8_t>(in[s.at[kInputWeights + g]]),
       as<Bias>(in[s.at[kGateBias + g]]), out);
    fc(recurrent_fc[g], hidden, z.state, v.rows, as<int8_t>(in[s.at[kRecurrentWeights + g]]), nullptr, scratch);
    for (int64_t i = 0; i < n; ++i) out[i] = saturate16(int32_t{out[i]} + scratch[i]);
    // The gates' Q3.12 input is the power-of-two case of the int16 sigmoid and tanh (no multiplier).
    for (int64_t i = 0; i < n; ++i)
      out[i] = g == kCellGate ? tflm::tanh_int16(out[i], {}) : tflm::logistic_int16(out[i], {});
  }

  template <class Out>
  static Out mul(int16_t a, int16_t b, tflm::Multiplier m, int32_t offset) {
    const int32_t v = wrapping_add(offset, tflm::multiply_by_quantized_multiplier(int32_t{a} * b, m));
    return static_cast<Out>(std::clamp<int32_t>(v, std::numeric_limits<Out>::min(), std::numeric_limits<Out>::max()));
  }

  void step(const Operand* in, const Operand& y, const StepView& v, int16_t* buf) const {
    const int64_t n = v.rows * z.state;
    Act* hidden = as_mut<Act>(in[s.at[kHiddenState]]) + v.state_at;
    int16_t* cell = as_mut<int16_t>(in[s.at[kCellState]]) + v.state_at;
    int16_t *forget = buf, *input = buf + n, *cell_gate = buf + 2 * n, *scratch = buf + 3 * n;
    gate(kForgetGate, in, v, hidden, forget, scratch);
    gate(kInputGate, in, v, hidden, input, scratch);
    gate(kCellGate, in, v, hidden, cell_gate, scratch);
    for (int64_t i = 0; i < n; ++i) {
      const int16_t kept = mul<int16_t>(forget[i], cell[i], forget_cell, 0);
      const int16_t added = mul<int16_t>(input[i], cell_gate[i], input_cell, 0);
      cell[i] = saturate16(int32_t{kept} + added);
      if (clip) cell[i] = std::max<int16_t>(std::min(cell_clip, cell[i]), static_cast<int16_t>(-cell_clip));
    }
    int16_t* output_gate = input;  // TFLM reuses the input gate's buffer
    gate(kOutputGate, in, v, hidden, output_gate, scratch);
    for (int64_t i = 0; i < n; ++i)
      hidden[i] = mul<Act>(tflm::tanh_int16(cell[i], cell_tanh), output_gate[i], hidden_out, hidden_zp);
    std::copy(hidden, hidden + n, as_mut<Act>(y) + v.output_at);
  }
};

// Gate parameters as CreateGateParams derives them: each FC onto the fixed Q3.12 scale (2^-12),
// the multiplier from the scales' product taken in float, then widened (GetQuantizedConvolutionMultipler).
constexpr double kGateScale = 1.0 / 4096, kGateOutScale = 1.0 / 32768;
GateFc gate_fc(const KernelContext& c, const Tensor& x, const Tensor& w) {
  GateFc p;
  p.input_offset = -c.zero_point(x);
  p.weights_offset = -c.zero_point(w);
  const float product = c.scale(x) * c.scale(w);
  p.m = tflm::quantize_multiplier(static_cast<double>(product) / kGateScale);
  return p;
}

// CreateInterGateMulParams: the product's scale over the output's, in double.
tflm::Multiplier inter_gate(double a, double b, float out) {
  return tflm::quantize_multiplier(a * b / static_cast<double>(out));
}

template <class Act, class Bias>
ModelKernel integer_lstm(const KernelContext& c, const Slots& s, const LstmSize& z, const char* name) {
  const DType act = sizeof(Act) == 1 ? DType::kInt8 : DType::kInt16;
  const DType bias = sizeof(Bias) == 4 ? DType::kInt32 : DType::kInt64;
  const Tensor &x = c.in(s.at[kInput]), &hidden = c.in(s.at[kHiddenState]), &cell = c.in(s.at[kCellState]);
  c.require(c.is(hidden, act) && c.is(c.out(0), act), "unidirectional_sequence_lstm hidden state and output must have the input's type");
  c.require(c.is(cell, DType::kInt16), "integer unidirectional_sequence_lstm needs an int16 cell state (TFLM)");
  for (int g = 0; g < 4; ++g) {
    c.require(c.is(c.in(s.at[kInputWeights + g]), DType::kInt8) && c.is(c.in(s.at[kRecurrentWeights + g]), DType::kInt8),
              "integer unidirectional_sequence_lstm needs int8 weights (TFLM)");
    c.require(c.is(c.in(s.at[kGateBias + g]), bias), sizeof(Bias) == 4 ? "int8 unidirectional_sequence_lstm needs int32 biases"
                                                                        : "int16 unidirectional_sequence_lstm needs int64 biases");
  }
  IntegerLstm<Act, Bias> l;
  l.z = z;
  l.s = s;
  for (int g = 0; g < 4; ++g) {
    // Per-channel weights leave TFLM's per-tensor multiplier unset: no defined result to match.
    l.input_fc[g] = gate_fc(c, x, c.in(s.at[kInputWeights + g]));
    l.recurrent_fc[g] = gate_fc(c, hidden, c.in(s.at[kRecurrentWeights + g]));
  }
  const float cell_scale = c.scale(cell);
  const double gate_out = static_cast<float>(kGateOutScale);
  l.forget_cell = inter_gate(gate_out, static_cast<double>(cell_scale), cell_scale);
  l.input_cell = inter_gate(gate_out, gate_out, cell_scale);
  l.hidden_out = inter_gate(gate_out, gate_out, c.scale(hidden));
  l.hidden_zp = c.zero_point(hidden);
  // CreateLstmCellStateInfo: the cell scale's power of two, as CheckedLog2 rounds it.
  int power = 0;
  tflm::checked_log2(cell_scale, &power);
  int shift = 12 + power;  // the cell's tanh input onto Q3.12
  l.cell_tanh = shift < 0 ? tflm::Int16SigmoidInput{3, -shift} : tflm::Int16SigmoidInput{0, shift};
  c.require(shift >= -30 && shift <= 12, "unidirectional_sequence_lstm cell scale is out of TFLM's int16 tanh range");
  const float clip = c.attr_float("cell_clip_f32", 0.0f);
  l.clip = clip > 0;
  l.cell_clip = static_cast<int16_t>(
      std::min(std::max(static_cast<double>(clip) / static_cast<double>(cell_scale), -32768.0), 32767.0));
  ModelKernel k(name);
  k.work.macs = z.batch * z.time * 4 * z.state * (z.input + z.state);
  k.work.alu_ops = z.batch * z.time * z.state * 16;
  const size_t buffer = static_cast<size_t>(4 * z.state * (z.time_major ? z.batch : 1));
  // TFLM's four scratch buffers (batch x state int16 each) live in its arena; here on the host,
  // made once so a run allocates nothing.
  auto buf = std::make_shared<std::vector<int16_t>>(buffer);
  k.run = [l, buf](const Operand* in, const Operand* out) {
    for_each_step(l.z, [&](const StepView& v) { l.step(in, out[0], v, buf->data()); });
  };
  return k;
}

ModelKernel float_lstm(const KernelContext& c, const Slots& s, const LstmSize& z) {
  for (int p = 0; p < kPositions; ++p)
    if (s.has(p)) c.require(c.is(c.in(s.at[p]), DType::kFloat32), "float unidirectional_sequence_lstm needs float32 operands");
  c.require(c.is(c.out(0), DType::kFloat32), "float unidirectional_sequence_lstm needs a float32 output");
  const float clip = c.attr_float("cell_clip_f32", 0.0f);
  ModelKernel k("unidirectional_sequence_lstm float32");
  k.work.macs = z.batch * z.time * 4 * z.state * (z.input + z.state);
  k.work.alu_ops = z.batch * z.time * z.state * 16;
  // ActivationFunctionWithMinMax with no activation: only infinities change.
  auto bounded = [](float v) {
    return std::min(std::max(v, std::numeric_limits<float>::lowest()), std::numeric_limits<float>::max());
  };
  const size_t buffer = static_cast<size_t>(4 * z.state * (z.time_major ? z.batch : 1));
  auto scratch_buffers = std::make_shared<std::vector<float>>(buffer);
  k.run = [s, z, clip, scratch_buffers, bounded](const Operand* in, const Operand* out) {
    std::vector<float>& buf = *scratch_buffers;
    auto fc = [&](const float* x, int64_t depth, int64_t rows, const float* w, const float* bias, float* y) {
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t o = 0; o < z.state; ++o) {
          float total = 0.f;
          for (int64_t d = 0; d < depth; ++d) total += x[r * depth + d] * w[o * depth + d];
          y[r * z.state + o] = bounded(total + (bias ? bias[o] : 0.0f));
        }
    };
    for_each_step(z, [&](const StepView& v) {
      const int64_t n = v.rows * z.state;
      float* hidden = as_mut<float>(in[s.at[kHiddenState]]) + v.state_at;
      float* cell = as_mut<float>(in[s.at[kCellState]]) + v.state_at;
      float *forget = buf.data(), *input = forget + n, *cell_gate = forget + 2 * n, *scratch = forget + 3 * n;
      auto gate = [&](int g, float* y) {
        fc(as<float>(in[s.at[kInput]]) + v.input_at, z.input, v.rows, as<float>(in[s.at[kInputWeights + g]]),
           as<float>(in[s.at[kGateBias + g]]), y);
        fc(hidden, z.state, v.rows, as<float>(in[s.at[kRecurrentWeights + g]]), nullptr, scratch);
        for (int64_t i = 0; i < n; ++i) {
          const float a = y[i] + scratch[i];
          if (g == kCellGate) {
            y[i] = std::tanh(a);
          } else {
            y[i] = a > 16.619047164916992188f ? 1.0f : a < -9.f ? std::exp(a) : 1.f / (1.f + std::exp(-a));
          }
        }
      };
      gate(kForgetGate, forget);
      gate(kInputGate, input);
      gate(kCellGate, cell_gate);
      for (int64_t i = 0; i < n; ++i) cell[i] = bounded(forget[i] * cell[i]);
      for (int64_t i = 0; i < n; ++i) scratch[i] = bounded(input[i] * cell_gate[i]);
      for (int64_t i = 0; i < n; ++i) cell[i] = cell[i] + scratch[i];
      if (clip > 0)
        for (int64_t i = 0; i < n; ++i) cell[i] = std::max(std::min(clip, cell[i]), -clip);
      float* output_gate = input;
      gate(kOutputGate, output_gate);
      for (int64_t i = 0; i < n; ++i) hidden[i] = bounded(std::tanh(cell[i]) * output_gate[i]);
      std::copy(hidden, hidden + n, as_mut<float>(out[0]) + v.output_at);
    });
  };
  return k;
}

}  // namespace

ModelKernel prepare_unidirectional_sequence_lstm(const KernelContext& c) {
  const Slots s = lstm_slots(c);
  c.require(c.outputs() == 1, "unidirectional_sequence_lstm has one output");
  const Tensor &hidden = c.in(s.at[kHiddenState]), &cell = c.in(s.at[kCellState]);
  c.require(hidden.persistent && cell.persistent, "unidirectional_sequence_lstm states must be variable tensors (TFLM)");
  // TFLM's only cell gate activations are tanh and sigmoid, and the file format can only say tanh.
  c.require(c.attr("activation", 0) == 4, "TFLM's unidirectional_sequence_lstm needs a tanh cell gate");
  const LstmSize z = lstm_size(c, s);
  const Tensor& x = c.in(s.at[kInput]);
  if (c.is(x, DType::kInt8))
    return integer_lstm<int8_t, int32_t>(c, s, z, "unidirectional_sequence_lstm int8 (int16 cell)");
  if (c.is(x, DType::kInt16))
    return integer_lstm<int16_t, int64_t>(c, s, z, "unidirectional_sequence_lstm int16 (int16 cell)");
  c.require(c.is(x, DType::kFloat32) && c.is(cell, DType::kFloat32),
            "unidirectional_sequence_lstm runs int8 or int16 activations with an int16 cell, or float32");
  return float_lstm(c, s, z);
}

}  // namespace arenaplan::sim
