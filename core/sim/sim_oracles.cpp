// The three safety oracles. Each looks at the bytes, never at the plan's claims: a buffer that
// still holds needed data must not change, nothing past the arena may be written, the highest byte
// touched must fit the arena, and the outputs must equal a run with separate buffers.
#include <algorithm>
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

std::string ArenaSimulator::victim_at(int region, Bytes offset, int exec_session, Step exec_step) const {
  for (int s = 0; s < options_.sessions; ++s) {
    if ((options_.shared_arena ? 0 : s) != region) continue;
    const Step next = s == exec_session ? exec_step : next_step_[s];
    if (next >= steps_ || (s != exec_session && next == 0)) continue;
    for (int b : keep_[next])
      if (layout_.offsets[b] <= offset && offset < layout_.offsets[b] + data_bytes_[b]) return tensor_label(b, s);
  }
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
  size_t before = violation_count_;

  // 1. Buffers holding data someone still needs (every session sharing memory) must not change.
  for (int s = 0; s < options_.sessions; ++s) {
    const Step next = s == session ? t : next_step_[s];
    if (s != session && (next == 0 || next >= steps_)) continue;  // not started / finished
    const int region = options_.shared_arena ? 0 : s;
    const size_t base = static_cast<size_t>(region) * region_bytes_;
    for (int b : keep_[next]) {
      if (s == session) {
        if (loading) continue;  // step 0's kept buffers are exactly what is being loaded
        if (std::find(written_[t].begin(), written_[t].end(), b) != written_[t].end()) continue;
      }
      const Bytes off = layout_.offsets[b], n = data_bytes_[b];
      if (n <= 0 || std::memcmp(memory_.data() + base + off, snapshot_.data() + base + off, static_cast<size_t>(n)) == 0)
        continue;
      Bytes lo, hi;
      diff_span(memory_.data() + base + off, snapshot_.data() + base + off, n, lo, hi);
      const LiveBuffer& victim = live_.buffers[b];
      std::string until = "op " + g_.ops[live_.order[victim.last]].name;
      for (const DmaRead& d : dma_)
        if (d.completes == victim.last && d.issued < victim.last &&
            std::find(victim.tensors.begin(), victim.tensors.end(), d.tensor) != victim.tensors.end())
          until = "the asynchronous read by op " + g_.ops[d.op].name + " completes then";
      report_write({run_, session, t, live_.order[t], region, off + lo, hi - lo, tensor_label(b, s)});
      report({"writes",
              doing + (options_.sessions > 1 ? " (session " + std::to_string(session) + ")" : "") + " changed " +
                  span_text(off + lo, off + hi) + " of " + tensor_label(b, s) + ", which is still needed until step " +
                  std::to_string(victim.last) + " (" + until + ")",
              run_, session, t});
    }
  }

  // 2. Writes past the arena end: the op's own outputs placed (partly) outside the planned arena.
  const std::vector<ByteRange>& allowed = loading ? loads_ : writes_[t];
  const int region = options_.shared_arena ? 0 : session;
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
  //    writes into free bytes or the guard zone). Skipped when 1 already named the damage.
  if (violation_count_ != before) return;
  for (int reg = 0; reg < regions_; ++reg) {
    const size_t base = static_cast<size_t>(reg) * region_bytes_;
    Bytes at = 0;
    auto compare_gap = [&](Bytes lo, Bytes hi) {
      if (hi <= lo || std::memcmp(memory_.data() + base + lo, snapshot_.data() + base + lo, static_cast<size_t>(hi - lo)) == 0)
        return;
      Bytes a, b;
      diff_span(memory_.data() + base + lo, snapshot_.data() + base + lo, hi - lo, a, b);
      std::string victim = victim_at(reg, lo + a, session, t);
      report_write({run_, session, t, live_.order[t], reg, lo + a, b - a, victim});
      report({"writes", doing + " changed " + span_text(lo + a, lo + b) + " (" + victim + "), outside its outputs and scratch",
              run_, session, t});
    };
    if (reg == region)
      for (const ByteRange& r : allowed) {  // sorted by offset (bind)
        compare_gap(at, r.offset);
        at = std::max(at, r.offset + r.bytes);
      }
    compare_gap(at, region_bytes_);
  }
}

void ArenaSimulator::check_flash(int session, Step t) {
  if (!options_.oracles || flash_.empty()) return;
  if (std::memcmp(flash_.data(), flash_image_.data(), flash_.size()) == 0) return;
  Bytes lo, hi;
  diff_span(flash_.data(), flash_image_.data(), static_cast<Bytes>(flash_.size()), lo, hi);
  report({"flash",
          "op " + g_.ops[live_.order[t]].name + " wrote the read-only constants in flash at " + span_text(lo, hi),
          run_, session, t});
  std::memcpy(flash_.data(), flash_image_.data(), flash_.size());  // restore: report each writer once
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
  const uint8_t* mine = captured(run_, session);
  const uint8_t* ref = reference_->captured(run_, session);
  if (std::memcmp(mine, ref, static_cast<size_t>(capture_bytes_)) == 0) return;
  outputs_match_ = false;
  Bytes at = 0;
  const std::string who = "run " + std::to_string(run_) +
                          (options_.sessions > 1 ? ", session " + std::to_string(session) : std::string()) + ": ";
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
