// The simulator's oracles: every example is green under its verified plan, and each fault is caught
// by the oracle meant for it (shifted offset, ignored DMA completion, shared arena, arena too small).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/schedule/schedule_generators.h"
#include "core/sim/sim.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using namespace arenaplan::test;

namespace {

bool is_graph(const std::string& json) {
  auto doc = nlohmann::json::parse(json);
  return doc.value("format", std::string("arenaplan-graph")) == "arenaplan-graph";
}

size_t count_oracle(const sim::SimReport& r, const std::string& oracle) {
  size_t n = 0;
  for (const sim::Violation& v : r.violations) n += v.oracle == oracle;
  return n;
}

std::string first_message(const sim::SimReport& r, const std::string& oracle) {
  for (const sim::Violation& v : r.violations)
    if (v.oracle == oracle) return v.message;
  return "";
}

// x -> p -> a; dma reads a asynchronously until 2 steps later; q makes a big c, r makes d.
// Ignoring the completion, a dies at step 1 and c (step 2) may take its bytes.
const char* kDmaGraph = R"({"format":"arenaplan-graph","version":1,"alignment":16,
  "tensors":{"x":{"bytes":1024},"a":{"bytes":4096},"b":{"bytes":512},"c":{"bytes":4096},"d":{"bytes":256}},
  "ops":[{"name":"p","kind":"mix","inputs":["x"],"outputs":["a"]},
         {"name":"dma","kind":"mix","inputs":["a"],"outputs":["b"],"async":{"a":2}},
         {"name":"q","kind":"mix","inputs":["b"],"outputs":["c"]},
         {"name":"r","kind":"mix","inputs":["c"],"outputs":["d"]}],
  "inputs":["x"],"outputs":["d"]})";

}  // namespace

TEST_CASE("every example graph simulates with all oracles green under its verified plan") {
  int graphs = 0;
  for (const Example& e : builtin_examples()) {
    if (!is_graph(e.json)) continue;  // boards, exercises
    CAPTURE(e.name);
    Graph g = parse_graph_json(e.json);
    sim::SimRequest req;
    req.runs = 2;
    req.sessions = 2;
    req.plan.planner = "best";
    sim::SimReport r = sim::simulate(g, req);
    CHECK(r.ok());
    if (!r.violations.empty()) CHECK(r.violations.front().message == "");
    CHECK(r.outputs_match_reference);
    CHECK(r.foreign_writes.empty());
    CHECK(r.high_water_bytes <= r.arena_bytes);
    CHECK(r.arena_bytes >= r.lower_bound_bytes);
    ++graphs;
  }
  CHECK(graphs >= 3);
}

TEST_CASE("two-branch under its optimal 136 KiB plan: green, high-water mark exactly 136 KiB") {
  Graph g = example_graph("two_branch");
  sim::SimRequest req;
  req.order = parse_order(g, "A,B,C,D,E,F");
  sim::SimReport r = sim::simulate(g, req);
  CHECK(r.ok());
  CHECK(r.arena_bytes == 136 * KiB);
  CHECK(r.high_water_bytes == 136 * KiB);
}

TEST_CASE("fault: shifting one offset onto a live neighbour is caught by the write oracle") {
  Graph g = example_graph("tiny_cnn");
  sim::SimRequest req;
  req.inject = {"shift:avg"};
  sim::SimReport r = sim::simulate(g, req);
  CHECK_FALSE(r.ok());
  REQUIRE(count_oracle(r, "writes") > 0);
  CHECK(first_message(r, "writes").find("which is still needed") != std::string::npos);
  CHECK_FALSE(r.foreign_writes.empty());
  CHECK(r.injected.size() == 1);

  // The same plan without the shift is green: the shift, not the graph, is what broke.
  req.inject.clear();
  CHECK(sim::simulate(g, req).ok());
}

TEST_CASE("fault: a shifted offset is also caught by the outputs oracle alone (per-op checks off)") {
  Graph g = example_graph("two_branch");
  LiveAnalysis live = analyze_lifetimes(g, parse_order(g, "A,B,C,D,E,F"));
  sim::ArenaLayout layout = sim::shift_buffer(g, live, sim::plan_layout(g, live, {.planner = "best"}), "B", 0);
  sim::SimOptions options;
  options.oracles = false;
  sim::SimReport r = sim::simulate_layout(g, live, layout, options);
  CHECK_FALSE(r.outputs_match_reference);
  CHECK(count_oracle(r, "writes") == 0);
  CHECK(first_message(r, "outputs").find("output F differs from the reference run") != std::string::npos);
}

