// Quantization at the model's edge moved to the caller. An int8 network converted from float often
// starts with QUANTIZE (float32 input -> int8) and ends with DEQUANTIZE: the float input (4 bytes
// an element) and its int8 copy coexist in the arena at the first step. When the firmware quantizes
// the sensor data itself (or reads int8 output), those ops and the float tensors disappear.
//
// This changes the model's interface, not its arithmetic: the rewrite's `interface_change` says
// what the firmware must now do, with the scale and zero point, and the what-if output check feeds
// the rewritten graph quantize(original input) (transform_eval.cpp: outputs_match), so the
// comparison stays bit-exact.
#include <cstdio>

#include "core/transform/transform.h"
#include "core/transform/detail/transform_internal.h"

namespace arenaplan {

using namespace transform_detail;

namespace {

// "scale 0.0039215689, zero point -128" (scale with the digits a float needs to round-trip).
std::string quantization_text(const Tensor& t) {
  char scale[32];
  std::snprintf(scale, sizeof scale, "%.9g", static_cast<double>(t.quant->scale[0]));
  return std::string("scale ") + scale + ", zero point " + std::to_string(t.quant->zero_point[0]);
}

// The integer range of the quantized type, as TFLite's QUANTIZE clamps to it.
std::string range_text(const Tensor& t) { return t.dtype == DType::kInt16 ? "[-32768, 32767]" : "[-128, 127]"; }

std::string shape_text(const Tensor& t) {
  std::string s = std::string(t.dtype ? dtype_name(*t.dtype) : "untyped") + " [";
  for (size_t i = 0; i < t.shape.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(t.shape[i].value);
  }
  return s + "]";
}

bool per_tensor_integer(const Tensor& t) {
  return (t.dtype == DType::kInt8 || t.dtype == DType::kInt16) && t.quant && t.quant->scale.size() == 1 &&
         t.quant->zero_point.size() == 1;
}

void check_edge_op(const Graph& g, const Op& op, const std::string& where) {
  if (op.inputs.size() != 1 || op.outputs.size() != 1)
    refuse(where, "op " + op.name + " needs one input and one output");
  if (!op.in_place.empty()) refuse(where, "op " + op.name + " runs in place; move it to the caller instead");
  for (TensorId t : {op.inputs[0], op.outputs[0]})
    for (const Op& other : g.ops)
      for (const AsyncRead& a : other.async_reads)
        if (a.tensor == t) refuse(where, "tensor " + g.tensors[t].name + " is read asynchronously by op " + other.name);
}

// The graph without edge op `o`: the graph boundary `side` (its inputs or its outputs) lists `kept`
// where it listed `gone`, and `gone`, which only `o` touched, is dropped with the op.
Graph bypass_op(const Graph& g, OpId o, std::vector<TensorId> Graph::*side, TensorId gone, TensorId kept,
                const std::string& where) {
  Graph out = g;
  for (TensorId& t : out.*side)
    if (t == gone) t = kept;
  out.ops.erase(out.ops.begin() + o);
  drop_tensors(out, {gone});
  return finish(std::move(out), where);
}

// QUANTIZE of a graph input: the int8 tensor becomes the input.
Rewrite input_quantize(const Graph& g, OpId o, const std::string& where) {
  const Op& op = g.ops[o];
  const TensorId x = op.inputs[0], q = op.outputs[0];
  const Tensor& X = g.tensors[x];
  const Tensor& Q = g.tensors[q];
  if (!g.is_input(x))
    refuse(where, "op " + op.name + " quantizes " + X.name + ", which is not a graph input: only the model's "
                  "entry quantization can move to the caller");
  if (X.dtype != DType::kFloat32) refuse(where, "op " + op.name + "'s input " + X.name + " is not float32");
  if (!per_tensor_integer(Q))
    refuse(where, "op " + op.name + "'s output " + Q.name + " is not int8/int16 with one scale and zero point");
  if (X.consumers.size() != 1 || g.is_output(x))
    refuse(where, "graph input " + X.name + " is also read by other ops (or is a graph output), so the float "
                  "input must still be given");
  Rewrite r;
  r.graph = bypass_op(g, o, &Graph::inputs, x, q, where);
  r.interface_change = "the firmware must feed " + Q.name + " (" + shape_text(Q) + ") quantized with " +
                       quantization_text(Q) + ": q = clamp(round(x / scale) + zero point, " + range_text(Q) + ") of the float input " +
                       X.name + ", instead of the float input itself";
  r.summary = "QUANTIZE " + op.name + " moved to the caller: the graph input is " + Q.name + " (" +
              format_bytes(Q.bytes) + ") instead of " + X.name + " (" + shape_text(X) + ", " + format_bytes(X.bytes) +
              "); " + r.interface_change;
  r.figures["vanished_bytes"] = X.bytes;
  return r;
}

// DEQUANTIZE producing a graph output: the int8 tensor becomes the output.
Rewrite output_dequantize(const Graph& g, OpId o, const std::string& where) {
  const Op& op = g.ops[o];
  const TensorId q = op.inputs[0], y = op.outputs[0];
  const Tensor& Q = g.tensors[q];
  const Tensor& Y = g.tensors[y];
  if (!g.is_output(y) || !Y.consumers.empty())
    refuse(where, "op " + op.name + "'s output " + Y.name + " is not a graph output read by no op: only the "
                  "model's exit dequantization can move to the caller");
  if (!per_tensor_integer(Q))
    refuse(where, "op " + op.name + "'s input " + Q.name + " is not int8/int16 with one scale and zero point");
  if (g.is_output(q)) refuse(where, Q.name + " is already a graph output");
  if (Q.constant) refuse(where, "op " + op.name + " dequantizes a constant");
  Rewrite r;
  r.graph = bypass_op(g, o, &Graph::outputs, y, q, where);
  r.interface_change = "the firmware reads " + Q.name + " (" + shape_text(Q) + ") and must dequantize it with " +
                       quantization_text(Q) + ": x = scale * (q - zero point), instead of reading " + Y.name;
  r.summary = "DEQUANTIZE " + op.name + " moved to the caller: the graph output is " + Q.name + " (" +
              format_bytes(Q.bytes) + ") instead of " + Y.name + " (" + format_bytes(Y.bytes) + "); " +
              r.interface_change;
  r.figures["vanished_bytes"] = Y.bytes;
  return r;
}

}  // namespace

Rewrite quantize_in_caller(const Graph& g, const std::string& op_name) {
  const std::string where = "callerquant:" + op_name;
  const OpId o = op_named(g, op_name, where);
  const Op& op = g.ops[o];
  if (op.kind != "quantize" && op.kind != "dequantize")
    refuse(where, "op " + op.name + " (kind \"" + op.kind + "\") is not a QUANTIZE or DEQUANTIZE");
  check_edge_op(g, op, where);
  // With the float input already outside the arena (caller-owned), the moved QUANTIZE would take
  // the int8 image out of the count as well: a different count, not a saving.
  if (op.kind == "quantize" && g.input_policy == InputPolicy::kCallerOwned)
    refuse(where, "the graph inputs are caller-owned (outside the arena) already; moving QUANTIZE " + op.name +
                      " to the caller would take its int8 output out of the arena's count too");
  return op.kind == "quantize" ? input_quantize(g, o, where) : output_dequantize(g, o, where);
}

std::vector<std::string> callerquant_candidates(const Graph& g) {
  // Every QUANTIZE reading a graph input and every DEQUANTIZE writing a graph output: no other
  // rewrite makes more of them, and apply refuses the rest.
  std::vector<std::string> out;
  for (const Op& op : g.ops) {
    if (op.inputs.size() != 1 || op.outputs.size() != 1 || op.name.find_first_of(",=@:") != std::string::npos) continue;
    if ((op.kind == "quantize" && g.is_input(op.inputs[0])) || (op.kind == "dequantize" && g.is_output(op.outputs[0])))
      out.push_back("callerquant:" + op.name);
  }
  return out;
}

}  // namespace arenaplan
