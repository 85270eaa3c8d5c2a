// The cycle model: op kinds map to the cost kinds the profiles price, every core has a CMSIS-NN
// and a reference profile with a measured band, a board gives the core, library and clock, and a
// fitted profile reproduces its MLPerf Tiny row.
#include <doctest/doctest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "core/budget/board.h"
#include "core/budget/board_library.h"
#include "core/graph/graph_json.h"
#include "core/graph/report.h"
#include "core/sim/sim.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using namespace arenaplan::test;

TEST_CASE("op kinds are charged as the cost kind their kernel library runs them with") {
  using sim::CostKind;
  CHECK(sim::cost_kind_of("conv_2d", false) == CostKind::kConv);
  CHECK(sim::cost_kind_of("conv_2d", true) == CostKind::kPointwise);
  CHECK(sim::cost_kind_of("conv2d", true) == CostKind::kPointwise);
  CHECK(sim::cost_kind_of("depthwise_conv_2d", false) == CostKind::kDepthwise);
  CHECK(sim::cost_kind_of("fully_connected", false) == CostKind::kFullyConnected);
  CHECK(sim::cost_kind_of("average_pool_2d", false) == CostKind::kPooling);
  CHECK(sim::cost_kind_of("mean", false) == CostKind::kPooling);
  CHECK(sim::cost_kind_of("softmax", false) == CostKind::kSoftmax);
  CHECK(sim::cost_kind_of("svdf", false) == CostKind::kLstm);
  CHECK(sim::cost_kind_of("unidirectional_sequence_lstm", false) == CostKind::kLstm);
  CHECK(sim::cost_kind_of("reshape", false) == CostKind::kDataMovement);
  CHECK(sim::cost_kind_of("pad", false) == CostKind::kDataMovement);
  CHECK(sim::cost_kind_of("add", false) == CostKind::kElementwise);
  CHECK(std::string(sim::cost_kind_name(CostKind::kPointwise)) == "1x1 conv");
}

TEST_CASE("the model runs a 1x1 conv at its own rate, not the 3x3 conv's") {
  sim::McuProfile p = sim::find_mcu_profile("cortex-m4");
  sim::OpWork w;
  w.macs = 1000;
  w.kind = sim::CostKind::kPointwise;
  p.cycles_per_mac[static_cast<int>(sim::CostKind::kPointwise)] = 2;
  p.cycles_per_mac[static_cast<int>(sim::CostKind::kConv)] = 5;
  p.op_overhead_cycles = 0;
  CHECK(sim::op_cycles(p, w) == 2000);
  w.kind = sim::CostKind::kConv;
  CHECK(sim::op_cycles(p, w) == 5000);
}

TEST_CASE("every Arm core has a CMSIS-NN and a reference profile, each with its basis and band") {
  std::set<std::string> names;
  for (const sim::McuProfile& p : sim::mcu_profiles()) {
    INFO(p.name);
    CHECK(names.insert(p.name).second);
    CHECK(p.clock_mhz > 0);
    CHECK(p.error_band > 0);
    CHECK(p.error_band < 1);
    CHECK(!p.basis.empty());
    CHECK((p.kernels == "cmsis-nn" || p.kernels == "reference"));
    CHECK(sim::profile_for_core(p.core, p.kernels) == &p);
  }
  for (const char* core : {"cortex-m0plus", "cortex-m3", "cortex-m4", "cortex-m7", "cortex-m33", "cortex-m55", "cortex-m85"}) {
    INFO(core);
    REQUIRE(sim::profile_for_core(core, "cmsis-nn") != nullptr);
    REQUIRE(sim::profile_for_core(core, "reference") != nullptr);
    // The portable C kernels are slower than the library written for the core.
    CHECK(sim::profile_for_core(core, "reference")->cycles_per_mac[0] > sim::profile_for_core(core, "cmsis-nn")->cycles_per_mac[0]);
  }
  CHECK(sim::find_mcu_profile("cortex-m4/reference").kernels == "reference");
  sim::McuProfile banded = sim::find_mcu_profile("cortex-m33");
  banded.error_band = 0.12;
  CHECK(sim::latency_text(banded, 50600) == milliseconds_text(50600) + " (+-12 %)");
}

TEST_CASE("a board gives the profile its core, kernel library and clock; --clock-mhz wins") {
  const MemoryMap h7 = parse_board_json(*builtin_board_text("stm32h743"));
  sim::McuProfile p = sim::profile_for_board(h7, std::nullopt);
  CHECK(p.core == "cortex-m7");
  CHECK(p.kernels == "cmsis-nn");
  CHECK(p.clock_mhz == 480);
  CHECK(sim::profile_for_board(h7, 240.0).clock_mhz == 240);
  // An Xtensa board runs the scalar reference-kernel profile, and says so.
  const MemoryMap esp32 = parse_board_json(*builtin_board_text("esp32"));
  p = sim::profile_for_board(esp32, std::nullopt);
  CHECK(p.kernels == "reference");
  CHECK(p.clock_mhz == 240);
  CHECK(p.assumptions.find("stands in for the board's xtensa-lx6") != std::string::npos);
  // Every library board has a profile.
  for (const LibraryBoard& b : board_library()) CHECK_NOTHROW(sim::profile_for_board(parse_board_json(b.json), std::nullopt));
  MemoryMap odd = h7;
  odd.core = "z80";
  CHECK_THROWS_WITH_AS(sim::profile_for_board(odd, std::nullopt), doctest::Contains("no cycle profile for core \"z80\""), InputError);
}

TEST_CASE("the Cortex-M33 profile reproduces its MLPerf Tiny KWS row (EK-RA6M4, 200 MHz) within its band") {
  const nlohmann::json fixture =
      nlohmann::json::parse(read_test_file(source_path("bench/data/mlperf_tiny_latency.json")));
  const Graph kws = parse_graph_json(read_test_file(source_path("bench/data/mlperf_tiny/kws_ds_cnn.json")));
  double measured_ms = 0;
  for (const auto& row : fixture["rows"])
    if (row["board"] == "EK-RA6M4" && row["benchmark"] == "kws") measured_ms = row["measured_ms"];
  REQUIRE(measured_ms > 0);
  sim::SimRequest req;
  req.plan.planner = "tflm-greedy";
  req.board_profile = sim::profile_for_board(parse_board_json(*builtin_board_text("ra6m4")), std::nullopt);
  const sim::SimReport r = sim::simulate(kws, req);
  CHECK(r.profile.clock_mhz == 200);
  const double predicted_ms = r.latency_us / 1000;
  CHECK(std::fabs(predicted_ms / measured_ms - 1) <= r.profile.error_band);
  // The DS-CNN's 2.6 M MACs: far from the one cycle per MAC the model used to charge.
  CHECK(r.cycles_total > 3 * 2'600'000);
}
