// Quantization of chosen tensors: T is stored in a narrower type between its producer and its
// consumers. The kernels around it keep their type, so a quantize op follows the producer and a
// dequantize op precedes each consumer: the wide copies are short-lived, the long-lived one is
// narrow. Whether that saves memory depends on the lifetimes, which is why it is a what-if.
#include <algorithm>
#include <cmath>

#include "core/transform/transform.h"
#include "core/transform/detail/transform_internal.h"

namespace arenaplan {

using namespace transform_detail;

float quantize_scale(const float* x, int64_t count) {
  float m = 0;
  for (int64_t i = 0; i < count; ++i)
    if (std::isfinite(x[i])) m = std::max(m, std::fabs(x[i]));
  return m > 0 ? m / 127.0f : 1.0f;
}

void quantize_values(const float* x, int64_t count, float scale, int8_t* q) {
  for (int64_t i = 0; i < count; ++i) {
    const float v = std::isfinite(x[i]) ? x[i] / scale : 0.0f;
    q[i] = static_cast<int8_t>(std::clamp(std::lround(v), -127L, 127L));
  }
}

void dequantize_values(const int8_t* q, int64_t count, float scale, float* x) {
  for (int64_t i = 0; i < count; ++i) x[i] = static_cast<float>(q[i]) * scale;
}

Rewrite quantize_tensor(const Graph& g, const std::string& tensor, DType to) {
  const std::string where = "quantize:" + tensor + "=" + dtype_name(to);
  const TensorId t = tensor_named(g, tensor, where);
  const Tensor& T = g.tensors[t];
  if (T.constant) refuse(where, tensor + " is a constant: weights live in flash, so quantizing them does not change the arena");
  if (T.persistent) refuse(where, tensor + " is persistent state, kept for the whole run in its own type");
  if (g.is_output(t) || T.retained)
    refuse(where, tensor + " is a graph output (or retained): its type is part of the model's interface");
  if (!T.dtype)
    refuse(where, tensor + " gives only a byte size; quantization needs its dtype (give \"dtype\" with its size)");
  const DType from = *T.dtype;
  if (dtype_width(to) >= dtype_width(from))
    refuse(where, std::string(dtype_name(to)) + " (" + std::to_string(dtype_width(to)) + " B) is not narrower than " +
                      tensor + "'s " + dtype_name(from) + " (" + std::to_string(dtype_width(from)) +
                      " B): it would not save memory");
  if (T.bytes % dtype_width(from) != 0)
    refuse(where, tensor + " is " + std::to_string(T.bytes) + " B, not a whole number of " + dtype_name(from));
  for (const Op& op : g.ops) {
    for (const InPlace& ip : op.in_place)
      if (ip.input == t || ip.output == t)
        refuse(where, tensor + " takes part in op " + op.name + "'s in-place pair, which needs one type");
    for (const AsyncRead& a : op.async_reads)
      if (a.tensor == t) refuse(where, tensor + " is read asynchronously by op " + op.name);
  }
  const int64_t elements = T.bytes / dtype_width(from);

  Graph out = g;
  auto narrow = [&](const std::string& name, DType type) {
    Tensor n;
    n.name = fresh_tensor_name(out, name);
    n.dtype = type;
    n.shape = T.shape;
    n.bytes = elements * dtype_width(type);
    out.tensors.push_back(n);
    return static_cast<TensorId>(out.tensors.size() - 1);
  };
  const TensorId q = narrow(tensor + ".q", to);
  Op quant;
  quant.name = fresh_op_name(out, tensor + ".quantize");
  quant.kind = "quantize";
  quant.inputs = {t};
  quant.outputs = {q};

  std::vector<Op> ops;
  if (T.producer < 0) ops.push_back(quant);
  for (size_t o = 0; o < g.ops.size(); ++o) {
    Op op = g.ops[o];
    if (std::find(op.inputs.begin(), op.inputs.end(), t) != op.inputs.end()) {
      const TensorId wide = narrow(tensor + ".dq." + op.name, from);
      Op deq;
      deq.name = fresh_op_name(out, tensor + ".dequantize." + op.name);
      deq.kind = "dequantize";
      deq.inputs = {q};
      deq.outputs = {wide};
      ops.push_back(deq);
      std::replace(op.inputs.begin(), op.inputs.end(), t, wide);
    }
    ops.push_back(op);
    if (static_cast<OpId>(o) == T.producer) ops.push_back(quant);
  }
  out.ops = std::move(ops);
  Rewrite r;
  r.graph = finish(std::move(out), where);
  r.summary = tensor + " is stored as " + dtype_name(to) + " (" + format_bytes(elements * dtype_width(to)) +
              " instead of " + format_bytes(T.bytes) + "); a quantize op and " + std::to_string(T.consumers.size()) +
              " dequantize op(s) add short-lived " + dtype_name(from) + " copies next to its consumers";
  return r;
}

bool changes_values(const Graph& g) {
  for (const Op& op : g.ops)
    for (const std::string& part : split(op.kind, '+'))
      if (part == "quantize" || part == "dequantize") return true;
  return false;
}

}  // namespace arenaplan
