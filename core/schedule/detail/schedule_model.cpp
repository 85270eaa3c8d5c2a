#include "core/schedule/detail/schedule_model.h"

#include "core/graph/lifetime.h"

#include <algorithm>
#include <numeric>

namespace arenaplan::schedule_detail {

namespace {
int find_root(std::vector<int>& parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}
}  // namespace

LiveModel::LiveModel(const Graph& g) : g_(&g) {
  const int n = static_cast<int>(g.ops.size());
  const int nt = static_cast<int>(g.tensors.size());
  words_ = std::max(1, (n + 63) / 64);
  preds_ = op_predecessors(g);
  succs_.assign(n, {});
  for (int o = 0; o < n; ++o)
    for (OpId p : preds_[o]) succs_[p].push_back(o);

  // The lifetime contract analyze_lifetimes uses (tensor_residence), as the model's kinds.
  kind_.assign(nt, Kind::kNone);
  pinned_.assign(nt, 0);
  const std::vector<TensorResidence> residence = tensor_residences(g);  // linear, not a search per tensor
  for (int t = 0; t < nt; ++t) {
    const TensorResidence& r = residence[t];
    switch (r.residence) {
      case Residence::kOutside: break;
      case Residence::kWholeRun: kind_[t] = Kind::kAlways; break;
      case Residence::kFromInput:
        pinned_[t] = r.held_to_end;
        kind_[t] = r.held_to_end ? Kind::kAlways : Kind::kInput;
        break;
      case Residence::kFromProducer:
        pinned_[t] = r.held_to_end;
        kind_[t] = Kind::kProduced;
        break;
    }
  }

  // In-place groups, merged exactly when analyze_lifetimes merges them (input held in the arena).
  std::vector<int> parent(nt);
  std::iota(parent.begin(), parent.end(), 0);
  for (const Op& op : g.ops)
    for (const InPlace& ip : op.in_place)
      if (kind_[ip.input] != Kind::kNone) parent[find_root(parent, ip.output)] = find_root(parent, ip.input);
  group_of_.assign(nt, -1);
  std::vector<int> group_of_root(nt, -1);
  for (int t = 0; t < nt; ++t) {
    if (kind_[t] == Kind::kNone) continue;
    int root = find_root(parent, t);
    if (group_of_root[root] < 0) {
      group_of_root[root] = static_cast<int>(group_bytes_.size());
      group_bytes_.push_back(0);
      group_members_.emplace_back();
    }
    int grp = group_of_root[root];
    group_of_[t] = grp;
    group_members_[grp].push_back(t);
    group_bytes_[grp] = std::max(group_bytes_[grp], align_up(g.tensors[t].bytes, g.alignment));
  }

  touched_.assign(n, {});
  reads_.assign(n, {});
  scratch_.assign(n, 0);
  own_bytes_.assign(n, 0);
  sinkable_.assign(n, 0);
  for (int o = 0; o < n; ++o) {
    const Op& op = g.ops[o];
    for (TensorId t : op.inputs)
      if (std::find(reads_[o].begin(), reads_[o].end(), t) == reads_[o].end()) reads_[o].push_back(t);
    auto touch = [&](TensorId t) {
      int grp = group_of_[t];
      if (grp >= 0 && std::find(touched_[o].begin(), touched_[o].end(), grp) == touched_[o].end())
        touched_[o].push_back(grp);
    };
    for (TensorId t : reads_[o]) touch(t);
    for (TensorId t : op.outputs) touch(t);
    scratch_[o] = op.scratch_bytes > 0 ? align_up(op.scratch_bytes, g.alignment) : 0;
    own_bytes_[o] = scratch_[o];
    for (TensorId t : op.outputs)
      if (group_of_[t] >= 0 && kind_[t] == Kind::kProduced) own_bytes_[o] += group_bytes_[group_of_[t]];
    for (const AsyncRead& a : op.async_reads)
      if (a.extra_steps > 0) exact_ = false;
  }

  // Live before any op: inputs someone reads, pinned inputs, persistent state.
  for (size_t grp = 0; grp < group_members_.size(); ++grp) {
    bool live = false;
    for (TensorId t : group_members_[grp])
      live |= kind_[t] == Kind::kAlways || (kind_[t] == Kind::kInput && !g.tensors[t].consumers.empty());
    if (live) empty_live_ += group_bytes_[grp];
  }
  for (int t = 0; t < nt; ++t)
    if (kind_[t] == Kind::kInput && g.tensors[t].consumers.empty()) first_step_extra_ += group_bytes_[group_of_[t]];

  // Sinking changes which op runs first; with unread inputs on the first step that can cost.
  if (first_step_extra_ == 0) {
    for (int o = 0; o < n; ++o) {
      const Op& op = g.ops[o];
      bool ok = preds_[o].empty() && scratch_[o] == 0 && op.in_place.empty() && op.async_reads.empty();
      for (TensorId t : reads_[o]) ok = ok && (kind_[t] == Kind::kNone || kind_[t] == Kind::kAlways);
      sinkable_[o] = ok;
    }
  }
}

bool LiveModel::reads(OpId o, TensorId t) const {
  const auto& r = reads_[o];
  return std::find(r.begin(), r.end(), t) != r.end();
}

// Consumer lists, not per-tensor bitsets of every op: those took tensors x ops bits (1.25 GB at
// 100,000 ops) and a scan of every word per query; a tensor has a handful of consumers.
bool LiveModel::SetView::pending(TensorId t) const {
  for (OpId c : m_->g_->tensors[t].consumers)
    if (!test_bit(s_, c)) return true;
  return false;
}

bool LiveModel::SetView::pending_after(TensorId t, OpId o) const {
  for (OpId c : m_->g_->tensors[t].consumers)
    if (c != o && !test_bit(s_, c)) return true;
  return false;
}

bool LiveModel::SetView::empty() const {
  for (int w = 0; w < m_->words_; ++w)
    if (s_[w]) return false;
  return true;
}

Bytes LiveModel::live_after_set(const Word* set) const {
  SetView v(*this, set);
  Bytes live = 0;
  for (size_t grp = 0; grp < group_members_.size(); ++grp) {
    bool on = false;
    for (TensorId t : group_members_[grp]) {
      switch (kind_[t]) {
        case Kind::kNone: break;
        case Kind::kAlways: on = true; break;
        case Kind::kInput: on |= pinned_[t] || v.pending(t); break;
        case Kind::kProduced:
          on |= v.done(g_->tensors[t].producer) && (pinned_[t] || v.pending(t));
          break;
      }
    }
    if (on) live += group_bytes_[grp];
  }
  return live;
}

LiveModel::Walker::Walker(const LiveModel& m)
    : m_(&m), done_(m.ops(), 0), remaining_(m.g_->tensors.size(), 0), missing_(m.ops(), 0) {
  for (size_t t = 0; t < m.g_->tensors.size(); ++t)
    remaining_[t] = static_cast<int>(m.g_->tensors[t].consumers.size());
  for (int o = 0; o < m.ops(); ++o) missing_[o] = static_cast<int>(m.preds_[o].size());
  live_ = m.empty_live_;
}

void LiveModel::Walker::apply(OpId o) {
  StepCost c = cost(o);
  live_stack_.push_back(live_);
  live_ = c.after;
  done_[o] = 1;
  ++executed_;
  for (TensorId t : m_->reads_[o]) --remaining_[t];
  for (OpId s : m_->succs_[o]) --missing_[s];
}

void LiveModel::Walker::undo(OpId o) {
  for (OpId s : m_->succs_[o]) ++missing_[s];
  for (TensorId t : m_->reads_[o]) ++remaining_[t];
  --executed_;
  done_[o] = 0;
  live_ = live_stack_.back();
  live_stack_.pop_back();
}

}  // namespace arenaplan::schedule_detail