TEST_CASE("fault: a plan that ignores the DMA completion is caught; the true plan is green") {
  Graph g = parse_graph_json(kDmaGraph);
  const Schedule order = g.file_order();
  LiveAnalysis live = analyze_lifetimes(g, order);
  sim::SimOptions options;
  CHECK(sim::simulate_layout(g, live, sim::plan_layout(g, live, {.planner = "best"}), options).ok());

  sim::ArenaLayout blind = sim::plan_ignoring_async(g, order, {.planner = "best"});
  const int a = live.buffer_of_tensor[*g.find_tensor("a")], c = live.buffer_of_tensor[*g.find_tensor("c")];
  REQUIRE(blind.offsets[a] < blind.offsets[c] + 4096);  // the blind plan reuses a's bytes for c
  REQUIRE(blind.offsets[c] < blind.offsets[a] + 4096);
  sim::SimReport r = sim::simulate_layout(g, live, blind, options);
  CHECK_FALSE(r.ok());
  CHECK(first_message(r, "writes").find("op q changed") == 0);
  CHECK(first_message(r, "writes").find(
            "of tensor a, which is still needed until step 3 (the asynchronous read by op dma completes then)") !=
        std::string::npos);
  CHECK(first_message(r, "outputs").find("asynchronous read of a by op dma delivered at step 3") != std::string::npos);

  // Through the request, as the CLI spells it.
  sim::SimRequest req;
  req.inject = {"ignore-async"};
  CHECK_FALSE(sim::simulate(g, req).ok());
  CHECK_THROWS_WITH_AS(sim::simulate(example_graph("two_branch"), req), doctest::Contains("no asynchronous reads"),
                       InputError);
}

TEST_CASE("fault: two sessions interleaved on one shared arena collide; separate arenas are safe") {
  Graph g = example_graph("tiny_cnn");
  sim::SimRequest req;
  req.sessions = 2;
  req.runs = 2;
  CHECK(sim::simulate(g, req).ok());
  req.shared_arena = true;
  sim::SimReport r = sim::simulate(g, req);
  CHECK_FALSE(r.ok());
  CHECK(first_message(r, "writes").find("(session 1) changed") != std::string::npos);
  CHECK(first_message(r, "writes").find("of session 0") != std::string::npos);
  req.sessions = 1;
  CHECK_THROWS_AS(sim::simulate(g, req), InputError);  // sharing needs two sessions
}

TEST_CASE("fault: an arena declared smaller than the plan is caught by the high-water oracle") {
  Graph g = example_graph("two_branch");
  LiveAnalysis live = analyze_lifetimes(g, parse_order(g, "A,B,C,D,E,F"));
  sim::ArenaLayout layout = sim::plan_layout(g, live, {.planner = "best"});
  layout.arena_bytes -= 16 * KiB;
  sim::SimReport r = sim::simulate_layout(g, live, layout, {});
  REQUIRE(count_oracle(r, "high_water") == 1);
  CHECK(first_message(r, "high_water").find("past the planned arena of 122880 bytes") != std::string::npos);
  CHECK(r.high_water_bytes == 136 * KiB);
  // Writes there land in the guard zone: refused, and the canaries show it at the end of the run.
  CHECK(first_message(r, "writes").find("past the arena end (122880 bytes)") != std::string::npos);
  bool canaries = false;
  for (const sim::Violation& v : r.violations) canaries = canaries || v.message.find("canaries past the arena end") == 0;
  CHECK(canaries);
}

TEST_CASE("repeated runs use new inputs and stay green; the same seed repeats bit for bit") {
  Graph g = example_graph("tiny_cnn");
  LiveAnalysis live = analyze_lifetimes(g, g.file_order());
  sim::SimOptions options;
  options.runs = 4;
  sim::ArenaSimulator s(g, live, sim::plan_layout(g, live, {.planner = "best"}), options);
  s.run_all();
  CHECK(s.violation_count() == 0);
  CHECK(std::memcmp(s.captured(0, 0), s.captured(1, 0), 10) != 0);
  sim::ArenaSimulator again(g, live, sim::plan_layout(g, live, {.planner = "best"}), options);
  again.run_all();
  CHECK(std::memcmp(s.captured(3, 0), again.captured(3, 0), 10) == 0);
}

