// MiniMalloc's CSV format (google/minimalloc): a header `id,lower,upper,size[,alignment][,offset]`,
// then one buffer per line. Lifetimes are half-open [lower, upper); ours are inclusive, so
// first = lower and last = upper - 1. Errors are InputError("line L, column C", ...).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/layout/layout.h"

namespace arenaplan {

struct MiniMallocCsv {
  LayoutProblem problem;        // alignment 1 unless the file has an alignment column
  std::vector<Bytes> offsets;   // the offset column (a solution), empty when absent
};

MiniMallocCsv parse_minimalloc_csv(std::string_view text);

// A header line starting with "id," (after optional spaces/BOM): the text is a MiniMalloc CSV.
bool looks_like_minimalloc_csv(std::string_view text);

// Writes `problem` back (with an offset column when `offsets` is non-empty); alignment is written
// only when some buffer needs more than 1.
std::string minimalloc_csv(const LayoutProblem& problem, const std::vector<Bytes>& offsets = {});

}  // namespace arenaplan
