#include "core/teach/cachelab.h"

#include <algorithm>
#include <string_view>

#include "core/graph/graph.h"  // InputError

namespace arenaplan {

const char* policy_name(ReplacementPolicy p) {
  switch (p) {
    case ReplacementPolicy::kLru: return "lru";
    case ReplacementPolicy::kFifo: return "fifo";
    case ReplacementPolicy::kOpt: return "opt";
  }
  return "lru";
}

ReplacementPolicy policy_from_name(const std::string& name, const std::string& where) {
  if (name == "lru") return ReplacementPolicy::kLru;
  if (name == "fifo") return ReplacementPolicy::kFifo;
  if (name == "opt") return ReplacementPolicy::kOpt;
  throw InputError(where, "unknown policy \"" + name + "\"; expected lru, fifo or opt");
}

std::vector<Block> parse_block_list(const std::string& text, size_t max_blocks) {
  std::vector<Block> out;
  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == ' ' || c == ',' || c == ';' || c == '\t' || c == '\n' || c == '\r') {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < text.size() && std::string_view(" ,;\t\n\r").find(text[end]) == std::string_view::npos) ++end;
    const std::string word = text.substr(i, end - i);
    const std::string which = "entry " + std::to_string(out.size() + 1);
    if (word.size() > 15 || word.find_first_not_of("0123456789") != std::string::npos)
      throw InputError("blocks", which + ": \"" + word.substr(0, 20) + "\" is not a whole number >= 0");
    if (out.size() == max_blocks)
      throw InputError("blocks", "more than " + std::to_string(max_blocks) + " requests");
    out.push_back(std::stoll(word));
    i = end;
  }
  return out;
}

std::string block_list_text(const std::vector<Block>& blocks) {
  std::string out;
  for (Block b : blocks) out += (out.empty() ? "" : " ") + std::to_string(b);
  return out;
}

RequestStream RequestStream::strided(int64_t stride) {
  if (stride < 1) throw InputError("stride", "must be at least 1");
  RequestStream s;
  s.stride_ = stride;
  return s;
}

RequestStream RequestStream::list(std::vector<Block> blocks) {
  for (size_t i = 0; i < blocks.size(); ++i)
    if (blocks[i] < 0) throw InputError("requests[" + std::to_string(i) + "]", "blocks must be >= 0");
  RequestStream s;
  s.list_ = std::move(blocks);
  return s;
}

Block RequestStream::block_at(int64_t k) const {
  return stride_ > 0 ? k % stride_ : list_.at(static_cast<size_t>(k));
}

std::optional<int64_t> RequestStream::length() const {
  if (stride_ > 0) return std::nullopt;
  return static_cast<int64_t>(list_.size());
}

std::optional<int64_t> RequestStream::next_use(Block block, int64_t k) const {
  if (stride_ > 0) {
    if (block >= stride_) return std::nullopt;
    int64_t next = k - k % stride_ + block;  // same period as k
    if (next <= k) next += stride_;
    return next;
  }
  for (size_t i = static_cast<size_t>(k) + 1; i < list_.size(); ++i)
    if (list_[i] == block) return static_cast<int64_t>(i);
  return std::nullopt;
}

std::string RequestStream::describe() const {
  if (stride_ > 0) return "k mod " + std::to_string(stride_);
  return "list of " + std::to_string(list_.size()) + " requests";
}

CacheLab::CacheLab(CacheConfig config, RequestStream stream) : config_(config), stream_(std::move(stream)) {
  if (config_.lines < 1 || config_.lines > 1 << 16)
    throw InputError("capacity", "must be between 1 and 65536 lines");
  if (config_.ways == 0) config_.ways = config_.lines;
  if (config_.ways < 1 || config_.lines % config_.ways != 0)
    throw InputError("ways", "must divide the capacity (" + std::to_string(config_.lines) + " lines)");
  sets_ = config_.lines / config_.ways;
  reset();
}

void CacheLab::reset() {
  lines_.assign(sets_, {});
  history_.clear();
  hits_ = 0;
}

