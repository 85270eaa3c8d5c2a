// Why each buffer is live at each step of a schedule (explain.h): the reasons, the sentences and
// their JSON, for one step (the page) or every step streamed (the CLI, any graph size).
#include <algorithm>
#include <ostream>

#include "core/teach/explain.h"

namespace arenaplan {

namespace {

// A sentence lists at most kMaxNamesListed buffers (report.h), then "and N more": a screen reader
// reads it all.
constexpr size_t kMaxListed = kMaxNamesListed;

std::string join_and(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i)
    out += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
  return out;
}

// Why each buffer is live, kept as the steps where its reason changes (explain.h's list): it is
// made at its producer's step, read at its readers' steps, "read later" in between, and after its
// last read it is held for one reason (async, output, retained, persistent). That is O(buffers +
// reads) for a whole schedule; one reason per live buffer per step was quadratic in memory on a
// graph with thousands of outputs, and scanning every reader of a buffer at each step was too.
class LiveReasons {
 public:
  LiveReasons(const Graph& g, const LiveAnalysis& live)
      : g_(g), live_(live), step_of_(g.ops.size(), -1), made_(live.buffers.size()), reads_(live.buffers.size()),
        async_(live.buffers.size()), held_(live.buffers.size(), Held::kNone) {
    for (size_t t = 0; t < live.order.size(); ++t) step_of_[live.order[t]] = static_cast<Step>(t);
    auto buffer_of = [&](TensorId x) { return x >= 0 && x < static_cast<TensorId>(live.buffer_of_tensor.size()) ? live.buffer_of_tensor[x] : -1; };
    for (size_t t = 0; t < live.order.size(); ++t) {  // by step, so each list comes out ascending
      const OpId o = live.order[t];
      for (TensorId x : g.ops[o].outputs)
        if (const int b = buffer_of(x); b >= 0 && (made_[b].empty() || made_[b].back() != static_cast<Step>(t)))
          made_[b].push_back(static_cast<Step>(t));
      for (TensorId x : g.ops[o].inputs)
        if (const int b = buffer_of(x); b >= 0 && (reads_[b].empty() || reads_[b].back().step != static_cast<Step>(t)))
          reads_[b].push_back({static_cast<Step>(t), o});
    }
    std::vector<bool> is_input(g.tensors.size()), is_output(g.tensors.size());
    for (TensorId x : g.inputs) is_input[x] = true;
    for (TensorId x : g.outputs) is_output[x] = true;
    for (size_t b = 0; b < live.buffers.size(); ++b) {
      const std::vector<TensorId>& tensors = live.buffers[b].tensors;
      // Pending asynchronous reads, in the order the reasons list looks them up.
      for (TensorId x : tensors)
        for (OpId c : g.tensors[x].consumers)
          for (const AsyncRead& a : g.ops[c].async_reads)
            if (a.tensor == x && step_of_[c] >= 0) async_[b].push_back({step_of_[c], c, step_of_[c] + a.extra_steps});
      auto any = [&](auto&& holds) { return std::any_of(tensors.begin(), tensors.end(), holds); };
      if (any([&](TensorId x) { return is_output[x]; })) held_[b] = Held::kGraphOutput;
      else if (any([&](TensorId x) { return g.tensors[x].retained || (is_input[x] && g.input_policy == InputPolicy::kRetained); }))
        held_[b] = Held::kRetained;
      else if (any([&](TensorId x) { return g.tensors[x].persistent; })) held_[b] = Held::kPersistent;
    }
  }

  // Buffer b's reasons over its steps as spans (explain.h), in step order, to `visit`. The reason
  // can change only where a write or a read happens, the step after one, or where a pending
  // asynchronous read begins or ends: it is looked up once at each such cut, never at every step.
  template <typename Visit>
  void spans(int b, Visit&& visit) const {
    const LiveBuffer& buf = live_.buffers[b];
    std::vector<Step> cuts = {buf.first};
    auto cut = [&](Step s) {
      if (s > buf.first && s <= buf.last) cuts.push_back(s);
    };
    if (buf.kind != BufferKind::kScratch) {
      for (Step m : made_[b]) cut(m), cut(m + 1);
      for (const Read& r : reads_[b]) cut(r.step), cut(r.step + 1);
      for (const Pending& p : async_[b]) cut(p.step + 1), cut(p.until + 1);
      std::sort(cuts.begin(), cuts.end());
      cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    }
    ReasonSpan span;
    for (size_t i = 0; i < cuts.size(); ++i) {
      const Step last = i + 1 < cuts.size() ? cuts[i + 1] - 1 : buf.last;
      LiveBufferReason r = at(b, cuts[i]);
      if (i > 0 && r.reason == span.reason && r.why == span.why) {
        span.last = last;
        continue;
      }
      if (i > 0) visit(std::move(span));
      span = {b, cuts[i], last, r.reason, std::move(r.why)};
    }
    visit(std::move(span));
  }

