#include "core/teach/explain.h"

#include <algorithm>

namespace arenaplan {

namespace {

// A sentence lists at most this many buffers, then "and N more": a screen reader reads it all.
constexpr size_t kMaxListed = 12;

std::string join_and(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return out;
}

// The first reason of explain.h's list that applies to buffer `b` at step `t`.
LiveBufferReason reason_for(const Graph& g, const LiveAnalysis& live, const std::vector<Step>& step_of, int b, Step t) {
  const LiveBuffer& buf = live.buffers[b];
  const Op& running = g.ops[live.order[t]];
  LiveBufferReason r;
  r.buffer = b;
  auto has = [](const std::vector<TensorId>& list, TensorId x) { return std::find(list.begin(), list.end(), x) != list.end(); };
  if (buf.kind == BufferKind::kScratch) {
    r.reason = LiveReason::kScratch;
    r.why = "scratch of " + g.ops[buf.scratch_op].name;
    return r;
  }
  for (TensorId x : buf.tensors)
    if (has(running.outputs, x)) return {b, LiveReason::kMadeNow, "made by " + running.name + " now"};
  for (TensorId x : buf.tensors)
    if (has(running.inputs, x)) return {b, LiveReason::kReadNow, "read by " + running.name + " now"};
  // The next reader after t, over every tensor sharing the buffer.
  OpId next = -1;
  for (TensorId x : buf.tensors)
    for (OpId c : g.tensors[x].consumers)
      if (step_of[c] > t && (next < 0 || step_of[c] < step_of[next])) next = c;
  if (next >= 0)
    return {b, LiveReason::kReadLater, "read later by " + g.ops[next].name + " at step " + std::to_string(step_of[next])};
  for (TensorId x : buf.tensors)
    for (OpId c : g.tensors[x].consumers)
      for (const AsyncRead& a : g.ops[c].async_reads)
        if (a.tensor == x && step_of[c] < t && step_of[c] + a.extra_steps >= t)
          return {b, LiveReason::kAsyncPending,
                  "read asynchronously by " + g.ops[c].name + " until step " + std::to_string(step_of[c] + a.extra_steps)};
  for (TensorId x : buf.tensors)
    if (g.is_output(x)) return {b, LiveReason::kGraphOutput, "a graph output, read after the run"};
  for (TensorId x : buf.tensors)
    if (g.tensors[x].retained || (g.is_input(x) && g.input_policy == InputPolicy::kRetained))
      return {b, LiveReason::kRetained, "retained by the caller"};
  for (TensorId x : buf.tensors)
    if (g.tensors[x].persistent) return {b, LiveReason::kPersistent, "persistent state"};
  // Not reached for a LiveAnalysis of this graph; kept so a sentence never lies by omission.
  return {b, LiveReason::kReadLater, "live until step " + std::to_string(buf.last)};
}

std::string step_sentence(const Graph& g, const LiveAnalysis& live, const StepExplanation& e) {
  const StepLive& st = live.steps[e.step];
  std::string out = "Step " + std::to_string(e.step) + " runs " + g.ops[e.op].name + ": ";
  std::vector<std::string> items;
  for (size_t i = 0; i < e.live.size() && i < kMaxListed; ++i) {
    const LiveBuffer& b = live.buffers[e.live[i].buffer];
    items.push_back(b.name + " " + format_bytes(b.size) + " (" + e.live[i].why + ")");
  }
  if (e.live.size() > kMaxListed) items.push_back(std::to_string(e.live.size() - kMaxListed) + " more");
  out += items.empty() ? "nothing is live" : join_and(items) + " = " + format_bytes(st.live_bytes) + " live";
  out += ".";
  if (!e.freed.empty()) {
    std::vector<std::string> freed;
    for (size_t i = 0; i < e.freed.size() && i < kMaxListed; ++i)
      freed.push_back(live.buffers[e.freed[i]].name + " (" + format_bytes(live.buffers[e.freed[i]].size) + ")");
    if (e.freed.size() > kMaxListed) freed.push_back(std::to_string(e.freed.size() - kMaxListed) + " more");
    out += " Freed after step " + std::to_string(e.step - 1) + ": " + join_and(freed) + ".";
  }
  if (e.peak) {
    // Why here: the runner-up step, and the buffers kept only for later (or pending) readers.
    Step runner_up = -1;
    for (Step o = 0; o < static_cast<Step>(live.steps.size()); ++o)
      if (o != e.step && (runner_up < 0 || live.steps[o].live_bytes > live.steps[runner_up].live_bytes)) runner_up = o;
    out += " This is the peak, " + format_bytes(live.peak_bytes);
    if (runner_up >= 0) {
      const Bytes next = live.steps[runner_up].live_bytes;
      out += next == live.peak_bytes ? " (step " + std::to_string(runner_up) + " reaches it too)"
                                     : " (next most: " + format_bytes(next) + " at step " + std::to_string(runner_up) + ")";
    }
    std::vector<std::string> waiting;
    for (const LiveBufferReason& r : e.live)
      if (r.reason == LiveReason::kReadLater || r.reason == LiveReason::kAsyncPending)
        waiting.push_back(live.buffers[r.buffer].name);
    if (!waiting.empty() && waiting.size() <= kMaxListed)
      out += ": " + g.ops[e.op].name + "'s inputs and outputs coexist with " + join_and(waiting) +
             (waiting.size() == 1 ? ", which a later op still needs" : ", which later ops still need");
    out += ".";
  }
  return out;
}

}  // namespace

const char* live_reason_name(LiveReason r) {
  switch (r) {
    case LiveReason::kMadeNow: return "made now";
    case LiveReason::kReadNow: return "read now";
    case LiveReason::kScratch: return "scratch";
    case LiveReason::kReadLater: return "read later";
    case LiveReason::kAsyncPending: return "async pending";
    case LiveReason::kGraphOutput: return "graph output";
    case LiveReason::kRetained: return "retained";
    case LiveReason::kPersistent: return "persistent";
  }
  return "?";
}

namespace {

// One step from its live set and the buffers freed just before it (ascending).
StepExplanation explain_one(const Graph& g, const LiveAnalysis& live, const std::vector<Step>& step_of, Step t,
                            const std::vector<int>& live_now, std::vector<int> freed) {
  StepExplanation e;
  e.step = t;
  e.op = live.steps[t].op;
  e.peak = t == live.peak_step;
  for (int b : live_now) e.live.push_back(reason_for(g, live, step_of, b, t));
  e.freed = std::move(freed);
  e.sentence = step_sentence(g, live, e);
  return e;
}

std::vector<int> freed_before(const LiveAnalysis& live, Step t) {
  std::vector<int> freed;
  for (size_t b = 0; b < live.buffers.size(); ++b)
    if (t > 0 && live.buffers[b].last == t - 1) freed.push_back(static_cast<int>(b));
  return freed;
}

std::vector<Step> steps_of_ops(const Graph& g, const LiveAnalysis& live) {
  std::vector<Step> step_of(g.ops.size(), -1);
  for (size_t t = 0; t < live.order.size(); ++t) step_of[live.order[t]] = static_cast<Step>(t);
  return step_of;
}

}  // namespace

std::vector<StepExplanation> explain_schedule(const Graph& g, const LiveAnalysis& live) {
  const std::vector<Step> step_of = steps_of_ops(g, live);
  // Live sets by a sweep and the freed buffers bucketed by step: one scan of every buffer per
  // step made --explain quadratic (minutes on a 100,000-op graph).
  std::vector<std::vector<int>> freed(live.steps.size());
  for (size_t b = 0; b < live.buffers.size(); ++b)
    if (const Step next = live.buffers[b].last + 1; next < static_cast<Step>(live.steps.size()))
      freed[next].push_back(static_cast<int>(b));
  LiveSweep sweep(live);
  std::vector<StepExplanation> out;
  out.reserve(live.steps.size());
  for (size_t t = 0; t < live.steps.size(); ++t) {
    const Step s = static_cast<Step>(t);
    out.push_back(explain_one(g, live, step_of, s, sweep.at(s), std::move(freed[t])));
  }
  return out;
}

StepExplanation explain_step(const Graph& g, const LiveAnalysis& live, Step step) {
  return explain_one(g, live, steps_of_ops(g, live), step, live.live_at(step), freed_before(live, step));
}

std::vector<PlacementExplanation> explain_layout(const LayoutProblem& problem, const std::vector<Bytes>& offsets) {
  std::vector<int> order(problem.buffers.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return offsets[a] != offsets[b] ? offsets[a] < offsets[b] : problem.buffers[a].first < problem.buffers[b].first;
  });
  std::vector<PlacementExplanation> out;
  std::vector<int> placed;
  Bytes arena = 0;
  for (int i : order) {
    const LayoutBuffer& b = problem.buffers[i];
    PlacementExplanation e;
    e.buffer = i;
    e.offset = offsets[i];
    std::string where = "at the bottom (offset 0)";
    if (offsets[i] > 0) {
      // The highest-ending buffer below it that is live at some common step: it sets the offset.
      int below = -1;
      for (int p : placed) {
        const LayoutBuffer& q = problem.buffers[p];
        const bool together = q.first <= b.last && b.first <= q.last;
        if (together && offsets[p] + q.size <= offsets[i] &&
            (below < 0 || offsets[p] + q.size > offsets[below] + problem.buffers[below].size))
          below = p;
      }
      where = below < 0 ? "at " + format_bytes(offsets[i]) + ", above nothing live at its steps"
                        : "at " + format_bytes(offsets[i]) + ", above " + problem.buffers[below].name + " (live at the same time, ends at " +
                              format_bytes(offsets[below] + problem.buffers[below].size) + ")";
    }
    arena = std::max(arena, offsets[i] + b.size);
    e.arena_so_far = arena;
    e.sentence = "Place " + b.name + " (" + format_bytes(b.size) + ", steps " + std::to_string(b.first) + ".." +
                 std::to_string(b.last) + ") " + where + "; the arena is now " + format_bytes(arena) + ".";
    placed.push_back(i);
    out.push_back(std::move(e));
  }
  return out;
}

JsonOut layout_explanation_json(const LayoutProblem& problem, const std::vector<PlacementExplanation>& steps) {
  JsonOut out = JsonOut::array();
  for (const PlacementExplanation& e : steps)
    out.push_back({{"buffer", problem.buffers[e.buffer].name},
                   {"offset", e.offset},
                   {"arena_so_far", e.arena_so_far},
                   {"sentence", e.sentence}});
  return out;
}

JsonOut schedule_explanation_json(const Graph& g, const LiveAnalysis& live, const std::vector<StepExplanation>& steps) {
  JsonOut out = JsonOut::array();
  for (const StepExplanation& e : steps) {
    JsonOut buffers = JsonOut::array();
    for (const LiveBufferReason& r : e.live)
      buffers.push_back({{"buffer", live.buffers[r.buffer].name}, {"reason", live_reason_name(r.reason)}, {"why", r.why}});
    JsonOut freed = JsonOut::array();
    for (int b : e.freed) freed.push_back(live.buffers[b].name);
    out.push_back({{"step", e.step},   {"op", g.ops[e.op].name}, {"live", std::move(buffers)},
                   {"freed", std::move(freed)}, {"peak", e.peak}, {"sentence", e.sentence}});
  }
  return out;
}

}  // namespace arenaplan
