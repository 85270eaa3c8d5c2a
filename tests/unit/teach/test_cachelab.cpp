// The cache lab (docs/DESIGN.md "Cache lab"): LRU with stride streams, FIFO, Belady's OPT, sets.
#include <doctest/doctest.h>

#include <functional>
#include <random>
#include <set>

#include "core/teach/cachelab.h"
#include "core/graph/graph.h"

using namespace arenaplan;

namespace {

CacheLab lab_of(int lines, int64_t stride, ReplacementPolicy p = ReplacementPolicy::kLru, int ways = 0) {
  return CacheLab({lines, ways, p}, RequestStream::strided(stride));
}

std::vector<bool> hits_of(const CacheLab& lab) {
  std::vector<bool> out;
  for (const CacheAccess& a : lab.history()) out.push_back(a.hit);
  return out;
}

// The fewest misses any replacement choice can achieve, by trying every eviction (tiny inputs only):
// an oracle for OPT that shares no code with it.
int64_t brute_force_min_misses(const std::vector<Block>& stream, int capacity) {
  std::function<int64_t(size_t, std::vector<Block>)> go = [&](size_t k, std::vector<Block> cache) -> int64_t {
    if (k == stream.size()) return 0;
    if (std::find(cache.begin(), cache.end(), stream[k]) != cache.end()) return go(k + 1, cache);
    if (static_cast<int>(cache.size()) < capacity) {
      cache.push_back(stream[k]);
      return 1 + go(k + 1, cache);
    }
    int64_t best = INT64_MAX;
    for (size_t v = 0; v < cache.size(); ++v) {
      auto next = cache;
      next[v] = stream[k];
      best = std::min(best, 1 + go(k + 1, next));
    }
    return best;
  };
  return go(0, {});
}

}  // namespace

TEST_CASE("C = 4, s = 4: the first 16 requests are 4 misses then 12 hits, and request 17 hits") {
  CacheLab lab = lab_of(4, 4);
  CHECK(lab.run(16) == 16);
  CHECK(lab.misses() == 4);
  CHECK(lab.hits() == 12);
  for (int k = 0; k < 4; ++k) CHECK_FALSE(lab.history()[k].hit);
  for (int k = 4; k < 16; ++k) CHECK(lab.history()[k].hit);
  CHECK(lab.step());
  CHECK(lab.history().back().k == 16);
  CHECK(lab.history().back().hit);
}

TEST_CASE("a fresh Reset with C = 2, s = 4: all 17 requests miss") {
  CacheLab lab = lab_of(4, 4);
  lab.run(5);
  lab = lab_of(2, 4);
  lab.reset();
  lab.run(17);
  CHECK(lab.misses() == 17);
  CHECK(lab.hits() == 0);
  // LRU always evicts the block that returns soonest under a cyclic stride: request 2 evicts block 0.
  CHECK(lab.history()[2].evicted == Block(0));
  CHECK(lab.history()[2].contents == std::vector<Block>{2, 1});
}

TEST_CASE("Reset empties the cache and the request counter") {
  CacheLab lab = lab_of(4, 4);
  lab.run(10);
  lab.reset();
  CHECK(lab.history().empty());
  CHECK(lab.hits() == 0);
  lab.step();
  CHECK(lab.history()[0].k == 0);
  CHECK_FALSE(lab.history()[0].hit);
}

TEST_CASE("OPT beats LRU on the thrashing stride: C = 2, s = 4 hits sometimes") {
  CacheLab opt = lab_of(2, 4, ReplacementPolicy::kOpt);
  opt.run(17);
  std::vector<Block> stream;
  for (int k = 0; k < 17; ++k) stream.push_back(k % 4);
  CHECK(opt.misses() == brute_force_min_misses(stream, 2));
  CHECK(opt.misses() < 17);
}

TEST_CASE("FIFO evicts the oldest insertion even when it was just used") {
  // 0 1 0 2: LRU evicts 1 (0 was used last), FIFO evicts 0 (inserted first).
  auto stream = RequestStream::list({0, 1, 0, 2, 0});
  CacheLab lru({2, 0, ReplacementPolicy::kLru}, stream), fifo({2, 0, ReplacementPolicy::kFifo}, stream);
  lru.run(5);
  fifo.run(5);
  CHECK(lru.history()[3].evicted == Block(1));
  CHECK(fifo.history()[3].evicted == Block(0));
  CHECK(lru.history()[4].hit);
  CHECK_FALSE(fifo.history()[4].hit);
}

TEST_CASE("a finite hand-typed list stops at its end") {
  CacheLab lab({2, 0, ReplacementPolicy::kLru}, RequestStream::list({3, 3, 7}));
  CHECK(lab.run(10) == 3);
  CHECK_FALSE(lab.step());
  CHECK(hits_of(lab) == std::vector<bool>{false, true, false});
}

TEST_CASE("set-associative: direct-mapped conflicts where a fully associative cache hits") {
  auto stream = RequestStream::list({0, 2, 0, 2});
  CacheLab direct({2, 1, ReplacementPolicy::kLru}, stream), full({2, 0, ReplacementPolicy::kLru}, stream);
  direct.run(4);
  full.run(4);
  CHECK(direct.sets() == 2);
  CHECK(direct.misses() == 4);  // 0 and 2 both map to set 0
  CHECK(full.misses() == 2);
  CHECK_THROWS_AS(CacheLab({6, 4, ReplacementPolicy::kLru}, stream), InputError);
  CHECK_THROWS_AS(CacheLab({0, 0, ReplacementPolicy::kLru}, stream), InputError);
}

