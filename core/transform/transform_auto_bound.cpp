// The lower bound the rewrite search can prove: the bytes around an op that no searched rewrite
// can remove, which every reachable graph keeps live at once in every order (transform_auto.h).
#include <cstdint>
#include <set>

#include "core/transform/transform_auto.h"

namespace arenaplan {

namespace {

// Ops reachable from each op along producer -> consumer edges (strictly after it), as bitsets.
class Reach {
 public:
  explicit Reach(const Graph& g) : words_((g.ops.size() + 63) / 64), bits_(g.ops.size() * words_, 0) {
    const std::vector<OpId> order = topological_order(g);
    for (size_t i = order.size(); i-- > 0;) {
      const OpId o = order[i];
      for (TensorId t : g.ops[o].outputs)
        for (OpId c : g.tensors[t].consumers) {
          set(o, c);
          for (size_t w = 0; w < words_; ++w) bits_[o * words_ + w] |= bits_[c * words_ + w];
        }
    }
  }
  bool after(OpId from, OpId to) const { return (bits_[from * words_ + to / 64] >> (to % 64)) & 1; }

 private:
  void set(OpId from, OpId to) { bits_[from * words_ + to / 64] |= uint64_t(1) << (to % 64); }
  size_t words_;
  std::vector<uint64_t> bits_;
};

}  // namespace

Bytes auto_lower_bound(const Graph& g, const std::vector<const RewriteKind*>& kinds) {
  if (g.ops.empty()) return 0;
  // What any candidate names, with its neighbourhood: an op and its tensors, a tensor and the ops
  // that make or read it. Names that are neither (a tile count, "best") touch nothing.
  std::vector<bool> op_touched(g.ops.size(), false), tensor_touched(g.tensors.size(), false);
  auto touch_op = [&](OpId o) {
    op_touched[o] = true;
    for (TensorId t : g.ops[o].inputs) tensor_touched[t] = true;
    for (TensorId t : g.ops[o].outputs) tensor_touched[t] = true;
  };
  auto touch_name = [&](const std::string& name) {
    if (auto o = g.find_op(name)) touch_op(*o);
    if (auto t = g.find_tensor(name)) {
      tensor_touched[*t] = true;
      if (g.tensors[*t].producer >= 0) touch_op(g.tensors[*t].producer);
      for (OpId c : g.tensors[*t].consumers) touch_op(c);
    }
  };
  for (const RewriteKind* kind : kinds)
    for (const std::string& spec : kind->candidates(g)) {
      const Transformation t = parse_transformation(spec);
      for (const std::string& n : t.names) touch_name(n);
      if (!t.value.empty()) touch_name(t.value);
    }

  const LiveAnalysis live = analyze_lifetimes(g, topological_order(g));
  const std::vector<TensorResidence> residence = tensor_residences(g);
  const Reach reach(g);
  // A buffer counts only when every tensor stored in it is untouched.
  std::vector<bool> buffer_touched(live.buffers.size(), false);
  for (size_t b = 0; b < live.buffers.size(); ++b)
    for (TensorId t : live.buffers[b].tensors) buffer_touched[b] = buffer_touched[b] || tensor_touched[t];

  // Whether tensor t is live while op o runs, in every order of every reachable graph.
  auto live_around = [&](TensorId t, OpId o) {
    const Tensor& T = g.tensors[t];
    const TensorResidence& r = residence[t];
    if (r.residence == Residence::kOutside) return false;
    if (r.residence == Residence::kWholeRun) return true;
    const bool born_before = r.residence == Residence::kFromInput || (T.producer >= 0 && reach.after(T.producer, o));
    if (!born_before) return false;
    if (r.held_to_end) return true;
    for (OpId c : T.consumers)
      if (c == o || reach.after(o, c)) return true;
    return false;
  };

  Bytes bound = 0;
  for (size_t oi = 0; oi < g.ops.size(); ++oi) {
    const OpId o = static_cast<OpId>(oi);
    if (op_touched[o]) continue;
    const Op& op = g.ops[o];
    std::set<int> buffers;
    bool clean = true;
    for (const std::vector<TensorId>* list : {&op.inputs, &op.outputs})
      for (TensorId t : *list) {
        const int b = live.buffer_of_tensor[t];
        if (b < 0) continue;
        clean = clean && !buffer_touched[b];
        buffers.insert(b);
      }
    if (!clean) continue;
    for (size_t b = 0; b < live.buffers.size(); ++b) {
      const LiveBuffer& buf = live.buffers[b];
      if (buf.kind == BufferKind::kScratch) {
        if (buf.scratch_op == o) buffers.insert(static_cast<int>(b));
        continue;
      }
      if (buffer_touched[b]) continue;
      for (TensorId t : buf.tensors)
        if (live_around(t, o)) buffers.insert(static_cast<int>(b));
    }
    Bytes bytes = 0;
    for (int b : buffers) bytes += live.buffers[b].size;
    bound = std::max(bound, bytes);
  }
  return bound;
}

}  // namespace arenaplan
