// docs/DESIGN.md's budget, end to end: graph -> lifetimes -> plan_arena -> memory map -> budget.
#include <doctest/doctest.h>

#include "core/budget/board.h"
#include "core/budget/budget.h"
#include "core/budget/budget_report.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using namespace arenaplan::test;

namespace {

MemoryMap example_board(const std::string& name) { return parse_board_json(*find_example(name)); }

struct Run {
  Graph g;
  LiveAnalysis live;
  MemoryMap board;
  Budget budget;
};

Run run(Graph g, const std::string& order, MemoryMap board, BudgetOptions options = {}) {
  LiveAnalysis live = analyze_lifetimes(g, parse_order(g, order));
  Budget b = plan_budget(g, live, board, options);
  return {std::move(g), std::move(live), std::move(board), std::move(b)};
}

// The two-branch graph with docs/DESIGN.md's 48 KiB scratch during D.
Graph two_branch_with_scratch() {
  std::string text = *find_example("two_branch");
  const std::string d = R"("inputs": ["A"], "outputs": ["D"])";
  text.replace(text.find(d), d.size(), d + R"(, "scratch_bytes": "48KiB")");
  return parse_graph_json(text);
}

int placement_of(const Run& r, const std::string& buffer) {
  for (size_t i = 0; i < r.live.buffers.size(); ++i)
    if (r.live.buffers[i].name == buffer) return static_cast<int>(i);
  FAIL("no buffer " << buffer);
  return -1;
}

std::string region_of(const Run& r, const std::string& buffer) {
  RegionId id = r.budget.placements[placement_of(r, buffer)].region;
  return id < 0 ? "" : r.board.regions[id].name;
}

Bytes reservations_bytes(const MemoryMap& m) {
  Bytes total = 0;
  for (const Reservation& res : m.reservations) total += res.bytes;
  return total;
}

}  // namespace

TEST_CASE("ABCDEF: 136 KiB arena + 88 KiB outside = 224 KiB of 256, fits with 32 KiB free") {
  Run r = run(example_graph("two_branch"), "A,B,C,D,E,F", example_board("two_branch_board"));
  const RegionBudget& sram = r.budget.regions.at(0);
  CHECK(r.budget.arena_bytes == r.live.peak_bytes);  // the planner reaches the lower bound
  CHECK(r.budget.arena_bytes == 136 * KiB);
  CHECK(r.budget.outside_arena_bytes == reservations_bytes(r.board));
  CHECK(r.budget.outside_arena_bytes == 88 * KiB);
  CHECK(sram.used_bytes == 224 * KiB);
  CHECK(sram.free_bytes == 32 * KiB);
  CHECK(r.budget.fits);
  CHECK(r.budget.reason.empty());
  CHECK(verify_plan(sram.problem, sram.offsets, sram.arena_bytes).ok());
  // Every buffer sits in the arena, after the always-present reservations.
  for (const BufferPlacement& p : r.budget.placements) {
    CHECK(p.region == 0);
    CHECK(p.address == 0x20000000u + static_cast<uint64_t>(88 * KiB + p.offset));
  }
}

TEST_CASE("ABDCEF: 192 KiB arena + 88 KiB = 280 KiB, does not fit, and the reason says where") {
  Run r = run(example_graph("two_branch"), "A,B,D,C,E,F", example_board("two_branch_board"));
  CHECK(r.live.peak_bytes == 192 * KiB);
  CHECK(r.budget.arena_bytes == 192 * KiB);
  CHECK(r.budget.regions[0].used_bytes == 280 * KiB);
  CHECK(r.budget.regions[0].free_bytes == -24 * KiB);
  CHECK_FALSE(r.budget.fits);
  CHECK(r.budget.reason.find("region SRAM needs 280 KiB but has 256 KiB (over by 24 KiB)") == 0);
  CHECK(r.budget.reason.find("tensor arena 192 KiB") != std::string::npos);
}