TEST_CASE("stepping: one op at a time with the byte ranges it read and wrote") {
  Graph g = example_graph("tiny_cnn");
  LiveAnalysis live = analyze_lifetimes(g, g.file_order());
  sim::ArenaLayout layout = sim::plan_layout(g, live, {.planner = "best"});
  sim::ArenaSimulator s(g, live, layout, {});
  const int image = live.buffer_of_tensor[*g.find_tensor("image")];
  const int conv1 = live.buffer_of_tensor[*g.find_tensor("conv1")];
  std::vector<uint8_t> before(s.region_data(0) + layout.offsets[conv1], s.region_data(0) + layout.offsets[conv1] + 2048);
  const sim::StepRecord& r = s.step();
  CHECK(g.ops[r.op].name == "conv1");
  REQUIRE(r.reads->size() == 1);
  CHECK(r.reads->at(0).offset == layout.offsets[image]);
  CHECK(r.reads->at(0).bytes == 768);
  REQUIRE(r.writes->size() == 1);
  CHECK(r.writes->at(0).offset == layout.offsets[conv1]);
  CHECK(r.writes->at(0).bytes == 2048);
  CHECK(r.stats->macs == 55296);
  CHECK(std::memcmp(before.data(), s.region_data(0) + layout.offsets[conv1], 2048) != 0);
  int steps = 1;
  while (!s.done()) {
    const sim::StepRecord& rec = s.step();
    CHECK(rec.end_violation == rec.first_violation);
    ++steps;
  }
  CHECK(steps == 12);
}

TEST_CASE("cycle model: conv1 of tiny_cnn on the Cortex-M4 profile, by hand") {
  Graph g = example_graph("tiny_cnn");
  sim::SimRequest req;
  sim::SimReport m4 = sim::simulate(g, req);
  const sim::McuProfile& p = sim::find_mcu_profile("cortex-m4");
  const sim::OpStats& conv1 = m4.per_op[0];
  // A 3x3 conv: overhead + 55296 MACs at the conv rate + 768 SRAM bytes loaded + (216 + 32) flash
  // bytes + 2048 stored, each at the profile's own rate.
  CHECK(conv1.cost_kind == sim::CostKind::kConv);
  const double by_hand = p.op_overhead_cycles + 55296 * p.cycles_per_mac[static_cast<int>(sim::CostKind::kConv)] +
                         768 * p.sram_load_cycles_per_byte + (216 + 32) * p.flash_load_cycles_per_byte +
                         2048 * p.sram_store_cycles_per_byte;
  CHECK(conv1.cycles == static_cast<int64_t>(std::ceil(by_hand)));
  CHECK(conv1.bytes_read == 768 + 216 + 32);
  CHECK(conv1.bytes_written == 2048);
  int64_t sum = 0;
  for (const sim::OpStats& s : m4.per_op) sum += s.cycles;
  CHECK(m4.cycles_total == sum);
  CHECK(m4.latency_us == doctest::Approx(sum / p.clock_mhz));
  req.profile = "cortex-m7";
  sim::SimReport m7 = sim::simulate(g, req);
  CHECK(m7.cycles_total < m4.cycles_total);
  CHECK(m7.latency_us < m4.latency_us);
  req.profile = "cortex-m99";
  CHECK_THROWS_WITH_AS(sim::simulate(g, req), doctest::Contains("known: cortex-m0plus, cortex-m0plus/reference"), InputError);
}

TEST_CASE("cycle model: a DMA stalls its completion step only when the ops in between are too short") {
  // 64 KiB streamed at 2 B/cycle = 32768 cycles, overlapping only the tiny op q.
  Graph g = parse_graph_json(R"({"format":"arenaplan-graph","version":1,"alignment":16,
    "tensors":{"x":{"bytes":64},"a":{"bytes":65536},"b":{"bytes":16},"c":{"bytes":16},"d":{"bytes":16}},
    "ops":[{"name":"p","kind":"mix","inputs":["x"],"outputs":["a"]},
           {"name":"dma","kind":"mix","inputs":["a"],"outputs":["b"],"async":{"a":1}},
           {"name":"q","kind":"mix","inputs":["b"],"outputs":["c"]},
           {"name":"r","kind":"mix","inputs":["c"],"outputs":["d"]}],
    "inputs":["x"],"outputs":["d"]})");
  sim::SimReport r = sim::simulate(g, {});
  CHECK(r.ok());
  const sim::OpStats& q = r.per_op[2];
  CHECK(q.dma_stall_cycles == 32768 - (q.cycles - q.dma_stall_cycles));
  CHECK(r.per_op[0].dma_stall_cycles == 0);
  CHECK(r.per_op[3].dma_stall_cycles == 0);
  // With a longer window the same DMA is hidden entirely.
  std::string text = R"({"format":"arenaplan-graph","version":1,"alignment":16,
    "tensors":{"x":{"bytes":64},"a":{"bytes":65536},"b":{"bytes":16},"c":{"bytes":65536},"d":{"bytes":16}},
    "ops":[{"name":"p","kind":"mix","inputs":["x"],"outputs":["a"]},
           {"name":"dma","kind":"mix","inputs":["a"],"outputs":["b"],"async":{"a":1}},
           {"name":"q","kind":"mix","inputs":["b"],"outputs":["c"]},
           {"name":"r","kind":"mix","inputs":["c"],"outputs":["d"]}],
    "inputs":["x"],"outputs":["d"]})";
  sim::SimReport hidden = sim::simulate(parse_graph_json(text), {});
  CHECK(hidden.per_op[2].dma_stall_cycles == 0);
}

