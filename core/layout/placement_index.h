// Where the already placed buffers sit while a new buffer lives: the question every greedy
// placement asks ("which address ranges are taken by buffers live at the same time as this
// one?"), answered without visiting each of those buffers. Internal to core/planner*.cpp.
//
// Time (the sections of a TimeAxis) is cut into buckets of a few sections. Per bucket the index
// keeps the merged address ranges of the placed buffers live throughout it, and individually, by
// address, the few that live during only part of it (they start or end inside). Above the buckets
// a shallow segment tree (kFanOut children per node) keeps, per node, the merged ranges of the
// buffers recorded in its subtree, each buffer at the fewest nodes that cover its whole buckets.
// A query over a lifetime merges a few sorted lists: its end buckets' and those of the tree nodes
// inside it. A buffer living 2,000 steps no longer sorts its thousands of neighbours, because
// neighbours that touch in address space are already merged into one range.
//
// Usage:
//   PlacementIndex index(axis.sections(), longest_lifetime_in_sections, /*keep_buffers=*/false);
//   index.add(axis.begin[b], axis.end[b], {offset, offset + size}, b);
//   index.visit_taken(axis.begin[c], axis.end[c], [&](const AddressRange& r) { ...; return true; });
#pragma once

#include <cstdint>
#include <vector>

#include "core/layout/layout.h"

namespace arenaplan::planner {

// Addresses [begin, end) of one placed buffer, or of several merged ones. A zero-size buffer is the
// point begin == end: the greedy walk treats its offset as a boundary, so it must not vanish.
struct AddressRange {
  Bytes begin = 0, end = 0;
};

// Address ranges kept merged: ascending, and any two that overlap or touch (one's end == the
// other's begin) are joined, i.e. the connected pieces of the union of the closed ranges
// [begin, end]. Touching ranges can be joined because the gap between them is zero bytes wide.
class AddressUnion {
 public:
  void add(AddressRange r);
  void clear() { ranges_.clear(); }
  bool empty() const { return ranges_.empty(); }
  const std::vector<AddressRange>& ranges() const { return ranges_; }

 private:
  std::vector<AddressRange> ranges_;
};

class PlacementIndex {
 public:
  // `sections`: the time axis length; buffers live in section ranges [first, end) within it,
  // none longer than `longest` sections (the tree grows no taller than such a range can use).
  // `keep_buffers`: also remember which buffers were added, for buffers_live_during().
  PlacementIndex(int sections, int longest, bool keep_buffers);

  // Forgets every placement (keeps the memory for the next greedy run).
  void clear();

  // Records that `buffer` occupies `range` during sections [first, end) (first < end).
  void add(int first, int end, AddressRange range, int buffer);

  // Calls visit(range) for address ranges whose union is exactly the addresses taken during
  // sections [first, end) by the buffers added so far (a zero-size buffer's point included), in
  // ascending order of begin, until visit returns false. Ranges may overlap or touch each other:
  // they come from a few merged lists, merged with each other only on the fly.
  template <typename Visit>
  void visit_taken(int first, int end, Visit visit) const {
    gather_lists(first, end);
    // The (at most two) lists merged by begin on the fly.
    const size_t k = lists_.size();
    RangeList a = k > 0 ? lists_[0] : RangeList{}, b = k > 1 ? lists_[1] : RangeList{};
    while (a.begin != a.end && b.begin != b.end)
      if (!visit(b.begin->begin < a.begin->begin ? *b.begin++ : *a.begin++)) return;
    for (; a.begin != a.end; ++a.begin)
      if (!visit(*a.begin)) return;
    for (; b.begin != b.end; ++b.begin)
      if (!visit(*b.begin)) return;
  }

  // The buffers added so far that live during some section of [first, end), each once, ascending,
  // into *out (replacing its contents). Needs keep_buffers.
  void buffers_live_during(int first, int end, std::vector<int>* out) const;

 private:
  // A buffer live during only part of a bucket.
  struct Partial {
    uint32_t sections;  // bit i: live during the bucket's section i (kSectionsPerBucket <= 32)
    int buffer;
    AddressRange range;
  };
  struct Bucket {
    AddressUnion throughout;           // buffers live during all of the bucket
    std::vector<int> throughout_ids;   // the buffers behind `throughout` (only with keep_buffers)
    std::vector<Partial> partial;      // buffers live during part of it, ascending by range.begin
  };
  // Which buckets a section range meets and covers.
  struct Cover {
    int lo, hi;              // buckets met, inclusive
    int whole_lo, whole_hi;  // buckets covered completely: [whole_lo, whole_hi), maybe empty
  };
  Cover cover(int first, int end) const;
  // The sections of `bucket` that [first, end) includes, as bits (see Partial).
  static uint32_t sections_within(int bucket, int first, int end);
  // Calls visit(bucket) for the (at most two) buckets met but not covered completely.
  template <typename Visit>
  static void for_each_partial_bucket(const Cover& c, Visit visit) {
    if (c.lo < c.whole_lo || c.lo >= c.whole_hi) visit(c.lo);
    if (c.hi != c.lo && c.hi >= c.whole_hi) visit(c.hi);
  }
  // Calls visit(level, node) for the fewest tree nodes that together cover buckets [lo, hi).
  template <typename Visit>
  void for_each_whole_node(int lo, int hi, Visit visit) const;
  // Calls visit(level, node) for the tree nodes on the way from buckets lo and hi to the root.
  template <typename Visit>
  void for_each_boundary_node(int lo, int hi, Visit visit) const;
  // A sorted list somewhere (a node's, a bucket's, or a merge in progress).
  struct RangeList {
    const AddressRange* begin = nullptr;
    const AddressRange* end = nullptr;
  };
  void add_list(const AddressUnion& u) const;
  // Fills lists_ with at most two ascending lists that together hold what is taken during
  // [first, end), merging when there are more.
  void gather_lists(int first, int end) const;
  void merge_down_to_two() const;

  int sections_;
  bool keep_buffers_;
  std::vector<Bucket> buckets_;
  // subtree_[level][node]: the merged ranges of the buffers recorded in the node's subtree, i.e.
  // those covering the node or a node below completely (at their fewest such nodes) and those
  // live during part of one of its buckets. Level 0 has a node per bucket; the last is the root.
  std::vector<std::vector<AddressUnion>> subtree_;
  // Query scratch: the lists to merge, the partial entries that met the query, merge rounds.
  mutable std::vector<RangeList> lists_, next_lists_;
  mutable std::vector<AddressRange> met_, rounds_[2];
};

}  // namespace arenaplan::planner
