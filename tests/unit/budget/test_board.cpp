// The arenaplan-board format: regions, reservations, constraints; every error names its place.
#include <doctest/doctest.h>

#include "core/budget/board.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using namespace arenaplan::test;

namespace {

MemoryMap example_board(const std::string& name) {
  const std::string* text = find_example(name);
  if (!text) throw std::runtime_error("no built-in example " + name);
  return parse_board_json(*text);
}

std::string board_error(const std::string& json) {
  return input_error_of([&] { parse_board_json(json); });
}

std::string board_text(const std::string& body) {
  return R"({"format":"arenaplan-board","version":1,"regions":[{"name":"SRAM","size":"64KiB","attributes":["dma"]},
            {"name":"TCM","base":"0x10000000","size":4096,"attributes":["fast","accelerator"]}])" +
         body + "}";
}

}  // namespace

TEST_CASE("the article's board: 256 KiB, 24 persistent, 32 stack and services, 2 x 16 acquisition = 88 KiB") {
  MemoryMap m = example_board("two_branch_board");
  REQUIRE(m.regions.size() == 1);
  CHECK(m.regions[0].size == 256 * KiB);
  CHECK(m.regions[0].base == 0x20000000u);
  Bytes persistent = 0, stack_services = 0, acquisition = 0, total = 0;
  int acquisition_buffers = 0;
  for (const Reservation& r : m.reservations) {
    total += r.bytes;
    if (r.kind == ReservationKind::kPersistent) persistent += r.bytes;
    if (r.kind == ReservationKind::kStack || r.kind == ReservationKind::kServices) stack_services += r.bytes;
    if (r.kind == ReservationKind::kAcquisition) {
      acquisition += r.bytes;
      CHECK(r.bytes == 16 * KiB);
      ++acquisition_buffers;
    }
  }
  CHECK(persistent == 24 * KiB);
  CHECK(stack_services == 32 * KiB);
  CHECK(acquisition_buffers == 2);
  CHECK(total == 88 * KiB);
}

TEST_CASE("every example file says whether it is a graph or a board") {
  int boards = 0;
  for (const Example& e : builtin_examples()) {
    if (e.json.find("\"arenaplan-board\"") != std::string::npos) {
      CHECK_NOTHROW(parse_board_json(e.json));
      ++boards;
    }
  }
  CHECK(boards >= 2);
  CHECK(board_error(*find_example("two_branch")).find("/format") == 0);  // a graph is not a board
}

TEST_CASE("board round trip: board_to_json reproduces the memory map") {
  for (const char* name : {"two_branch_board", "two_region_board"}) {
    MemoryMap a = example_board(name);
    MemoryMap b = parse_board_json(board_to_json(a));
    CHECK(board_to_json(a) == board_to_json(b));
    CHECK(b.regions.size() == a.regions.size());
    CHECK(b.reservations.size() == a.reservations.size());
    CHECK(b.constraints.size() == a.constraints.size());
  }
}

