// Internal to the schedule units: the pieces ScheduleSearch drives (heuristics, the exact
// best-first search, the beam search), each resumable with a budget of states.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/schedule/schedule.h"
#include "core/schedule/detail/schedule_model.h"
#include "core/schedule/detail/schedule_table.h"

namespace arenaplan::schedule_detail {

enum class GreedyRule {
  kSmallestFootprint,  // least live bytes while the op runs (the naive baseline)
  kMostFreed,          // least live bytes after the op (frees the most), then footprint
};
Schedule greedy_order(const LiveModel& m, GreedyRule rule);
Bytes model_peak(const LiveModel& m, const Schedule& order);  // peak under the set model
uint64_t splitmix64(uint64_t& state);
Schedule random_order(const LiveModel& m, uint64_t& rng);
Schedule sink(const LiveModel& m, const Schedule& order);

// The search's view of the graph: ops that are not sinkable ("main" ops), their main
// predecessors as bitsets, and the sinkable ops that run as a block right before each main op.
class MacroGraph {
 public:
  explicit MacroGraph(const LiveModel& m);
  const LiveModel& model() const { return *m_; }
  bool ready(const Word* set, OpId o) const;  // o main, not in set, main preds in set
  // Runs o's pending sinkable predecessors then o (then, if `finish`, the sinkable ops nobody
  // reads) on `set` in place; returns the peak of those steps and updates `live`.
  Bytes run(Word* set, OpId o, Bytes& live, bool finish) const;
  // The full order for a sequence of main ops.
  Schedule expand(const std::vector<OpId>& main_ops) const;
  const std::vector<OpId>& main_ops() const { return main_; }
  const std::vector<OpId>& terminal_sinkables() const { return terminal_; }

 private:
  const LiveModel* m_;
  std::vector<OpId> main_, terminal_;
  std::vector<std::vector<OpId>> main_preds_;  // lists, not ops x ops bitsets (1.25 GB at 100k ops)
  std::vector<std::vector<OpId>> sinkable_preds_;
};

// Exact best-first search over sets of executed ops, one segment between cut ops at a time.
class ExactSearch {
 public:
  ExactSearch(const MacroGraph& mg, const Schedule& incumbent, Bytes floor, int64_t memory_cap);
  // Expands up to `budget` states; returns true when finished (proven or stopped by the cap).
  bool advance(int64_t& budget);
  bool finished() const { return finished_; }
  bool proven() const { return proven_; }
  bool cap_hit() const { return cap_hit_; }
  Schedule order() const;       // best order (model): incumbent segments replaced by optima
  Bytes peak() const;           // its model peak
  Bytes lower_bound() const;    // no order's model peak is below this
  int64_t states() const { return states_; }
  int64_t memory_peak() const { return memory_peak_; }
  int segments() const { return static_cast<int>(segments_.size()); }

 private:
  struct Segment {
    std::vector<OpId> main;    // main ops of this segment (the cut last)
    std::vector<Word> start;   // executed set when it begins
    std::vector<Word> goal;    // executed set when it ends
    Bytes start_live = 0;
    Schedule incumbent;        // main ops, in incumbent order
    Bytes incumbent_peak = 0;
    Schedule best;             // main ops of the best order found
    Bytes best_peak = 0;
    bool proven = false;
    bool last = false;
  };
  struct QueueEntry {
    Bytes g;
    int32_t depth;
    int32_t state;
    // A max-heap: the smallest g first, then the deepest, then the state made first. A total
    // order, so the search is the same with any standard library (libstdc++ and libc++ pop
    // equal entries in different orders).
    bool operator<(const QueueEntry& o) const {
      if (g != o.g) return g > o.g;
      if (depth != o.depth) return depth < o.depth;
      return state > o.state;
    }
  };
  void begin_segment();
  void end_segment(bool proven);
  int64_t memory_now() const;

