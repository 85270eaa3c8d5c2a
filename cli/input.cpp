// The CLI's inputs: files, built-in examples ("example:NAME") and how their errors are named.
#include <fstream>
#include <sstream>

#include "cli/command.h"

#include <filesystem>

#include "core/budget/board_library.h"
#include "core/graph/examples.h"
#include "core/graph/graph_json.h"
#include "core/graph/lifetime.h"
#include "core/tflite/tflite_import.h"

namespace arenaplan::cli {

namespace {
constexpr const char kExamplePrefix[] = "example:";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "cannot open file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  if (!out || !out.write(data.data(), static_cast<std::streamsize>(data.size())))
    throw InputError(path, "cannot write file");
}

bool is_example(const std::string& path) { return path.rfind(kExamplePrefix, 0) == 0; }

const std::string& example_text(const std::string& path) {
  const std::string* text = find_example(path.substr(sizeof kExamplePrefix - 1));
  if (!text) throw InputError(path, "no built-in example of that name");
  return *text;
}

void rethrow_in_file(const std::string& path, const InputError& e) {
  if (e.where() == path) throw e;  // already about the file itself ("cannot open file")
  const std::string what = e.what();
  if (e.where().empty()) throw InputError(path, what);
  throw InputError(path + ": " + e.where(), what.substr(e.where().size() + 2));
}

MemoryMap load_board(const std::string& path) {
  if (const std::string* text = builtin_board_text(path)) return parse_board_json(*text);
  if (is_example(path)) return parse_board_json(example_text(path));
  const bool looks_like_name = path.find('/') == std::string::npos && path.find('.') == std::string::npos;
  if (looks_like_name && !std::filesystem::exists(path))
    throw InputError("--board", "no library board \"" + path + "\" (see `arenaplan budget --list-boards`) and no such file");
  return in_file(path, [&] { return parse_board_json(read_file(path)); });
}

Graph load_graph(const std::string& path) {
  if (is_example(path)) return parse_graph_json(example_text(path));
  return in_file(path, [&] {
    const std::string bytes = read_file(path);
    // A .tflite model works wherever a graph does: imported with the default options.
    if (looks_like_tflite(bytes)) return import_tflite(bytes).graph;
    return parse_graph_json(bytes);
  });
}

std::vector<OpId> order_from_args(const Graph& g, const Args& args) {
  if (auto o = args.option("order")) return parse_order(g, *o);
  return g.file_order();
}

TflmTarget tflm_target_from_args(const Args& args, const std::string* board_core) {
  const TflmKernels kernels = parse_tflm_kernels(args.option("kernels").value_or("reference"));
  TflmTarget t;
  if (auto core = args.option("core")) t = tflm_target_for_core(*core, kernels);
  else if (board_core) t = tflm_target_for_board_core(*board_core, kernels);
  t.kernels = kernels;
  if (args.option("pointer-bytes")) t.pointer_bytes = static_cast<int>(args.int_option("pointer-bytes", 4, 4, 8));
  if (args.option("enum-bytes")) t.enum_bytes = static_cast<int>(args.int_option("enum-bytes", 4, 1, 4));
  check_tflm_target(t);
  return t;
}

std::vector<std::string> with_tflm_target_options(std::vector<std::string> options) {
  for (const char* o : {"kernels", "core", "pointer-bytes", "enum-bytes"}) options.push_back(o);
  return options;
}

std::vector<OptionHelp> with_tflm_target_help(std::vector<OptionHelp> help) {
  help.push_back({"kernels", "TFLM's kernels: reference (default) or cmsis-nn (OPTIMIZED_KERNEL_DIR=cmsis_nn)"});
  help.push_back({"core", "the Cortex-M core, as -mcpu names it (cortex-m0plus, cortex-m4, cortex-m55, ...; x86-64 "
                          "for a host): 32-bit pointers, arm-none-eabi-gcc's 1-byte enums and CMSIS-NN's plain C, "
                          "DSP or MVE code path (default: the board's core for budget, else none: a 32-bit "
                          "target with 4-byte enums, DSP)"});
  help.push_back({"pointer-bytes", "TFLM's pointer size, over --core: 4 (32-bit MCU, default) or 8 (64-bit host)"});
  help.push_back({"enum-bytes", "sizeof of an enum, over --core: 1 (arm-none-eabi-gcc) or 4 (default without --core)"});
  return help;
}

}  // namespace arenaplan::cli
