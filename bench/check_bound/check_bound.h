// check_bound: an independent checker of lower-bound certificates for the dynamic storage
// allocation problem (MiniMalloc CSV instances). It shares no code with arenaplan: only the C++
// standard library, so a bug in arenaplan's planners cannot make it accept a false bound.
//
// A certificate names an instance (by SHA-256 of the CSV file), a capacity C and a *core*: a
// subset of the instance's buffer ids. The checker proves, by exhaustive search, that the core's
// buffers (with their full lifetimes and sizes) cannot be placed inside [0, C) without two buffers
// that are live at the same time overlapping. Every packing of the whole instance packs the core,
// so no packing of the instance fits in C bytes either: its arena is at least C + 1. And since
// every size is a multiple of g (their greatest common divisor; the checker refuses alignments
// other than 1), the smallest arena is a multiple of g: pushing every buffer down (see below)
// never enlarges a packing and leaves every offset a sum of sizes. So the minimum arena is at least
// the first multiple of g above C. That is the bound the checker prints.
//
// Why the search is complete (it finds a packing of the core in [0, C) whenever one exists):
//
//  1. Gravity. Take any packing within C. Visit the buffers by increasing offset (ties in any
//     order) and move each down to G = max(0, tops of the already-visited buffers that are live at
//     the same time as it). Each visited buffer's top only fell, and a buffer visited earlier that
//     overlaps it in time had an offset no higher and so (no overlap in the packing) a top no
//     higher than its offset: so G <= its old offset, nothing leaves [0, C), and two buffers live
//     at the same time still do not overlap (the later-visited sits at or above the other's top).
//     So if a packing exists, a *gravity packing* exists: every buffer at
//     max(0, tops of the buffers live with it and placed lower).
//  2. The search builds packings one buffer at a time in order of non-decreasing offset. It keeps a
//     per-section height h (a section is a stretch of time between consecutive lifetime ends of
//     the core): h[s] = max(offset of the buffer placed last, tops of the placed buffers live in
//     s). A buffer b chosen next goes to o(b) = max of h over its sections. For a gravity packing
//     taken in increasing offset order, o(b) is exactly b's offset there: the buffers placed
//     before it and live with it lie below it, and their highest top is its offset (or 0); and the
//     last offset placed is no higher. So every gravity packing is one path of the search, the
//     search branches on *every* unplaced buffer at each step, and it gives up on a path only when
//     that path cannot be completed:
//       - o(b) + size(b) > C: b does not fit (h never falls, so it never will on this path);
//       - h[s] + (bytes of unplaced buffers live in s) > C for some section s: every unplaced
//         buffer live in s will sit at or above h[s] (offsets are max of h, and h never falls) and
//         they are pairwise live together in s, so they stack up disjointly above h[s].
//  3. Twins (same lifetime, same size) are interchangeable: swapping two in a packing gives a
//     packing. Being live together they sit at different offsets, so there is always a packing in
//     which the lower-numbered twin is the lower one, i.e. placed first: the search only places a
//     twin after every lower-numbered twin of it.
//  4. Memo. What can still be placed from a state depends only on the unplaced set and on h over
//     the sections where some unplaced buffer lives (other sections influence no o(b) and no
//     check). A state proven a dead end is remembered under that key and not searched again.
//
// Every placement it makes is checked against the placed buffers by construction (o(b) is above
// the top of each placed buffer live with b), so a path that places every buffer is a packing:
// the checker prints it and rejects the certificate.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

