#include "core/tflite/detail/tflm_arena_sim.h"

#include <algorithm>
#include <stdexcept>

namespace arenaplan::tflm {
namespace {

constexpr Bytes kArenaAlignment = 16;  // MicroArenaBufferAlignment()
constexpr Bytes kMaxScratchBuffersPerOp = 12;
constexpr Bytes kPlannerBytesPerBuffer = 40;  // GreedyMemoryPlanner::per_buffer_size()

Bytes align_down(Bytes v, Bytes a) { return v - ((v % a) + a) % a; }
Bytes align_up_to(Bytes v, Bytes a) { return align_down(v + a - 1, a); }

struct Builder {
  std::vector<ArenaCall> calls;
  std::string phase;
  void persistent(Bytes size, Bytes align, Category c = Category::kNone, int count = 1, Bytes times = 1) {
    calls.push_back({Call::kPersistent, size, align, c, count, phase, times});
  }
  void persistent(const StructSize& s, Category c = Category::kNone, int count = 1) {
    persistent(s.size, s.align, c, count);
  }
  void temp(Bytes size, Bytes align) { calls.push_back({Call::kTemp, size, align, Category::kNone, 1, phase}); }
  void reset_temp() { calls.push_back({Call::kResetTemp, 0, 1, Category::kNone, 1, phase}); }
  void resize_head(Bytes size, Bytes align) {
    calls.push_back({Call::kResizeHead, size, align, Category::kNone, 1, phase});
  }
};

// A TfLiteTensor populated from the flatbuffer: the struct, then (quantized tensors only) the
// TfLiteAffineQuantization and its zero-point TfLiteIntArray.
Bytes int_array_bytes(int32_t n) { return 4 + 4 * Bytes{n}; }

std::string op_phase(const char* what, size_t s, size_t o, const Operator& op) {
  std::string p = std::string(what) + " op " + std::to_string(o) + " (" + op.kind + ")";
  return s == 0 ? p : p + " of subgraph " + std::to_string(s);
}

}  // namespace

const char* category_key(Category c) {
  switch (c) {
    case Category::kEvalTensors: return "eval_tensors";
    case Category::kPersistentTensors: return "persistent_tensors";
    case Category::kQuantization: return "persistent_tensor_quantization";
    case Category::kPersistentBuffers: return "kernel_persistent_buffers";
    case Category::kVariables: return "variable_tensors";
    case Category::kNodes: return "node_and_registrations";
    default: return "unrecorded";
  }
}

std::vector<ArenaCall> replay_calls(const ReplayInput& in) {
  const Model& m = *in.model;
  const RuntimeStructs& s = in.structs;
  Builder b;
  // MicroInterpreter's constructor: MicroAllocator::Create puts its own objects in the tail.
  b.phase = "MicroInterpreter constructor";
  b.persistent(s.arena_allocator);
  b.persistent(s.memory_planner);
  b.persistent(s.micro_allocator);
  // AllocateTensors -> StartModelAllocation.
  b.phase = "StartModelAllocation";
  b.persistent(s.builtin_data_allocator);
  b.resize_head(s.scratch_request.size * kMaxScratchBuffersPerOp, s.scratch_request.align);
  b.persistent(s.subgraph_allocations.size * static_cast<Bytes>(m.subgraphs.size()), s.subgraph_allocations.align);
  for (const Subgraph& g : m.subgraphs)
    b.persistent(s.eval_tensor.size * static_cast<Bytes>(g.tensors.size()), s.eval_tensor.align,
                 Category::kEvalTensors, static_cast<int>(g.tensors.size()));
  for (const Subgraph& g : m.subgraphs)
    b.persistent(s.node_and_registration.size * static_cast<Bytes>(g.ops.size()), s.node_and_registration.align,
                 Category::kNodes, static_cast<int>(g.ops.size()));

  // Builtin data (parse functions), then every kernel's Init, then every Prepare.
  size_t k = 0;
  for (size_t si = 0; si < m.subgraphs.size(); ++si)
    for (size_t o = 0; o < m.subgraphs[si].ops.size(); ++o, ++k) {
      b.phase = op_phase("parse", si, o, m.subgraphs[si].ops[o]);
      if (in.kernels[k].has_builtin_data) b.persistent(in.kernels[k].builtin_data);
    }
  k = 0;
  for (size_t si = 0; si < m.subgraphs.size(); ++si)
    for (size_t o = 0; o < m.subgraphs[si].ops.size(); ++o, ++k) {
      b.phase = op_phase("Init of", si, o, m.subgraphs[si].ops[o]);
      if (in.kernels[k].has_init) b.persistent(in.kernels[k].op_data, kArenaAlignment, Category::kPersistentBuffers);
      for (Bytes extra : in.kernels[k].init_buffers) b.persistent(extra, kArenaAlignment, Category::kPersistentBuffers);
    }
  auto temp_tensor = [&](const Subgraph& g, int32_t index) {
    b.temp(s.tflite_tensor.size, s.tflite_tensor.align);
    const int32_t channels = g.tensors[index].quant_channels;
    if (channels > 0) {
      b.temp(s.affine_quantization.size, s.affine_quantization.align);
      b.temp(int_array_bytes(channels), 4);
    }
  };
  Bytes scratch = 0;
  k = 0;
  for (size_t si = 0; si < m.subgraphs.size(); ++si) {
    const Subgraph& g = m.subgraphs[si];
    for (size_t o = 0; o < g.ops.size(); ++o, ++k) {
      const Operator& op = g.ops[o];
      b.phase = op_phase("Prepare of", si, o, op);
      for (const PrepareAction& a : in.kernels[k].prepare) {
        if (a.step == PrepareStep::kTempInput) {
          if (a.index < static_cast<int32_t>(op.inputs.size()) && op.inputs[a.index] >= 0)
            temp_tensor(g, op.inputs[a.index]);
        } else if (a.step == PrepareStep::kTempOutput) {
          if (a.index < static_cast<int32_t>(op.outputs.size())) temp_tensor(g, op.outputs[a.index]);
        } else if (a.step == PrepareStep::kPersistent) {
          b.persistent(a.bytes, kArenaAlignment, Category::kPersistentBuffers, 1, a.times);
        } else {
          ++scratch;
        }
      }
      // FinishPrepareNodeAllocations: temporaries dropped, room for the next op's requests.
      b.reset_temp();
      b.resize_head(s.scratch_request.size * (scratch + kMaxScratchBuffersPerOp), s.scratch_request.align);
    }
  }

  // FinishModelAllocation: scratch handles, then CommitStaticMemoryPlan.
  b.phase = "memory planning";
  if (scratch > 0) b.persistent(s.scratch_handle.size * scratch, s.scratch_handle.align);
  b.temp(s.size_t_.size * static_cast<Bytes>(m.subgraphs.size()), s.size_t_.align);
  b.temp(s.allocation_info.size * (m.total_tensors() + scratch), s.allocation_info.align);
  int32_t flat = 0;
  for (const Subgraph& g : m.subgraphs)
    for (const Tensor& t : g.tensors) {
      const bool offline = m.offline && m.offline->offsets[flat] != -1;
      ++flat;
      if (t.is_variable && !offline) b.persistent(t.bytes, kArenaAlignment, Category::kVariables);
    }
  b.calls.push_back({Call::kPlanner, kPlannerBytesPerBuffer * in.planned_buffers, kArenaAlignment,
                     Category::kNone, 1, b.phase});
  b.reset_temp();
  b.resize_head(0, 1);  // DeallocateResizableBuffer
  b.phase = "the planned head";
  b.resize_head(in.head_bytes, kArenaAlignment);

  // The interpreter's input and output TfLiteTensors.
  const Subgraph& g0 = m.subgraphs[0];
  for (const std::vector<int32_t>* list : {&g0.inputs, &g0.outputs}) {
    b.phase = list == &g0.inputs ? "input tensors" : "output tensors";
    b.persistent(s.pointer * static_cast<Bytes>(list->size()), kArenaAlignment, Category::kPersistentBuffers);
    for (int32_t t : *list) {
      b.persistent(s.tflite_tensor, Category::kPersistentTensors);
      const int32_t channels = g0.tensors[t].quant_channels;
      if (channels > 0) {
        b.persistent(s.affine_quantization, Category::kQuantization);
        b.persistent(int_array_bytes(channels), 4, Category::kQuantization);
      }
    }
  }
  return b.calls;
}

ArenaRun run_arena(const std::vector<ArenaCall>& calls, Bytes arena_bytes) {
  ArenaRun r;
  Bytes head = 0, temp = 0, tail = arena_bytes;  // offsets from the 16-aligned arena start
  auto fail = [&](const ArenaCall& c) {
    r.failed_at = c.phase;
    return r;
  };
  for (const ArenaCall& c : calls) {
    switch (c.call) {
      case Call::kPersistent: {
        Bytes at = align_down(tail - c.size, c.align);
        if (tail < c.size || at < head) return fail(c);  // TFLM checks the head, not temporaries
        if (c.times > 1) {
          // The first buffer leaves the tail aligned, so each later one takes its size rounded up.
          const Bytes step = align_up(c.size, c.align);
          if (step > 0 && c.times - 1 > (at - head) / step) return fail(c);
          at -= (c.times - 1) * step;
        }
        CategoryFigure& f = r.categories[static_cast<int>(c.category)];
        f.used += tail - at;
        f.requested += c.size * c.times;
        f.count += c.count * c.times;
        tail = at;
        break;
      }
      case Call::kTemp: {
        const Bytes at = align_up_to(temp, c.align);
        if (tail - at < c.size) return fail(c);
        temp = at + c.size;
        break;
      }
      case Call::kResetTemp:
        temp = head;
        break;
      case Call::kResizeHead: {
        const Bytes at = align_up_to(0, c.align);
        if (tail - at < c.size) return fail(c);
        head = temp = at + c.size;
        break;
      }
      case Call::kPlanner: {
        // The planner gets every byte between the temporaries and the tail.
        const Bytes room = align_down(tail, kArenaAlignment) - align_up_to(temp, kArenaAlignment);
        if (room < 0 || room / kPlannerBytesPerBuffer < c.size / kPlannerBytesPerBuffer) return fail(c);
        break;
      }
    }
  }
  r.ok = true;
  r.head = std::max(head, temp);
  r.tail = arena_bytes - tail;
  return r;
}

Bytes minimum_arena(const std::vector<ArenaCall>& calls, std::string* limited_by) {
  // Everything at once fits in the sum of sizes and alignments; a sum beyond any memory (a corrupt
  // model's row count) is refused rather than overflowed.
  constexpr Bytes kBeyondAnyArena = Bytes{1} << 52;
  Bytes hi = 0;
  for (const ArenaCall& c : calls) {
    const Bytes each = c.size + c.align;
    if (c.times > (kBeyondAnyArena - hi) / std::max<Bytes>(each, 1))
      throw InputError(c.phase, "asks for more than 2^52 bytes of arena (" + std::to_string(c.times) + " buffers of " +
                                    std::to_string(c.size) + " B)");
    hi += each * c.times;
  }
  // The doublings only guard a replay bug.
  for (int grow = 0; !run_arena(calls, hi).ok; ++grow) {
    if (grow == 4) throw std::logic_error("TFLM arena replay: no arena size fits");
    hi *= 2;
  }
  Bytes lo = 0;  // an empty arena never fits (the allocator's own objects need room)
  while (hi - lo > 1) {
    const Bytes mid = lo + (hi - lo) / 2;
    if (run_arena(calls, mid).ok) hi = mid;
    else lo = mid;
  }
  if (limited_by) *limited_by = run_arena(calls, hi - 1).failed_at;
  return hi;
}

}  // namespace arenaplan::tflm