  const MacroGraph* mg_;
  std::vector<Segment> segments_;
  std::vector<int> seg_order_;  // segments by decreasing incumbent peak
  size_t next_seg_ = 0;
  int current_ = -1;
  Bytes floor_ = 0;             // optimum can't be below this: segments at or under it are done
  int64_t memory_cap_;
  bool finished_ = false, proven_ = true, cap_hit_ = false;
  int64_t states_ = 0, memory_peak_ = 0;
  Bytes current_lb_ = 0;
  // Per-segment search state.
  SetTable table_{1};
  std::vector<Bytes> g_, live_;
  std::vector<int32_t> parent_, op_, depth_;
  std::vector<QueueEntry> heap_;
  std::vector<Word> scratch_set_;
  struct Child {
    OpId op;
    Bytes g, live;
  };
  std::vector<Child> children_;  // reused by every expansion
  std::vector<Word> child_keys_;
};

// Beam search over sets of executed ops: keeps the `width` best states per level, merging equal
// sets; runs again with growing widths and alternating rankings while budget remains.
class BeamSearch {
 public:
  BeamSearch(const MacroGraph& mg, Bytes incumbent_peak, int64_t memory_cap, uint64_t seed);
  bool advance(int64_t& budget);  // true when every width that fits the cap was tried
  bool finished() const { return finished_; }
  // The best complete order found with a model peak below the incumbent given (empty if none).
  const Schedule& best() const { return best_; }
  Bytes best_peak() const { return best_peak_; }
  void set_incumbent(Bytes peak) { bound_ = std::min(bound_, peak); }
  // Runs wider than this wait (finished() is true) until the limit is raised.
  void set_max_width(int64_t w) {
    max_width_ = w;
    if (!exhausted_) finished_ = false;
  }
  bool exhausted() const { return exhausted_; }
  // Frees the last run's levels while paused, so another search can use the memory cap.
  void release() {
    if (in_run_) return;
    decltype(history_)().swap(history_);
    std::vector<Node>().swap(nodes_);
    std::vector<Word>().swap(keys_);
    std::vector<int32_t>().swap(ready_);
    std::vector<int32_t>().swap(ready_begin_);
  }  // every width that fits the cap was tried
  int64_t states() const { return states_; }
  int64_t memory_peak() const { return memory_peak_; }
  int64_t width() const { return width_; }

 private:
  struct Node {
    Bytes g, live;
    int32_t parent;
    int32_t op;
  };
  int64_t run_memory(int64_t width) const;

  const MacroGraph* mg_;
  Bytes bound_;
  int64_t memory_cap_;
  uint64_t rng_;
  bool finished_ = false, exhausted_ = false;
  int64_t max_width_ = int64_t{1} << 22;
  int64_t max_ready_ = 0;  // most ready ops seen at one node (sizes the memory estimate)
  int64_t width_ = 0;
  int variant_ = 0;
  int level_ = 0;
  bool in_run_ = false;
  std::vector<std::vector<std::pair<int32_t, int32_t>>> history_;  // per level: (parent, op)
  std::vector<Node> nodes_;
  std::vector<Word> keys_;
  std::vector<int32_t> ready_, ready_begin_;  // per node: its ready main ops
  Schedule best_;
  Bytes best_peak_ = 0;
  int64_t states_ = 0, memory_peak_ = 0;
  // The level being expanded, kept between advance() calls: on a big graph one level is many
  // states, and the caller's budget (its time limit) must be able to stop in the middle of it.
  struct Candidate {
    Bytes g, live;
    int32_t parent, op;
    uint64_t tie;
  };
  struct LevelInProgress {
    explicit LevelInProgress(int words) : table(words), set(words) {}
    SetTable table;
    std::vector<Candidate> cands;
    std::vector<Word> set;
    size_t next_node = 0;
    bool truncated = false;
  };
  std::unique_ptr<LevelInProgress> level_in_progress_;
};

// Best-first search over the sets of ops that run last, by the highest step among them
// (schedule_suffix.cpp says why): a lower bound that grows as it runs, and, when it reaches the
// empty set, an optimal order under the set model. Children at or above the incumbent are dropped.
class SuffixSearch {
 public:
  SuffixSearch(const LiveModel& m, Bytes incumbent, int64_t memory_cap);
  // Expands states, spending one unit of `budget` per child evaluated; true when finished
  // (optimal order found, incumbent proven, or memory cap reached).
  bool advance(int64_t& budget);
  bool finished() const { return finished_; }
  bool complete() const { return complete_; }  // order() is optimal under the model
  bool cap_hit() const { return cap_hit_; }
  Schedule order() const;                       // empty unless complete()
  Bytes lower_bound() const;                    // no order's model peak is below this
  void set_incumbent(Bytes peak) { incumbent_ = std::min(incumbent_, peak); }
  int64_t states() const { return states_; }
  int64_t memory_peak() const { return memory_peak_; }