TEST_CASE("48 KiB scratch during D kept separate: no 48 KiB hole in the 136 KiB layout, 272 KiB, does not fit") {
  BudgetOptions separate;
  separate.scratch = ScratchPolicy::kSeparate;
  Run r = run(two_branch_with_scratch(), "A,B,C,D,E,F", example_board("two_branch_board"), separate);
  const RegionBudget& sram = r.budget.regions.at(0);
  CHECK(sram.arena_bytes == 136 * KiB);  // the old layout, without the scratch
  REQUIRE(sram.separate_scratch.size() == 1);
  CHECK(r.live.buffers[sram.separate_scratch[0]].name == "D:scratch");
  CHECK(r.budget.placements[placement_of(r, "D:scratch")].separate);
  CHECK(sram.used_bytes == 272 * KiB);  // 136 + 48 + 88
  CHECK_FALSE(r.budget.fits);
  CHECK(r.budget.reason.find("over by 16 KiB") != std::string::npos);
  CHECK(r.budget.reason.find("scratch D:scratch (separate) 48 KiB") != std::string::npos);
}

TEST_CASE("a scratch that fits a hole of the old layout needs no reservation") {
  std::string text = *find_example("two_branch");
  const std::string d = R"("inputs": ["A"], "outputs": ["D"])";
  text.replace(text.find(d), d.size(), d + R"(, "scratch_bytes": "32KiB")");  // the hole during D is 32 KiB
  BudgetOptions separate;
  separate.scratch = ScratchPolicy::kSeparate;
  Run r = run(parse_graph_json(text), "A,B,C,D,E,F", example_board("two_branch_board"), separate);
  CHECK(r.budget.regions[0].separate_scratch.empty());
  CHECK(r.budget.arena_bytes == 136 * KiB);
  CHECK(r.budget.regions[0].used_bytes == 224 * KiB);
  const RegionBudget& sram = r.budget.regions[0];
  CHECK(verify_plan(sram.problem, sram.offsets, sram.arena_bytes).ok());
}

TEST_CASE("with a constructed, verified 152 KiB plan (scratch in the arena): 240 KiB, fits") {
  Run r = run(two_branch_with_scratch(), "A,B,C,D,E,F", example_board("two_branch_board"));
  const RegionBudget& sram = r.budget.regions.at(0);
  CHECK(r.live.peak_bytes == 152 * KiB);
  CHECK(sram.arena_bytes == 152 * KiB);
  CHECK(verify_plan(sram.problem, sram.offsets, sram.arena_bytes).ok());
  CHECK(sram.used_bytes == 240 * KiB);
  CHECK(sram.free_bytes == 16 * KiB);
  CHECK(r.budget.fits);
}

TEST_CASE("two regions: the DMA-read output F must move from DTCM to the DMA bank SRAM2") {
  Run r = run(example_graph("two_branch"), "A,B,C,D,E,F", example_board("two_region_board"));
  CHECK(region_of(r, "F") == "SRAM2");
  CHECK(r.budget.placements[placement_of(r, "F")].constraints == std::vector<int>{0});
  for (const char* t : {"I", "A", "B", "C", "D", "E"}) CHECK(region_of(r, t) == "DTCM");
  const RegionBudget& dtcm = r.budget.regions.at(0);
  const RegionBudget& sram2 = r.budget.regions.at(1);
  CHECK(dtcm.arena_bytes == 136 * KiB);  // A + B + C during C still needs it all
  CHECK(sram2.arena_bytes == 16 * KiB);
  CHECK(r.budget.arena_bytes == 152 * KiB);
  CHECK(dtcm.used_bytes == 136 * KiB + 56 * KiB);
  CHECK(sram2.used_bytes == 16 * KiB + 32 * KiB);
  CHECK(r.budget.fits);
  CHECK(r.budget.placements[placement_of(r, "F")].address == 0x30000000u + 32 * KiB);

  // Without the constraint, F stays in the arena's home bank.
  MemoryMap free_board = r.board;
  free_board.constraints.clear();
  Run r2 = run(example_graph("two_branch"), "A,B,C,D,E,F", free_board);
  CHECK(region_of(r2, "F") == "DTCM");
}

TEST_CASE("two regions: when the DMA bank is too small, the reason names it and the constraint") {
  MemoryMap m = example_board("two_region_board");
  m.regions[1].size = 40 * KiB;  // 32 KiB acquisition + 16 KiB F = 48 KiB
  Run r = run(example_graph("two_branch"), "A,B,C,D,E,F", m);
  CHECK_FALSE(r.budget.fits);
  CHECK(r.budget.reason.find("region SRAM2 needs 48 KiB but has 40 KiB (over by 8 KiB)") == 0);
  CHECK(r.budget.reason.find("placed here by constraint /constraints/0 (tensor F require dma: sent over SPI by DMA): F") !=
        std::string::npos);
  // No DMA region at all: the buffer has nowhere to go.
  m.regions[1].attributes.clear();
  Run none = run(example_graph("two_branch"), "A,B,C,D,E,F", m);
  CHECK_FALSE(none.budget.fits);
  CHECK(none.budget.reason.find("buffer F has no region") == 0);
  CHECK(none.budget.placements[placement_of(none, "F")].region == -1);
}