TEST_CASE("simulate --json keys are exactly the contract's, from the core") {
  Graph g = example_graph("two_branch");
  sim::SimReport r = sim::simulate(g, {});
  JsonOut j = sim::simulation_json(g, r);
  for (const char* key : {"profile", "cycles_total", "latency_us", "per_op", "arena_bytes", "high_water_bytes",
                          "outputs_match_reference", "foreign_writes", "violations", "model_note"})
    CHECK(j.contains(key));
  CHECK(j["profile"] == "cortex-m4");
  REQUIRE(j["per_op"].size() == 6);
  std::vector<std::string> keys;
  for (auto it = j["per_op"][0].begin(); it != j["per_op"][0].end(); ++it) keys.push_back(it.key());
  CHECK(keys == std::vector<std::string>{"op", "cycles", "macs", "bytes_read", "bytes_written"});
  CHECK(j["per_op"][0]["op"] == "A");
  CHECK(j["outputs_match_reference"] == true);
  CHECK(j["violations"].empty());
}

TEST_CASE("fault injection requests are checked") {
  Graph g = example_graph("two_branch");
  sim::SimRequest req;
  req.inject = {"shift:NOPE"};
  CHECK_THROWS_WITH_AS(sim::simulate(g, req), doctest::Contains("unknown tensor \"NOPE\""), InputError);
  req.inject = {"explode"};
  CHECK_THROWS_WITH_AS(sim::simulate(g, req), doctest::Contains("unknown fault"), InputError);
  req.inject = {"shift:F:-100000000"};
  CHECK_THROWS_WITH_AS(sim::simulate(g, req), doctest::Contains("negative offset"), InputError);
  req.inject = {"shift:F:1048576"};  // far past the end: guard zone grows to hold it, the oracles name it
  sim::SimReport r = sim::simulate(g, req);
  CHECK(first_message(r, "writes").find("past the arena end") != std::string::npos);
  CHECK(count_oracle(r, "high_water") == 1);
}

TEST_CASE("the reference layout never lets two buffers live at once share a byte, and is smaller than one buffer each") {
  std::vector<Graph> graphs;
  for (const Example& e : builtin_examples())
    if (is_graph(e.json)) graphs.push_back(parse_graph_json(e.json));
  graphs.push_back(long_residual_chain_graph(1000, 3));
  graphs.push_back(many_outputs_chain_graph(1000, 200, 3));
  for (const Graph& g : graphs) {
    CAPTURE(g.name);
    const LiveAnalysis live = analyze_lifetimes(g, g.file_order());
    const sim::ArenaLayout reference = sim::reference_layout(live, g.alignment);
    // Checked by the independent verifier, not by the lanes' own logic.
    const VerifyResult check = verify_plan(layout_problem(g, live), reference.offsets, reference.arena_bytes);
    CHECK_MESSAGE(check.ok(), check.message);
    CHECK(reference.arena_bytes <= sim::separate_layout(live, g.alignment).arena_bytes);
    CHECK(reference.arena_bytes >= live.peak_bytes);
  }
  // On a long chain the lanes hold what is live at once, not the sum of all buffers.
  const Graph& chain = graphs[graphs.size() - 2];
  const LiveAnalysis live = analyze_lifetimes(chain, chain.file_order());
  CHECK(sim::reference_layout(live, chain.alignment).arena_bytes * 20 < sim::separate_layout(live, chain.alignment).arena_bytes);
}