 private:
  struct Entry {
    Bytes g;
    int32_t depth;
    int32_t state;
    bool operator<(const Entry& o) const {  // as QueueEntry: a total order, the same search everywhere
      if (g != o.g) return g > o.g;
      if (depth != o.depth) return depth < o.depth;
      return state > o.state;
    }
  };
  struct Child {
    OpId op;
    Bytes live;  // live bytes at the cut before it
    Bytes g;
  };
  void last_candidates(const Word* set, std::vector<OpId>& out);
  int64_t memory_now() const;

  const LiveModel* m_;
  Bytes incumbent_;
  int64_t memory_cap_;
  SetTable table_;
  std::vector<Bytes> g_, live_;  // per set: highest step after it, live bytes between
  std::vector<int32_t> parent_, op_, depth_;
  std::vector<Entry> heap_;
  std::vector<OpId> sinks_, candidates_;
  std::vector<Child> children_;
  std::vector<int> stamp_;
  int round_ = 0;
  std::vector<Word> set_;
  Bytes popped_ = 0;
  int32_t goal_ = -1;
  bool finished_ = false, complete_ = false, cap_hit_ = false;
  int64_t states_ = 0, memory_peak_ = 0;
};

// Local search on one order (schedule_local.cpp): single-op moves across the peak step, kept when
// they lower the peak or keep it and lower the area under the profile. Orders and peaks are under
// the set model.
class LocalSearch {
 public:
  LocalSearch(const LiveModel& m, const Schedule& start, uint64_t seed);
  void restart(const Schedule& start);  // from a new (better) order
  // Tries moves and kicks, one unit of `budget` per step walked; true only when the order is too
  // short to move anything.
  bool advance(int64_t& budget);
  const Schedule& order() const { return best_; }  // the best order seen
  Bytes peak() const { return best_peak_; }
  // Counts restarts and peak improvements: changes when order() is worth offering.
  int64_t improvements() const { return improvements_; }
  int64_t states() const { return states_; }
  int64_t kicks() const { return kicks_; }

 private:
  struct Move {
    int from, to;  // positions in the order
  };
  void profile(const Schedule& order, std::vector<Bytes>& during, std::vector<Bytes>& after) const;
  // Whether moving one op beats (peak_, area_): only the steps inside the move's window change
  // (outside it every op runs after the same set of ops), so only those are walked, from a
  // walker parked at the window's start.
  bool better(Move& mv, Bytes& peak, Bytes& area, int64_t& cost);
  bool best_later_position(Move& mv, Bytes& peak, Bytes& area, int64_t& cost);
  void move_cursor(int position, int64_t& cost);
  void index_profile();
  void set_current(const Schedule& order);
  void kick(int64_t& budget);
  void try_moves(int64_t& budget);
  Schedule rebuild_window(int64_t& budget);

