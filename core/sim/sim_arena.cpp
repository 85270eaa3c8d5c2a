// The simulator's machine: the arena bytes (one region per session, or one shared), flash for
// constants, caller memory for caller-owned inputs, binding ops to addresses and stepping.
#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <tuple>
#include <type_traits>

#include "core/sim/sim.h"

namespace arenaplan::sim {

namespace {

// What never-written arena bytes hold: position-dependent, so stale or garbage reads are visible.
inline uint8_t canary(Bytes i) { return static_cast<uint8_t>(0xA5 ^ (i * 0x3B)); }

// canary(i) repeats every 256 bytes: one period written, then copied in doubling blocks (an
// 850 MB arena byte by byte took a second).
void fill_canaries(uint8_t* out, Bytes n) {
  const Bytes period = std::min<Bytes>(n, 256);
  for (Bytes i = 0; i < period; ++i) out[i] = canary(i);
  for (Bytes done = period; done < n;) {
    const Bytes k = std::min(done, n - done);
    std::memcpy(out + done, out, static_cast<size_t>(k));
    done += k;
  }
}

uint64_t splitmix(uint64_t& state) {
  uint64_t x = (state += 0x9E3779B97F4A7C15ull);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// A 64-bit digest of n bytes (8-byte words multiplied in, the length last): the outputs oracle's
// fingerprint of a capture whose bytes are not kept.
uint64_t bytes_digest(const uint8_t* p, Bytes n) {
  uint64_t h = 0x9E3779B97F4A7C15ull;
  Bytes i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 31;
  }
  for (; i < n; ++i) h = (h ^ p[i]) * 0x94D049BB133111EBull;
  h ^= static_cast<uint64_t>(n) * 0xD1B54A32D192ED03ull;
  h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
  return h ^ (h >> 31);
}

uint64_t name_key(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

}  // namespace

void fill_implicit_weights(const std::string& op_name, Bytes bytes, uint64_t seed, uint8_t* data) {
  Tensor w;
  w.name = op_name + ":weights";
  w.dtype = DType::kInt8;
  w.bytes = bytes;
  fill_tensor(w, seed, 0, data);
}

void fill_tensor(const Tensor& t, uint64_t seed, uint64_t stream, uint8_t* data) {
  uint64_t state = seed ^ name_key(t.name) ^ (stream * 0xD1B54A32D192ED03ull);
  if (t.dtype == DType::kInt32) {
    // Biases: small enough that they shift, not swamp, the int8 x int8 sums.
    for (Bytes i = 0; i + 4 <= t.bytes; i += 4) {
      int32_t v = static_cast<int32_t>(splitmix(state) % 2049) - 1024;
      std::memcpy(data + i, &v, 4);
    }
    return;
  }
  const bool int8 = t.dtype == DType::kInt8;
  for (Bytes i = 0; i < t.bytes; ++i) {
    uint8_t v = static_cast<uint8_t>(splitmix(state));
    if (int8 && v == 0x80) v = 0x81;  // symmetric int8: -127..127
    data[i] = v;
  }
}

void initial_state(const Tensor& t, uint64_t seed, uint8_t* data) {
  // A model's variable tensors start at real zero, as TFLM resets them: the zero point when
  // quantized, 0.0 for float32. Hand-written state has no numbers: seeded bytes.
  if (t.quant && t.dtype == DType::kInt8) {
    std::memset(data, static_cast<uint8_t>(static_cast<int8_t>(t.quant->zero_point[0])), static_cast<size_t>(t.bytes));
  } else if (t.quant && t.dtype == DType::kInt16) {
    const int16_t z = static_cast<int16_t>(t.quant->zero_point[0]);
    for (Bytes i = 0; i + 2 <= t.bytes; i += 2) std::memcpy(data + i, &z, 2);
  } else if (t.quant || (t.dtype == DType::kFloat32 && !t.shape.empty())) {
    std::memset(data, 0, static_cast<size_t>(t.bytes));
  } else {
    fill_tensor(t, seed, 0, data);
  }
}

ArenaLayout separate_layout(const LiveAnalysis& live, Bytes alignment) {
  ArenaLayout l;
  l.planner = "separate";
  Bytes at = 0;
  for (const LiveBuffer& b : live.buffers) {
    l.offsets.push_back(at);
    at = align_up(at + b.size, alignment);
  }
  l.arena_bytes = at;
  return l;
}

ArenaLayout reference_layout(const LiveAnalysis& live, Bytes alignment) {
  // Lanes: a lane holds one buffer at a time, so buffers sharing a lane never overlap in time, and
  // lanes never share bytes. A buffer goes to a lane of its size class that is free at its first
  // step (its last buffer ended before), else a new lane.
  const size_t n = live.buffers.size();
  std::vector<int> by_first(n);
  for (size_t i = 0; i < n; ++i) by_first[i] = static_cast<int>(i);
  std::stable_sort(by_first.begin(), by_first.end(),
                   [&](int a, int b) { return live.buffers[a].first < live.buffers[b].first; });
  auto size_class = [&](Bytes size) {
    int c = 0;
    while ((Bytes{1} << c) < std::max<Bytes>(size, alignment)) ++c;
    return c;
  };
  std::vector<int> lanes;  // per lane: its size class
  std::vector<int> lane_of(n, -1);
  // Per size class, lanes by the step they become free (min-heap).
  std::vector<std::vector<std::pair<Step, int>>> free_at(64);
  auto later = [](const std::pair<Step, int>& a, const std::pair<Step, int>& b) { return a > b; };
  for (int b : by_first) {
    const LiveBuffer& buf = live.buffers[b];
    const int c = size_class(buf.size);
    auto& heap = free_at[c];
    int lane = -1;
    if (!heap.empty() && heap.front().first < buf.first) {
      std::pop_heap(heap.begin(), heap.end(), later);
      lane = heap.back().second;
      heap.pop_back();
    } else {
      lane = static_cast<int>(lanes.size());
      lanes.push_back(c);
    }
    lane_of[b] = lane;
    heap.push_back({buf.last, lane});
    std::push_heap(heap.begin(), heap.end(), later);
  }
  // A lane is as wide as the largest buffer it held (never more than one buffer each would take).
  std::vector<Bytes> lane_bytes(lanes.size(), 0), lane_at(lanes.size());
  for (size_t b = 0; b < n; ++b) lane_bytes[lane_of[b]] = std::max(lane_bytes[lane_of[b]], live.buffers[b].size);
  Bytes at = 0;
  for (size_t l = 0; l < lanes.size(); ++l) {
    lane_at[l] = at;
    at = align_up(at + lane_bytes[l], alignment);
  }
  ArenaLayout out;
  out.planner = "reference lanes";
  out.offsets.resize(n);
  for (size_t b = 0; b < n; ++b) out.offsets[b] = lane_at[lane_of[b]];
  out.arena_bytes = at;
  return out;
}

LiveAnalysis reference_lifetimes(const Graph& g, const LiveAnalysis& live) {
  LiveAnalysis out = live;
  const Step steps = static_cast<Step>(live.order.size());
  std::vector<Step> step_of(g.ops.size(), -1);
  for (Step t = 0; t < steps; ++t) step_of[live.order[t]] = t;
  // Per tensor: the last step that touches it (its producer, readers, asynchronous reads).
  std::vector<Step> last_use(g.tensors.size(), -1);
  for (size_t o = 0; o < g.ops.size(); ++o) {
    const Step t = step_of[o];
    if (t < 0) continue;
    for (TensorId x : g.ops[o].inputs) last_use[x] = std::max(last_use[x], t);
    for (TensorId y : g.ops[o].outputs) last_use[y] = std::max(last_use[y], t);
    for (const AsyncRead& a : g.ops[o].async_reads)
      last_use[a.tensor] = std::max(last_use[a.tensor], std::min<Step>(steps - 1, t + a.extra_steps));
  }
  for (LiveBuffer& b : out.buffers) {
    if (b.kind != BufferKind::kTensor || b.tensors.empty()) continue;
    Step last = b.first;
    bool held = false;  // by a rule other than being a graph output
    for (TensorId t : b.tensors) {
      const Tensor& tensor = g.tensors[t];
      held = held || tensor.persistent || tensor.retained ||
             (g.is_input(t) && g.input_policy == InputPolicy::kRetained);
      last = std::max(last, last_use[t]);
    }
    if (!held) b.last = std::min(b.last, last);
  }
  return out;
}

ArenaSimulator::ArenaSimulator(const Graph& g, LiveAnalysis live, ArenaLayout layout, SimOptions options)
    : g_(g), live_(std::move(live)), layout_(std::move(layout)), options_(std::move(options)) {
  if (layout_.offsets.size() != live_.buffers.size())
    throw InputError("layout", "has " + std::to_string(layout_.offsets.size()) + " offsets for " +
                                   std::to_string(live_.buffers.size()) + " buffers");
  if (options_.runs < 1 || options_.runs > 100000) throw InputError("runs", "must be in [1, 100000]");
  if (options_.sessions < 1 || options_.sessions > 16) throw InputError("sessions", "must be in [1, 16]");
  if (options_.inputs.size() > g_.inputs.size())
    throw InputError("inputs", std::to_string(options_.inputs.size()) + " input buffers for " +
                                   std::to_string(g_.inputs.size()) + " graph inputs");
  for (size_t i = 0; i < options_.inputs.size(); ++i) {
    const Tensor& t = g_.tensors[g_.inputs[i]];
    if (!options_.inputs[i].empty() && static_cast<Bytes>(options_.inputs[i].size()) != t.bytes)
      throw InputError("input " + t.name, "has " + std::to_string(options_.inputs[i].size()) + " bytes, the tensor " +
                                              std::to_string(t.bytes));
  }
  steps_ = static_cast<Step>(live_.order.size());
  for (OpId o = 0; o < static_cast<OpId>(g_.ops.size()); ++o) kernels_.push_back(plan_kernel(g_, o));
  // Stateful kernels start from zeros, once per session, and keep their state from run to run.
  op_state_.assign(static_cast<size_t>(options_.sessions), std::vector<std::vector<uint8_t>>(g_.ops.size()));
  for (auto& per_op : op_state_)
    for (size_t o = 0; o < per_op.size(); ++o) per_op[o].assign(static_cast<size_t>(kernels_[o].state_bytes), 0);

  Bytes end = layout_.arena_bytes;
  data_bytes_.resize(live_.buffers.size());
  for (size_t b = 0; b < live_.buffers.size(); ++b) {
    const LiveBuffer& buf = live_.buffers[b];
    if (layout_.offsets[b] < 0)
      throw InputError("layout", "buffer " + buf.name + " has a negative offset " + std::to_string(layout_.offsets[b]));
    Bytes data = 0;
    for (TensorId t : buf.tensors) data = std::max(data, g_.tensors[t].bytes);
    if (buf.kind == BufferKind::kScratch) data = g_.ops[buf.scratch_op].scratch_bytes;
    data_bytes_[b] = data;
    end = std::max(end, layout_.offsets[b] + buf.size);
  }
  // Guard zone: everything past the planned arena, at least 64 bytes of canaries.
  region_bytes_ = end + std::max<Bytes>(64, g_.alignment);
  regions_ = options_.shared_arena ? 1 : options_.sessions;
  memory_.resize(static_cast<size_t>(regions_ * region_bytes_));
  for (int r = 0; r < regions_; ++r)
    fill_canaries(memory_.data() + r * region_bytes_, region_bytes_);
  for (const SimOptions::StrayWrite& w : options_.stray_writes)
    if (w.op < 0 || w.op >= static_cast<OpId>(g_.ops.size()) || w.offset < 0 || w.offset >= region_bytes_)
      throw InputError("inject stray", "needs an op of the graph and an arena offset in [0, " +
                                           std::to_string(region_bytes_) + ")");
  if (options_.oracles) {
    expected_ = memory_;
    while (region_bytes_ / claim_unit_ > kMaxClaimUnits) claim_unit_ *= 2;
    units_ = (region_bytes_ + claim_unit_ - 1) / claim_unit_;
    claims_.resize(static_cast<size_t>(regions_ * units_));
  }

  bind();
  compute_stats();
  const Bytes captures = static_cast<Bytes>(options_.runs) * options_.sessions * capture_bytes_;
  keep_capture_bytes_ = captures <= options_.max_capture_bytes;
  if (keep_capture_bytes_) captures_.assign(static_cast<size_t>(captures), 0);
  digests_.assign(static_cast<size_t>(options_.runs) * options_.sessions * capture_tensor_.size(), 0);
  next_step_.assign(options_.sessions, 0);
}

void ArenaSimulator::bind() {
  const int S = options_.sessions;
  // Constants in flash (8-byte aligned so int32 biases are aligned), caller-owned inputs per session.
  std::vector<Bytes> flash_at(g_.tensors.size(), -1), caller_at(g_.tensors.size(), -1);
  Bytes flash = 0, caller = 0;
  for (size_t t = 0; t < g_.tensors.size(); ++t) {
    const Tensor& tensor = g_.tensors[t];
    if (tensor.constant) {
      flash_at[t] = flash;
      flash = align_up(flash + tensor.bytes, 8);
    } else if (live_.buffer_of_tensor[t] < 0 && g_.is_input(static_cast<TensorId>(t))) {
      caller_at[t] = caller;
      caller = align_up(caller + tensor.bytes, 8);
    }
  }
  std::vector<Bytes> implicit_at(g_.ops.size(), -1);
  for (size_t o = 0; o < g_.ops.size(); ++o)
    if (kernels_[o].implicit_weight_bytes > 0) {
      implicit_at[o] = flash;
      flash = align_up(flash + kernels_[o].implicit_weight_bytes, 8);
    }
  flash_.assign(static_cast<size_t>(flash), 0);
  caller_.assign(static_cast<size_t>(caller * S), 0);
  for (size_t t = 0; t < g_.tensors.size(); ++t) {
    if (flash_at[t] < 0) continue;
    const Tensor& c = g_.tensors[t];
    // The model's own bytes when the graph carries them, else seeded bytes.
    if (c.data && static_cast<Bytes>(c.data->size()) == c.bytes) std::memcpy(flash_.data() + flash_at[t], c.data->data(), c.data->size());
    else fill_tensor(c, options_.seed, 0, flash_.data() + flash_at[t]);
  }
  implicit_weights_.assign(g_.ops.size(), nullptr);
  for (size_t o = 0; o < g_.ops.size(); ++o)
    if (implicit_at[o] >= 0) {
      fill_implicit_weights(g_.ops[o].name, kernels_[o].implicit_weight_bytes, options_.seed, flash_.data() + implicit_at[o]);
      implicit_weights_[o] = flash_.data() + implicit_at[o];
    }

  if (options_.oracles) flash_image_ = flash_;  // the flash oracle compares against this

  tensor_ptr_.assign(S, std::vector<uint8_t*>(g_.tensors.size(), nullptr));
  for (int s = 0; s < S; ++s) {
    uint8_t* base = memory_.data() + static_cast<size_t>(options_.shared_arena ? 0 : s) * region_bytes_;
    for (size_t t = 0; t < g_.tensors.size(); ++t) {
      int b = live_.buffer_of_tensor[t];
      if (b >= 0) tensor_ptr_[s][t] = base + layout_.offsets[b];
      else if (flash_at[t] >= 0) tensor_ptr_[s][t] = flash_.data() + flash_at[t];
      else if (caller_at[t] >= 0) tensor_ptr_[s][t] = caller_.data() + s * caller + caller_at[t];
    }
  }

  std::vector<int> scratch_of_op(g_.ops.size(), -1);
  std::vector<bool> preloaded(live_.buffers.size(), false);
  for (size_t b = 0; b < live_.buffers.size(); ++b) {
    const LiveBuffer& buf = live_.buffers[b];
    if (buf.kind == BufferKind::kScratch) scratch_of_op[buf.scratch_op] = static_cast<int>(b);
    for (TensorId t : buf.tensors)
      if (g_.is_input(t) || g_.tensors[t].persistent) preloaded[b] = true;
  }
  auto range = [&](int b, TensorId t) {
    return ByteRange{layout_.offsets[b], t >= 0 ? g_.tensors[t].bytes : data_bytes_[b], b, t};
  };
  for (size_t b = 0; b < live_.buffers.size(); ++b)
    if (preloaded[b])
      for (TensorId t : live_.buffers[b].tensors)
        if (g_.is_input(t) || g_.tensors[t].persistent) loads_.push_back(range(static_cast<int>(b), t));

  reads_.resize(steps_);
  writes_.resize(steps_);
  written_.resize(steps_);
  operands_.assign(S, {});
  bound_.assign(S, std::vector<BoundStep>(steps_));
  // A buffer holds needed data from the step after it is written (from step 0 when loaded before).
  kept_from_.resize(live_.buffers.size());
  for (size_t b = 0; b < live_.buffers.size(); ++b)
    kept_from_[b] = preloaded[b] ? live_.buffers[b].first : live_.buffers[b].first + 1;
  for (Step t = 0; t < steps_; ++t) {
    const OpId o = live_.order[t];
    const Op& op = g_.ops[o];
    for (TensorId x : op.inputs)
      if (int b = live_.buffer_of_tensor[x]; b >= 0) {
        reads_[t].push_back(range(b, x));
        // A variable tensor an op takes as input is its to update in place, as TFLM's kernels do
        // (an SVDF's memory): a write there is the op's own, not a foreign one.
        if (g_.tensors[x].persistent && !g_.is_input(x)) {
          writes_[t].push_back(range(b, x));
          written_[t].push_back(b);
        }
      }
    for (TensorId y : op.outputs)
      if (int b = live_.buffer_of_tensor[y]; b >= 0) {
        writes_[t].push_back(range(b, y));
        written_[t].push_back(b);
      }
    if (int b = scratch_of_op[o]; b >= 0) {
      writes_[t].push_back(range(b, -1));
      written_[t].push_back(b);
      if (kernels_[o].kind == KernelKind::kMix) reads_[t].push_back(range(b, -1));
    }
    for (const AsyncRead& a : op.async_reads) {
      DmaRead d;
      d.tensor = a.tensor;
      d.issued = t;
      d.completes = std::min<Step>(steps_ - 1, t + a.extra_steps);
      d.op = o;
      dma_.push_back(d);
    }
    for (int s = 0; s < S; ++s) {
      BoundStep& bs = bound_[s][t];
      std::vector<Operand>& ops = operands_[s];
      bs.in_begin = ops.size();
      for (TensorId x : op.inputs) ops.push_back({tensor_ptr_[s][x], g_.tensors[x].bytes});
      bs.in_end = bs.out_begin = ops.size();
      for (TensorId y : op.outputs) ops.push_back({tensor_ptr_[s][y], g_.tensors[y].bytes});
      bs.out_end = ops.size();
      if (int b = scratch_of_op[o]; b >= 0)
        bs.scratch = {memory_.data() + static_cast<size_t>(options_.shared_arena ? 0 : s) * region_bytes_ +
                          layout_.offsets[b],
                      data_bytes_[b]};
    }
  }
  for (Step t = 0; t < steps_; ++t)
    for (TensorId x : g_.ops[live_.order[t]].inputs)
      if (!tensor_ptr_[0][x])
        throw InputError("op " + g_.ops[live_.order[t]].name, "input " + g_.tensors[x].name + " has no storage");
  // The write oracle walks the gaps between allowed ranges in offset order.
  auto by_offset = [](const ByteRange& a, const ByteRange& b) {
    return std::tie(a.offset, a.bytes, a.buffer, a.tensor) < std::tie(b.offset, b.bytes, b.buffer, b.tensor);
  };
  for (auto& w : writes_) std::sort(w.begin(), w.end(), by_offset);
  std::sort(loads_.begin(), loads_.end(), by_offset);
  // Each graph output is captured after the last step of its buffer (the run's last step, unless
  // these are the reference's lifetimes, where it ends at its last use); one outside the arena at
  // the end.
  outputs_captured_at_.assign(steps_, {});
  for (TensorId y : g_.outputs) {
    const int b = live_.buffer_of_tensor[y];
    const Step at = b >= 0 ? std::min<Step>(live_.buffers[b].last, steps_ - 1) : steps_ - 1;
    if (steps_ > 0) outputs_captured_at_[at].push_back(capture_tensor_.size());
    capture_tensor_.push_back(y);
    capture_offset_.push_back(capture_bytes_);
    capture_bytes_ += g_.tensors[y].bytes;
  }
  std::stable_sort(dma_.begin(), dma_.end(), [](const DmaRead& a, const DmaRead& b) { return a.completes < b.completes; });
  for (DmaRead& d : dma_) {
    d.capture_offset = capture_bytes_;
    capture_tensor_.push_back(d.tensor);
    capture_offset_.push_back(capture_bytes_);
    capture_bytes_ += g_.tensors[d.tensor].bytes;
  }
}

void ArenaSimulator::compute_stats() {
  stats_.resize(steps_);
  for (Step t = 0; t < steps_; ++t) {
    const OpId o = live_.order[t];
    const Op& op = g_.ops[o];
    OpStats& st = stats_[t];
    st.op = o;
    st.kernel = plan_kernel_name(kernels_[o]);
    st.note = kernels_[o].note;
    st.stand_in = kernels_[o].stand_in;
    st.on_npu = kernels_[o].on_npu;
    OpWork w;
    w.kind = cost_kind_of(op.kind, kernels_[o].work.pointwise);
    w.flash_bytes_read = kernels_[o].implicit_weight_bytes;
    w.macs = kernels_[o].work.macs;
    w.alu_ops = kernels_[o].work.alu_ops;
    w.temp_bytes = kernels_[o].work.temp_bytes;
    w.reread_bytes = kernels_[o].work.reread_bytes;
    for (TensorId x : op.inputs) {
      if (g_.tensors[x].constant) w.flash_bytes_read += g_.tensors[x].bytes;
      else w.sram_bytes_read += g_.tensors[x].bytes;
    }
    for (TensorId y : op.outputs) w.bytes_written += g_.tensors[y].bytes;
    w.bytes_written += op.scratch_bytes;
    st.cost_kind = w.kind;
    st.macs = w.macs;
    st.alu_ops = w.alu_ops;
    st.bytes_read = w.sram_bytes_read + w.flash_bytes_read;
    st.flash_bytes_read = w.flash_bytes_read;
    st.bytes_written = w.bytes_written;
    st.cycles = op_cycles(options_.profile, w);
  }
  // A DMA overlaps the ops after it; the op at its completion step waits for whatever is left.
  for (const DmaRead& d : dma_) {
    const Bytes bytes = g_.tensors[d.tensor].bytes;
    stats_[d.issued].dma_bytes += bytes;
    int64_t window = 0;
    for (Step t = d.issued + 1; t <= d.completes; ++t) window += stats_[t].cycles;
    int64_t stall = std::max<int64_t>(0, dma_cycles(options_.profile, bytes) - window);
    stats_[d.completes].dma_stall_cycles += stall;
  }
  for (OpStats& st : stats_) st.cycles += st.dma_stall_cycles;
}

int64_t ArenaSimulator::cycles_per_inference() const {
  int64_t c = 0;
  for (const OpStats& s : stats_) c += s.cycles;
  return c;
}

int64_t ArenaSimulator::macs_per_inference() const {
  int64_t m = 0;
  for (const OpStats& s : stats_) m += s.macs;
  return m;
}

const uint8_t* ArenaSimulator::captured(int run, int session) const {
  if (!keep_capture_bytes_) return nullptr;
  return captures_.data() + (static_cast<size_t>(run) * options_.sessions + session) * capture_bytes_;
}

uint64_t ArenaSimulator::capture_digest(int run, int session, size_t item) const {
  return digests_[(static_cast<size_t>(run) * options_.sessions + session) * capture_tensor_.size() + item];
}

void ArenaSimulator::capture(int session, size_t item) {
  const TensorId t = capture_tensor_[item];
  const Bytes n = g_.tensors[t].bytes;
  const size_t slot = static_cast<size_t>(run_) * options_.sessions + session;
  digests_[slot * capture_tensor_.size() + item] = bytes_digest(tensor_ptr_[session][t], n);
  if (keep_capture_bytes_)
    std::memcpy(captures_.data() + slot * capture_bytes_ + capture_offset_[item], tensor_ptr_[session][t], static_cast<size_t>(n));
}

void ArenaSimulator::load_inputs(int session) {
  check_before_writes(session, 0, true);
  const uint64_t stream = 1 + (static_cast<uint64_t>(run_) << 8) + static_cast<uint64_t>(session);
  for (size_t i = 0; i < g_.inputs.size(); ++i) {
    const TensorId t = g_.inputs[i];
    if (i < options_.inputs.size() && !options_.inputs[i].empty())
      std::memcpy(tensor_ptr_[session][t], options_.inputs[i].data(), options_.inputs[i].size());
    else
      fill_tensor(g_.tensors[t], options_.seed, stream, tensor_ptr_[session][t]);
  }
  // Persistent state starts at its initial value on the first run and then carries over, as TFLM
  // keeps variable tensors across Invoke() calls (an SVDF's memory). The reference run does the
  // same, so each run's outputs still compare run for run.
  for (size_t t = 0; t < g_.tensors.size() && run_ == 0; ++t)
    if (g_.tensors[t].persistent && !g_.is_input(static_cast<TensorId>(t)))
      initial_state(g_.tensors[t], options_.seed, tensor_ptr_[session][t]);
  for (const ByteRange& r : loads_) note_high_water(0, session, r.offset + r.bytes, "loading the inputs");
  check_op(session, 0, true);
}

void ArenaSimulator::run_op(int session, Step t) {
  const OpId o = live_.order[t];
  const BoundStep& bs = bound_[session][t];
  const std::vector<Operand>& ops = operands_[session];
  check_before_writes(session, t, false);
  std::vector<uint8_t>& state = op_state_[static_cast<size_t>(session)][o];
  run_kernel(kernels_[o], ops.data() + bs.in_begin, bs.in_end - bs.in_begin, ops.data() + bs.out_begin,
             bs.out_end - bs.out_begin, bs.scratch, implicit_weights_[o], Operand{state.data(), static_cast<int64_t>(state.size())});
  for (const SimOptions::StrayWrite& w : options_.stray_writes)
    if (w.op == o)
      memory_[static_cast<size_t>(options_.shared_arena ? 0 : session) * region_bytes_ + w.offset] ^= 0x5A;
  for (const ByteRange& r : reads_[t]) note_high_water(t, session, r.offset + r.bytes, "reading");
  for (const ByteRange& r : writes_[t]) note_high_water(t, session, r.offset + r.bytes, "writing");
  check_op(session, t, false);
  // DMA reads complete at the end of their completion step: what they deliver is what is there now.
  const auto first_done = std::lower_bound(dma_.begin(), dma_.end(), t,
                                           [](const DmaRead& d, Step step) { return d.completes < step; });
  for (auto it = first_done; it != dma_.end() && it->completes == t; ++it) {
    const DmaRead& d = *it;
    const Tensor& x = g_.tensors[d.tensor];
    capture(session, g_.outputs.size() + static_cast<size_t>(it - dma_.begin()));
    if (int b = live_.buffer_of_tensor[d.tensor]; b >= 0)
      note_high_water(t, session, layout_.offsets[b] + x.bytes, "DMA reading");
  }
  for (size_t item : outputs_captured_at_[t]) capture(session, item);
}

void ArenaSimulator::finish_session(int session) { compare_capture(session); }

const StepRecord& ArenaSimulator::step() {
  if (done()) throw std::logic_error("ArenaSimulator::step after the last run");
  const int S = options_.sessions;
  const int session = static_cast<int>(cursor_ % S);
  const Step t = next_step_[session];
  record_ = StepRecord{};
  record_.run = run_;
  record_.session = session;
  record_.region = options_.shared_arena ? 0 : session;
  record_.step = t;
  record_.op = live_.order[t];
  record_.reads = &reads_[t];
  record_.writes = &writes_[t];
  record_.stats = &stats_[t];
  record_.first_violation = violations_.size();
  if (t == 0) load_inputs(session);
  run_op(session, t);
  ++next_step_[session];
  if (t == steps_ - 1) finish_session(session);
  if (++cursor_ == static_cast<int64_t>(S) * steps_) {
    check_run_end(session, t);
    check_guards();
    ++run_;
    cursor_ = 0;
    std::fill(next_step_.begin(), next_step_.end(), 0);
  }
  record_.end_violation = violations_.size();
  return record_;
}

void ArenaSimulator::keep_only_captures() {
  if (!done()) throw std::logic_error("ArenaSimulator::keep_only_captures before the last run");
  auto release = [](auto& v) { std::decay_t<decltype(v)>().swap(v); };
  release(memory_), release(expected_), release(flash_), release(flash_image_), release(caller_);
  release(kernels_), release(implicit_weights_), release(tensor_ptr_), release(operands_), release(bound_);
  release(reads_), release(writes_), release(loads_), release(kept_from_), release(written_), release(claims_);
  release(victims_), release(data_bytes_), release(outputs_captured_at_), release(live_.buffers), release(live_.steps);
}

void ArenaSimulator::run_all() {
  while (!done()) step();
}

}  // namespace arenaplan::sim
