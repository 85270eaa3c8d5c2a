// Truths for the layout tests, independent of the planners: the smallest arena of a tiny layout
// problem by exhaustive search over offsets.
#pragma once

#include <algorithm>
#include <functional>
#include <vector>

#include "core/layout/layout.h"

namespace arenaplan::test {

// Smallest arena over every aligned offset of every buffer (each buffer steps by its own
// alignment, so it assumes nothing about granularity or canonical plans). Shares no code with the
// planners; exponential: a handful of buffers at most.
inline Bytes exhaustive_optimum(const LayoutProblem& p) {
  const int n = static_cast<int>(p.buffers.size());
  Bytes best = 0;
  for (const LayoutBuffer& b : p.buffers) best += b.size + b.alignment;  // stacked, each aligned
  std::vector<Bytes> off(n, 0);
  std::function<void(int, Bytes)> go = [&](int i, Bytes top) {
    if (top >= best) return;
    if (i == n) {
      best = top;
      return;
    }
    const LayoutBuffer& b = p.buffers[i];
    for (Bytes o = 0; o + b.size < best; o += b.alignment) {
      bool clash = false;
      for (int j = 0; j < i && !clash; ++j) {
        const LayoutBuffer& c = p.buffers[j];
        clash = b.first <= c.last && c.first <= b.last && o < off[j] + c.size && off[j] < o + b.size;
      }
      if (clash) continue;
      off[i] = o;
      go(i + 1, std::max(top, o + b.size));
    }
  };
  go(0, 0);
  return best;
}

}  // namespace arenaplan::test