TEST_CASE("the reference run gives the same outputs as one buffer each, on every example, runs and sessions") {
  for (const Example& e : builtin_examples()) {
    if (!is_graph(e.json)) continue;
    CAPTURE(e.name);
    Graph g = parse_graph_json(e.json);
    const LiveAnalysis live = analyze_lifetimes(g, g.file_order());
    sim::SimOptions options;
    options.oracles = false;
    options.runs = 2;
    options.sessions = 2;
    sim::ArenaSimulator separate(g, live, sim::separate_layout(live, g.alignment), options);
    sim::ArenaSimulator lanes(g, live, sim::reference_layout(live, g.alignment), options);
    separate.run_all();
    lanes.run_all();
    REQUIRE(separate.capture_bytes() == lanes.capture_bytes());
    REQUIRE(lanes.capture_bytes() > 0);
    for (int run = 0; run < 2; ++run)
      for (int session = 0; session < 2; ++session)
        CHECK(std::memcmp(separate.captured(run, session), lanes.captured(run, session),
                          static_cast<size_t>(lanes.capture_bytes())) == 0);
  }
}

TEST_CASE("fault: a kernel's stray write is caught wherever it lands, and named") {
  Graph g = example_graph("two_branch");
  sim::SimRequest req;
  req.order = parse_order(g, "A,B,C,D,E,F");
  const sim::SimReport clean = sim::simulate(g, req);
  REQUIRE(clean.ok());
  const LiveAnalysis live = analyze_lifetimes(g, req.order);
  const sim::ArenaLayout plan = sim::plan_layout(g, live, {.planner = "best"});
  const int b = live.buffer_of_tensor[*g.find_tensor("B")];

  // Right next to C's own output: the guard bytes catch it at C, naming the buffer still needed.
  const int c = live.buffer_of_tensor[*g.find_tensor("C")];
  const Bytes past_c = plan.offsets[c] + g.tensors[*g.find_tensor("C")].bytes;
  req.inject = {"stray:C:" + std::to_string(past_c)};
  sim::SimReport r = sim::simulate(g, req);
  CHECK_FALSE(r.ok());
  CHECK(first_message(r, "writes").find("op C changed bytes " + std::to_string(past_c)) == 0);
  CHECK(first_message(r, "writes").find("outside its outputs and scratch") != std::string::npos);

  // Into B's bytes, away from C's writes: caught at C or at a later compare, never missed.
  req.inject = {"stray:C:" + std::to_string(plan.offsets[b] + 100)};
  r = sim::simulate(g, req);
  CHECK_FALSE(r.ok());
  REQUIRE(count_oracle(r, "writes") == 1);
  CHECK(first_message(r, "writes").find("outside its outputs and scratch") != std::string::npos);
  CHECK(r.violations.front().step >= 2);  // not before C (step 2) ran

  // Into the guard zone past the arena end: the writes oracle names it.
  req.inject = {"stray:A:" + std::to_string(plan.arena_bytes + 3)};
  r = sim::simulate(g, req);
  CHECK(first_message(r, "writes").find("guard zone past the arena end") != std::string::npos);

  // Into free bytes of a large arena in a graph whose ops touch little: found at a later full
  // compare, which says which ops may have done it.
  Graph chain = long_residual_chain_graph(300, 5);
  const LiveAnalysis chain_live = analyze_lifetimes(chain, chain.file_order());
  sim::ArenaLayout roomy = sim::plan_layout(chain, chain_live, {.planner = "best"});
  const Bytes free_at = roomy.arena_bytes;
  roomy.arena_bytes += 4 << 20;  // 4 MiB of free bytes past every buffer
  sim::SimOptions options;
  options.stray_writes = {{chain_live.order[10], free_at + (2 << 20)}};
  r = sim::simulate_layout(chain, chain_live, roomy, options);
  REQUIRE(count_oracle(r, "writes") >= 1);
  CHECK(first_message(r, "writes").find("(free bytes), outside its outputs and scratch") != std::string::npos);
  CHECK(first_message(r, "writes").find("ops before it (since the last full compare)") != std::string::npos);
  for (const sim::Violation& v : r.violations) CHECK(v.step >= 10);

  // Into bytes a later op overwrites with its output before any full compare: the check of the
  // bytes an op is about to write finds it first, so a legitimate write cannot hide it.
  const Step later = 40;
  const TensorId out = chain.ops[chain_live.order[later]].outputs.at(0);
  const Bytes target = roomy.offsets[chain_live.buffer_of_tensor[out]] + 7;
  options.stray_writes = {{chain_live.order[later - 2], target}};
  r = sim::simulate_layout(chain, chain_live, roomy, options);
  REQUIRE(count_oracle(r, "writes") >= 1);
  CHECK(r.violations.front().step >= later - 2);
  CHECK(r.violations.front().step <= later);

  req.inject = {"stray:NOPE:1"};
  CHECK_THROWS_WITH_AS(sim::simulate(g, req), doctest::Contains("unknown op \"NOPE\""), InputError);
  req.inject = {"stray:C:99999999"};
  CHECK_THROWS_WITH_AS(sim::simulate(g, req), doctest::Contains("arena offset in [0, "), InputError);
}

