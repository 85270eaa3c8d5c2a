// Anytime search for graphs too big for the exact search: a beam over sets of executed ops. Level
// k keeps the `width` best sets of k main ops (equal sets merged, keeping the lower running
// peak); every child whose running peak reaches the incumbent is dropped, so each completed run
// is a strict improvement. Runs repeat with doubling widths and two rankings (running peak first,
// or live bytes first: "most room left under the incumbent"), until the width no longer fits the
// memory cap. Memory is counted from the containers' capacities and checked before growth.
#include <algorithm>

#include "core/schedule/detail/schedule_internal.h"

namespace arenaplan::schedule_detail {

BeamSearch::BeamSearch(const MacroGraph& mg, Bytes incumbent_peak, int64_t memory_cap, uint64_t seed)
    : mg_(&mg), bound_(incumbent_peak), memory_cap_(memory_cap), rng_(seed) {
  if (mg.main_ops().empty()) finished_ = true;
}

int64_t BeamSearch::run_memory(int64_t width) const {
  // History (parent, op) for every level, plus two levels of nodes, keys and ready lists.
  const int64_t levels = static_cast<int64_t>(mg_->main_ops().size());
  const int64_t w = mg_->model().words();
  // Ready lists: the most ready ops any node had so far (before the first run: all main ops).
  const int64_t ready = max_ready_ > 0 ? max_ready_ + 1 : levels + 1;
  return levels * width * 8 + 2 * width * (static_cast<int64_t>(sizeof(Node)) + w * 8 + 4 * ready);
}

bool BeamSearch::advance(int64_t& budget) {
  const LiveModel& m = mg_->model();
  const int w = m.words();
  const int main_count = static_cast<int>(mg_->main_ops().size());
  while (!finished_ && budget > 0) {
    if (!in_run_) {
      int64_t width = width_;
      int variant = variant_;
      if (width == 0) {
        width = 1;
        variant = 0;
      } else if (variant == 0) {
        variant = 1;
      } else {
        width *= 2;
        variant = 0;
      }
      // Half the cap for the beam itself; children and their hash table get the other half.
      if (run_memory(width) > memory_cap_ / 2 || width > (int64_t{1} << 22)) {
        finished_ = exhausted_ = true;
        break;
      }
      if (width > max_width_) {  // paused until the caller allows wider beams
        finished_ = true;
        break;
      }
      width_ = width;
      variant_ = variant;
      history_.clear();
      nodes_.assign(1, {0, m.empty_live(), -1, -1});
      keys_.assign(w, 0);
      ready_.clear();
      ready_begin_.assign(1, 0);
      for (OpId o : mg_->main_ops())
        if (mg_->ready(keys_.data(), o)) ready_.push_back(o);
      ready_begin_.push_back(static_cast<int32_t>(ready_.size()));
      level_ = 0;
      in_run_ = true;
    }
    // One level: children of every node, merged by set. It pauses between nodes when the budget
    // runs out and resumes on the next call, so a level's size never delays the caller.
    if (!level_in_progress_) level_in_progress_ = std::make_unique<LevelInProgress>(w);
    LevelInProgress& lv = *level_in_progress_;
    SetTable& table = lv.table;
    std::vector<Candidate>& cands = lv.cands;
    std::vector<Word>& set = lv.set;
    bool& truncated = lv.truncated;
    const bool finishing = level_ + 1 == main_count;
    const int64_t fixed = static_cast<int64_t>(
        history_.capacity() * sizeof(history_[0]) + nodes_.capacity() * sizeof(Node) +
        keys_.capacity() * sizeof(Word) + ready_.capacity() * sizeof(int32_t));
    int64_t history_bytes = 0;
    for (const auto& h : history_) history_bytes += static_cast<int64_t>(h.capacity() * sizeof(h[0]));
    for (; lv.next_node < nodes_.size() && !truncated; ++lv.next_node) {
      if (budget <= 0) return finished_;  // resumes at this node
      const size_t i = lv.next_node;
      const Node& node = nodes_[i];
      const Word* key = &keys_[static_cast<size_t>(i) * w];
      size_t first_child = cands.size();
      for (int32_t r = ready_begin_[i]; r < ready_begin_[i + 1]; ++r) {
        OpId o = ready_[r];
        std::copy(key, key + w, set.begin());
        Bytes l = node.live;
        Bytes peak = std::max(node.g, mg_->run(set.data(), o, l, finishing));
        ++states_;
        --budget;
        if (peak >= bound_) continue;
        const bool dominant = peak <= node.g && l <= node.live;
        // Never exceed the cap: check what this insertion could grow to before making it.
        int64_t now = fixed + history_bytes + table.memory_bytes() +
                      static_cast<int64_t>(cands.capacity() * sizeof(Candidate));
        int64_t grow = table.memory_after_growth() - table.memory_bytes();
        if (cands.size() == cands.capacity()) grow += static_cast<int64_t>(std::max<size_t>(cands.capacity(), 16) * sizeof(Candidate));
        if (now + grow > memory_cap_) {
          truncated = true;
          break;
        }
        memory_peak_ = std::max(memory_peak_, now);
        bool inserted = false;
        int64_t idx = table.find_or_insert(set.data(), inserted);
        Candidate c{peak, l, static_cast<int32_t>(i), o, splitmix64(rng_)};
        if (inserted) cands.push_back(c);
        else if (peak < cands[idx].g) cands[idx] = c;
        if (dominant) {
          // Dominance: this op first is never worse, so the node has only this child. Earlier
          // children of this node stay in the table as harmless, weaker duplicates.
          (void)first_child;
          break;
        }
      }
    }
    if (cands.empty()) {  // every continuation reaches the incumbent: this run cannot improve
      level_in_progress_.reset();
      in_run_ = false;
      continue;
    }
    std::vector<int32_t> pick(cands.size());
    for (size_t i = 0; i < pick.size(); ++i) pick[i] = static_cast<int32_t>(i);
    auto rank = [&](int32_t a, int32_t b) {
      const Candidate& x = cands[a];
      const Candidate& y = cands[b];
      if (variant_ == 0) {
        if (x.g != y.g) return x.g < y.g;
        if (x.live != y.live) return x.live < y.live;
      } else {
        if (x.live != y.live) return x.live < y.live;
        if (x.g != y.g) return x.g < y.g;
      }
      return x.tie < y.tie;
    };
    if (static_cast<int64_t>(pick.size()) > width_) {
      std::nth_element(pick.begin(), pick.begin() + width_, pick.end(), rank);
      pick.resize(width_);
      // nth_element leaves the kept ones in an order each standard library chooses; the next
      // level's ties go to the first node, so keep them in the order they were made.
      std::sort(pick.begin(), pick.end());
    }
    std::vector<Node> next_nodes;
    std::vector<Word> next_keys;
    std::vector<int32_t> next_ready_list, next_ready_begin;
    next_nodes.reserve(pick.size());
    next_keys.reserve(pick.size() * w);
    history_.emplace_back();
    history_.back().reserve(pick.size());
    next_ready_begin.push_back(0);
    for (int32_t p : pick) {
      const Candidate& c = cands[p];
      const Word* k = table.key(p);
      next_keys.insert(next_keys.end(), k, k + w);
      next_nodes.push_back({c.g, c.live, static_cast<int32_t>(history_.back().size()), c.op});
      history_.back().push_back({c.parent, c.op});
      for (int32_t r = ready_begin_[c.parent]; r < ready_begin_[c.parent + 1]; ++r)
        if (ready_[r] != c.op) next_ready_list.push_back(ready_[r]);
      for (OpId s : m.succs()[c.op])
        if (mg_->ready(k, s)) next_ready_list.push_back(s);
      next_ready_begin.push_back(static_cast<int32_t>(next_ready_list.size()));
      max_ready_ = std::max<int64_t>(max_ready_, next_ready_begin.back() - next_ready_begin[next_ready_begin.size() - 2]);
    }
    int64_t held = history_bytes + static_cast<int64_t>(history_.back().capacity() * 8) + table.memory_bytes() +
                   static_cast<int64_t>(cands.capacity() * sizeof(Candidate) + next_nodes.capacity() * sizeof(Node) +
                                        next_keys.capacity() * sizeof(Word) +
                                        (next_ready_list.capacity() + next_ready_begin.capacity()) * 4) +
                   fixed;
    memory_peak_ = std::max(memory_peak_, held);
    nodes_ = std::move(next_nodes);
    keys_ = std::move(next_keys);
    ready_ = std::move(next_ready_list);
    ready_begin_ = std::move(next_ready_begin);
    level_in_progress_.reset();
    ++level_;
    if (level_ == main_count) {
      size_t best = 0;
      for (size_t i = 1; i < nodes_.size(); ++i)
        if (nodes_[i].g < nodes_[best].g) best = i;
      if (nodes_[best].g < bound_) {
        std::vector<OpId> main;
        int32_t j = static_cast<int32_t>(best);
        for (int lvl = level_ - 1; lvl >= 0; --lvl) {
          main.push_back(history_[lvl][j].second);
          j = history_[lvl][j].first;
        }
        std::reverse(main.begin(), main.end());
        best_ = mg_->expand(main);
        best_peak_ = nodes_[best].g;
        bound_ = best_peak_;
      }
      in_run_ = false;
    }
  }
  return finished_;
}

}  // namespace arenaplan::schedule_detail