namespace boundcheck {

using i64 = long long;

// ---- SHA-256 (FIPS 180-4), to tie a certificate to the exact bytes of one instance file ----

inline std::string sha256_hex(const std::string& data) {
  static const uint32_t k[64] = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
      0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
      0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
      0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
      0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
      0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
      0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::string m = data;
  const uint64_t bits = static_cast<uint64_t>(data.size()) * 8;
  m.push_back(static_cast<char>(0x80));
  while (m.size() % 64 != 56) m.push_back(0);
  for (int i = 7; i >= 0; --i) m.push_back(static_cast<char>((bits >> (8 * i)) & 0xff));
  auto rotr = [](uint32_t x, int n) { return (x >> n) | (x << (32 - n)); };
  for (size_t chunk = 0; chunk < m.size(); chunk += 64) {
    uint32_t w[64];
    for (int i = 0; i < 16; ++i)
      w[i] = (uint32_t(uint8_t(m[chunk + 4 * i])) << 24) | (uint32_t(uint8_t(m[chunk + 4 * i + 1])) << 16) |
             (uint32_t(uint8_t(m[chunk + 4 * i + 2])) << 8) | uint32_t(uint8_t(m[chunk + 4 * i + 3]));
    for (int i = 16; i < 64; ++i) {
      const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (int i = 0; i < 64; ++i) {
      const uint32_t t1 = hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + k[i] + w[i];
      const uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
  }
  char out[65];
  for (int i = 0; i < 8; ++i) std::snprintf(out + 8 * i, 9, "%08x", h[i]);
  return std::string(out, 64);
}

// ---- the instance: MiniMalloc's CSV, `id,lower,upper,size[,alignment][,offset]`, lives [lower, upper) ----

struct Buffer {
  i64 id, lower, upper, size;
};

// Throws std::runtime_error on anything it does not understand (never guesses).
inline std::vector<Buffer> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    std::vector<std::string> cells;
    size_t c = 0;
    while (true) {
      const size_t comma = line.find(',', c);
      std::string cell = line.substr(c, comma == std::string::npos ? std::string::npos : comma - c);
      cell.erase(0, cell.find_first_not_of(" \t"));
      cell.erase(cell.find_last_not_of(" \t") + 1);
      cells.push_back(cell);
      if (comma == std::string::npos) break;
      c = comma + 1;
    }
    rows.push_back(cells);
  }
  if (rows.empty()) throw std::runtime_error("empty CSV");
  const std::vector<std::string>& head = rows[0];
  if (head.size() < 4 || head[0] != "id" || head[1] != "lower" || head[2] != "upper" || head[3] != "size")
    throw std::runtime_error("the header is not id,lower,upper,size[,alignment][,offset]");
  int alignment_col = -1;
  for (size_t i = 4; i < head.size(); ++i) {
    if (head[i] == "alignment") alignment_col = static_cast<int>(i);
    else if (head[i] != "offset") throw std::runtime_error("unknown column " + head[i]);
  }
  auto number = [](const std::string& s) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
      throw std::runtime_error("not a non-negative integer: '" + s + "'");
    return std::stoll(s);
  };
  std::vector<Buffer> out;
  std::set<i64> ids;
  for (size_t r = 1; r < rows.size(); ++r) {
    if (rows[r].size() != head.size()) throw std::runtime_error("row " + std::to_string(r) + " has the wrong cell count");
    Buffer b{number(rows[r][0]), number(rows[r][1]), number(rows[r][2]), number(rows[r][3])};
    if (b.upper <= b.lower) throw std::runtime_error("buffer " + rows[r][0] + " has an empty lifetime");
    if (alignment_col >= 0 && number(rows[r][alignment_col]) > 1)
      throw std::runtime_error("alignment above 1 is not supported by this checker");
    if (!ids.insert(b.id).second) throw std::runtime_error("duplicate id " + rows[r][0]);
    out.push_back(b);
  }
  return out;
}

// ---- the certificate: a small JSON object; only these keys are read ----
//   {"sha256": "<hex of the CSV file>", "capacity": C, "core": [id, id, ...], ...}

struct Certificate {
  std::string sha256;
  i64 capacity = -1;
  std::vector<i64> core;
};

inline Certificate parse_certificate(const std::string& text) {
  auto value_at = [&](const std::string& key) {
    const size_t k = text.find("\"" + key + "\"");
    if (k == std::string::npos) throw std::runtime_error("certificate has no \"" + key + "\"");
    if (text.find("\"" + key + "\"", k + 1) != std::string::npos)
      throw std::runtime_error("certificate has \"" + key + "\" twice");
    size_t p = text.find(':', k);
    if (p == std::string::npos) throw std::runtime_error("no ':' after \"" + key + "\"");
    ++p;
    while (p < text.size() && std::isspace(static_cast<unsigned char>(text[p]))) ++p;
    return p;
  };
  auto integer_at = [&](size_t& p) {
    size_t q = p;
    while (q < text.size() && std::isdigit(static_cast<unsigned char>(text[q]))) ++q;
    if (q == p || q - p > 17) throw std::runtime_error("expected a non-negative integer in the certificate");
    const i64 v = std::stoll(text.substr(p, q - p));
    p = q;
    return v;
  };
  Certificate c;
  size_t p = value_at("sha256");
  if (p >= text.size() || text[p] != '"') throw std::runtime_error("\"sha256\" is not a string");
  const size_t close = text.find('"', p + 1);
  if (close == std::string::npos) throw std::runtime_error("unterminated \"sha256\"");
  c.sha256 = text.substr(p + 1, close - p - 1);
  p = value_at("capacity");
  c.capacity = integer_at(p);
  p = value_at("core");
  if (p >= text.size() || text[p] != '[') throw std::runtime_error("\"core\" is not an array");
  ++p;
  while (true) {
    while (p < text.size() && std::isspace(static_cast<unsigned char>(text[p]))) ++p;
    if (p < text.size() && text[p] == ']') break;
    c.core.push_back(integer_at(p));
    while (p < text.size() && std::isspace(static_cast<unsigned char>(text[p]))) ++p;
    if (p < text.size() && text[p] == ',') ++p;
    else if (p < text.size() && text[p] == ']') break;
    else throw std::runtime_error("bad \"core\" array");
  }
  return c;
}