TEST_CASE("tensors read asynchronously (DMA) are placed in a DMA-capable region") {
  Graph g = parse_graph_json(R"({"format":"arenaplan-graph","version":1,"alignment":16,
      "tensors":{"x":{"bytes":"1KiB"},"a":{"bytes":"2KiB"},"b":{"bytes":"1KiB"},"c":{"bytes":"1KiB"}},
      "ops":[{"name":"p","inputs":["x"],"outputs":["a"]},
             {"name":"dma","inputs":["a"],"outputs":["b"],"async":{"a":1}},
             {"name":"q","inputs":["b"],"outputs":["c"]}],
      "inputs":["x"],"outputs":["c"]})");
  MemoryMap m = example_board("two_region_board");
  Run r = run(g, "p,dma,q", m);
  CHECK(region_of(r, "a") == "SRAM2");
  CHECK(r.budget.placements[placement_of(r, "a")].constraints == std::vector<int>{1});
  CHECK(region_of(r, "b") == "DTCM");
  CHECK(r.budget.warnings.size() == 1);  // constraint 0 names F, which this graph lacks
  CHECK(r.budget.warnings[0].find("/constraints/0 names tensor F") != std::string::npos);
}

TEST_CASE("unconstrained buffers spill to the next arena region when the first overflows") {
  MemoryMap m = parse_board_json(R"({"format":"arenaplan-board","regions":[
      {"name":"R0","size":"128KiB"},{"name":"R1","size":"64KiB"}],"arena_regions":["R0","R1"]})");
  Run r = run(example_graph("two_branch"), "A,B,C,D,E,F", m);
  // One bank cannot hold 136 KiB; moving a buffer to R1 makes both fit.
  CHECK(r.budget.fits);
  CHECK(r.budget.regions[0].used_bytes <= 128 * KiB);
  CHECK(r.budget.regions[1].used_bytes <= 64 * KiB);
  CHECK(r.budget.regions[1].arena_bytes > 0);
  for (const RegionBudget& rb : r.budget.regions)
    if (!rb.problem.buffers.empty()) CHECK(verify_plan(rb.problem, rb.offsets, rb.arena_bytes).ok());
}

TEST_CASE("phases: init conversion space and inference buffers overlap, they are not summed") {
  auto board = [](const std::string& extra) {
    return parse_board_json(R"({"format":"arenaplan-board","regions":[{"name":"SRAM","size":"256KiB"}],
        "reservations":[{"owner":"stack","kind":"stack","bytes":"32KiB"},
                        {"owner":"frames","kind":"acquisition","bytes":"32KiB","phase":"inference"})" + extra + "]}");
  };
  // 64 KiB of weight repacking during init and 32 KiB of frames during inference: the region needs
  // 32 + 136 + max(64, 32) = 232 KiB; summing the maxima would claim 264 KiB and "not fit".
  Run r = run(example_graph("two_branch"), "A,B,C,D,E,F",
              board(R"(,{"owner":"weight repack","kind":"conversion","bytes":"64KiB","phase":"init"})"));
  const RegionBudget& sram = r.budget.regions[0];
  CHECK(sram.init_bytes == (32 + 136 + 64) * KiB);
  CHECK(sram.inference_bytes == (32 + 136 + 32) * KiB);
  CHECK(sram.used_bytes == 232 * KiB);
  CHECK(r.budget.fits);
  // Init scratch taken from the idle arena (TFLM style) costs only what exceeds the arena.
  Run in_arena = run(example_graph("two_branch"), "A,B,C,D,E,F",
                     board(R"(,{"owner":"weight repack","kind":"conversion","bytes":"64KiB","phase":"init","in_arena":true})"));
  CHECK(in_arena.budget.regions[0].init_bytes == (32 + 136) * KiB);
  CHECK(in_arena.budget.regions[0].used_bytes == (32 + 136 + 32) * KiB);
  Run big = run(example_graph("two_branch"), "A,B,C,D,E,F",
                board(R"(,{"owner":"weight repack","kind":"conversion","bytes":"200KiB","phase":"init","in_arena":true})"));
  CHECK(big.budget.regions[0].init_bytes == (32 + 200) * KiB);
  // Too much init space: the reason says it is initialisation that overflows.
  Run over = run(example_graph("two_branch"), "A,B,C,D,E,F",
                 board(R"(,{"owner":"weight repack","kind":"conversion","bytes":"100KiB","phase":"init"})"));
  CHECK_FALSE(over.budget.fits);
  CHECK(over.budget.reason.find("during initialisation") != std::string::npos);
  CHECK(over.budget.reason.find("frames") == std::string::npos);  // inference-only, not in the init sum
}