  const LiveModel* m_;
  uint64_t rng_;
  Schedule order_;  // the descent's current order
  std::unique_ptr<LiveModel::Walker> cursor_;  // has run order_[0, cursor_at_)
  int cursor_at_ = 0;
  // Per step i of order_: the highest step before i, from i on, and the sum of the steps before i.
  std::vector<Bytes> peak_before_, peak_from_, area_before_;
  Schedule best_;
  Bytes best_peak_ = 0;
  std::vector<Bytes> during_, after_;  // per step of order_
  std::vector<Move> moves_;  // the current pass of moves, tried from next_move_ on
  size_t next_move_ = 0;
  Bytes peak_ = 0, area_ = 0;
  bool stalled_ = false;
  int64_t improvements_ = 0, states_ = 0, kicks_ = 0;
  int plateau_moves_ = 0;                    // accepted moves since the peak last fell
  static constexpr int kPlateauMoves = 50;
};

// The cut bound (schedule_cut_bound.cpp): per op, the fewest bytes live before it over every
// executed set that holds its ancestors and none of its descendants, by a minimum cut; the most
// promising ops first. Every op done is a valid bound, so it may stop at any time.
class CutBoundSearch {
 public:
  explicit CutBoundSearch(const LiveModel& m);
  // Computes cuts until `budget` units of work (arcs scanned) are spent; true when finished.
  bool advance(int64_t& budget);
  bool finished() const { return next_ >= queue_.size(); }
  // A bound proven elsewhere: ops whose estimate does not exceed it are skipped (finished() then
  // means "cannot raise the bound above the floor"), and lower_bound() may stay below it.
  void set_floor(Bytes floor) { floor_ = std::max(floor_, floor); }
  Bytes lower_bound() const { return best_; }  // no order's model peak is below this
  OpId op() const { return best_op_; }        // the op whose step attains it (-1: none yet)
  int64_t cuts() const { return cuts_; }
  // What it holds: the ancestor and descendant bitsets, the network, the queue.
  int64_t memory_bytes() const {
    return static_cast<int64_t>((ancestors_.capacity() + descendants_.capacity()) * sizeof(Word) +
                                net_.arcs.capacity() * sizeof(Network::Arc) +
                                (net_.first.capacity() + net_.level.capacity() + net_.cursor.capacity() +
                                 net_.queue.capacity()) * sizeof(int) +
                                queue_.capacity() * sizeof(Estimate) + single_.capacity());
  }
  // The bitsets it would hold for a model of `ops` ops (the caller checks them against its cap).
  static int64_t bitset_bytes(int ops) { return 2 * int64_t{ops} * ((ops + 63) / 64) * 8; }
  // Live in every order while op() runs, besides the cut: persistent state, its outputs, scratch.
  Bytes own_bytes(OpId o) const;
  // The tensors live in the cheapest executed set before op() (they sum to lower_bound() minus
  // own_bytes(op())).
  std::vector<TensorId> witness();

 private:
  struct Estimate {
    Bytes bytes;
    OpId op;
  };
  struct Network {
    struct Arc {
      int to, next;
      int64_t capacity;
    };
    std::vector<Arc> arcs;
    std::vector<int> first, level, cursor, queue;
    void reset(int nodes);
    void add(int from, int to, int64_t capacity);
    bool levels_from_source();
    int64_t push(int v, int64_t limit);
    int64_t max_flow(int64_t& work);
  };
  Bytes cut(OpId o, std::vector<TensorId>* live);

  const LiveModel* m_;
  int words_ = 1;
  std::vector<Word> ancestors_, descendants_;  // per op, a bitset of ops
  std::vector<char> single_;                   // per tensor: its in-place group is itself alone
  std::vector<Estimate> queue_;                // by decreasing upper estimate
  size_t next_ = 0;
  Network net_;
  Bytes best_ = 0, floor_ = 0;
  OpId best_op_ = -1;
  int64_t cuts_ = 0, work_ = 0;
};

}  // namespace arenaplan::schedule_detail
