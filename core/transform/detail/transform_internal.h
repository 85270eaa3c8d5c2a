// Helpers shared by the rewrite units (transform_*.cpp); not part of the public interface.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "core/sim/sim_kernels.h"
#include "core/transform/transform.h"

namespace arenaplan::transform_detail {

// Throws InputError(where, "refused: " + reason).
[[noreturn]] void refuse(const std::string& where, const std::string& reason);

// Tensor by name or a refusal naming it.
TensorId tensor_named(const Graph& g, const std::string& name, const std::string& where);
OpId op_named(const Graph& g, const std::string& name, const std::string& where);

// The constant integers of an int32/int64 operand (PAD paddings), or a refusal naming `what`.
std::vector<int64_t> constant_ints(const Tensor& t, const std::string& where, const std::string& what);

// Removes tensors (and renumbers every reference); ops must no longer mention them.
void drop_tensors(Graph& g, const std::set<TensorId>& drop);

// link_tensors + validate_graph, then puts the ops in topological order (closest to the current
// order) so the file order is a schedule. Structural errors come back as refusals of `where`.
Graph finish(Graph g, const std::string& where);

// "KIND:OP" for every op `wanted` picks on which `rewrite(g, op name)` is legal: the candidates of
// a rewrite that names one op (the search only needs the legal places).
std::vector<std::string> legal_op_specs(const Graph& g, const std::string& kind, bool (*wanted)(const Op&),
                                        Rewrite (*rewrite)(const Graph&, const std::string&));

// A fresh tensor or op name based on `base` that the graph does not use yet.
std::string fresh_tensor_name(const Graph& g, const std::string& base);
std::string fresh_op_name(const Graph& g, const std::string& base);

// True when `to` can be reached from `from` along producer -> consumer edges.
bool depends_on(const Graph& g, OpId to, OpId from);

// Step of each op in the file order.
std::vector<Step> file_steps(const Graph& g);

// A tensor's shape as numbers (a symbolic dim at its bound); empty for a tensor given as bytes.
inline std::vector<int64_t> dims_of(const Tensor& t) {
  std::vector<int64_t> d;
  for (const ShapeDim& s : t.shape) d.push_back(s.value);
  return d;
}

// Same scales and zero points (or both unquantized): one tensor's bytes read as the other's.
inline bool same_quantization(const Tensor& a, const Tensor& b) {
  if (!a.quant || !b.quant) return !a.quant && !b.quant;
  return a.quant->scale == b.quant->scale && a.quant->zero_point == b.quant->zero_point;
}

// An op's integer attr, or `fallback` when absent.
inline int64_t attr_of(const Op& op, const char* name, int64_t fallback) {
  auto it = op.attrs.find(name);
  return it == op.attrs.end() ? fallback : it->second;
}

// True when a window op has explicit padding of its own (attrs pad_h/_w, pad_bottom/_right).
inline bool has_padding(const Op& op) {
  return attr_of(op, "pad_h", 0) || attr_of(op, "pad_w", 0) || attr_of(op, "pad_bottom", 0) ||
         attr_of(op, "pad_right", 0);
}

// True for an activation the model kernels compute on: int8 with per-tensor quantization (they refuse
// per-channel activations) or float32. Rewrites that need those kernels' arithmetic (in-place convs,
// channel streaming) test an op's activations with it; hand-written graphs' plain int8 fails it.
inline bool model_activation(const Tensor& t) {
  return (t.dtype == DType::kInt8 && t.quant && t.quant->scale.size() == 1) || t.dtype == DType::kFloat32;
}

// Kinds of a (possibly fused) op: "conv2d+relu" -> {"conv2d", "relu"}.
std::vector<std::string> split(const std::string& text, char sep);

// Work of a fused op as one kernel: the sum of its parts' kernel work (transform_eval.cpp).
sim::KernelWork fused_work(const Graph& g, OpId o);

}  // namespace arenaplan::transform_detail
