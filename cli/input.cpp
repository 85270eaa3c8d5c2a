// The CLI's inputs: files, built-in examples ("example:NAME") and how their errors are named.
#include <fstream>
#include <sstream>

#include "cli/command.h"
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

}  // namespace arenaplan::cli