TEST_CASE("caller-owned inputs are the application's bytes: reported, not in any arena") {
  std::string text = *find_example("two_branch");
  text.insert(text.find("\"alignment\""), R"("input_policy": "caller_owned", )");
  Run r = run(parse_graph_json(text), "A,B,C,D,E,F", example_board("two_branch_board"));
  REQUIRE(r.budget.caller_owned.size() == 1);
  CHECK(r.g.tensors[r.budget.caller_owned[0]].name == "I");
  CHECK(r.budget.caller_owned_bytes == 16 * KiB);
  CHECK(r.budget.arena_bytes == 136 * KiB);  // the peak (A + B + C during C) never held I
  JsonOut j = budget_json(r.g, r.live, r.board, r.budget);
  CHECK(j["caller_owned"]["bytes"] == 16 * KiB);
  CHECK(j["measurement"]["input_policy"] == "caller_owned");
}

TEST_CASE("budget --json contract and the three answers") {
  Run r = run(example_graph("two_branch"), "A,B,D,C,E,F", example_board("two_branch_board"));
  JsonOut j = budget_json(r.g, r.live, r.board, r.budget);
  CHECK(j["fits"] == false);
  CHECK(j["arena_bytes"] == 192 * KiB);
  CHECK(j["outside_arena_bytes"] == 88 * KiB);
  CHECK(j["reason"].get<std::string>().find("region SRAM") == 0);
  REQUIRE(j["regions"].size() == 1);
  const JsonOut& region = j["regions"][0];
  CHECK(region["name"] == "SRAM");
  CHECK(region["size_bytes"] == 256 * KiB);
  CHECK(region["used_bytes"] == 280 * KiB);
  CHECK(region["free_bytes"] == -24 * KiB);
  Bytes items = 0;
  for (const auto& it : region["items"]) {
    CHECK(it.contains("owner"));
    items += it["bytes"].get<Bytes>();
  }
  CHECK(items == 280 * KiB);
  // 1. coexist: A + B + D during D.
  CHECK(j["coexist"]["peak_op"] == "D");
  CHECK(j["coexist"]["peak_buffers"] == JsonOut::array({"A", "B", "D"}));
  // The same answer typed, as the Budget panel draws it (the JSON is built from it).
  const BudgetCoexist c = budget_coexist(r.g, r.live);
  CHECK(c.peak_op == "D");
  CHECK(c.peak_step == 2);  // A, B, D, ...
  CHECK(c.peak_buffers == std::vector<std::string>{"A", "B", "D"});
  CHECK(peak_buffers_text(c) == "A + B + D");
  CHECK(c.peak_bytes == j["coexist"]["peak_bytes"].get<Bytes>());
  // 2. placed: every buffer with region and offset.
  CHECK(j["placement"].size() == r.live.buffers.size());
  CHECK(j["placement"][0]["region"] == "SRAM");
  // 3. room.
  CHECK(j["room"]["free_bytes"] == -24 * KiB);
  // What a measurement needs.
  const JsonOut& m = j["measurement"];
  CHECK(m["tool_version"] == ARENAPLAN_VERSION);
  CHECK(m["alignment"] == 16);
  CHECK(m["order"] == "A,B,D,C,E,F");
  CHECK(m["inputs"][0]["name"] == "I");
  CHECK(m["inputs"][0]["bytes"] == 16 * KiB);
  CHECK(m["model_hash"].get<std::string>().rfind("fnv1a64:", 0) == 0);
  // A fitting budget has no "reason" key.
  Run ok = run(example_graph("two_branch"), "A,B,C,D,E,F", example_board("two_branch_board"));
  CHECK_FALSE(budget_json(ok.g, ok.live, ok.board, ok.budget).contains("reason"));
  CHECK(budget_text(ok.g, ok.live, ok.board, ok.budget).find("FITS: arena 136 KiB + outside the arena 88 KiB") !=
        std::string::npos);
}

