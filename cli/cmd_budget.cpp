// arenaplan budget: does the whole firmware fit the board (arena per region + reservations)?
#include <filesystem>
#include <iostream>

#include "cli/command.h"
#include "core/budget/board.h"
#include "core/budget/board_library.h"
#include "core/budget/budget.h"
#include "core/budget/budget_report.h"
#include "core/budget/flash.h"
#include "core/graph/lifetime.h"
#include "core/tflite/tflm_arena.h"

namespace arenaplan::cli {
namespace {

int run_budget(const Args& args) {
  if (args.flag("list-boards")) {
    if (args.flag("json")) std::cout << board_library_json().dump(2) << "\n";
    else std::cout << board_library_text();
    return 0;
  }
  const std::string& path = args.positional_at(0, "GRAPH");
  const LoadedInput in = load_session_input(path);
  const Graph& g = in.graph;
  auto board_path = args.option("board");
  if (!board_path) throw InputError("--board", "missing: give a library board (--board stm32h743; --list-boards lists them), a board JSON file or example:NAME");
  MemoryMap board = load_board(*board_path);
  BudgetOptions options;
  options.plan = plan_options_from_args(args);
  const Schedule order = order_from_args(g, args);
  // A .tflite run by TFLM: the persistent part comes from the model, not from the board's
  // hand-typed reservation (everything TFLM needs beyond the planned head: tail + temporaries).
  std::optional<TflmArenaComparison> tflm;
  std::vector<std::string> replaced;
  // And its flash: the model's bytes + TFLM's runtime + the kernels it registers, against the board's.
  std::optional<FlashEstimate> flash;
  FlashCheck flash_check;
  const FlashOpt opt = parse_flash_opt(args.option("opt").value_or("Os"));
  if (in.model) {
    ExportRequest request;
    request.format = ExportFormat::kCHeader;  // the figure a C header of this budget's plan carries
    request.order = order;
    request.plan = options.plan;
    request.tflm_target = tflm_target_from_args(args, &board.core);
    tflm = in_file(path, [&] { return tflm_comparison_of(in, request); });
    const TflmArena& a = tflm->offline;
    replaced = use_model_persistent(board, tflm_persistent_bytes(a), kTflmPersistentOwner);
    const TflmTarget& target = request.tflm_target;
    flash = flash_estimate_kinds(tflm_kernel_kinds(in.file), static_cast<Bytes>(in.file.size()),
                                 {target.kernels, opt, target.core.empty() ? board.core : target.core});
    flash_check = check_flash(*flash, board.flash_bytes);
  }
  if (auto s = args.option("scratch")) {
    if (*s == "in_arena" || *s == "arena") options.scratch = ScratchPolicy::kInArena;
    else if (*s == "separate") options.scratch = ScratchPolicy::kSeparate;
    else throw InputError("--scratch", "expected \"in_arena\" or \"separate\", found \"" + *s + "\"");
  }
  LiveAnalysis live = analyze_lifetimes(g, order);
  // --time-limit covers the whole command: what reading, analysing and TFLM's figures took comes
  // off the search.
  options.plan.time_limit_seconds = args.time_limit_left("time-limit", export_plan_options().time_limit_seconds, 3600);
  Budget b = plan_budget(g, live, board, options);
  if (args.flag("json")) {
    JsonOut j = budget_json(g, live, board, b);
    if (tflm) {
      j["tflm_arena"] = tflm_comparison_json(*tflm);
      j["tflm_arena"]["replaced_reservations"] = replaced;
    }
    if (flash) j["flash"] = flash_json(*flash, flash_check);
    std::cout << j.dump(2) << "\n";
  } else {
    if (tflm) {
      std::cout << "TFLM arena: " << tflm_comparison_sentence(*tflm) << " (" << tflm_target_text(tflm->tflm.target)
                << ")\n";
      std::cout << "persistent part from the model: " << tflm->offline.min_arena_bytes - tflm->offline.head_bytes
                << " B (tail " << tflm->offline.tail_bytes << " B + AllocateTensors temporaries)";
      if (!replaced.empty()) {
        std::cout << ", instead of the board's";
        for (const std::string& r : replaced) std::cout << " \"" << r << "\"";
      }
      std::cout << "\n";
    }
    if (flash) std::cout << flash_text(*flash, flash_check);
    std::cout << budget_text(g, live, board, b);
  }
  return b.fits && flash_check.fits ? 0 : 1;
}

}  // namespace

ARENAPLAN_COMMAND("budget",
                  "budget GRAPH --board NAME|BOARD.json [--order A,B,...] [--planner NAME] [--scratch in_arena|separate] "
                  "[--time-limit S] " + std::string(kTflmTargetUsage) + " [--opt Os|O2] [--json]   |   budget --list-boards [--json]",
                  {"json", "list-boards"}, with_tflm_target_options({"board", "order", "planner", "scratch", "time-limit", "opt"}),
                  run_budget,
                  "Does the plan fit the board? The arena, scratch, stacks, DMA buffers and persistent state placed in the board's memory regions.",
                  with_tflm_target_help({{"board", "a library board by name (see --list-boards) or a board JSON file (required)"},
                   {"order", "the operator order (default: the file's order)"},
                   {"planner", "the arena planner (default: export's policy: best within a fixed node limit)"},
                   {"scratch", "where per-op scratch goes: in_arena (default) or separate"},
                   {"time-limit", "seconds for the whole command, planning included (default: 5)"},
                   {"opt", "for a .tflite, the flash line's optimisation level: Os (default) or O2 (TFLM's speed build: kernels -O2, runtime -Os)"},
                   {"json", "machine-readable output"},
                   {"list-boards", "list the library boards and exit"}}),
                  {"budget example:two_branch --board examples/two_branch_board.json", "budget --list-boards",
                   "budget tests/unit/data/tflm/int8_inception.tflite --board stm32h743 --kernels cmsis-nn --core cortex-m7"});

}  // namespace arenaplan::cli