TEST_CASE("the reference's lifetimes end each graph output at its last use, and its run captures the same outputs") {
  // Outputs captured at their last use from lanes that hold only what is still needed equal the
  // outputs of one buffer each captured at the end: checked byte for byte on every example and on
  // graphs with hundreds of outputs, over runs and sessions.
  std::vector<Graph> graphs;
  for (const Example& e : builtin_examples())
    if (is_graph(e.json)) graphs.push_back(parse_graph_json(e.json));
  graphs.push_back(many_outputs_chain_graph(600, 150, 4));
  graphs.push_back(recent_reads_graph(600, 4));
  for (const Graph& g : graphs) {
    CAPTURE(g.name);
    const LiveAnalysis live = analyze_lifetimes(g, g.file_order());
    const LiveAnalysis ref_live = sim::reference_lifetimes(g, live);
    REQUIRE(ref_live.buffers.size() == live.buffers.size());
    for (size_t b = 0; b < live.buffers.size(); ++b) {
      CHECK(ref_live.buffers[b].first == live.buffers[b].first);
      CHECK(ref_live.buffers[b].last <= live.buffers[b].last);
    }
    const sim::ArenaLayout lanes = sim::reference_layout(ref_live, g.alignment);
    const VerifyResult check = verify_plan(layout_problem(g, ref_live), lanes.offsets, lanes.arena_bytes);
    CHECK_MESSAGE(check.ok(), check.message);
    sim::SimOptions options;
    options.oracles = false;
    options.runs = 2;
    options.sessions = 2;
    sim::ArenaSimulator separate(g, live, sim::separate_layout(live, g.alignment), options);
    sim::ArenaSimulator reference(g, ref_live, lanes, options);
    separate.run_all();
    reference.run_all();
    REQUIRE(reference.capture_bytes() == separate.capture_bytes());
    for (int run = 0; run < 2; ++run)
      for (int session = 0; session < 2; ++session)
        CHECK(std::memcmp(separate.captured(run, session), reference.captured(run, session),
                          static_cast<size_t>(reference.capture_bytes())) == 0);
  }
  // With outputs unread and live to the end, the reference holds far less than the live peak.
  const Graph g = recent_reads_graph(2000, 1);
  const LiveAnalysis live = analyze_lifetimes(g, g.file_order());
  CHECK(sim::reference_layout(sim::reference_lifetimes(g, live), g.alignment).arena_bytes * 10 < live.peak_bytes);
}

TEST_CASE("outputs beyond max_capture_bytes are compared as digests: green when equal, a changed output is named") {
  Graph g = example_graph("two_branch");
  sim::SimRequest req;
  req.order = parse_order(g, "A,B,C,D,E,F");
  req.max_capture_bytes = 0;
  const sim::SimReport ok = sim::simulate(g, req);
  CHECK(ok.ok());
  CHECK(ok.outputs_by_digest);
  CHECK(ok.outputs.empty());
  CHECK(sim::simulation_summary_text(ok).find("64-bit digests") != std::string::npos);
  // The shifted B of the fault test above, with only the outputs oracle looking.
  LiveAnalysis live = analyze_lifetimes(g, req.order);
  sim::ArenaLayout layout = sim::shift_buffer(g, live, sim::plan_layout(g, live, {.planner = "best"}), "B", 0);
  sim::SimOptions options;
  options.oracles = false;
  options.max_capture_bytes = 0;
  const sim::SimReport r = sim::simulate_layout(g, live, layout, options);
  CHECK_FALSE(r.outputs_match_reference);
  CHECK(first_message(r, "outputs").find("output F differs from the reference run (64-bit digest") != std::string::npos);
}
