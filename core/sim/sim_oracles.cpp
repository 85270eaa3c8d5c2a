// The three safety oracles. Each looks at the bytes, never at the plan's claims: a buffer that
// still holds needed data must not change, nothing past the arena may be written, the highest byte
// touched must fit the arena, and the outputs must equal a run with separate buffers.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "core/sim/sim.h"

namespace arenaplan::sim {

namespace {

inline uint8_t canary(Bytes i) { return static_cast<uint8_t>(0xA5 ^ (i * 0x3B)); }

// First and one-past-last differing byte of a and b over n bytes (n > 0, and they differ).
void diff_span(const uint8_t* a, const uint8_t* b, Bytes n, Bytes& lo, Bytes& hi) {
  lo = 0;
  while (lo < n && a[lo] == b[lo]) ++lo;
  hi = n;
  while (hi > lo && a[hi - 1] == b[hi - 1]) --hi;
}

std::string span_text(Bytes lo, Bytes hi) {
  return "bytes " + std::to_string(lo) + ".." + std::to_string(hi - 1);
}

}  // namespace

void ArenaSimulator::report(Violation v) {
  ++violation_count_;
  if (violations_.size() < options_.max_reports) violations_.push_back(std::move(v));
}

void ArenaSimulator::report_write(ForeignWrite w) {
  ++foreign_write_count_;
  if (foreign_writes_.size() < options_.max_reports) foreign_writes_.push_back(std::move(w));
}

std::string ArenaSimulator::tensor_label(int b, int session) const {
  const LiveBuffer& buf = live_.buffers[b];
  std::string s = buf.kind == BufferKind::kScratch ? "scratch of op " + g_.ops[buf.scratch_op].name
                                                   : "tensor " + buf.name;
  if (options_.sessions > 1) s += " of session " + std::to_string(session);
  return s;
}

std::string ArenaSimulator::ops_before_full_compare() const {
  if (ops_since_full_ <= 1) return "";
  if (ops_since_full_ == 2) return " or the op before it";
  return " or one of the " + std::to_string(ops_since_full_ - 1) + " ops before it (since the last full compare)";
}

bool ArenaSimulator::still_needed(const Claim& c, int exec_session, Step exec_step) const {
  if (c.run != run_) return false;
  const Step next = c.session == exec_session ? exec_step : next_step_[c.session];
  if (c.session != exec_session && (next == 0 || next >= steps_)) return false;  // not started / finished
  return kept_from_[c.buffer] <= next && next <= live_.buffers[c.buffer].last;
}

std::string ArenaSimulator::victim_at(int region, Bytes offset, int exec_session, Step exec_step) const {
  if (offset / claim_unit_ < units_)
    for (const Claim& c : claims_[static_cast<size_t>(region * units_ + offset / claim_unit_)])
      if (still_needed(c, exec_session, exec_step) && layout_.offsets[c.buffer] <= offset &&
          offset < layout_.offsets[c.buffer] + data_bytes_[c.buffer])
        return tensor_label(c.buffer, c.session);
  return offset >= layout_.arena_bytes ? "guard zone past the arena end" : "free bytes";
}

void ArenaSimulator::note_high_water(Step t, int session, Bytes end, const char* what) {
  high_water_ = std::max(high_water_, end);
  if (end <= layout_.arena_bytes || high_water_reported_) return;
  high_water_reported_ = true;  // once: every later op would repeat it
  report({"high_water",
          "op " + g_.ops[live_.order[t]].name + " touches arena bytes up to " + std::to_string(end) + " (" + std::string(what) +
              "), past the planned arena of " + std::to_string(layout_.arena_bytes) + " bytes",
          run_, session, t});
}

void ArenaSimulator::check_op(int session, Step t, bool loading) {
  if (!options_.oracles) return;
  const std::string& op = g_.ops[live_.order[t]].name;
  const std::string doing = loading ? "loading the inputs before op " + op : "op " + op;
  const std::vector<ByteRange>& allowed = loading ? loads_ : writes_[t];
  const int region = options_.shared_arena ? 0 : session;
  const size_t base = static_cast<size_t>(region) * region_bytes_;
  const size_t before = violation_count_;

  // The whole arena and flash are compared once the ops since the last full compare wrote as
  // many bytes: the oracle's work stays proportional to the simulation's.
  ++ops_since_full_;
  written_since_full_ += kFullCompareAllowance;
  for (const ByteRange& r : allowed) written_since_full_ += r.bytes;
  const bool full = written_since_full_ >= regions_ * region_bytes_ + static_cast<Bytes>(flash_.size());

  // 1. Buffers holding data someone still needs (every session sharing memory) must not change.
  check_overwritten(session, t, loading, doing);

  // 2. Writes past the arena end: the op's own outputs placed (partly) outside the planned arena.
  for (const ByteRange& r : allowed) {
    if (r.offset + r.bytes <= layout_.arena_bytes) continue;
    const Bytes lo = std::max(r.offset, layout_.arena_bytes);
    report_write({run_, session, t, live_.order[t], region, lo, r.offset + r.bytes - lo, "guard zone past the arena end"});
    report({"writes",
            doing + " writes " + (r.tensor >= 0 ? "tensor " + g_.tensors[r.tensor].name : std::string("its scratch")) +
                " at " + span_text(r.offset, r.offset + r.bytes) + ", past the arena end (" +
                std::to_string(layout_.arena_bytes) + " bytes)",
            run_, session, t});
  }

  // 3. Every other byte: nothing outside the op's outputs and scratch may change (kernel bugs,
  //    writes into free bytes or the guard zone). Skipped when 1 already named the damage; what
  //    changed is then taken as the new expected state, as the damage is reported once.
  if (violation_count_ == before) check_outside(session, t, allowed, full, doing);
  else std::memcpy(expected_.data(), memory_.data(), memory_.size());
  if (!loading) check_flash(session, t, full);
  if (full) {
    written_since_full_ = 0;
    ops_since_full_ = 0;
  }

  // The op's outputs and scratch are what the arena should now hold there, and whose they are.
  for (const ByteRange& r : allowed)
    std::memcpy(expected_.data() + base + r.offset, memory_.data() + base + r.offset, static_cast<size_t>(r.bytes));
  claim(session, allowed);
}

void ArenaSimulator::check_before_writes(int session, Step t, bool loading) {
  if (!options_.oracles) return;
  // The bytes this op is about to overwrite must still hold what the ops before left there: a
  // stray write into them would otherwise be hidden before any full compare sees it.
  const std::vector<ByteRange>& allowed = loading ? loads_ : writes_[t];
  const int region = options_.shared_arena ? 0 : session;
  const size_t base = static_cast<size_t>(region) * region_bytes_;
  const std::string& op = g_.ops[live_.order[t]].name;
  for (const ByteRange& r : allowed) {
    if (std::memcmp(memory_.data() + base + r.offset, expected_.data() + base + r.offset, static_cast<size_t>(r.bytes)) == 0)
      continue;
    Bytes a, b;
    diff_span(memory_.data() + base + r.offset, expected_.data() + base + r.offset, r.bytes, a, b);
    const std::string victim = victim_at(region, r.offset + a, session, t);
    report_write({run_, session, t, live_.order[t], region, r.offset + a, b - a, victim});
    report({"writes",
            "an op before " + std::string(loading ? "loading the inputs before op " : "op ") + op +
                " (since the last full compare) changed " + span_text(r.offset + a, r.offset + b) + " (" + victim +
                "), outside its outputs and scratch",
            run_, session, t});
    std::memcpy(expected_.data() + base + r.offset + a, memory_.data() + base + r.offset + a, static_cast<size_t>(b - a));
  }
}

void ArenaSimulator::check_overwritten(int session, Step t, bool loading, const std::string& doing) {
  const std::vector<ByteRange>& allowed = loading ? loads_ : writes_[t];
  const int region = options_.shared_arena ? 0 : session;
  const size_t base = static_cast<size_t>(region) * region_bytes_;
  // The buffers still needed that were written under the bytes this op wrote: the only bytes an
  // op may legitimately change, so the only place a bad plan lets it hit another buffer (writes
  // anywhere else are the outside check's).
  victims_.clear();
  for (const ByteRange& r : allowed) {
    if (r.bytes <= 0) continue;
    for (Bytes u = r.offset / claim_unit_; u <= (r.offset + r.bytes - 1) / claim_unit_; ++u)
      for (const Claim& c : claims_[static_cast<size_t>(region * units_ + u)]) {
        if (c.session == session &&
            (loading || std::find(written_[t].begin(), written_[t].end(), c.buffer) != written_[t].end()))
          continue;  // step 0's kept buffers are exactly what is being loaded; its own outputs
        if (!still_needed(c, session, t)) continue;
        const std::pair<int, int> v{c.session, c.buffer};
        if (std::find(victims_.begin(), victims_.end(), v) == victims_.end()) victims_.push_back(v);
      }
  }
  std::sort(victims_.begin(), victims_.end());
  for (const auto& [s, b] : victims_) {
    const Bytes off = layout_.offsets[b], end = off + data_bytes_[b];
    Bytes lo = end, hi = off;  // the changed span of b, in arena bytes
    for (const ByteRange& r : allowed) {
      const Bytes a = std::max(off, r.offset), z = std::min(end, r.offset + r.bytes);
      if (a >= z || std::memcmp(memory_.data() + base + a, expected_.data() + base + a, static_cast<size_t>(z - a)) == 0)
        continue;
      Bytes d_lo, d_hi;
      diff_span(memory_.data() + base + a, expected_.data() + base + a, z - a, d_lo, d_hi);
      lo = std::min(lo, a + d_lo);
      hi = std::max(hi, a + d_hi);
    }
    if (hi <= lo) continue;  // written over with the same bytes: nothing lost
    const LiveBuffer& victim = live_.buffers[b];
    std::string until = "op " + g_.ops[live_.order[victim.last]].name;
    for (const DmaRead& d : dma_)
      if (d.completes == victim.last && d.issued < victim.last &&
          std::find(victim.tensors.begin(), victim.tensors.end(), d.tensor) != victim.tensors.end())
        until = "the asynchronous read by op " + g_.ops[d.op].name + " completes then";
    report_write({run_, session, t, live_.order[t], region, lo, hi - lo, tensor_label(b, s)});
    report({"writes",
            doing + (options_.sessions > 1 ? " (session " + std::to_string(session) + ")" : "") + " changed " +
                span_text(lo, hi) + " of " + tensor_label(b, s) + ", which is still needed until step " +
                std::to_string(victim.last) + " (" + until + ")",
            run_, session, t});
  }
}

void ArenaSimulator::check_outside(int session, Step t, const std::vector<ByteRange>& allowed, bool full,
                                   const std::string& doing) {
  const int region = options_.shared_arena ? 0 : session;
  // Since the last full compare: this op alone, or it and the ops before it.
  const std::string who = doing + (full ? ops_before_full_compare() : std::string()) + " changed ";
  auto compare = [&](int reg, Bytes lo, Bytes hi) {
    const size_t base = static_cast<size_t>(reg) * region_bytes_;
    if (hi <= lo || std::memcmp(memory_.data() + base + lo, expected_.data() + base + lo, static_cast<size_t>(hi - lo)) == 0)
      return;
    Bytes a, b;
    diff_span(memory_.data() + base + lo, expected_.data() + base + lo, hi - lo, a, b);
    std::string victim = victim_at(reg, lo + a, session, t);
    report_write({run_, session, t, live_.order[t], reg, lo + a, b - a, victim});
    report({"writes", who + span_text(lo + a, lo + b) + " (" + victim + "), outside its outputs and scratch", run_, session, t});
    std::memcpy(expected_.data() + base + lo + a, memory_.data() + base + lo + a, static_cast<size_t>(b - a));  // once
  };
  // The gaps between the op's writes (sorted by offset in bind): whole when full, else the
  // kGuardBytes at each end, where an overrun or underrun lands first.
  auto compare_gap = [&](int reg, Bytes lo, Bytes hi) {
    if (full || hi - lo <= 2 * kGuardBytes) return compare(reg, lo, hi);
    compare(reg, lo, lo + kGuardBytes);
    compare(reg, hi - kGuardBytes, hi);
  };
  for (int reg = 0; reg < regions_; ++reg) {
    if (reg != region && !full) continue;
    Bytes at = 0;
    if (reg == region)
      for (const ByteRange& r : allowed) {
        compare_gap(reg, at, r.offset);
        at = std::max(at, r.offset + r.bytes);
      }
    compare_gap(reg, at, region_bytes_);
  }
}

void ArenaSimulator::claim(int session, const std::vector<ByteRange>& allowed) {
  const int region = options_.shared_arena ? 0 : session;
  for (const ByteRange& r : allowed) {
    const int b = r.buffer;
    const Bytes off = layout_.offsets[b], end = off + std::max<Bytes>(data_bytes_[b], 1);
    for (Bytes u = off / claim_unit_; u <= (end - 1) / claim_unit_; ++u) {
      std::vector<Claim>& here = claims_[static_cast<size_t>(region * units_ + u)];
      // Drop what no longer holds needed data (an earlier run, a buffer past its last step).
      here.erase(std::remove_if(here.begin(), here.end(),
                                [&](const Claim& c) {
                                  return c.run != run_ || (c.session == session && c.buffer == b) ||
                                         live_.buffers[c.buffer].last < next_step_[c.session];
                                }),
                 here.end());
      here.push_back({run_, session, b});
    }
  }
}

void ArenaSimulator::check_flash(int session, Step t, bool full) {
  if (!options_.oracles || flash_.empty()) return;
  if (!full) {
    // A kernel that writes flash writes what it was handed: this op's constants and weights.
    const OpId o = live_.order[t];
    bool changed = false;
    auto differs = [&](const uint8_t* p, Bytes n) {
      const size_t at = static_cast<size_t>(p - flash_.data());
      changed = changed || std::memcmp(p, flash_image_.data() + at, static_cast<size_t>(n)) != 0;
    };
    for (TensorId x : g_.ops[o].inputs)
      if (g_.tensors[x].constant) differs(tensor_ptr_[session][x], g_.tensors[x].bytes);
    if (implicit_weights_[o]) differs(implicit_weights_[o], kernels_[o].implicit_weight_bytes);
    if (!changed) return;
  }
  if (std::memcmp(flash_.data(), flash_image_.data(), flash_.size()) == 0) return;
  Bytes lo, hi;
  diff_span(flash_.data(), flash_image_.data(), static_cast<Bytes>(flash_.size()), lo, hi);
  const std::string who = full ? ops_before_full_compare() : std::string();
  report({"flash",
          "op " + g_.ops[live_.order[t]].name + who + " wrote the read-only constants in flash at " + span_text(lo, hi),
          run_, session, t});
  std::memcpy(flash_.data(), flash_image_.data(), flash_.size());  // restore: report each writer once
}

void ArenaSimulator::check_run_end(int session, Step t) {
  // Whatever the ops since the last full compare did is found before the run ends.
  if (!options_.oracles || ops_since_full_ == 0) return;
  check_outside(session, t, {}, true, "op " + g_.ops[live_.order[t]].name);
  check_flash(session, t, true);
  written_since_full_ = 0;
  ops_since_full_ = 0;
}

void ArenaSimulator::check_guards() {
  if (!options_.oracles) return;
  for (int r = 0; r < regions_; ++r) {
    uint8_t* base = memory_.data() + static_cast<size_t>(r) * region_bytes_;
    Bytes lo = -1, hi = -1;
    for (Bytes i = layout_.arena_bytes; i < region_bytes_; ++i)
      if (base[i] != canary(i)) {
        if (lo < 0) lo = i;
        hi = i + 1;
        base[i] = canary(i);  // re-arm for the next run
        expected_[static_cast<size_t>(r) * region_bytes_ + i] = canary(i);
      }
    if (lo < 0) continue;
    report({"writes",
            "canaries past the arena end" + (regions_ > 1 ? " (arena " + std::to_string(r) + ")" : std::string()) +
                " were overwritten at " + span_text(lo, hi) + " during run " + std::to_string(run_),
            run_, r, -1});
  }
}

void ArenaSimulator::compare_capture(int session) {
  if (!reference_ || capture_bytes_ == 0) return;
  const std::string who = "run " + std::to_string(run_) +
                          (options_.sessions > 1 ? ", session " + std::to_string(session) : std::string()) + ": ";
  const uint8_t* mine = captured(run_, session);
  const uint8_t* ref = reference_->captured(run_, session);
  if (!mine || !ref) {  // digests only: which item differs, not where
    for (size_t item = 0; item < capture_tensor_.size(); ++item) {
      const uint64_t a = capture_digest(run_, session, item), b = reference_->capture_digest(run_, session, item);
      if (a == b) continue;
      outputs_match_ = false;
      const TensorId t = capture_tensor_[item];
      char digests[96];
      std::snprintf(digests, sizeof digests, " (64-bit digest %016llx, reference %016llx; bytes kept up to %lld MiB)",
                    static_cast<unsigned long long>(a), static_cast<unsigned long long>(b),
                    static_cast<long long>(options_.max_capture_bytes >> 20));
      const std::string what = item < g_.outputs.size() ? "output " + g_.tensors[t].name
                                                         : "what the asynchronous read of " + g_.tensors[t].name + " delivered";
      report({"outputs", who + what + " differs from the reference run" + digests, run_, session, -1});
    }
    return;
  }
  if (std::memcmp(mine, ref, static_cast<size_t>(capture_bytes_)) == 0) return;
  outputs_match_ = false;
  Bytes at = 0;
  auto check = [&](Bytes n, const std::string& what) {
    if (std::memcmp(mine + at, ref + at, static_cast<size_t>(n)) != 0) {
      Bytes lo, hi;
      diff_span(mine + at, ref + at, n, lo, hi);
      char buf[64];
      std::snprintf(buf, sizeof buf, " (0x%02x, reference 0x%02x)", mine[at + lo], ref[at + lo]);
      report({"outputs", who + what + " differs from the reference run at byte " + std::to_string(lo) + " of " +
                             std::to_string(n) + buf,
              run_, session, -1});
    }
    at += n;
  };
  for (TensorId y : g_.outputs) check(g_.tensors[y].bytes, "output " + g_.tensors[y].name);
  for (const DmaRead& d : dma_)
    check(g_.tensors[d.tensor].bytes, "what the asynchronous read of " + g_.tensors[d.tensor].name + " by op " +
                                          g_.ops[d.op].name + " delivered at step " + std::to_string(d.completes));
}

}  // namespace arenaplan::sim