TEST_CASE("property: OPT never misses more than LRU or FIFO, and equals the brute-force minimum") {
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 200; ++trial) {
    const int capacity = 1 + static_cast<int>(rng() % 3);
    const int length = 4 + static_cast<int>(rng() % 6);
    const int universe = 2 + static_cast<int>(rng() % 4);
    std::vector<Block> blocks;
    for (int i = 0; i < length; ++i) blocks.push_back(rng() % universe);
    int64_t misses[3];
    for (auto p : {ReplacementPolicy::kLru, ReplacementPolicy::kFifo, ReplacementPolicy::kOpt}) {
      CacheLab lab({capacity, 0, p}, RequestStream::list(blocks));
      lab.run(length);
      misses[static_cast<int>(p)] = lab.misses();
    }
    INFO("trial " << trial);
    CHECK(misses[2] <= misses[0]);
    CHECK(misses[2] <= misses[1]);
    CHECK(misses[2] == brute_force_min_misses(blocks, capacity));
  }
}

TEST_CASE("predictions are scored request by request") {
  CacheLab lab = lab_of(4, 4);
  lab.run(6);
  // A student who expects "all hits after warm-up of 2" gets requests 2 and 3 wrong.
  auto s = score_prediction(lab.history(), {false, false, true, true, true, true});
  CHECK(s.total == 6);
  CHECK(s.correct == 4);
  CHECK(s.right == std::vector<bool>{true, true, false, false, true, true});
}

TEST_CASE("hit rate over time") {
  CacheLab lab = lab_of(4, 4);
  lab.run(8);
  auto r = hit_rate_series(lab.history());
  CHECK(r[3] == 0.0);
  CHECK(r[7] == doctest::Approx(0.5));
}

TEST_CASE("the JSON report follows the CLI contract") {
  CacheLab lab = lab_of(4, 4);
  lab.run(5);
  JsonOut j = cache_report_json(lab);
  CHECK(j["requests"] == 5);
  CHECK(j["hits"] == 1);
  CHECK(j["misses"] == 4);
  CHECK(j["trace"][0]["k"] == 0);
  CHECK(j["trace"][0]["evicted"].is_null());
  CHECK(j["trace"][0]["contents"] == JsonOut::array({0}));
  CHECK(j["trace"][4]["contents"] == JsonOut::array({0, 3, 2, 1}));
}

TEST_CASE("a typed block list: separators, limits and the entry a refusal names") {
  CHECK(parse_block_list("3 1 4 1 5", 10) == std::vector<Block>{3, 1, 4, 1, 5});
  CHECK(parse_block_list(" 3,1;4\n1  ", 10) == std::vector<Block>{3, 1, 4, 1});
  CHECK(parse_block_list("", 10).empty());
  CHECK(block_list_text({3, 1, 4}) == "3 1 4");
  CHECK(parse_block_list(block_list_text({0, 12, 7}), 3) == std::vector<Block>{0, 12, 7});
  auto refusal = [](const std::string& text, size_t max) {
    try {
      parse_block_list(text, max);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(refusal("3 x 4", 10) == "blocks: entry 2: \"x\" is not a whole number >= 0");
  CHECK(refusal("3 -1", 10).find("entry 2") != std::string::npos);
  CHECK(refusal("1 2 3", 2) == "blocks: more than 2 requests");
  CHECK(refusal("99999999999999999999", 10).find("entry 1") != std::string::npos);
}

// Worked by hand: C = 4 lines in 2 ways (2 sets: even blocks in set 0, odd in set 1), the list
// 0 1 2 3 0 1 4 5 0 1. Each set sees a, b, a, c, a.
//   FIFO: a, b miss; a hits; c evicts a (inserted first) although a was just used; a misses: 8 misses.
//   LRU:  c evicts b (least recently used); a hits: 6 misses.   OPT: b is never used again: 6 misses.
TEST_CASE("a list trace in a 2-way cache, worked by hand for FIFO, LRU and OPT") {
  const std::vector<Block> trace = parse_block_list("0 1 2 3 0 1 4 5 0 1", 100);
  auto run = [&](ReplacementPolicy p) {
    CacheLab lab({4, 2, p}, RequestStream::list(trace));
    lab.run(100);
    return lab;
  };
  const CacheLab fifo = run(ReplacementPolicy::kFifo);
  CHECK(fifo.sets() == 2);
  CHECK(fifo.misses() == 8);
  CHECK(hits_of(fifo) == std::vector<bool>{false, false, false, false, true, true, false, false, false, false});
  CHECK(fifo.history()[6].evicted == std::optional<Block>(0));
  const CacheLab lru = run(ReplacementPolicy::kLru);
  CHECK(lru.misses() == 6);
  CHECK(lru.history()[6].evicted == std::optional<Block>(2));
  CHECK(run(ReplacementPolicy::kOpt).misses() == 6);
}