// ---- the exhaustive search (see the header comment for why it is complete) ----

struct SearchResult {
  bool feasible = false;       // a packing of the core within the capacity was found
  bool exhausted = true;       // false: the node limit stopped the search (no verdict)
  std::vector<i64> offsets;    // the packing when feasible, per core buffer in the order given
  long long nodes = 0;         // placements tried
  long long dead_states = 0;   // states remembered as dead ends
};

class Search {
 public:
  Search(const std::vector<Buffer>& core, i64 capacity, long long node_limit)
      : bufs_(core), cap_(capacity), limit_(node_limit) {
    n_ = static_cast<int>(bufs_.size());
    std::vector<i64> times;
    for (const Buffer& b : bufs_) times.push_back(b.lower), times.push_back(b.upper);
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    sections_ = times.empty() ? 0 : static_cast<int>(times.size()) - 1;
    first_.resize(n_), last_.resize(n_), twin_before_.assign(n_, -1);
    remaining_.assign(sections_, 0);
    for (int i = 0; i < n_; ++i) {
      first_[i] = static_cast<int>(std::lower_bound(times.begin(), times.end(), bufs_[i].lower) - times.begin());
      last_[i] = static_cast<int>(std::lower_bound(times.begin(), times.end(), bufs_[i].upper) - times.begin());
      for (int s = first_[i]; s < last_[i]; ++s) remaining_[s] += bufs_[i].size;
      for (int j = i - 1; j >= 0 && twin_before_[i] < 0; --j)
        if (bufs_[j].lower == bufs_[i].lower && bufs_[j].upper == bufs_[i].upper && bufs_[j].size == bufs_[i].size &&
            bufs_[j].id < bufs_[i].id)
          twin_before_[i] = j;
    }
    words_ = (n_ + 63) / 64;
  }

  SearchResult run() {
    SearchResult r;
    placed_.assign(n_, -1);
    std::vector<i64> h(sections_, 0);
    for (int i = 0; i < n_; ++i)
      if (bufs_[i].size > cap_) return finish(r, false);
    for (int s = 0; s < sections_; ++s)
      if (remaining_[s] > cap_) return finish(r, false);
    const bool ok = place_rest(h, n_);
    return finish(r, ok);
  }

 private:
  SearchResult finish(SearchResult& r, bool ok) {
    r.feasible = ok;
    r.exhausted = !stopped_;
    r.nodes = nodes_;
    r.dead_states = static_cast<long long>(dead_.size());
    if (ok) r.offsets = placed_;
    return r;
  }

  // The memo key: which buffers are unplaced, then h over the sections where one of them lives.
  std::string key(const std::vector<i64>& h) const {
    std::string k(static_cast<size_t>(words_) * 8, '\0');
    for (int i = 0; i < n_; ++i)
      if (placed_[i] < 0) k[static_cast<size_t>(i / 8)] |= static_cast<char>(1 << (i % 8));
    for (int s = 0; s < sections_; ++s)
      if (remaining_[s] > 0) k.append(reinterpret_cast<const char*>(&h[s]), sizeof(i64));
    return k;
  }

