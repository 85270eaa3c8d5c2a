// arenaplan: plans the RAM of neural-network inference on microcontrollers.
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cli/command.h"

namespace arenaplan::cli {

std::vector<Command>& registry() {
  static std::vector<Command> commands;
  return commands;
}

std::optional<std::string> Args::option(const std::string& name) const {
  auto it = options_.find(name);
  if (it == options_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> Args::options(const std::string& name) const {
  std::vector<std::string> out;
  auto [lo, hi] = options_.equal_range(name);
  for (auto it = lo; it != hi; ++it) out.push_back(it->second);
  return out;
}

int64_t Args::int_option(const std::string& name, int64_t fallback, int64_t min, int64_t max) const {
  auto v = option(name);
  if (!v) return fallback;
  try {
    size_t used = 0;
    long long x = std::stoll(*v, &used);
    if (used == v->size() && x >= min && x <= max) return x;
  } catch (const std::exception&) {
  }
  throw InputError("--" + name, "expected an integer in [" + std::to_string(min) + ", " +
                                    std::to_string(max) + "], found \"" + *v + "\"");
}

double Args::double_option(const std::string& name, double fallback, double min, double max) const {
  auto v = option(name);
  if (!v) return fallback;
  try {
    size_t used = 0;
    double x = std::stod(*v, &used);
    if (used == v->size() && x >= min && x <= max) return x;
  } catch (const std::exception&) {
  }
  throw InputError("--" + name, "expected a number in [" + std::to_string(min) + ", " +
                                    std::to_string(max) + "], found \"" + *v + "\"");
}

double Args::time_limit_left(const std::string& name, double fallback, double max) const {
  const double limit = double_option(name, fallback, 0.0, max);
  const double spent = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (spent >= limit && limit > 0) {
    char note[200];
    std::snprintf(note, sizeof note, "reading and analysing the input took %.2f s of the %g s --%s", spent, limit,
                  name.c_str());
    std::cerr << "arenaplan: note: " << note << "; the search gets no time and returns its first plan\n";
  }
  return std::max(0.0, limit - spent);
}

const std::string& Args::positional_at(size_t i, const char* what) const {
  if (i >= positional.size()) throw InputError("arguments", std::string("missing ") + what);
  return positional[i];
}

namespace {

constexpr const char* kInputsAndExits =
    "GRAPH is a graph JSON file, a .tflite model, a Checkmate or MOCCASIN computation graph (networkx\n"
    "node-link JSON) or example:NAME (built-in). Exit status: 0 ok, 1 a check failed, 2 bad input\n"
    "(message on stderr).\n";

void usage(std::ostream& out) {
  out << "usage: arenaplan COMMAND [ARGS]   (arenaplan help COMMAND, or COMMAND --help, for one command)\n\n"
         "commands:\n";
  auto commands = registry();
  std::sort(commands.begin(), commands.end(), [](auto& a, auto& b) { return a.name < b.name; });
  size_t width = 0;
  for (const Command& c : commands) width = std::max(width, c.name.size());
  for (const Command& c : commands) {
    const size_t sentence = c.summary.find(". ");  // the first sentence of its --help
    out << "  " << c.name << std::string(width + 2 - c.name.size(), ' ')
        << (sentence == std::string::npos ? c.summary : c.summary.substr(0, sentence + 1)) << "\n";
  }
  out << "\n" << kInputsAndExits << "arenaplan --version prints the version.\n";
}

// `arenaplan CMD --help`: purpose, usage, every flag and option with its line, examples.
void command_help(const Command& c, std::ostream& out) {
  out << "arenaplan " << c.name << ": " << c.summary << "\n\nusage: arenaplan " << c.usage << "\n\noptions:\n";
  auto line = [&](const std::string& name, bool takes_value) {
    std::string text = "(no description)";
    for (const OptionHelp& h : c.help)
      if (h.name == name) text = h.text;
    const std::string left = "--" + name + (takes_value ? " VALUE" : "");
    out << "  " << left << std::string(left.size() < 26 ? 26 - left.size() : 1, ' ') << text << "\n";
  };
  for (const std::string& o : c.options) line(o, true);
  for (const std::string& f : c.flags) line(f, false);
  out << "  --help, -h                this text\n\nexamples:\n";
  for (const std::string& e : c.examples) out << "  arenaplan " << e << "\n";
  out << "\n" << kInputsAndExits;
}

const Command* find_command(const std::string& name) {
  for (const Command& c : registry())
    if (c.name == name) return &c;
  return nullptr;
}

bool asks_for_help(int argc, char** argv) {
  for (int i = 2; i < argc; ++i)
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") return true;
  return false;
}

Args parse_args(const Command& c, int argc, char** argv) {
  Args a;
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0 || arg == "--") {
      a.positional.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2), value;
    bool has_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name.resize(eq);
      has_value = true;
    }
    if (std::find(c.flags.begin(), c.flags.end(), name) != c.flags.end()) {
      if (has_value) throw InputError("--" + name, "takes no value");
      a.flags_[name] = true;
    } else if (std::find(c.options.begin(), c.options.end(), name) != c.options.end()) {
      if (!has_value) {
        if (i + 1 >= argc) throw InputError("--" + name, "needs a value");
        value = argv[++i];
      }
      a.options_.emplace(name, value);
    } else {
      throw InputError("--" + name, "unknown option for `" + c.name + "`; usage: arenaplan " + c.usage);
    }
  }
  return a;
}

}  // namespace
}  // namespace arenaplan::cli

int main(int argc, char** argv) {
  using namespace arenaplan::cli;
  if (argc >= 3 && std::string(argv[1]) == "help") {
    const Command* c = find_command(argv[2]);
    if (!c) {
      std::cerr << "arenaplan help: error: no command \"" << argv[2] << "\" (arenaplan help lists them)\n";
      return 2;
    }
    command_help(*c, std::cout);
    return 0;
  }
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h" || std::string(argv[1]) == "help") {
    usage(argc < 2 ? std::cerr : std::cout);
    return argc < 2 ? 2 : 0;
  }
  if (std::string(argv[1]) == "--version") {
    std::cout << "arenaplan " << ARENAPLAN_VERSION << "\n";
    return 0;
  }
  for (const Command& c : registry()) {
    if (c.name != argv[1]) continue;
    if (asks_for_help(argc, argv)) {  // wins over everything else: no input needed
      command_help(c, std::cout);
      return 0;
    }
    try {
      return c.run(parse_args(c, argc, argv));
    } catch (const arenaplan::InputError& e) {
      std::cerr << "arenaplan " << c.name << ": error: " << e.what() << "\n";
      return 2;
    } catch (const std::exception& e) {
      std::cerr << "arenaplan " << c.name << ": internal error: " << e.what() << "\n";
      return 3;
    }
  }
  std::cerr << "arenaplan: unknown command \"" << argv[1] << "\"\n";
  usage(std::cerr);
  return 2;
}
