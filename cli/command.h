// The arenaplan command line: each cli/cmd_*.cpp registers one subcommand with ARENAPLAN_COMMAND,
// so adding a command never touches main.cpp. Errors in user input are InputError (exit 2).
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/budget/board.h"
#include "core/graph/graph.h"
#include "core/session/session.h"
#include "core/tflite/tflm_arena.h"

namespace arenaplan::cli {

// Parsed arguments of one subcommand: positionals, --flags and --options with values.
class Args {
 public:
  std::vector<std::string> positional;
  bool flag(const std::string& name) const { return flags_.count(name) > 0; }
  std::optional<std::string> option(const std::string& name) const;
  std::vector<std::string> options(const std::string& name) const;  // repeated options, in order
  int64_t int_option(const std::string& name, int64_t fallback, int64_t min, int64_t max) const;
  double double_option(const std::string& name, double fallback, double min, double max) const;
  // --NAME (seconds, in [0, max]) as a limit on the whole command, set-up included: what is left
  // of it now that the input is read and analysed, at least 0. When nothing is left it says so on
  // stderr (the search then returns its first plan at once).
  double time_limit_left(const std::string& name, double fallback, double max) const;
  const std::string& positional_at(size_t i, const char* what) const;

  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();  // when parsed

  std::map<std::string, bool> flags_;
  std::multimap<std::string, std::string> options_;
};

// One line of a command's --help: an option or flag and what it does, its default included.
struct OptionHelp {
  std::string name;  // as in flags / options ("json", "order")
  std::string text;  // "the operator order (default: the file's)"
};

struct Command {
  std::string name;
  std::string usage;                 // one line: "analyze GRAPH [--order A,B,...] [--json]"
  std::vector<std::string> flags;    // options without a value ("json")
  std::vector<std::string> options;  // options with a value ("order")
  int (*run)(const Args&);           // exit status: 0 ok, 1 check failed, 2 bad input
  // `arenaplan CMD --help`: what the command is for, every flag and option (each must have a
  // line: the CLI tests check), and command lines that work as they stand.
  std::string summary;
  std::vector<OptionHelp> help;
  std::vector<std::string> examples;
};

std::vector<Command>& registry();

struct Registrar {
  explicit Registrar(Command c) { registry().push_back(std::move(c)); }
};

#define ARENAPLAN_COMMAND_CONCAT2(a, b) a##b
#define ARENAPLAN_COMMAND_CONCAT(a, b) ARENAPLAN_COMMAND_CONCAT2(a, b)
#define ARENAPLAN_COMMAND(...) \
  static ::arenaplan::cli::Registrar ARENAPLAN_COMMAND_CONCAT(registrar_, __LINE__)(::arenaplan::cli::Command{__VA_ARGS__})

// ---- Inputs (cli/input.cpp): every command reads files and examples through these, so every
// error names its place the same way: "FILE: PLACE INSIDE: what is wrong".

// Reads a whole file; throws InputError naming the path.
std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& data);

// True for "example:NAME" (a built-in example instead of a file).
bool is_example(const std::string& path);
// The built-in example's text for "example:NAME"; throws InputError naming `path` when there is
// no such example.
const std::string& example_text(const std::string& path);

// Re-throws an InputError raised while reading the file at `path` so that it names the file
// first ("graph.json: /ops/3: ..."); an error already about the file itself is kept as is.
[[noreturn]] void rethrow_in_file(const std::string& path, const InputError& e);
// Runs `read` (which parses what is at `path`) with its InputErrors named as above.
template <class Read>
auto in_file(const std::string& path, Read&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const InputError& e) {
    rethrow_in_file(path, e);
  }
}

// Loads a graph from a JSON file or a .tflite model, or a built-in example when `path` is
// "example:NAME".
Graph load_graph(const std::string& path);
// --board takes a library name ("stm32h743"), "example:NAME" (a teaching board) or a file.
MemoryMap load_board(const std::string& path);

// Schedule from --order (comma-separated op names), else the file's order.
std::vector<OpId> order_from_args(const Graph& g, const Args& args);

// ---- The firmware build TFLM's figures are for, the same options on every command that gives
// them: --kernels reference|cmsis-nn, --core NAME (4-byte pointers, arm-none-eabi-gcc's short
// enums and the core's CMSIS-NN code path), --pointer-bytes 4|8 and --enum-bytes 1|4 over them.
// `board_core`: the board's core (budget), used when --core is not given.
TflmTarget tflm_target_from_args(const Args& args, const std::string* board_core = nullptr);
// `options` followed by those four option names / help lines (for ARENAPLAN_COMMAND).
std::vector<std::string> with_tflm_target_options(std::vector<std::string> options);
std::vector<OptionHelp> with_tflm_target_help(std::vector<OptionHelp> help);
inline constexpr const char* kTflmTargetUsage = "[--kernels reference|cmsis-nn] [--core cortex-m4] [--pointer-bytes 4|8]";

// ---- What a command asks of core/session (cli/session_args.cpp) ----
// The import options every command that reads a model accepts (cmd_import.cpp).
TfliteImportOptions tflite_options_from_args(const Args& args, const std::string& path);
// A graph JSON file, example:NAME, or a .tflite model (recognised by its file identifier), as
// core's load_input reads it; errors name the path.
LoadedInput load_session_input(const std::string& path, const TfliteImportOptions& options = {});
// The session's plan policy (export_plan_options), with --planner over it; an explicit
// --time-limit S gives the search S seconds (less what the command has spent) and no node limit.
PlanOptions plan_options_from_args(const Args& args);
// --order A,B,... or --schedule file|optimal (else `fallback`), of `g`.
Schedule schedule_from_args(const Graph& g, const Args& args, const std::string& fallback);
// The TFLM target from the target options, with --board NAME's core when --core is not given.
TflmTarget tflm_target_of_args(const Args& args);
// Everything above as one request for `format` (tflite-reordered: --schedule optimal by default).
ExportRequest export_request_from_args(const LoadedInput& in, const Args& args, ExportFormat format);

}  // namespace arenaplan::cli
