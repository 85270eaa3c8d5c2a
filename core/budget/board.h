// A board's memory map (the arenaplan-board JSON format): RAM regions with their attributes,
// fixed reservations that are not the tensor arena (stack, RTOS services, acquisition buffers,
// persistent model state, heap), and placement constraints that say which tensors must live in
// which kind of RAM. Budgeting over it lives in budget.h; this header is plain data plus parsing.
//
//   { "format": "arenaplan-board", "version": 1, "name": "...",
//     "title": "STM32H743 (NUCLEO-H743ZI2)", "core": "cortex-m7", "doc": "what the board is",
//     "source": "RM0433 2.3.2",
//     "regions": [{"name": "SRAM", "base": "0x20000000", "size": "256KiB", "attributes": ["dma"],
//                  "source": "where the figures come from"}],
//     "arena_regions": ["SRAM"],
//     "reservations": [{"owner": "main stack", "kind": "stack", "region": "SRAM", "bytes": "16KiB",
//                       "assumption": true}],
//     "constraints": [{"tensor": "F", "requires": ["dma"], "why": "sent over SPI by DMA"}],
//     "clock": {"mhz": 480, "source": "DS12110 3.1"},
//     "flash": {"size": "2MiB", "source": "DS12110 3.3"},
//     "kernels": {"library": "cmsis-nn", "source": "what the usual SDK builds TFLM with"} }
// "title", "core", "doc", "source" and "assumption" are optional and only informative: the library boards
// (examples/boards/, see board_library.h) cite their datasheet and mark guessed reservations.
// "clock", "flash" and "kernels" are optional; the simulator takes its clock and cycle profile from
// them (sim::profile_for_board), the budget shows them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/graph.h"

namespace arenaplan {

using RegionId = int32_t;  // index into MemoryMap::regions

// Capabilities a region may have; constraints ask for them by name.
enum class RegionAttribute { kDma, kAccelerator, kFast };
const char* attribute_name(RegionAttribute a);
std::optional<RegionAttribute> attribute_from_name(const std::string& name);

struct Region {
  std::string name;
  uint64_t base = 0;  // first address, for the absolute addresses of the report
  Bytes size = 0;     // usable bytes
  std::vector<RegionAttribute> attributes;
  std::string source;  // datasheet / reference-manual citation of base and size ("" if none given)
  bool has(RegionAttribute a) const;
};

// What a reservation is for; the budget panel colours by kind.
enum class ReservationKind { kStack, kServices, kAcquisition, kPersistent, kHeap, kConversion, kOther };
const char* reservation_kind_name(ReservationKind k);
std::optional<ReservationKind> reservation_kind_from_name(const std::string& name);

// When a reservation occupies memory. Initialisation (conversion/repacking space) and inference
// never run at the same time, so their phase-only reservations may share addresses.
enum class Phase { kAlways, kInit, kInference };
const char* phase_name(Phase p);
std::optional<Phase> phase_from_name(const std::string& name);

// Memory that belongs to someone other than the tensor arena.
struct Reservation {
  std::string owner;  // "main stack", "camera frame 0", ...
  ReservationKind kind = ReservationKind::kOther;
  RegionId region = 0;
  Bytes bytes = 0;
  Phase phase = Phase::kAlways;
  // Only for init-phase temporaries: TFLM-style init scratch taken from the (still unused) arena,
  // so it costs only what exceeds the arena in its region.
  bool in_arena = false;
  // A default guessed by the board file's author (stack, runtime), not a figure from a datasheet:
  // the user is expected to edit it to match the firmware.
  bool assumption = false;
};

// Which arena buffers a constraint applies to (exactly one selector is set).
struct ConstraintSelector {
  std::string tensor;        // a tensor by name
  std::string op_kind;       // operands (inputs, outputs and scratch) of every op of this kind
  bool async_read = false;   // every tensor some op reads asynchronously (DMA, delegate)
};

// "These buffers must live in a region with all of `requires`" and/or "in region `region`".
struct PlacementConstraint {
  ConstraintSelector select;
  std::vector<RegionAttribute> requires_attributes;
  std::optional<RegionId> region;
  std::string why;    // free text shown in reasons ("read by the SPI DMA")
  std::string where;  // JSON pointer of the constraint ("/constraints/0"), for reasons
  std::string describe(const std::vector<Region>& regions) const;  // "tensor F requires dma"
};

struct MemoryMap {
  std::string name;
  std::string title;        // human name ("STM32H743 (NUCLEO-H743ZI2)"); "" -> use name
  // The CPU as -mcpu names it ("cortex-m7", "xtensa-lx7"), "" if not given: TFLM's figures for
  // the board follow its toolchain and, with CMSIS-NN, its code path (tflm_target_for_core).
  std::string core;
  std::string description;  // the file's "doc"
  std::string source;       // citation of the documents the regions come from
  std::vector<Region> regions;
  // Regions unconstrained arena buffers may use, most preferred first (default: the first region).
  std::vector<RegionId> arena_regions;
  std::vector<Reservation> reservations;
  std::vector<PlacementConstraint> constraints;

  // A figure of the part with the document it comes from (0 / "" when the file gives none).
  double clock_mhz = 0;      // the CPU clock the board runs TFLM at (usually its maximum)
  std::string clock_source;
  Bytes flash_bytes = 0;     // on-chip (or on-module) flash holding code and weights
  std::string flash_source;
  std::string kernels;       // the kernel library its usual SDK builds TFLM with: "cmsis-nn", "reference"
  std::string kernels_source;

  std::optional<RegionId> find_region(const std::string& name) const;
};

// Parses the arenaplan-board format; every error is an InputError naming a JSON pointer
// ("/reservations/2/bytes") or "line L, column C" for syntax errors.
MemoryMap parse_board_json(std::string_view text);

// Writes a memory map back in the same format (parse_board_json(board_to_json(m)) reproduces m).
std::string board_to_json(const MemoryMap& m);

// The persistent part of the runtime measured from the model instead of typed by hand (TFLM: its
// tail plus what AllocateTensors needs beyond the plan, from tflm_arena): every `persistent`
// reservation is replaced by one always-reserved entry of `bytes`, owned by `owner`, in the region
// of the first one replaced (else the first arena region). Returns the owners it replaced.
std::vector<std::string> use_model_persistent(MemoryMap& board, Bytes bytes, const std::string& owner);
// The owner name of that entry when the model is run by TFLM (CLI `budget` and the Budget tab).
inline constexpr const char* kTflmPersistentOwner = "TFLM persistent tail + AllocateTensors temporaries (from the model)";

// Checks that every reference and size is sane; parse_board_json calls it, editors (the budget
// panel) call it after each edit. Throws InputError naming the reservation or region.
void validate_board(const MemoryMap& m);

}  // namespace arenaplan