  // The reason buffer `b` (live at step `t`) is live: the first of explain.h's list that applies.
  LiveBufferReason at(int b, Step t) const {
    const LiveBuffer& buf = live_.buffers[b];
    if (buf.kind == BufferKind::kScratch) return {b, LiveReason::kScratch, "scratch of " + g_.ops[buf.scratch_op].name};
    const std::string& running = g_.ops[live_.order[t]].name;
    if (std::binary_search(made_[b].begin(), made_[b].end(), t)) return {b, LiveReason::kMadeNow, "made by " + running + " now"};
    const auto next = std::lower_bound(reads_[b].begin(), reads_[b].end(), t, [](const Read& r, Step s) { return r.step < s; });
    if (next != reads_[b].end() && next->step == t) return {b, LiveReason::kReadNow, "read by " + running + " now"};
    if (next != reads_[b].end())
      return {b, LiveReason::kReadLater, "read later by " + g_.ops[next->op].name + " at step " + std::to_string(next->step)};
    for (const Pending& p : async_[b])
      if (p.step < t && p.until >= t)
        return {b, LiveReason::kAsyncPending,
                "read asynchronously by " + g_.ops[p.op].name + " until step " + std::to_string(p.until)};
    switch (held_[b]) {
      case Held::kGraphOutput: return {b, LiveReason::kGraphOutput, "a graph output, read after the run"};
      case Held::kRetained: return {b, LiveReason::kRetained, "retained by the caller"};
      case Held::kPersistent: return {b, LiveReason::kPersistent, "persistent state"};
      case Held::kNone: break;
    }
    // Not reached for a LiveAnalysis of this graph; kept so a sentence never lies by omission.
    return {b, LiveReason::kReadLater, "live until step " + std::to_string(buf.last)};
  }

 private:
  struct Read {
    Step step;
    OpId op;
  };
  struct Pending {
    Step step;   // the step of the op reading asynchronously
    OpId op;
    Step until;  // the last step it still reads
  };
  enum class Held { kNone, kGraphOutput, kRetained, kPersistent };
  const Graph& g_;
  const LiveAnalysis& live_;
  std::vector<Step> step_of_;
  std::vector<std::vector<Step>> made_;   // per buffer: the steps whose op writes it, ascending
  std::vector<std::vector<Read>> reads_;  // per buffer: the steps whose op reads it, ascending
  std::vector<std::vector<Pending>> async_;
  std::vector<Held> held_;  // per buffer: why it stays after its reads, if it does
};

// Writes the sentences of a schedule's steps. A sentence needs the reasons of the buffers it lists
// (the first kMaxListed) and, at the peak only, of every live buffer: the rest are never built.
class StepExplainer {
 public:
  StepExplainer(const Graph& g, const LiveAnalysis& live) : g_(g), live_(live), reasons_(g, live) {}
  const LiveReasons& reasons() const { return reasons_; }

  // Step t with every live buffer's reason (`live_now`: the buffers live at t, ascending).
  StepExplanation full(Step t, const std::vector<int>& live_now, std::vector<int> freed) const {
    StepExplanation e;
    e.step = t;
    e.op = live_.steps[t].op;
    e.peak = t == live_.peak_step;
    e.live.reserve(live_now.size());
    for (int b : live_now) e.live.push_back(reasons_.at(b, t));
    e.freed = std::move(freed);
    e.sentence = sentence(t, e.live, live_now.size(), e.freed, e.live);
    return e;
  }

  // Step t's sentence only, from its live set and the buffers freed before it.
  std::string sentence_only(Step t, const std::vector<int>& live_now, const std::vector<int>& freed) const {
    std::vector<LiveBufferReason> listed, all;
    for (size_t i = 0; i < live_now.size() && i < kMaxListed; ++i) listed.push_back(reasons_.at(live_now[i], t));
    if (t == live_.peak_step)
      for (int b : live_now) all.push_back(reasons_.at(b, t));
    return sentence(t, listed, live_now.size(), freed, all);
  }

