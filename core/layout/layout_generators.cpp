#include "core/layout/layout_generators.h"

#include <algorithm>
#include <random>
#include <string>

namespace arenaplan {

LayoutProblem random_layout_problem(int n, uint32_t seed, bool dense, int long_min, int long_span) {
  std::mt19937 rng(seed);
  LayoutProblem p;
  p.buffers.reserve(n);
  const int steps = dense ? n / 2 : n;
  for (int i = 0; i < n; ++i) {
    LayoutBuffer b;
    b.name = "t" + std::to_string(i);
    b.size = 16 * (1 + static_cast<Bytes>(rng() % 4096));
    b.first = dense ? static_cast<Step>(rng() % steps) : i;
    const uint32_t kind = rng() % 1000;
    int len;
    if (dense) len = kind < 800 ? 1 + rng() % 3 : kind < 980 ? 4 + rng() % 60 : long_min + rng() % long_span;
    else len = kind < 900 ? 1 + rng() % 3 : kind < 995 ? 4 + rng() % 17 : 50 + rng() % 451;
    b.last = std::min<Step>(steps - 1, b.first + len - 1);
    b.alignment = 16;
    p.buffers.push_back(b);
  }
  return p;
}

}  // namespace arenaplan
