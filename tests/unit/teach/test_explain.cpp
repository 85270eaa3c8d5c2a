// Step-through with reasons (core/teach/explain.h): the sentences say what docs/DESIGN.md's worked
// example says, and every lifetime rule gives its own reason.
#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>

#include "core/schedule/schedule.h"
#include "core/schedule/schedule_generators.h"
#include "core/teach/explain.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using namespace arenaplan::test;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

LiveBufferReason reason_of(const LiveAnalysis& a, const StepExplanation& e, const std::string& buffer) {
  for (const LiveBufferReason& r : e.live)
    if (a.buffers[r.buffer].name == buffer) return r;
  FAIL("buffer " << buffer << " is not live at step " << e.step);
  return {};
}

// explain.h's list of reasons applied literally: the first that holds for buffer b at step t,
// searching the running op's lists and every reader of the buffer (the explanation itself keeps
// each buffer's reasons as intervals between its reads).
LiveBufferReason naive_reason(const Graph& g, const LiveAnalysis& live, int b, Step t) {
  const LiveBuffer& buf = live.buffers[b];
  const Op& running = g.ops[live.order[t]];
  std::vector<Step> step_of(g.ops.size(), -1);
  for (size_t s = 0; s < live.order.size(); ++s) step_of[live.order[s]] = static_cast<Step>(s);
  auto has = [](const std::vector<TensorId>& list, TensorId x) { return std::find(list.begin(), list.end(), x) != list.end(); };
  if (buf.kind == BufferKind::kScratch) return {b, LiveReason::kScratch, "scratch of " + g.ops[buf.scratch_op].name};
  for (TensorId x : buf.tensors)
    if (has(running.outputs, x)) return {b, LiveReason::kMadeNow, "made by " + running.name + " now"};
  for (TensorId x : buf.tensors)
    if (has(running.inputs, x)) return {b, LiveReason::kReadNow, "read by " + running.name + " now"};
  OpId next = -1;
  for (TensorId x : buf.tensors)
    for (size_t o = 0; o < g.ops.size(); ++o)
      if (has(g.ops[o].inputs, x) && step_of[o] > t && (next < 0 || step_of[o] < step_of[next])) next = static_cast<OpId>(o);
  if (next >= 0) return {b, LiveReason::kReadLater, "read later by " + g.ops[next].name + " at step " + std::to_string(step_of[next])};
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
  return {b, LiveReason::kReadLater, "live until step " + std::to_string(buf.last)};
}

// Graphs with every lifetime feature (async reads, scratch, aliasing, retained and persistent
// tensors, many outputs), each in a few valid orders.
std::vector<std::pair<Graph, Schedule>> explained_cases() {
  std::vector<Graph> graphs = {many_outputs_chain_graph(80, 30, 4), long_residual_chain_graph(40, 4)};
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    RandomGraphFeatures f;
    f.async = seed % 2 == 0;
    graphs.push_back(random_small_graph(seed, 10 + static_cast<int>(seed), f));
  }
  for (const Example& e : builtin_examples())
    if (e.json.find("\"arenaplan-graph\"") != std::string::npos) graphs.push_back(parse_graph_json(e.json));
  std::vector<std::pair<Graph, Schedule>> out;
  for (const Graph& g : graphs)
    for (uint64_t seed = 0; seed < 3; ++seed) {
      const Schedule order = seed == 0 ? topological_order(g) : random_topological_order(g, seed);
      try {
        analyze_lifetimes(g, order);
      } catch (const InputError&) {
        continue;  // an in-place op rules this order out
      }
      out.push_back({g, order});
    }
  return out;
}

}  // namespace

TEST_CASE("every live buffer's reason is the first of the list that holds, at every step") {
  int async_seen = 0, checked = 0;
  for (const auto& [g, order] : explained_cases()) {
    const LiveAnalysis a = analyze_lifetimes(g, order);
    for (const StepExplanation& e : explain_schedule(g, a)) {
      REQUIRE(e.live.size() == a.live_at(e.step).size());
      for (const LiveBufferReason& r : e.live) {
        const LiveBufferReason want = naive_reason(g, a, r.buffer, e.step);
        CHECK(r.reason == want.reason);
        CHECK(r.why == want.why);
        async_seen += r.reason == LiveReason::kAsyncPending;
        ++checked;
      }
    }
  }
  CHECK(async_seen > 0);
  CHECK(checked > 1000);
}