 private:
  // `listed`: the reasons of at least the first kMaxListed live buffers; `all`: of every live
  // buffer when t is the peak step (its sentence names the buffers kept for later readers).
  std::string sentence(Step t, const std::vector<LiveBufferReason>& listed, size_t live_count,
                       const std::vector<int>& freed, const std::vector<LiveBufferReason>& all) const {
    const Graph& g = g_;
    const LiveAnalysis& live = live_;
    const OpId op = live.steps[t].op;
    std::string out = "Step " + std::to_string(t) + " runs " + g.ops[op].name + ": ";
    std::vector<std::string> items;
    for (size_t i = 0; i < live_count && i < kMaxListed; ++i) {
      const LiveBuffer& b = live.buffers[listed[i].buffer];
      items.push_back(b.name + " " + format_bytes(b.size) + " (" + listed[i].why + ")");
    }
    if (live_count > kMaxListed) items.push_back(std::to_string(live_count - kMaxListed) + " more");
    out += items.empty() ? "nothing is live" : join_and(items) + " = " + format_bytes(live.steps[t].live_bytes) + " live";
    out += ".";
    if (!freed.empty()) {
      std::vector<std::string> names;
      for (size_t i = 0; i < freed.size() && i < kMaxListed; ++i)
        names.push_back(live.buffers[freed[i]].name + " (" + format_bytes(live.buffers[freed[i]].size) + ")");
      if (freed.size() > kMaxListed) names.push_back(std::to_string(freed.size() - kMaxListed) + " more");
      out += " Freed after step " + std::to_string(t - 1) + ": " + join_and(names) + ".";
    }
    if (t == live.peak_step) {
      // Why here: the runner-up step, and the buffers kept only for later (or pending) readers.
      Step runner_up = -1;
      for (Step o = 0; o < static_cast<Step>(live.steps.size()); ++o)
        if (o != t && (runner_up < 0 || live.steps[o].live_bytes > live.steps[runner_up].live_bytes)) runner_up = o;
      out += " This is the peak, " + format_bytes(live.peak_bytes);
      if (runner_up >= 0) {
        const Bytes next = live.steps[runner_up].live_bytes;
        out += next == live.peak_bytes ? " (step " + std::to_string(runner_up) + " reaches it too)"
                                       : " (next most: " + format_bytes(next) + " at step " + std::to_string(runner_up) + ")";
      }
      std::vector<std::string> waiting;
      for (const LiveBufferReason& r : all)
        if (r.reason == LiveReason::kReadLater || r.reason == LiveReason::kAsyncPending)
          waiting.push_back(live.buffers[r.buffer].name);
      if (!waiting.empty() && waiting.size() <= kMaxListed)
        out += ": " + g.ops[op].name + "'s inputs and outputs coexist with " + join_and(waiting) +
               (waiting.size() == 1 ? ", which a later op still needs" : ", which later ops still need");
      out += ".";
    }
    return out;
  }