int CacheLab::victim(const std::vector<Line>& set, int64_t k) const {
  auto worse = [&](const Line& a, const Line& b) {  // true when a should leave before b
    switch (config_.policy) {
      case ReplacementPolicy::kLru: return a.last_used < b.last_used;
      case ReplacementPolicy::kFifo: return a.inserted < b.inserted;
      case ReplacementPolicy::kOpt: {
        auto na = stream_.next_use(a.block, k), nb = stream_.next_use(b.block, k);
        if (!na || !nb) return !na && nb;              // never used again leaves first
        if (*na != *nb) return *na > *nb;              // furthest next use leaves first
        return a.last_used < b.last_used;              // ties: least recently used
      }
    }
    return false;
  };
  int v = 0;
  for (int i = 1; i < static_cast<int>(set.size()); ++i)
    if (worse(set[i], set[v])) v = i;
  return v;
}

bool CacheLab::step() {
  const int64_t k = static_cast<int64_t>(history_.size());
  if (auto n = stream_.length(); n && k >= *n) return false;
  CacheAccess access;
  access.k = k;
  access.block = stream_.block_at(k);
  access.set = static_cast<int>(access.block % sets_);
  auto& set = lines_[access.set];
  auto it = std::find_if(set.begin(), set.end(), [&](const Line& l) { return l.block == access.block; });
  if (it != set.end()) {
    access.hit = true;
    it->last_used = k;
    ++hits_;
  } else {
    if (static_cast<int>(set.size()) == config_.ways) {
      int v = victim(set, k);
      access.evicted = set[v].block;
      set.erase(set.begin() + v);
    }
    set.push_back({access.block, k, k});
  }
  for (const auto& s : lines_) {
    std::vector<Line> by_recency = s;
    std::stable_sort(by_recency.begin(), by_recency.end(),
              [](const Line& a, const Line& b) { return a.last_used > b.last_used; });
    for (const Line& l : by_recency) access.contents.push_back(l.block);
  }
  history_.push_back(std::move(access));
  return true;
}

int64_t CacheLab::run(int64_t requests) {
  int64_t done = 0;
  while (done < requests && step()) ++done;
  return done;
}

std::vector<double> hit_rate_series(const std::vector<CacheAccess>& history) {
  std::vector<double> out;
  int64_t hits = 0;
  for (size_t i = 0; i < history.size(); ++i) {
    hits += history[i].hit;
    out.push_back(static_cast<double>(hits) / static_cast<double>(i + 1));
  }
  return out;
}

PredictionScore score_prediction(const std::vector<CacheAccess>& history, const std::vector<bool>& predicted) {
  PredictionScore s;
  for (size_t i = 0; i < predicted.size() && i < history.size(); ++i) {
    bool right = predicted[i] == history[i].hit;
    s.right.push_back(right);
    s.correct += right;
    ++s.total;
  }
  return s;
}

}  // namespace arenaplan

namespace arenaplan {

JsonOut cache_report_json(const CacheLab& lab) {
  JsonOut out;
  out["policy"] = policy_name(lab.config().policy);
  out["capacity"] = lab.config().lines;
  out["ways"] = lab.config().ways;
  out["sets"] = lab.sets();
  out["stream"] = lab.stream().describe();
  out["requests"] = static_cast<int64_t>(lab.history().size());
  out["hits"] = lab.hits();
  out["misses"] = lab.misses();
  JsonOut trace = JsonOut::array();
  for (const CacheAccess& a : lab.history()) {
    JsonOut t;
    t["k"] = a.k;
    t["block"] = a.block;
    if (lab.sets() > 1) t["set"] = a.set;
    t["hit"] = a.hit;
    t["evicted"] = a.evicted ? JsonOut(*a.evicted) : JsonOut(nullptr);
    t["contents"] = a.contents;
    trace.push_back(std::move(t));
  }
  out["trace"] = std::move(trace);
  return out;
}

}  // namespace arenaplan
