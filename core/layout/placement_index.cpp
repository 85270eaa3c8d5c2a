#include "core/layout/placement_index.h"

#include <algorithm>

namespace arenaplan::planner {
namespace {

// Bucket width and fan-out trade the cost of recording a buffer (more nodes when smaller) against
// the cost of a query (more partial entries to filter when wider). They change only speed; 32 and
// 8 were the fastest tried (8..64, 4..16) on bench/layout_bench.cpp's random instances.
constexpr int kSectionsPerBucket = 32;
constexpr int kFanOut = 8;
static_assert(kSectionsPerBucket <= 32, "a bucket's sections are the bits of a uint32_t (Partial)");

}  // namespace

void AddressUnion::add(AddressRange r) {
  // The first kept range that reaches r (its end >= r.begin): a binary search without branches
  // on the data (its comparisons are coin flips a predictor would mostly get wrong).
  auto first = ranges_.begin();
  for (size_t n = ranges_.size(); n > 1;) {
    const size_t half = n / 2;
    first = first[half - 1].end < r.begin ? first + half : first;
    n -= half;
  }
  if (first != ranges_.end() && first->end < r.begin) ++first;
  // Often r is inside a range already (a long-lived node's union is mostly solid).
  if (first != ranges_.end() && first->begin <= r.begin && r.end <= first->end) return;
  // Then every range r reaches.
  auto last = first;
  for (; last != ranges_.end() && last->begin <= r.end; ++last) {
    r.begin = std::min(r.begin, last->begin);
    r.end = std::max(r.end, last->end);
  }
  if (first == last) {
    ranges_.insert(first, r);
  } else {
    *first = r;
    ranges_.erase(first + 1, last);
  }
}

// A node of level k spans kFanOut^k buckets; a lifetime of `longest` sections covers at most
// longest / kSectionsPerBucket whole buckets, so no level whose nodes are larger is ever used
// whole, and keeping its subtree lists would only cost time.
PlacementIndex::PlacementIndex(int sections, int longest, bool keep_buffers)
    : sections_(sections), keep_buffers_(keep_buffers) {
  int count = (sections + kSectionsPerBucket - 1) / kSectionsPerBucket;
  buckets_.resize(count);
  const int64_t most_whole_buckets = longest / kSectionsPerBucket;
  for (int64_t node_buckets = 1;; node_buckets *= kFanOut) {
    subtree_.emplace_back(count);
    if (count <= 1 || node_buckets * kFanOut > most_whole_buckets) break;
    count = (count + kFanOut - 1) / kFanOut;
  }
}

void PlacementIndex::clear() {
  for (Bucket& b : buckets_) {
    b.throughout.clear();
    b.throughout_ids.clear();
    b.partial.clear();
  }
  for (auto& level : subtree_)
    for (AddressUnion& u : level) u.clear();
}

PlacementIndex::Cover PlacementIndex::cover(int first, int end) const {
  Cover c;
  c.lo = first / kSectionsPerBucket;
  c.hi = (end - 1) / kSectionsPerBucket;
  c.whole_lo = first == c.lo * kSectionsPerBucket ? c.lo : c.lo + 1;
  const int hi_end = std::min((c.hi + 1) * kSectionsPerBucket, sections_);
  c.whole_hi = std::max(end == hi_end ? c.hi + 1 : c.hi, c.whole_lo);
  return c;
}

uint32_t PlacementIndex::sections_within(int bucket, int first, int end) {
  const int lo = std::max(first - bucket * kSectionsPerBucket, 0);
  const int hi = std::min(end - bucket * kSectionsPerBucket, kSectionsPerBucket);
  auto below = [](int n) { return n >= 32 ? ~uint32_t{0} : (uint32_t{1} << n) - 1; };  // bits 0 .. n-1
  return below(hi) & ~below(lo);
}

// Bottom-up: at each level, the nodes of [lo, hi) whose parent is not wholly inside are taken,
// and the rest moves up as the range of parents wholly inside. A level's last parent may have
// fewer than kFanOut children, so reaching the level's end counts as reaching that parent's end.
template <typename Visit>
void PlacementIndex::for_each_whole_node(int lo, int hi, Visit visit) const {
  for (size_t level = 0; lo < hi; ++level) {
    const bool top = level + 1 == subtree_.size();
    const int count = static_cast<int>(subtree_[level].size());
    const int parent_lo = (lo + kFanOut - 1) / kFanOut;
    const int parent_hi = top ? 0 : hi == count ? static_cast<int>(subtree_[level + 1].size()) : hi / kFanOut;
    if (parent_lo >= parent_hi) {
      for (int v = lo; v < hi; ++v) visit(level, v);
      return;
    }
    for (int v = lo; v < parent_lo * kFanOut; ++v) visit(level, v);
    for (int v = parent_hi * kFanOut; v < hi; ++v) visit(level, v);
    lo = parent_lo;
    hi = parent_hi;
  }
}

template <typename Visit>
void PlacementIndex::for_each_boundary_node(int lo, int hi, Visit visit) const {
  for (size_t level = 0; level < subtree_.size(); ++level, lo /= kFanOut, hi /= kFanOut) {
    visit(level, lo);
    if (hi != lo) visit(level, hi);
  }
}

// A node's subtree list needs the buffer when one of the buffer's whole nodes or partly covered
// buckets lies below it. Such a node is a whole node itself or an ancestor of one, and an ancestor
// of a whole node is not wholly inside the lifetime, so it holds bucket lo or hi: the boundary
// nodes cover the rest.
void PlacementIndex::add(int first, int end, AddressRange range, int buffer) {
  const Cover c = cover(first, end);
  for (int k = c.whole_lo; k < c.whole_hi; ++k) {
    buckets_[k].throughout.add(range);
    if (keep_buffers_) buckets_[k].throughout_ids.push_back(buffer);
  }
  for_each_partial_bucket(c, [&](int k) {
    std::vector<Partial>& partial = buckets_[k].partial;
    auto at = std::upper_bound(partial.begin(), partial.end(), range.begin,
                               [](Bytes begin, const Partial& p) { return begin < p.range.begin; });
    partial.insert(at, {sections_within(k, first, end), buffer, range});
  });
  for_each_whole_node(c.whole_lo, c.whole_hi, [&](size_t level, int v) { subtree_[level][v].add(range); });
  for_each_boundary_node(c.lo, c.hi, [&](size_t level, int v) { subtree_[level][v].add(range); });
}

void PlacementIndex::add_list(const AddressUnion& u) const {
  if (!u.empty()) lists_.push_back({u.ranges().data(), u.ranges().data() + u.ranges().size()});
}

// Taken during [first, end): what lives throughout bucket lo or hi (this includes everything
// recorded at a tree node above a whole node of the query: such a node holds lo or hi); the
// partial entries of lo and hi that meet the range, when it covers them only partly; and the
// subtree lists of the tree nodes wholly inside it, for everything else (whatever meets a bucket
// strictly between lo and hi is recorded below one of those nodes).
void PlacementIndex::gather_lists(int first, int end) const {
  lists_.clear();
  if (first >= end || sections_ <= 0) return;
  const Cover c = cover(first, end);
  add_list(buckets_[c.lo].throughout);
  if (c.hi != c.lo) add_list(buckets_[c.hi].throughout);
  // The partial entries that meet the range, kept in address order. Sized first so the lists can
  // point into met_; filled without a branch per entry (about half of them meet the range).
  size_t room = 0;
  for_each_partial_bucket(c, [&](int k) { room += buckets_[k].partial.size(); });
  if (met_.size() < room) met_.resize(room);
  AddressRange* met = met_.data();
  for_each_partial_bucket(c, [&](int k) {
    const uint32_t query = sections_within(k, first, end);
    AddressRange* const start = met;
    for (const Partial& p : buckets_[k].partial) {
      *met = p.range;
      met += (p.sections & query) != 0;
    }
    if (met != start) lists_.push_back({start, met});
  });
  for_each_whole_node(c.whole_lo, c.whole_hi, [&](size_t level, int v) { add_list(subtree_[level][v]); });
  if (lists_.size() > 2) merge_down_to_two();
}

namespace {

// Writes the merge of two ascending lists from `out` on, joining ranges that overlap or touch;
// returns the new end.
AddressRange* merge_joined(const AddressRange* a, const AddressRange* a_end, const AddressRange* b,
                           const AddressRange* b_end, AddressRange* out) {
  AddressRange* const start = out;
  auto push = [&](const AddressRange& r) {
    if (out != start && r.begin <= out[-1].end) out[-1].end = std::max(out[-1].end, r.end);
    else *out++ = r;
  };
  while (a != a_end && b != b_end) push(b->begin < a->begin ? *b++ : *a++);
  for (; a != a_end; ++a) push(*a);
  for (; b != b_end; ++b) push(*b);
  return out;
}

}  // namespace

// Merges the lists pairwise, round after round, until two are left (joining shrinks them as it
// goes). Each round writes into one of two buffers, sized up front so the lists can point into
// them.
void PlacementIndex::merge_down_to_two() const {
  size_t total = 0;
  for (const RangeList& l : lists_) total += l.end - l.begin;
  for (int round = 0; lists_.size() > 2; ++round) {
    std::vector<AddressRange>& into = rounds_[round % 2];
    if (into.size() < total) into.resize(total);
    AddressRange* out = into.data();
    next_lists_.clear();
    for (size_t i = 0; i < lists_.size(); i += 2) {
      const RangeList second = i + 1 < lists_.size() ? lists_[i + 1] : RangeList{};
      AddressRange* const start = out;
      out = merge_joined(lists_[i].begin, lists_[i].end, second.begin, second.end, out);
      next_lists_.push_back({start, out});
    }
    std::swap(lists_, next_lists_);
  }
}

void PlacementIndex::buffers_live_during(int first, int end, std::vector<int>* out) const {
  out->clear();
  if (first >= end || sections_ <= 0) return;
  const Cover c = cover(first, end);
  for (int k = c.lo; k <= c.hi; ++k) {
    out->insert(out->end(), buckets_[k].throughout_ids.begin(), buckets_[k].throughout_ids.end());
    const uint32_t query = sections_within(k, first, end);
    for (const Partial& p : buckets_[k].partial)
      if (p.sections & query) out->push_back(p.buffer);
  }
  std::sort(out->begin(), out->end());
  out->erase(std::unique(out->begin(), out->end()), out->end());
}

}  // namespace arenaplan::planner
