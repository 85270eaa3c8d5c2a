// Recomputation (rematerialisation): instead of keeping T alive from its producer P until a late
// consumer C, P runs again just before C. Memory for T's long life is traded for P's work again
// and for keeping P's own inputs alive until C.
#include <algorithm>

#include "core/transform/transform.h"
#include "core/transform/detail/transform_internal.h"

namespace arenaplan {

using namespace transform_detail;

Rewrite recompute_tensor(const Graph& g, const std::string& tensor, const std::string& consumer) {
  const std::string where = "recompute:" + tensor + "@" + consumer;
  const TensorId t = tensor_named(g, tensor, where);
  const OpId c = op_named(g, consumer, where);
  const Tensor& T = g.tensors[t];
  if (T.producer < 0) refuse(where, tensor + " is not produced by an op (graph input, constant or state): nothing to recompute it with");
  const OpId p = T.producer;
  const Op& P = g.ops[p];
  if (std::find(T.consumers.begin(), T.consumers.end(), c) == T.consumers.end())
    refuse(where, "op " + consumer + " does not read " + tensor);
  if (T.consumers.size() < 2)
    refuse(where, tensor + " has one consumer; recomputing it for that consumer only duplicates op " + P.name);
  if (P.outputs.size() != 1)
    refuse(where, "op " + P.name + " has " + std::to_string(P.outputs.size()) + " outputs; recomputing it would re-create all of them");
  if (!P.in_place.empty())
    refuse(where, "op " + P.name + " overwrites its input in place, so that input is gone when " + consumer + " runs");
  if (!P.async_reads.empty()) refuse(where, "op " + P.name + " reads asynchronously; recomputing it would repeat the transfer");
  for (const InPlace& ip : g.ops[c].in_place)
    if (ip.input == t) refuse(where, "op " + consumer + " overwrites " + tensor + " in place; recompute before making it in place");
  for (TensorId x : P.inputs) {
    const Tensor& X = g.tensors[x];
    if (X.persistent)
      refuse(where, "op " + P.name + " reads state " + X.name + ", which may have changed by the time " + consumer + " runs");
    for (const Op& other : g.ops)
      for (const InPlace& ip : other.in_place)
        if (ip.input == x)
          refuse(where, "input " + X.name + " of op " + P.name + " is overwritten in place by op " + other.name +
                            ", so it cannot be read again before " + consumer);
    // Every other input simply lives until the recomputation: that longer life is the price paid.
  }
  // The first consumer in the current order keeps the original; recomputing for it gains nothing.
  if (c == *std::min_element(T.consumers.begin(), T.consumers.end()))
    refuse(where, "op " + consumer + " is " + tensor + "'s first consumer; recompute for a later one");

  Graph out = g;
  Tensor copy = T;
  copy.name = fresh_tensor_name(out, tensor + "@" + consumer);
  copy.retained = false;
  out.tensors.push_back(copy);
  const TensorId fresh = static_cast<TensorId>(out.tensors.size() - 1);
  Op again = P;
  again.name = fresh_op_name(out, P.name + "@" + consumer);
  again.outputs = {fresh};
  again.attrs["recompute"] = 1;
  std::vector<Op> ops;
  for (size_t o = 0; o < g.ops.size(); ++o) {
    Op op = g.ops[o];
    if (static_cast<OpId>(o) == c) {
      ops.push_back(again);
      std::replace(op.inputs.begin(), op.inputs.end(), t, fresh);
      for (AsyncRead& a : op.async_reads)
        if (a.tensor == t) a.tensor = fresh;
    }
    ops.push_back(std::move(op));
  }
  out.ops = std::move(ops);
  Rewrite r;
  r.graph = finish(std::move(out), where);
  r.summary = "op " + P.name + " runs again as " + again.name + " just before " + consumer + ", so " + tensor +
              " (" + format_bytes(T.bytes) + ") no longer lives until " + consumer;
  return r;
}

}  // namespace arenaplan
