// The independent verifier: shares no code with any planner (only the problem and the offsets).
#include <algorithm>
#include <set>
#include <string>

#include "core/layout/layout.h"

namespace arenaplan {
namespace {

VerifyResult broken(VerifyRule rule, int a, int b, std::string message) {
  VerifyResult r;
  r.rule = rule;
  r.buffer_a = a;
  r.buffer_b = b;
  r.message = std::move(message);
  return r;
}

std::string label(const LayoutProblem& p, int i) {
  return p.buffers[i].name.empty() ? "#" + std::to_string(i) : p.buffers[i].name;
}

}  // namespace

const char* verify_rule_name(VerifyRule rule) {
  switch (rule) {
    case VerifyRule::kOk: return "ok";
    case VerifyRule::kBadCount: return "bad-count";
    case VerifyRule::kBadFixedOffset: return "bad-fixed-offset";
    case VerifyRule::kBadAlignment: return "bad-alignment";
    case VerifyRule::kNegativeOffset: return "negative-offset";
    case VerifyRule::kBadArenaBound: return "bad-arena-bound";
    case VerifyRule::kOverlap: return "overlap";
  }
  return "?";
}

VerifyResult verify_plan(const LayoutProblem& p, const std::vector<Bytes>& offsets, Bytes arena_bytes) {
  const int n = static_cast<int>(p.buffers.size());
  if (offsets.size() != p.buffers.size())
    return broken(VerifyRule::kBadCount, -1, -1,
                  "the plan has " + std::to_string(offsets.size()) + " offsets for " + std::to_string(n) + " buffers");
  for (int i = 0; i < n; ++i) {
    const LayoutBuffer& b = p.buffers[i];
    const Bytes o = offsets[i];
    if (b.fixed_offset && *b.fixed_offset != o)
      return broken(VerifyRule::kBadFixedOffset, i, -1,
                    "buffer " + label(p, i) + " is fixed at offset " + std::to_string(*b.fixed_offset) +
                        " but the plan puts it at " + std::to_string(o));
    if (o < 0)
      return broken(VerifyRule::kNegativeOffset, i, -1,
                    "buffer " + label(p, i) + " has negative offset " + std::to_string(o));
    if (b.alignment > 0 && o % b.alignment != 0)
      return broken(VerifyRule::kBadAlignment, i, -1,
                    "buffer " + label(p, i) + " at offset " + std::to_string(o) + " is not a multiple of its alignment " +
                        std::to_string(b.alignment));
    if (o > arena_bytes - b.size)
      return broken(VerifyRule::kBadArenaBound, i, -1,
                    "buffer " + label(p, i) + " ends at " + std::to_string(o + b.size) + ", beyond the arena of " +
                        std::to_string(arena_bytes) + " bytes");
  }
  // Sweep time: removals at last + 1 before insertions at the same step. Buffers live together are
  // kept in an address-ordered set; they are pairwise disjoint so far, so a newcomer collides with
  // some of them exactly when it collides with its neighbour below or above in address order.
  struct Event {
    int64_t time;
    int insert;  // 0 = remove, 1 = insert: removals first
    int buffer;
  };
  std::vector<Event> events;
  events.reserve(2 * n);
  for (int i = 0; i < n; ++i) {
    if (p.buffers[i].size == 0) continue;  // occupies no byte
    events.push_back({p.buffers[i].first, 1, i});
    events.push_back({static_cast<int64_t>(p.buffers[i].last) + 1, 0, i});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return a.time != b.time ? a.time < b.time : (a.insert != b.insert ? a.insert < b.insert : a.buffer < b.buffer);
  });
  std::set<std::pair<Bytes, int>> live;
  auto overlap = [&](int a, int b) {
    if (a > b) std::swap(a, b);
    const LayoutBuffer &x = p.buffers[a], &y = p.buffers[b];
    return broken(VerifyRule::kOverlap, a, b,
                  "buffers " + label(p, a) + " and " + label(p, b) + " overlap at steps " +
                      std::to_string(std::max(x.first, y.first)) + ".." + std::to_string(std::min(x.last, y.last)) +
                      ", bytes " + std::to_string(std::max(offsets[a], offsets[b])) + ".." +
                      std::to_string(std::min(offsets[a] + x.size, offsets[b] + y.size) - 1));
  };
  for (const Event& e : events) {
    const std::pair<Bytes, int> key{offsets[e.buffer], e.buffer};
    if (!e.insert) {
      live.erase(key);
      continue;
    }
    auto above = live.lower_bound(key);
    if (above != live.end() && above->first < key.first + p.buffers[e.buffer].size) return overlap(e.buffer, above->second);
    if (above != live.begin()) {
      auto below = std::prev(above);
      if (below->first + p.buffers[below->second].size > key.first) return overlap(e.buffer, below->second);
    }
    live.insert(key);
  }
  return {};
}

}  // namespace arenaplan
