// Internal to the schedule units: the live set as a function of the set of executed ops.
//
// Why this is sound: for a set S of executed ops (closed under predecessors), which tensors are
// live between steps depends on S alone, not on the order inside S: a tensor produced in S is
// live iff it is pinned (graph output, retained) or has a consumer outside S; a graph input is
// live iff pinned or it has a consumer outside S; persistent state always. During the next op o,
// the live bytes are live(S) + o's outputs + o's scratch (its inputs are already in live(S)).
// Buffers merged by in-place aliasing are one group, live while any member is. The first step
// also holds graph inputs nobody reads. Asynchronous reads make lifetimes depend on step
// distances, which sets cannot express: the model then gives a lower bound per order (it ignores
// the extensions) and exact() is false.
#pragma once

#include <cstdint>
#include <vector>

#include "core/graph/graph.h"

namespace arenaplan::schedule_detail {

using Word = uint64_t;

// A set of ops as a bitset of `words` 64-bit words.
inline bool test_bit(const Word* s, int i) { return (s[i >> 6] >> (i & 63)) & 1; }
inline void set_bit(Word* s, int i) { s[i >> 6] |= Word{1} << (i & 63); }

struct StepCost {
  Bytes during = 0;  // live bytes while the op runs
  Bytes after = 0;   // live bytes between this op and the next
};

class LiveModel {
 public:
  explicit LiveModel(const Graph& g);

  const Graph& graph() const { return *g_; }
  int ops() const { return static_cast<int>(preds_.size()); }
  int words() const { return words_; }
  bool exact() const { return exact_; }
  Bytes empty_live() const { return empty_live_; }  // live bytes before the first op
  const std::vector<std::vector<OpId>>& preds() const { return preds_; }
  const std::vector<std::vector<OpId>>& succs() const { return succs_; }
  // Ops that read only constants and persistent state and have no scratch: they may be sunk to
  // just before their first consumer without raising the peak.
  bool sinkable(OpId o) const { return sinkable_[o]; }
  // Scratch plus the outputs' groups: a cheap "how much does o add" used by greedy tie-breaks.
  Bytes own_bytes(OpId o) const { return own_bytes_[o]; }

  // Cost of running o after the executed set described by `v`, whose live bytes are `live`.
  // View needs: bool done(OpId), bool pending(TensorId) (a consumer has not run),
  // bool pending_after(TensorId, OpId o) (a consumer other than o has not run), bool empty().
  template <class View>
  StepCost step(const View& v, OpId o, Bytes live) const;

  // Walk-the-order view: executed flags and remaining consumer counts, applied op by op.
  class Walker {
   public:
    explicit Walker(const LiveModel& m);
    StepCost cost(OpId o) const { return m_->step(*this, o, live_); }
    void apply(OpId o);  // runs o (it must be ready)
    void undo(OpId o);   // reverts the last apply(o)
    Bytes live() const { return live_; }
    bool ready(OpId o) const { return !done_[o] && missing_[o] == 0; }
    bool done(OpId o) const { return done_[o]; }
    bool pending(TensorId t) const { return remaining_[t] > 0; }
    bool pending_after(TensorId t, OpId o) const { return remaining_[t] - (m_->reads(o, t) ? 1 : 0) > 0; }
    bool empty() const { return executed_ == 0; }

   private:
    const LiveModel* m_;
    std::vector<char> done_;
    std::vector<int> remaining_;  // per tensor: consumers not yet run
    std::vector<int> missing_;    // per op: predecessors not yet run
    std::vector<Bytes> live_stack_;
    Bytes live_ = 0;
    int executed_ = 0;
  };

  // Bitset view over a set of executed ops.
  class SetView {
   public:
    SetView(const LiveModel& m, const Word* set) : m_(&m), s_(set) {}
    bool done(OpId o) const { return test_bit(s_, o); }
    bool pending(TensorId t) const;
    bool pending_after(TensorId t, OpId o) const;
    bool empty() const;

   private:
    const LiveModel* m_;
    const Word* s_;
  };

  bool reads(OpId o, TensorId t) const;
  const std::vector<TensorId>& distinct_inputs(OpId o) const { return reads_[o]; }
  // Per tensor: its in-place group (-1: never in the arena) and that group's bytes.
  int group(TensorId t) const { return group_of_[t]; }
  int groups() const { return static_cast<int>(group_bytes_.size()); }
  Bytes group_bytes(int grp) const { return group_bytes_[grp]; }
  bool always_live(TensorId t) const { return kind_[t] == Kind::kAlways; }
  bool graph_input(TensorId t) const { return kind_[t] == Kind::kInput; }
  bool produced(TensorId t) const { return kind_[t] == Kind::kProduced; }
  bool pinned(TensorId t) const { return pinned_[t]; }
  Bytes scratch(OpId o) const { return scratch_[o]; }
  Bytes first_step_extra() const { return first_step_extra_; }
  // Live bytes after executing exactly the ops in `set` (must be closed under predecessors).
  Bytes live_after_set(const Word* set) const;

 private:
  enum class Kind : uint8_t { kNone, kAlways, kInput, kProduced };
  const Graph* g_;
  int words_ = 1;
  bool exact_ = true;
  Bytes empty_live_ = 0;
  Bytes first_step_extra_ = 0;  // graph inputs nobody reads: live during the first step only
  std::vector<std::vector<OpId>> preds_, succs_;
  std::vector<Kind> kind_;
  std::vector<char> pinned_;
  std::vector<int> group_of_;
  std::vector<Bytes> group_bytes_;
  std::vector<std::vector<TensorId>> group_members_;
  std::vector<std::vector<int>> touched_;        // per op: groups of its inputs and outputs
  std::vector<std::vector<TensorId>> reads_;     // per op: distinct inputs
  std::vector<char> sinkable_;
  std::vector<Bytes> own_bytes_;
  std::vector<Bytes> scratch_;
};

template <class View>
StepCost LiveModel::step(const View& v, OpId o, Bytes live) const {
  Bytes during = live + scratch_[o] + (v.empty() ? first_step_extra_ : 0);
  Bytes after = live;
  for (int grp : touched_[o]) {
    bool before = false, now = false, later = false;
    for (TensorId t : group_members_[grp]) {
      switch (kind_[t]) {
        case Kind::kNone: break;
        case Kind::kAlways: before = now = later = true; break;
        case Kind::kInput: {
          bool b = pinned_[t] || v.pending(t);
          before |= b;
          now |= b;
          later |= pinned_[t] || v.pending_after(t, o);
          break;
        }
        case Kind::kProduced: {
          const OpId p = g_->tensors[t].producer;
          const bool made = v.done(p);
          const bool b = made && (pinned_[t] || v.pending(t));
          before |= b;
          now |= b || p == o;
          later |= (made || p == o) && (pinned_[t] || v.pending_after(t, o));
          break;
        }
      }
    }
    const Bytes size = group_bytes_[grp];
    if (now && !before) during += size;
    if (later && !before) after += size;
    if (before && !later) after -= size;
  }
  return {during, after};
}

}  // namespace arenaplan::schedule_detail
