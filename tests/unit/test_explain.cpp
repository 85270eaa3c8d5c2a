// Step-through with reasons (core/teach/explain.h): the sentences say what DESIGN.md's worked
// example says, and every lifetime rule gives its own reason.
#include <doctest/doctest.h>

#include "core/teach/explain.h"
#include "test_support.h"

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

}  // namespace

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
  const JsonOut j = schedule_explanation_json(g, a, steps);
  CHECK(j[2]["live"][1]["reason"] == "read later");
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