TEST_CASE("the streamed explanations are explain_schedule's sentences and JSON, byte for byte") {
  for (const auto& [g, order] : explained_cases()) {
    const LiveAnalysis a = analyze_lifetimes(g, order);
    const std::vector<StepExplanation> steps = explain_schedule(g, a);
    std::string sentences;
    for (const StepExplanation& e : steps) sentences += e.sentence + "\n";
    std::ostringstream text, json;
    write_schedule_explanation_text(text, g, a);
    CHECK(text.str() == sentences);
    write_explained_analysis_json(json, g, a);
    CHECK(json.str() == explained_analysis_json(g, a).dump(2));
    for (const StepExplanation& e : steps) {  // the page's one-step call agrees with the sweep
      const StepExplanation one = explain_step(g, a, e.step);
      CHECK(one.sentence == e.sentence);
      CHECK(one.freed == e.freed);
    }
  }
}

TEST_CASE("ABDCEF peaks at 192 KiB during D because B waits for C") {
  const Graph g = parse_graph_json(*find_example("two_branch"));
  const LiveAnalysis a = analyze_lifetimes(g, parse_order(g, "A,B,D,C,E,F"));
  const std::vector<StepExplanation> steps = explain_schedule(g, a);
  REQUIRE(steps.size() == 6);
  const StepExplanation& d = steps[2];
  CHECK(d.peak);
  CHECK(reason_of(a, d, "B").reason == LiveReason::kReadLater);
  CHECK(reason_of(a, d, "B").why == "read later by C at step 3");
  CHECK(reason_of(a, d, "A").reason == LiveReason::kReadNow);
  CHECK(reason_of(a, d, "D").reason == LiveReason::kMadeNow);
  CHECK(contains(d.sentence, "= 192 KiB live"));
  CHECK(contains(d.sentence, "This is the peak, 192 KiB (next most: 168 KiB at step 3)"));
  CHECK(contains(d.sentence, "coexist with B"));
  CHECK(contains(steps[1].sentence, "Freed after step 0: I (16 KiB)"));
  CHECK(contains(steps[3].sentence, "Freed after step 2: A (32 KiB)"));
  for (const StepExplanation& e : steps) CHECK(e.peak == (e.step == 2));
  const JsonOut j = explained_analysis_json(g, a);
  CHECK(j["explanation"][2]["sentence"] == d.sentence);
  CHECK(j["explanation"][3]["freed"] == JsonOut::array({"A"}));
  const JsonOut b = JsonOut::array({JsonOut{{"buffer", "B"}, {"first", 1}, {"last", 1}, {"reason", "made now"}, {"why", "made by B now"}},
                                    JsonOut{{"buffer", "B"}, {"first", 2}, {"last", 2}, {"reason", "read later"}, {"why", "read later by C at step 3"}},
                                    JsonOut{{"buffer", "B"}, {"first", 3}, {"last", 3}, {"reason", "read now"}, {"why", "read by C now"}}});
  JsonOut b_spans = JsonOut::array();
  for (const JsonOut& r : j["reasons"])
    if (r["buffer"] == "B") b_spans.push_back(r);
  CHECK(b_spans == b);
}

TEST_CASE("the reason spans cover each buffer's steps and agree with the per-step reasons, merged") {
  int spans_seen = 0, longer_than_a_step = 0;
  for (const auto& [g, order] : explained_cases()) {
    const LiveAnalysis a = analyze_lifetimes(g, order);
    const std::vector<StepExplanation> steps = explain_schedule(g, a);
    const std::vector<ReasonSpan> spans = explain_reason_spans(g, a);
    // The per-step reason of each (buffer, step), from explain_schedule (checked against the
    // literal list above).
    std::vector<std::vector<const LiveBufferReason*>> at(a.buffers.size(), std::vector<const LiveBufferReason*>(a.steps.size()));
    for (const StepExplanation& e : steps)
      for (const LiveBufferReason& r : e.live) at[r.buffer][e.step] = &r;
    size_t i = 0;
    for (size_t b = 0; b < a.buffers.size(); ++b) {
      Step next = a.buffers[b].first;  // each buffer's spans tile first..last in order
      const ReasonSpan* previous = nullptr;
      for (; i < spans.size() && spans[i].buffer == static_cast<int>(b); ++i) {
        const ReasonSpan& span = spans[i];
        REQUIRE(span.first == next);
        REQUIRE(span.last >= span.first);
        for (Step t = span.first; t <= span.last; ++t) {
          REQUIRE(at[b][t] != nullptr);
          CHECK(at[b][t]->reason == span.reason);
          CHECK(at[b][t]->why == span.why);
        }
        if (previous) CHECK((previous->reason != span.reason || previous->why != span.why));  // merged
        previous = &span;
        next = span.last + 1;
        ++spans_seen;
        longer_than_a_step += span.last > span.first;
      }
      CHECK(next == a.buffers[b].last + 1);
    }
    CHECK(i == spans.size());
  }
  CHECK(spans_seen > 500);
  CHECK(longer_than_a_step > 100);
}