  const Graph& g_;
  const LiveAnalysis& live_;
  LiveReasons reasons_;
};

// The buffers freed just before each step (their last step was the one before), bucketed in one
// pass: a scan of every buffer per step was quadratic.
std::vector<std::vector<int>> freed_by_step(const LiveAnalysis& live) {
  std::vector<std::vector<int>> freed(live.steps.size());
  for (size_t b = 0; b < live.buffers.size(); ++b)
    if (const Step next = live.buffers[b].last + 1; next < static_cast<Step>(live.steps.size()))
      freed[next].push_back(static_cast<int>(b));
  return freed;
}

// Every step in order with its live set (LiveSweep) and freed buffers.
template <typename Visit>
void sweep_steps(const LiveAnalysis& live, Visit&& visit) {
  std::vector<std::vector<int>> freed = freed_by_step(live);
  LiveSweep sweep(live);
  for (size_t t = 0; t < live.steps.size(); ++t) {
    const Step s = static_cast<Step>(t);
    visit(s, sweep.at(s), std::move(freed[t]));
  }
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

std::vector<StepExplanation> explain_schedule(const Graph& g, const LiveAnalysis& live) {
  const StepExplainer explainer(g, live);
  std::vector<StepExplanation> out;
  out.reserve(live.steps.size());
  sweep_steps(live, [&](Step t, const std::vector<int>& live_now, std::vector<int> freed) {
    out.push_back(explainer.full(t, live_now, std::move(freed)));
  });
  return out;
}

StepExplanation explain_step(const Graph& g, const LiveAnalysis& live, Step step) {
  std::vector<int> freed;
  for (size_t b = 0; b < live.buffers.size(); ++b)
    if (step > 0 && live.buffers[b].last == step - 1) freed.push_back(static_cast<int>(b));
  return StepExplainer(g, live).full(step, live.live_at(step), std::move(freed));
}

void write_schedule_explanation_text(std::ostream& out, const Graph& g, const LiveAnalysis& live) {
  const StepExplainer explainer(g, live);
  sweep_steps(live, [&](Step t, const std::vector<int>& live_now, const std::vector<int>& freed) {
    out << explainer.sentence_only(t, live_now, freed) << "\n";
  });
}

std::vector<ReasonSpan> explain_reason_spans(const Graph& g, const LiveAnalysis& live) {
  const LiveReasons reasons(g, live);
  std::vector<ReasonSpan> out;
  for (size_t b = 0; b < live.buffers.size(); ++b)
    reasons.spans(static_cast<int>(b), [&](ReasonSpan span) { out.push_back(std::move(span)); });
  return out;
}

namespace {

JsonOut step_explanation_json(const Graph& g, const LiveAnalysis& live, Step step, OpId op,
                              const std::vector<int>& freed, bool peak, const std::string& sentence) {
  JsonOut names = JsonOut::array();
  for (int b : freed) names.push_back(live.buffers[b].name);
  return {{"step", step}, {"op", g.ops[op].name}, {"freed", std::move(names)}, {"peak", peak}, {"sentence", sentence}};
}

JsonOut reason_span_json(const LiveAnalysis& live, const ReasonSpan& span) {
  return {{"buffer", live.buffers[span.buffer].name}, {"first", span.first}, {"last", span.last},
          {"reason", live_reason_name(span.reason)}, {"why", span.why}};
}

}  // namespace

JsonOut schedule_explanation_json(const Graph& g, const LiveAnalysis& live, const std::vector<StepExplanation>& steps) {
  JsonOut out = JsonOut::array();
  for (const StepExplanation& e : steps)
    out.push_back(step_explanation_json(g, live, e.step, e.op, e.freed, e.peak, e.sentence));
  return out;
}

JsonOut reason_spans_json(const LiveAnalysis& live, const std::vector<ReasonSpan>& spans) {
  JsonOut out = JsonOut::array();
  for (const ReasonSpan& span : spans) out.push_back(reason_span_json(live, span));
  return out;
}

JsonOut explained_analysis_json(const Graph& g, const LiveAnalysis& live) {
  JsonOut out = analysis_json(g, live);
  out["explanation"] = schedule_explanation_json(g, live, explain_schedule(g, live));
  out["reasons"] = reason_spans_json(live, explain_reason_spans(g, live));
  return out;
}

void write_explained_analysis_json(std::ostream& out, const Graph& g, const LiveAnalysis& live) {
  out << "{\n";
  write_analysis_json_members(out, g, live, 1);
  out << ",\n";
  // The sentences in step order, then the spans buffer by buffer: each element built and written
  // on its own, so memory stays at the analysis's while the output is linear in the graph.
  const StepExplainer explainer(g, live);
  std::vector<std::vector<int>> freed = freed_by_step(live);
  LiveSweep sweep(live);
  write_json_array_member(out, "explanation", live.steps.size(), [&](size_t t) {
    const Step s = static_cast<Step>(t);
    const std::string sentence = explainer.sentence_only(s, sweep.at(s), freed[t]);
    return step_explanation_json(g, live, s, live.steps[t].op, freed[t], s == live.peak_step, sentence);
  }, 1);
  out << ",\n";
  std::vector<ReasonSpan> spans;  // one buffer's at a time
  size_t next_buffer = 0, next_span = 0;
  const LiveReasons& reasons = explainer.reasons();
  write_json_array_member(out, "reasons", [&](JsonOut& element) {
    while (next_span == spans.size()) {
      if (next_buffer == live.buffers.size()) return false;
      spans.clear();
      next_span = 0;
      reasons.spans(static_cast<int>(next_buffer++), [&](ReasonSpan span) { spans.push_back(std::move(span)); });
    }
    element = reason_span_json(live, spans[next_span++]);
    return true;
  }, 1);
  out << "\n}";
}

}  // namespace arenaplan