TEST_CASE("the model hash changes with the model, not with the order") {
  Run a = run(example_graph("two_branch"), "A,B,C,D,E,F", example_board("two_branch_board"));
  Run b = run(example_graph("two_branch"), "A,B,D,C,E,F", example_board("two_branch_board"));
  Run c = run(two_branch_with_scratch(), "A,B,C,D,E,F", example_board("two_branch_board"));
  CHECK(a.budget.measurement.model_hash == b.budget.measurement.model_hash);
  CHECK(a.budget.measurement.model_hash != c.budget.measurement.model_hash);
  CHECK(fingerprint("") == "fnv1a64:cbf29ce484222325");  // the FNV-1a offset basis
}

TEST_CASE("a graph with a symbolic batch is budgeted at its bound (N = 8), and the record says so") {
  Graph g = example_graph("batch_contract");
  Run r = run(g, order_names(g, g.file_order()), example_board("two_branch_board"));
  // x + c1 + c2 during conv2 at N = 8: 8 * (768 + 512 + 512) bytes.
  CHECK(r.budget.arena_bytes == 8 * (768 + 512 + 512));
  CHECK(r.budget.arena_bytes == r.live.peak_bytes);
  REQUIRE(r.budget.measurement.inputs.size() == 1);
  CHECK(r.budget.measurement.inputs[0].shape == "[N<=8, 16, 16, 3] int8");
  CHECK(r.budget.measurement.inputs[0].bytes == 8 * 768);
}

namespace {

// A chain x -p-> a -q-> b -r-> c -s-> y of 32 KiB tensors: every step holds two of them.
Graph chain_of_32k_tensors() {
  return parse_graph_json(R"({"format":"arenaplan-graph","version":1,"alignment":16,
      "tensors":{"x":{"bytes":"32KiB"},"a":{"bytes":"32KiB"},"b":{"bytes":"32KiB"},"c":{"bytes":"32KiB"},"y":{"bytes":"32KiB"}},
      "ops":[{"name":"p","inputs":["x"],"outputs":["a"]},{"name":"q","inputs":["a"],"outputs":["b"]},
             {"name":"r","inputs":["b"],"outputs":["c"]},{"name":"s","inputs":["c"],"outputs":["y"]}],
      "inputs":["x"],"outputs":["y"]})");
}

// A board whose arena spans two 48 KiB banks.
MemoryMap two_48k_banks() {
  return parse_board_json(R"({"format":"arenaplan-board","regions":[
      {"name":"R0","size":"48KiB"},{"name":"R1","size":"48KiB"}],"arena_regions":["R0","R1"]})");
}

}  // namespace

TEST_CASE("spilling across two banks gets past tied peaks: a chain of 32 KiB tensors fits two 48 KiB banks") {
  // Every step holds two 32 KiB tensors, so one bank needs 64 KiB at every step; moving a single
  // tensor never lowers that peak, yet alternating banks fits each in 32 KiB.
  Graph g = chain_of_32k_tensors();
  MemoryMap m = two_48k_banks();
  Run r = run(g, "p,q,r,s", m);
  CHECK(r.live.peak_bytes == 64 * KiB);
  CHECK(r.budget.fits);
  CHECK(r.budget.regions[0].arena_bytes == 32 * KiB);
  CHECK(r.budget.regions[1].arena_bytes == 32 * KiB);
  CHECK(region_of(r, "x") != region_of(r, "a"));
  CHECK(region_of(r, "a") != region_of(r, "b"));
}

TEST_CASE("the time limit covers the bank repair too: with none left it stops at once and says so") {
  // The chain above needs several moves to alternate banks; with no time the repair makes one
  // trial, and the answer says the search stopped rather than claiming the board is too small.
  Graph g = chain_of_32k_tensors();
  MemoryMap m = two_48k_banks();
  BudgetOptions no_time;
  no_time.plan.time_limit_seconds = 0;
  Run r = run(g, "p,q,r,s", m, no_time);
  CHECK_FALSE(r.budget.fits);
  REQUIRE(r.budget.warnings.size() == 1);
  CHECK(r.budget.warnings[0].find("stopped after 1 trial plans of 5 buffers each, at half the time limit") != std::string::npos);
}
