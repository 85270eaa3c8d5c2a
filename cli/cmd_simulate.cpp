// arenaplan simulate: run a graph inside its planned arena on a simulated MCU, count cycles and
// check with the oracles that the plan is safe. Faults can be injected to watch the oracles work.
// --input-file NAME=PATH feeds a graph input's raw bytes; --output-dir DIR writes each graph
// output's raw bytes (run 0, session 0) to DIR/<tensor name>.bin, and with --runs N those of
// run k (k = 2..N, session 0) to DIR/run<k>/<tensor name>.bin, except outputs that are not
// computed (downstream of an NPU op). An NPU op is refused by name, like a stand-in it does not
// fail the run: exit 0 when the oracles hold, the report saying what is not computed.
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <limits>

#include "cli/command.h"
#include "core/graph/graph_json.h"
#include "core/sim/sim.h"

namespace arenaplan::cli {
namespace {

// File name of an output tensor: its name with characters a path cannot hold replaced.
std::string output_file_name(const std::string& tensor) {
  std::string f;
  for (char ch : tensor) f += std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.' ? ch : '_';
  return (f.empty() || f[0] == '.' ? "_" + f : f) + ".bin";
}

// One run's outputs (Graph::outputs order) into dir.
void write_run_outputs(const Graph& g, const sim::SimReport& r, const std::vector<std::vector<uint8_t>>& outputs,
                       const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw InputError("--output-dir " + dir, "cannot create the folder: " + ec.message());
  for (size_t i = 0; i < g.outputs.size() && i < outputs.size(); ++i) {
    if (i < r.output_computed.size() && !r.output_computed[i]) {  // placeholder bytes are never written as the model's
      std::cerr << "not written: output " << g.tensors[g.outputs[i]].name << " is not computed (an NPU op is not simulated)\n";
      continue;
    }
    const std::string path = (std::filesystem::path(dir) / output_file_name(g.tensors[g.outputs[i]].name)).string();
    write_file(path, std::string(outputs[i].begin(), outputs[i].end()));
    std::cerr << "wrote " << path << " (" << outputs[i].size() << " bytes, output " << g.tensors[g.outputs[i]].name
              << ")\n";
  }
}

// Run 1 into DIR itself (as before --runs wrote more), run k >= 2 into DIR/run<k>.
void write_outputs(const Graph& g, const sim::SimReport& r, const std::string& dir) {
  write_run_outputs(g, r, r.outputs, dir);
  for (size_t k = 0; k < r.later_outputs.size(); ++k)
    write_run_outputs(g, r, r.later_outputs[k], (std::filesystem::path(dir) / ("run" + std::to_string(k + 2))).string());
}

int run_simulate(const Args& args) {
  Graph g = load_graph(args.positional_at(0, "GRAPH"));
  sim::SimRequest req;
  req.order = order_from_args(g, args);
  req.plan = plan_options_from_args(args);
  req.profile = args.option("profile").value_or("cortex-m4");
  if (auto clock = args.option("clock-mhz")) req.clock_mhz = args.double_option("clock-mhz", 0, 0.001, 100000);
  if (auto board = args.option("board")) {
    if (args.option("profile")) throw InputError("--profile", "give --board or --profile, not both (the board names its core)");
    req.board_profile = sim::profile_for_board(load_board(*board), req.clock_mhz);
  }
  req.runs = static_cast<int>(args.int_option("runs", 1, 1, 100000));
  req.sessions = static_cast<int>(args.int_option("sessions", 1, 1, 16));
  req.shared_arena = args.flag("shared-arena");
  req.seed = static_cast<uint64_t>(args.int_option("seed", 1, 0, INT64_MAX));
  req.inject = args.options("inject");
  if (auto limit = args.option("memory-limit")) req.memory_limit_bytes = parse_byte_size(*limit, "--memory-limit");
  for (const std::string& spec : args.options("input-file")) {
    const size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
      throw InputError("--input-file " + spec, "expected NAME=PATH (a graph input's name and a file of its raw bytes)");
    const std::string bytes = read_file(spec.substr(eq + 1));
    req.input_bytes[spec.substr(0, eq)] = std::vector<uint8_t>(bytes.begin(), bytes.end());
  }
  // --output-dir needs the outputs' bytes, however many: the simulator then keeps them all.
  if (args.option("output-dir")) req.max_capture_bytes = std::numeric_limits<Bytes>::max();
  sim::SimReport r = sim::simulate(g, req);
  if (args.flag("json")) std::cout << sim::simulation_json(g, r).dump(2) << "\n";
  else std::cout << sim::simulation_text(g, r);
  if (auto dir = args.option("output-dir")) write_outputs(g, r, *dir);
  if (!r.ok()) {
    std::cerr << "arenaplan simulate: oracle " << r.violations.front().oracle
              << " failed: " << r.violations.front().message << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

ARENAPLAN_COMMAND("simulate",
                  "simulate GRAPH [--order A,B,...] [--planner NAME] [--board NAME|BOARD.json | --profile NAME] [--clock-mhz F] "
                  "[--runs N] [--sessions N [--shared-arena]] [--seed N] [--inject shift:TENSOR[:BYTES]|stray:OP:OFFSET|ignore-async]... "
                  "[--input-file NAME=PATH]... [--output-dir DIR] [--memory-limit SIZE] [--json]",
                  {"json", "shared-arena"},
                  {"order", "planner", "profile", "board", "clock-mhz", "runs", "sessions", "seed", "inject", "input-file", "output-dir",
                   "memory-limit"},
                  run_simulate,
                  "Runs the graph in its planned arena on a simulated MCU: cycle-counted kernels and oracles that prove no byte outside an op's outputs changed.",
                  {{"order", "the operator order (default: the file's order)"},
                   {"planner", "the arena planner (default: export's policy: best within a fixed node limit)"},
                   {"profile", "the cycle profile: a core, optionally /reference for TFLM's reference kernels (cortex-m0plus, cortex-m3, cortex-m4, cortex-m7, cortex-m33, cortex-m55, cortex-m85, riscv32; default: cortex-m4)"},
                   {"board", "take the core, kernel library and clock from a library board (see budget --list-boards) or a board JSON file (default: none, --profile)"},
                   {"clock-mhz", "the CPU clock in MHz (default: the board's, else the profile's)"},
                   {"runs", "invokes, state carried over (default: 1)"},
                   {"sessions", "models sharing the run (default: 1)"},
                   {"seed", "seed of generated inputs and weights (default: 1)"},
                   {"inject", "a fault to watch the oracles catch: shift:TENSOR[:BYTES], stray:OP:OFFSET, ignore-async (repeatable)"},
                   {"input-file", "NAME=PATH: a graph input's raw bytes (repeatable)"},
                   {"output-dir", "write each graph output's raw bytes to DIR/<tensor>.bin (run k >= 2 of --runs: DIR/run<k>/)"},
                   {"memory-limit", "the most memory the simulation may hold, arenas and constants (default: 1GiB)"},
                   {"json", "machine-readable output"},
                   {"shared-arena", "--sessions: one arena for all sessions"}},
                  {"simulate example:two_branch", "simulate tests/unit/data/tflm/svdf_int8.tflite --runs 3",
                   "simulate example:tiny_cnn --board stm32h743", "simulate example:tiny_cnn --profile cortex-m33 --clock-mhz 64"});

}  // namespace arenaplan::cli