  // Places `left` more buffers above `h`; true when all fit (placed_ then holds the packing).
  bool place_rest(const std::vector<i64>& h, int left) {
    if (left == 0) return true;
    if (stopped_) return false;
    const std::string k = key(h);
    if (dead_.count(k)) return false;
    // Every unplaced buffer's lowest offset; one that no longer fits ends this path.
    std::vector<std::pair<i64, int>> order;
    for (int i = 0; i < n_; ++i) {
      if (placed_[i] >= 0) continue;
      i64 o = 0;
      for (int s = first_[i]; s < last_[i]; ++s) o = std::max(o, h[s]);
      if (o + bufs_[i].size > cap_) {
        dead_.insert(k);
        return false;
      }
      if (twin_before_[i] >= 0 && placed_[twin_before_[i]] < 0) continue;
      order.push_back({o, i});
    }
    // Lowest first (only the speed of finding a packing depends on the order).
    std::sort(order.begin(), order.end());
    std::vector<i64> next(sections_);
    for (const auto& [o, i] : order) {
      if (limit_ > 0 && nodes_ >= limit_) {
        stopped_ = true;
        return false;
      }
      ++nodes_;
      const i64 top = o + bufs_[i].size;
      bool fits = true;
      for (int s = 0; s < sections_; ++s) next[s] = std::max(h[s], o);
      for (int s = first_[i]; s < last_[i]; ++s) {
        next[s] = top;
        remaining_[s] -= bufs_[i].size;
      }
      for (int s = 0; s < sections_ && fits; ++s)
        if (remaining_[s] > 0 && next[s] + remaining_[s] > cap_) fits = false;
      placed_[i] = o;
      if (fits && place_rest(next, left - 1)) return true;
      placed_[i] = -1;
      for (int s = first_[i]; s < last_[i]; ++s) remaining_[s] += bufs_[i].size;
      if (stopped_) return false;
    }
    dead_.insert(k);
    return false;
  }

  std::vector<Buffer> bufs_;
  i64 cap_;
  long long limit_;
  int n_ = 0, sections_ = 0, words_ = 0;
  std::vector<int> first_, last_, twin_before_;
  std::vector<i64> remaining_, placed_;
  std::unordered_set<std::string> dead_;
  long long nodes_ = 0;
  bool stopped_ = false;
};

// Does any packing of `core` fit in [0, capacity)? node_limit <= 0: no limit.
inline SearchResult search_packing(const std::vector<Buffer>& core, i64 capacity, long long node_limit = 0) {
  return Search(core, capacity, node_limit).run();
}

inline i64 size_gcd(const std::vector<Buffer>& all) {
  i64 g = 0;
  for (const Buffer& b : all) g = std::gcd(g, b.size);
  return g;
}

// The checker's verdict on one certificate.
struct Verdict {
  bool accepted = false;
  std::string message;   // why not, or what is proven
  i64 bound = 0;         // when accepted: no packing of the instance has an arena below this
  SearchResult search;
};

inline Verdict check_certificate(const std::string& csv_text, const std::string& certificate_text,
                                 long long node_limit = 0) {
  Verdict v;
  const std::vector<Buffer> all = parse_csv(csv_text);
  const Certificate cert = parse_certificate(certificate_text);
  const std::string digest = sha256_hex(csv_text);
  if (cert.sha256 != digest) {
    v.message = "the certificate is for another file (sha256 " + cert.sha256 + ", this file " + digest + ")";
    return v;
  }
  std::vector<Buffer> core;
  std::set<i64> seen;
  for (i64 id : cert.core) {
    if (!seen.insert(id).second) {
      v.message = "core lists buffer " + std::to_string(id) + " twice";
      return v;
    }
    auto it = std::find_if(all.begin(), all.end(), [&](const Buffer& b) { return b.id == id; });
    if (it == all.end()) {
      v.message = "core names buffer " + std::to_string(id) + ", which the instance does not have";
      return v;
    }
    core.push_back(*it);
  }
  v.search = search_packing(core, cert.capacity, node_limit);
  if (!v.search.exhausted) {
    v.message = "no verdict: the node limit stopped the search after " + std::to_string(v.search.nodes) + " nodes";
    return v;
  }
  if (v.search.feasible) {
    v.message = "rejected: the core's " + std::to_string(core.size()) + " buffers fit in " +
                std::to_string(cert.capacity) + " B (offsets found)";
    return v;
  }
  const i64 g = size_gcd(all);
  v.bound = (cert.capacity / g + 1) * g;
  v.accepted = true;
  v.message = "certified: the core's " + std::to_string(core.size()) + " buffers do not fit in " +
              std::to_string(cert.capacity) + " B (" + std::to_string(v.search.nodes) + " nodes, " +
              std::to_string(v.search.dead_states) + " dead states); every size is a multiple of " +
              std::to_string(g) + " B, so every arena of this instance is at least " + std::to_string(v.bound) + " B";
  return v;
}

}  // namespace boundcheck