TEST_CASE("every lifetime rule gives its reason: async, output, retained, persistent, scratch") {
  const Graph g = parse_graph_json(R"({"format":"arenaplan-graph","version":1,"name":"rules","alignment":16,
    "tensors":{"x":{"bytes":16},"a":{"bytes":32},"b":{"bytes":48},"c":{"bytes":64},"d":{"bytes":16},
               "s":{"bytes":16,"persistent":true},"r":{"bytes":16,"retained":true}},
    "ops":[{"name":"p","inputs":["x"],"outputs":["a","r"]},
           {"name":"dma","inputs":["a"],"outputs":["b"],"async":{"a":2}},
           {"name":"q","inputs":["b","s"],"outputs":["c"],"scratch_bytes":32},
           {"name":"t","inputs":["c"],"outputs":["d"]}],
    "inputs":["x"],"outputs":["b","d"]})");
  const LiveAnalysis a = analyze_lifetimes(g, g.file_order());
  const std::vector<StepExplanation> steps = explain_schedule(g, a);
  CHECK(reason_of(a, steps[2], "a").reason == LiveReason::kAsyncPending);
  CHECK(reason_of(a, steps[2], "a").why == "read asynchronously by dma until step 3");
  CHECK(reason_of(a, steps[2], "q:scratch").reason == LiveReason::kScratch);
  CHECK(reason_of(a, steps[3], "b").reason == LiveReason::kGraphOutput);
  CHECK(reason_of(a, steps[3], "r").reason == LiveReason::kRetained);
  CHECK(reason_of(a, steps[3], "s").reason == LiveReason::kPersistent);
}

TEST_CASE("a layout is explained one buffer at a time, lowest offset first") {
  const Graph g = parse_graph_json(*find_example("two_branch"));
  const LiveAnalysis a = analyze_lifetimes(g, g.file_order());
  const LayoutProblem p = layout_problem(g, a);
  const ArenaPlan plan = plan_arena(p, {.planner = "tflm-greedy"});
  const std::vector<PlacementExplanation> steps = explain_layout(p, plan.offsets);
  REQUIRE(steps.size() == p.buffers.size());
  CHECK(steps.front().offset == 0);
  CHECK(contains(steps.front().sentence, "at the bottom (offset 0)"));
  CHECK(steps.back().arena_so_far == plan.arena_bytes);
  for (size_t i = 1; i < steps.size(); ++i) CHECK(steps[i - 1].offset <= steps[i].offset);
  for (const PlacementExplanation& e : steps)
    if (e.offset > 0) CHECK(contains(e.sentence, "above "));
}

TEST_CASE("each placed buffer sits on the highest-ending buffer below it that is live at a common step") {
  // The definition applied literally (every buffer placed before it scanned), against the
  // explanation's interval index, on planned layouts, a packed naive one and an invalid one.
  auto naive_below = [](const LayoutProblem& p, const std::vector<Bytes>& offsets, const std::vector<int>& placed, int i) {
    int below = -1;
    for (int q : placed) {
      const bool together = p.buffers[q].first <= p.buffers[i].last && p.buffers[i].first <= p.buffers[q].last;
      const Bytes end = offsets[q] + p.buffers[q].size;
      if (together && end <= offsets[i] && (below < 0 || end > offsets[below] + p.buffers[below].size)) below = q;
    }
    return below;
  };
  int compared = 0, above_something = 0;
  for (const auto& [g, order] : explained_cases()) {
    const LiveAnalysis a = analyze_lifetimes(g, order);
    const LayoutProblem p = layout_problem(g, a);
    std::vector<std::vector<Bytes>> layouts;
    for (const char* planner : {"tflm-greedy", "naive", "linear"}) layouts.push_back(plan_arena(p, {.planner = planner}).offsets);
    std::vector<Bytes> clashing(p.buffers.size());  // buffers live together overlapping in space
    for (size_t i = 0; i < clashing.size(); ++i) clashing[i] = static_cast<Bytes>(i % 3) * 16;
    layouts.push_back(clashing);
    for (const std::vector<Bytes>& offsets : layouts) {
      const std::vector<PlacementExplanation> steps = explain_layout(p, offsets);
      std::vector<int> placed;
      for (const PlacementExplanation& e : steps) {
        if (e.offset > 0) {
          const int below = naive_below(p, offsets, placed, e.buffer);
          const std::string want = below < 0 ? "above nothing live at its steps" : "above " + p.buffers[below].name + " (";
          CHECK_MESSAGE(contains(e.sentence, want), e.sentence);
          above_something += below >= 0;
          ++compared;
        }
        placed.push_back(e.buffer);
      }
    }
  }
  CHECK(compared > 500);
  CHECK(above_something > 100);
}