TEST_CASE("regions, attributes, phases and constraints parse") {
  MemoryMap m = parse_board_json(board_text(R"(,"arena_regions":["TCM","SRAM"],
      "reservations":[{"owner":"weights repack","kind":"conversion","region":"SRAM","bytes":"8KiB","phase":"init","in_arena":true},
                      {"owner":"frame","kind":"acquisition","bytes":1024,"phase":"inference"}],
      "constraints":[{"op_kind":"conv2d","requires":["accelerator"],"why":"NPU operands"},{"tensor":"x","region":"SRAM"}])"));
  CHECK(m.regions[1].base == 0x10000000u);
  CHECK(m.regions[1].has(RegionAttribute::kAccelerator));
  CHECK_FALSE(m.regions[0].has(RegionAttribute::kFast));
  CHECK(m.arena_regions == std::vector<RegionId>{1, 0});
  CHECK(m.reservations[0].phase == Phase::kInit);
  CHECK(m.reservations[0].in_arena);
  CHECK(m.reservations[1].region == 1);  // default: the arena's first region
  CHECK(m.constraints[0].select.op_kind == "conv2d");
  CHECK(m.constraints[1].region == std::optional<RegionId>(0));
  CHECK(m.constraints[0].describe(m.regions) == "/constraints/0 (operands of conv2d ops require accelerator: NPU operands)");
}

TEST_CASE("board errors name the JSON place") {
  CHECK(board_error("{") .find("line 1") == 0);
  CHECK(board_error(R"({"format":"arenaplan-board","regions":[]})") == "/regions: expected a non-empty array of regions");
  CHECK(board_error(board_text(R"(,"reservations":[{"owner":"stack","bytes":"12XB"}])")).find("/reservations/0/bytes") == 0);
  CHECK(board_error(board_text(R"(,"reservations":[{"owner":"stack","bytes":0}])")) == "/reservations/0/bytes: size must be positive");
  CHECK(board_error(board_text(R"(,"reservations":[{"owner":"stack","bytes":16,"region":"DRAM"}])")) ==
        "/reservations/0/region: unknown region \"DRAM\" (not declared in /regions)");
  CHECK(board_error(board_text(R"(,"reservations":[{"owner":"s","bytes":16,"kind":"cache"}])")).find("/reservations/0/kind: unknown kind") == 0);
  CHECK(board_error(board_text(R"(,"reservations":[{"owner":"s","bytes":16,"in_arena":true}])")).find("/reservations/0/in_arena") == 0);
  CHECK(board_error(board_text(R"(,"constraints":[{"tensor":"x"}])")).find("/constraints/0: give \"requires\"") == 0);
  CHECK(board_error(board_text(R"(,"constraints":[{"tensor":"x","op_kind":"add","requires":["dma"]}])")).find("/constraints/0: give exactly one") == 0);
  CHECK(board_error(board_text(R"(,"constraints":[{"tensor":"x","requires":["psram"]}])")).find("/constraints/0/requires/0: unknown attribute \"psram\"") == 0);
  CHECK(board_error(board_text(R"(,"arena_regions":["SRAM","SRAM"])")) == "/arena_regions/1: region listed twice");
  CHECK(board_error(R"({"format":"arenaplan-board","regions":[{"name":"a","size":16},{"name":"a","size":16}]})") ==
        "/regions/1/name: duplicate region name \"a\"");
  CHECK(board_error(R"({"format":"arenaplan-board","regions":[{"name":"a","size":16,"base":"0xZZ"}]})").find("/regions/0/base") == 0);
  CHECK(board_error(R"({"format":"arenaplan-board","regions":[{"name":"a","size":16,"base":"0xffffffffffffffff"}]})").find("overflows") != std::string::npos);
  CHECK(board_error(R"({"format":"arenaplan-board","regions":[{"name":"a","size":16}],"extra":1})") .find("/extra: unknown key") == 0);
}

TEST_CASE("a board with a number too large for a double is refused, not a crash (fuzz regression)") {
  CHECK(board_error(R"({"format":"arenaplan-board","regions":[{"name":"S","size":1e99999}]})") ==
        "JSON: invalid JSON (number overflow parsing '1e99999')");
}

TEST_CASE("clock, flash and kernel library parse with their sources and survive a round trip") {
  MemoryMap m = parse_board_json(board_text(R"(,"clock":{"mhz":64,"source":"PS 4.1"},
      "flash":{"size":"1MiB","source":"PS 4.2"},"kernels":{"library":"reference","source":"SDK docs"})"));
  CHECK(m.clock_mhz == 64);
  CHECK(m.clock_source == "PS 4.1");
  CHECK(m.flash_bytes == 1024 * 1024);
  CHECK(m.flash_source == "PS 4.2");
  CHECK(m.kernels == "reference");
  CHECK(m.kernels_source == "SDK docs");
  MemoryMap back = parse_board_json(board_to_json(m));
  CHECK(back.clock_mhz == m.clock_mhz);
  CHECK(back.flash_bytes == m.flash_bytes);
  CHECK(back.kernels == m.kernels);
  CHECK(back.kernels_source == m.kernels_source);
  // All three are optional: an older board file reads as before.
  MemoryMap plain = parse_board_json(board_text(""));
  CHECK(plain.clock_mhz == 0);
  CHECK(plain.flash_bytes == 0);
  CHECK(plain.kernels.empty());
}

TEST_CASE("bad clock, flash or kernel library figures name their JSON place") {
  CHECK(board_error(board_text(R"(,"clock":480)")).find("/clock: expected {\"mhz\"") == 0);
  CHECK(board_error(board_text(R"(,"clock":{"mhz":-1,"source":"x"})")).find("/clock/mhz: expected a clock in MHz") == 0);
  CHECK(board_error(board_text(R"(,"clock":{"mhz":"fast","source":"x"})")).find("/clock/mhz") == 0);
  CHECK(board_error(board_text(R"(,"clock":{"mhz":48})")) == "/clock/source: say which document the figure comes from");
  CHECK(board_error(board_text(R"(,"clock":{"mhz":48,"source":"x","ghz":1})")).find("/clock/ghz: unknown key") == 0);
  CHECK(board_error(board_text(R"(,"flash":{"size":"2XB","source":"x"})")).find("/flash/size") == 0);
  CHECK(board_error(board_text(R"(,"flash":{"size":0,"source":"x"})")) == "/flash/size: size must be positive");
  CHECK(board_error(board_text(R"(,"flash":{"size":"1MiB","source":""})")) == "/flash/source: say which document the figure comes from");
  CHECK(board_error(board_text(R"(,"kernels":{"library":"esp-nn","source":"x"})")) ==
        "/kernels/library: unknown kernel library \"esp-nn\"; expected cmsis-nn or reference");
  CHECK(board_error(board_text(R"(,"kernels":"cmsis-nn")")).find("/kernels: expected {\"library\"") == 0);
}
