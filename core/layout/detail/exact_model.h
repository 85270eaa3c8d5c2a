// The exact solver's static view of a problem, built once: the buffers with bytes, their sections
// on the compressed time axis, who overlaps whom, each section's members, the pieces no buffer
// spans across, and which buffers are twins. The search (planner_exact.cpp) only reads it.
// Internal to core/layout.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/layout/layout.h"

namespace arenaplan::planner {

struct ExactPartition {
  std::vector<int> buffers;  // local buffer ids
  int lo = 0, hi = 0;        // sections [lo, hi)
};
using ExactPartitionPtr = std::shared_ptr<const ExactPartition>;

struct ExactModel {
  // Buffers with bytes get local ids 0..n-1; global_of maps them back to the problem's.
  std::vector<int> global_of;
  std::vector<Bytes> size, align;
  std::vector<int> sec_begin, sec_end;  // per buffer: its sections are [sec_begin, sec_end)
  std::vector<double> area, length;     // size x lifetime, and lifetime in steps (static orders)
  std::vector<int64_t> overlap_row;     // buffers live with k: overlap_col[overlap_row[k] .. overlap_row[k + 1])
  std::vector<int> overlap_col;
  std::vector<int64_t> member_row;      // buffers per section: member_col[member_row[s] .. member_row[s + 1])
  std::vector<int> member_col;
  std::vector<int64_t> where_base;      // where_base[k] + (s - sec_begin[k]): k's slot in section s's list
  std::vector<int> where;
  int sections = 0;
  std::vector<Bytes> initial_total;     // per section: bytes live in it
  std::vector<int> initial_cuts;        // per section boundary s|s+1: buffers spanning it
  std::vector<ExactPartitionPtr> static_parts;  // independent pieces from the start
  // Twins (same size, alignment and life) are interchangeable in any plan, so the search only
  // looks at plans where each sits above the twin before it: the previous twin's id, or -1.
  std::vector<int> twin_before;
};

// std::nullopt when the buffers overlap in more than `max_overlap_entries` pairs (the search is
// then not attempted). Throws InputError on an alignment that is not positive.
std::optional<ExactModel> build_exact_model(const LayoutProblem& problem, int64_t max_overlap_entries);

}  // namespace arenaplan::planner
