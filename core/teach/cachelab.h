// The cache lab: a classroom toy about reuse under a fixed capacity. Unlike the arena planner it has
// no tensor graph, no offsets, no scratch and no asynchronous consumers: a block is either in one
// of C lines or not, and a replacement policy decides what leaves.
//
//   CacheLab lab({.lines = 4, .policy = ReplacementPolicy::kLru}, RequestStream::strided(4));
//   lab.run(16);   // 4 misses then 12 hits
//   lab.step();    // request 17: a hit
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace arenaplan {

using Block = int64_t;

enum class ReplacementPolicy { kLru, kFifo, kOpt };
const char* policy_name(ReplacementPolicy p);
// "lru", "fifo", "opt"; throws InputError naming `where` otherwise.
ReplacementPolicy policy_from_name(const std::string& name, const std::string& where);

struct CacheConfig {
  int lines = 4;  // capacity C in lines (one block per line)
  int ways = 0;   // lines per set; 0 = fully associative (ways = lines)
  ReplacementPolicy policy = ReplacementPolicy::kLru;
};

// The request stream: request k touches block (k mod s), or a hand-typed list.
class RequestStream {
 public:
  static RequestStream strided(int64_t stride);
  static RequestStream list(std::vector<Block> blocks);

  Block block_at(int64_t k) const;
  // Number of requests, or nullopt for an endless strided stream.
  std::optional<int64_t> length() const;
  // The first request index > k touching `block`, or nullopt when it is never touched again.
  // Belady's OPT evicts the line whose next use is furthest away.
  std::optional<int64_t> next_use(Block block, int64_t k) const;
  std::string describe() const;  // "k mod 4" or "list of 9 requests"

 private:
  int64_t stride_ = 0;        // > 0 for strided streams
  std::vector<Block> list_;   // for hand-typed streams
};

struct CacheAccess {
  int64_t k = 0;  // request index, from 0
  Block block = 0;
  int set = 0;
  bool hit = false;
  std::optional<Block> evicted;
  std::vector<Block> contents;  // after the access: every set in order, each most recent first
};

class CacheLab {
 public:
  // Throws InputError for a capacity or associativity that does not divide into sets.
  CacheLab(CacheConfig config, RequestStream stream);

  void reset();                    // empty cache, request counter 0, no history
  bool step();                     // one request; false when a finite stream is exhausted
  int64_t run(int64_t requests);   // up to `requests` steps; returns how many ran

  const CacheConfig& config() const { return config_; }
  const RequestStream& stream() const { return stream_; }
  const std::vector<CacheAccess>& history() const { return history_; }
  int64_t hits() const { return hits_; }
  int64_t misses() const { return static_cast<int64_t>(history_.size()) - hits_; }
  int sets() const { return sets_; }

 private:
  struct Line {
    Block block;
    int64_t last_used;
    int64_t inserted;
  };
  int victim(const std::vector<Line>& set, int64_t k) const;

  CacheConfig config_;
  RequestStream stream_;
  int sets_ = 1;
  std::vector<std::vector<Line>> lines_;  // per set
  std::vector<CacheAccess> history_;
  int64_t hits_ = 0;
};

// A typed list of blocks ("3 1 4 1 5", "3,1,4", "3, 1; 4"): whole numbers >= 0 separated by
// spaces, commas or semicolons, at most `max_blocks`. Throws InputError("blocks", ...) naming the
// entry ("entry 3: \"x\" is not a whole number >= 0").
std::vector<Block> parse_block_list(const std::string& text, size_t max_blocks);
// "3 1 4 1 5": the list as parse_block_list reads it back.
std::string block_list_text(const std::vector<Block>& blocks);

// Hit rate after each request (hits so far / requests so far).
std::vector<double> hit_rate_series(const std::vector<CacheAccess>& history);

// A student's prediction of hit (true) or miss for the first requests, scored against the lab.
struct PredictionScore {
  int64_t correct = 0;
  int64_t total = 0;
  std::vector<bool> right;  // per predicted request
};
PredictionScore score_prediction(const std::vector<CacheAccess>& history, const std::vector<bool>& predicted_hits);

}  // namespace arenaplan

#include "core/graph/report.h"

namespace arenaplan {
// {"policy", "capacity", "ways", "sets", "stream", "requests", "hits", "misses",
//  "trace": [{"k", "block", "set", "hit", "evicted", "contents"}]}: `arenaplan cache --json`.
JsonOut cache_report_json(const CacheLab& lab);
// The same run for people: the configuration, one line per request (hit or miss, what was
// evicted, the contents most recent first) and the totals (cachelab_text.cpp).
std::string cache_report_text(const CacheLab& lab);
}  // namespace arenaplan
