// The replay of TFLM's allocator calls: a persistent call made N times in a row (a Signal op's
// per-row state) is one call with `times`, and must run exactly as N separate calls would, however
// large N is (a corrupt model may claim millions of rows).
#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "core/graph/graph.h"
#include "core/tflite/detail/tflm_arena_sim.h"

using namespace arenaplan;
using namespace arenaplan::tflm;

namespace {

ArenaCall persistent(Bytes size, Bytes align, Bytes times = 1) {
  ArenaCall c;
  c.call = Call::kPersistent;
  c.size = size;
  c.align = align;
  c.category = Category::kPersistentBuffers;
  c.phase = "state";
  c.times = times;
  return c;
}

ArenaCall head(Bytes size) {
  ArenaCall c;
  c.call = Call::kResizeHead;
  c.size = size;
  c.align = 16;
  c.phase = "head";
  return c;
}

// The same calls with every repeated one written out.
std::vector<ArenaCall> unrolled(const std::vector<ArenaCall>& calls) {
  std::vector<ArenaCall> out;
  for (const ArenaCall& c : calls)
    for (Bytes i = 0; i < c.times; ++i) {
      out.push_back(c);
      out.back().times = 1;
    }
  return out;
}

}  // namespace

TEST_CASE("TFLM replay: a persistent call repeated N times runs as N calls, at every arena size") {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    CAPTURE(trial);
    std::vector<ArenaCall> calls = {persistent(std::uniform_int_distribution<Bytes>(1, 100)(rng), 16)};
    calls.push_back(head(std::uniform_int_distribution<Bytes>(0, 300)(rng)));
    for (int k = 0; k < 3; ++k) {
      const Bytes align = Bytes{1} << std::uniform_int_distribution<int>(0, 4)(rng);
      calls.push_back(persistent(std::uniform_int_distribution<Bytes>(0, 70)(rng), align,
                                 std::uniform_int_distribution<Bytes>(1, 9)(rng)));
    }
    const std::vector<ArenaCall> flat = unrolled(calls);
    std::string why_repeated, why_flat;
    const Bytes minimum = minimum_arena(calls, &why_repeated);
    REQUIRE(minimum == minimum_arena(flat, &why_flat));
    CHECK(why_repeated == why_flat);
    for (Bytes arena : {minimum - 1, minimum, minimum + 5, minimum + 64}) {
      const ArenaRun a = run_arena(calls, arena), b = run_arena(flat, arena);
      CAPTURE(arena);
      REQUIRE(a.ok == b.ok);
      if (!a.ok) continue;
      CHECK(a.tail == b.tail);
      CHECK(a.head == b.head);
      const CategoryFigure& fa = a.categories[static_cast<int>(Category::kPersistentBuffers)];
      const CategoryFigure& fb = b.categories[static_cast<int>(Category::kPersistentBuffers)];
      CHECK(fa.count == fb.count);
      CHECK(fa.used == fb.used);
      CHECK(fa.requested == fb.requested);
    }
  }
}

TEST_CASE("TFLM replay: a billion rows of state are sized at once; beyond any memory is refused by name") {
  // 2^30 circular buffers of 40 B take 48 B each once the tail is 16-aligned.
  const std::vector<ArenaCall> billion = {persistent(40, 16, Bytes{1} << 30)};
  const Bytes minimum = minimum_arena(billion, nullptr);
  CHECK(minimum == 48 * (Bytes{1} << 30) - 8);  // the first one needs only its 40 B
  CHECK_FALSE(run_arena(billion, minimum - 1).ok);
  const std::vector<ArenaCall> beyond = {persistent(1 << 20, 16, Bytes{1} << 40)};
  CHECK_THROWS_AS(minimum_arena(beyond, nullptr), InputError);
}
