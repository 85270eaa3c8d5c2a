// Scale benchmark: wall time, CPU time and peak memory of every CLI command
// against the graph size, on the two shapes a user with a big exported graph has: a residual-style
// chain (one input, one output) and a chain with thousands of graph outputs. Each command runs as
// its own `arenaplan` process (stdout drained through a pipe and counted), so the figures are what a
// user sees, set-up included; the peak memory is the child's maxrss, and "out MiB" what it printed
// (a view whose size is the sum of the live sets is quadratic even when its memory is not). Each row shows its growth against the previous
// size: about 10x per 10x ops is linear, about 100x is quadratic. The last column checks the goal
// at every size: under 1 GiB of memory and of output, and under 10 s, or within 1.1 S for a command given --time-limit S.
// On a loaded machine wall time runs ahead of CPU time: both are printed, with the load average,
// and a row that misses only on wall time is counted apart.
//
//   bench_scale_bench [--bin build/native/arenaplan] [--sizes 1000,10000,100000] [--outputs 2000]
//                     [--shapes residual,many,bars] [--commands analyze,layout-best,...] [--timeout S]
//                     [--mem-limit-mib M] [--write-graphs DIR] [--goals-ops N] [--goals-only yes]
// Commands (default: all): analyze, analyze-json, analyze-explain, analyze-explain-json,
// schedule, schedule-json, layout-PLANNER for every registered planner, layout-explain, verify,
// simulate, simulate-json, budget, budget-json, export-FORMAT (c-header, minimalloc-csv, trace,
// json), transform-apply (one in-place rewrite, with its what-if report), check-shape (on a shaped
// residual chain of the same size: the two shapes carry no tensor shapes). Not here: import,
// tflm-arena and the tflite-* exports read .tflite models only.
// A child is killed after --timeout seconds (default 60) and limited to --mem-limit-mib of address
// space (default 4096), so an unfixed quadratic path cannot take the shared machine down.
// --write-graphs DIR only writes the graphs there, to run one command by hand.
// Shapes: residual and many (above), and bars (recent_reads_graph: each op reads among the last 8
// tensors, every unread one is an output: 20,562 outputs and 852 MB live at 100,000 ops).
// Then the goals of the bars graph at --goals-ops N ops (default 100,000; 0: skip; --goals-only yes:
// nothing else): time to the first verified plan, each --time-limit asked (0, 1, 5 s) against the
// wall time measured, the plan's arena against the live-bytes bound, simulate's wall time and peak
// memory against its arena, each with its goal and PASS or MISS.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_util.h"
#include "core/graph/graph_json.h"
#include "core/graph/report.h"
#include "core/layout/planner.h"
#include "core/schedule/schedule_generators.h"

using namespace arenaplan;

namespace {

using bench::now;

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

// One command path measured: its arguments, with GRAPH, SHAPED and PLAN standing for the files.
struct CommandPath {
  std::vector<std::string> args;
  double time_limit = 0;  // the --time-limit it passes (0: none)
};

// The command paths measured, by name; layout once per registered planner.
const std::map<std::string, CommandPath>& command_table() {
  static const std::map<std::string, CommandPath> table = [] {
    std::map<std::string, CommandPath> t = {
        {"analyze", {{"analyze", "GRAPH"}}},
        {"analyze-json", {{"analyze", "GRAPH", "--json"}}},
        {"analyze-explain", {{"analyze", "GRAPH", "--explain"}}},
        {"analyze-explain-json", {{"analyze", "GRAPH", "--explain", "--json"}}},
        {"layout-explain", {{"layout", "GRAPH", "--planner", "portfolio", "--explain"}}},
        {"transform-apply", {{"transform", "GRAPH", "--apply", "REWRITE", "--report"}}},
        {"schedule", {{"schedule", "GRAPH", "--time-limit", "10"}, 10}},
        {"schedule-json", {{"schedule", "GRAPH", "--time-limit", "10", "--json"}, 10}},
        {"verify", {{"verify", "GRAPH", "PLAN"}}},
        {"simulate", {{"simulate", "GRAPH"}}},
        {"simulate-json", {{"simulate", "GRAPH", "--json"}}},
        {"budget", {{"budget", "GRAPH", "--board", "esp32s3_psram8", "--time-limit", "5"}, 5}},
        {"budget-json", {{"budget", "GRAPH", "--board", "esp32s3_psram8", "--time-limit", "5", "--json"}, 5}},
        {"check-shape", {{"check-shape", "SHAPED", "--input", "x=2x16x16x8", "--range", "N=1..8"}}},
    };
    for (const char* format : {"c-header", "minimalloc-csv", "trace", "json"})
      t[std::string("export-") + format] = {{"export", "GRAPH", "--format", format, "--time-limit", "5"}, 5};
    for (const Planner& p : planners())
      t["layout-" + p.name] = {{"layout", "GRAPH", "--planner", p.name, "--time-limit", "5"}, p.start_search ? 5.0 : 0.0};
    return t;
  }();
  return table;
}

// A residual chain with tensor shapes (x: [N, 16, 16, 8]; conv2d and add keep the shape), so that
// check-shape has something to propagate: the benchmark's two shapes carry only byte sizes.
std::string shaped_chain_json(int ops) {
  std::string tensors = "\"x\":{\"shape\":[\"N\",16,16,8],\"dtype\":\"int8\"}", list;
  std::string previous = "x", before = "x";
  for (int i = 0; i < ops; ++i) {
    const std::string out = "t" + std::to_string(i);
    tensors += ",\"" + out + "\":{\"shape\":[\"N\",16,16,8],\"dtype\":\"int8\"}";
    list += std::string(i ? "," : "") + "{\"name\":\"op" + std::to_string(i) + "\",";
    if (i % 2 == 0)
      list += "\"kind\":\"conv2d\",\"inputs\":[\"" + previous +
              "\"],\"attrs\":{\"kernel\":3,\"stride\":1,\"padding\":1,\"filters\":8},";
    else
      list += "\"kind\":\"add\",\"inputs\":[\"" + previous + "\",\"" + before + "\"],";
    list += "\"outputs\":[\"" + out + "\"]}";
    before = previous;
    previous = out;
  }
  return "{\"format\":\"arenaplan-graph\",\"version\":1,\"name\":\"shaped-chain\",\"alignment\":16,"
         "\"dims\":{\"N\":{\"min\":1,\"max\":8}},\"tensors\":{" +
         tensors + "},\"ops\":[" + list + "],\"inputs\":[\"x\"],\"outputs\":[\"" + previous + "\"]}";
}

// The machine's load average: wall figures are comparable only under similar load.
void print_load(const char* when) {
  double load[3] = {0, 0, 0};
  if (getloadavg(load, 3) == 3) std::printf("%s: %.1f %.1f %.1f on %ld cores\n", when, load[0], load[1], load[2], sysconf(_SC_NPROCESSORS_ONLN));
}

struct Run {
  double seconds = 0;
  double cpu_seconds = 0;
  double peak_mib = 0;
  double out_mib = 0;  // what the command wrote to stdout: a view quadratic in the graph is too
  std::string status = "ok";
};

// Runs one command. Its stdout goes to `stdout_path` when given, else into a pipe the bench
// drains and counts (the bytes a user's terminal or file would receive).
Run run_child(const std::string& bin, const std::vector<std::string>& rest, const std::map<std::string, std::string>& files,
              double timeout, long mem_limit_mib, const std::string& stdout_path = "") {
  std::vector<std::string> args = {bin};
  for (const std::string& a : rest) args.push_back(files.count(a) ? files.at(a) : a);
  int pipe_fds[2] = {-1, -1};
  if (stdout_path.empty() && pipe(pipe_fds) != 0) std::perror("pipe");
  const double t0 = now();
  const pid_t pid = fork();
  if (pid == 0) {
    const int out = stdout_path.empty() ? pipe_fds[1] : open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int devnull = open("/dev/null", O_WRONLY);
    if (pipe_fds[0] >= 0) close(pipe_fds[0]);
    dup2(out, 1);
    dup2(devnull, 2);
    rlimit limit{};
    limit.rlim_cur = limit.rlim_max = static_cast<rlim_t>(mem_limit_mib) << 20;
    setrlimit(RLIMIT_AS, &limit);
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  Run r;
  int status = 0;
  rusage usage{};
  long long out_bytes = 0;
  if (pipe_fds[1] >= 0) {
    close(pipe_fds[1]);
    fcntl(pipe_fds[0], F_SETFL, O_NONBLOCK);
  }
  auto drain = [&] {
    static char chunk[1 << 16];
    if (pipe_fds[0] < 0) return false;
    bool any = false;
    for (ssize_t n; (n = read(pipe_fds[0], chunk, sizeof chunk)) > 0; any = true) out_bytes += n;
    return any;
  };
  while (true) {
    const bool read_some = drain();
    const pid_t done = wait4(pid, &status, WNOHANG, &usage);
    if (done == pid) break;
    if (now() - t0 > timeout) {
      kill(pid, SIGKILL);
      wait4(pid, &status, 0, &usage);
      r.status = "timeout";
      break;
    }
    if (!read_some) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  drain();
  if (pipe_fds[0] >= 0) close(pipe_fds[0]);
  r.out_mib = static_cast<double>(out_bytes) / (1 << 20);
  r.seconds = now() - t0;
  r.peak_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;
  r.cpu_seconds = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                  static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  if (r.status == "ok") {
    if (WIFSIGNALED(status)) r.status = "signal " + std::to_string(WTERMSIG(status));
    else if (WEXITSTATUS(status) != 0) r.status = "exit " + std::to_string(WEXITSTATUS(status));
  }
  return r;
}

// One legal in-place rewrite of a graph for transform-apply: an add overwriting an input it reads
// last, at least as big as its output ("inplace:OP=TENSOR").
std::string one_in_place_rewrite(const Graph& g) {
  for (size_t o = 0; o < g.ops.size(); ++o) {
    const Op& op = g.ops[o];
    if (op.kind != "add" || op.outputs.size() != 1) continue;
    for (TensorId x : op.inputs) {
      const Tensor& t = g.tensors[x];
      if (!g.is_output(x) && !g.is_input(x) && t.consumers.back() == static_cast<OpId>(o) &&
          t.bytes >= g.tensors[op.outputs[0]].bytes)
        return "inplace:" + op.name + "=" + t.name;
    }
  }
  return "inplace:add0";
}

// The integer after "KEY": in a command's JSON output, or -1.
long long json_integer(const std::string& text, const std::string& key) {
  const size_t at = text.find("\"" + key + "\":");
  if (at == std::string::npos) return -1;
  return std::atoll(text.c_str() + at + key.size() + 3);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const char* verdict(bool pass) { return pass ? "PASS" : "MISS"; }

// The figures the 100,000-op "bars" graph is held to: the first verified plan of `layout --planner
// best` (asked with --time-limit 0) under 2 s; each --time-limit S held within 1.1 S + 0.5 s, the
// whole command (reading, search, verification, output) counted; the plan's arena against the
// live-bytes lower bound; simulate under 10 s in at most twice the arena + 256 MiB.
int report_goals(const std::string& bin, int ops, double timeout, long mem_limit_mib, const std::string& dir) {
  const std::string graph = dir + "/bars-goals-" + std::to_string(ops) + ".json", out = graph + ".out";
  if (const pid_t gen = fork(); gen == 0) {
    std::ofstream(graph) << graph_to_json(recent_reads_graph(ops, 1));
    _exit(0);
  } else {
    waitpid(gen, nullptr, 0);
  }
  const std::map<std::string, std::string> files = {{"GRAPH", graph}};
  std::printf("\n\"bars\" graph (recent_reads_graph(%d, 1)): goals\n", ops);
  print_load("load before");
  int misses = 0;
  long long arena = -1;
  std::printf("%-44s %9s %9s %9s  %-26s %s\n", "figure", "wall s", "cpu s", "peak MiB", "goal", "verdict");
  for (const double limit : {0.0, 1.0, 5.0}) {
    char limit_text[16];
    std::snprintf(limit_text, sizeof limit_text, "%g", limit);
    const Run r = run_child(bin, {"layout", "GRAPH", "--planner", "best", "--time-limit", limit_text, "--json"}, files,
                            timeout, mem_limit_mib, out);
    const std::string json = read_text(out);
    const double goal = limit == 0 ? 2.0 : 1.1 * limit + 0.5;
    const bool pass = r.status == "ok" && r.seconds <= goal && json.find("\"verified\": true") != std::string::npos;
    misses += !pass;
    char figure[64], goal_text[40];
    std::snprintf(figure, sizeof figure, limit == 0 ? "layout best --time-limit 0 (first plan)" : "layout best --time-limit %g", limit);
    std::snprintf(goal_text, sizeof goal_text, limit == 0 ? "< %.1f s, verified" : "<= %.2f s, verified", goal);
    std::printf("%-44s %9.2f %9.2f %9.1f  %-26s %s%s\n", figure, r.seconds, r.cpu_seconds, r.peak_mib, goal_text,
                verdict(pass), r.status == "ok" ? "" : (" (" + r.status + ")").c_str());
    const long long plan_arena = json_integer(json, "arena_bytes"), bound = json_integer(json, "lower_bound_bytes");
    if (plan_arena > 0 && bound > 0)
      std::printf("%-44s %s B arena, bound %s B (+%.2f %%)\n", "  its plan", with_commas(plan_arena).c_str(),
                  with_commas(bound).c_str(), 100.0 * double(plan_arena - bound) / double(bound));
    if (limit == 0) arena = plan_arena;
  }
  {
    const Run r = run_child(bin, {"simulate", "GRAPH", "--json"}, files, timeout, mem_limit_mib, out);
    const std::string json = read_text(out);
    const long long sim_arena = json_integer(json, "arena_bytes");
    const double arena_mib = double(sim_arena > 0 ? sim_arena : arena) / (1 << 20);
    const double memory_goal = 2 * arena_mib + 256;
    const bool ok = r.status == "ok" && json.find("\"outputs_match_reference\": true") != std::string::npos;
    const bool time_pass = ok && r.seconds < 10, memory_pass = ok && r.peak_mib <= memory_goal;
    misses += !time_pass + !memory_pass;
    char goal_text[48];
    std::snprintf(goal_text, sizeof goal_text, "< 10 s; <= %.0f MiB", memory_goal);
    std::printf("%-44s %9.2f %9.2f %9.1f  %-26s %s (time) %s (memory)%s\n", "simulate", r.seconds, r.cpu_seconds,
                r.peak_mib, goal_text, verdict(time_pass), verdict(memory_pass),
                r.status == "ok" ? "" : (" (" + r.status + ")").c_str());
    std::printf("%-44s %.1f MiB arena: peak memory %.2fx the arena\n", "  its arena", arena_mib,
                arena_mib > 0 ? r.peak_mib / arena_mib : 0.0);
  }
  print_load("load after");
  std::printf("%d goal(s) missed\n", misses);
  std::remove(graph.c_str());
  std::remove(out.c_str());
  return misses;
}

}  // namespace

int main(int argc, char** argv) {
  std::string bin;
  {
    std::string self = argv[0];
    const size_t slash = self.rfind('/');
    bin = (slash == std::string::npos ? std::string(".") : self.substr(0, slash)) + "/arenaplan";
  }
  std::vector<int> sizes = {1000, 10000, 100000};
  std::vector<std::string> shapes = {"residual", "many", "bars"};
  std::vector<std::string> commands;
  for (const auto& [name, path] : command_table()) commands.push_back(name);
  int outputs = 2000;
  double timeout = 60;
  long mem_limit_mib = 4096;
  std::string write_dir;  // --write-graphs DIR: only write the graphs there (to run one command by hand)
  int goals_ops = 100000;  // --goals-ops N: the "bars" goal figures at N ops (0: none)
  bool goals_only = false;  // --goals-only yes: only those
  for (int i = 1; i < argc; i += 2) {
    const std::string key = argv[i], value = i + 1 < argc ? argv[i + 1] : "";
    if (key == "--help" || value.empty()) {
      std::fprintf(stderr, "usage: bench_scale_bench [--bin PATH] [--sizes 1000,10000,100000] [--outputs N] "
                           "[--shapes residual,many,bars] [--commands analyze,...] [--timeout S] [--mem-limit-mib M] "
                           "[--write-graphs DIR] [--goals-ops N] [--goals-only yes]\n");
      return 2;
    }
    if (key == "--bin") bin = value;
    else if (key == "--sizes") {
      sizes.clear();
      for (const std::string& s : split(value)) sizes.push_back(std::atoi(s.c_str()));
    } else if (key == "--outputs") outputs = std::atoi(value.c_str());
    else if (key == "--shapes") shapes = split(value);
    else if (key == "--commands") commands = split(value);
    else if (key == "--timeout") timeout = std::atof(value.c_str());
    else if (key == "--mem-limit-mib") mem_limit_mib = std::atol(value.c_str());
    else if (key == "--write-graphs") write_dir = value;
    else if (key == "--goals-ops") goals_ops = std::atoi(value.c_str());
    else if (key == "--goals-only") goals_only = value == "yes";
    else {
      std::fprintf(stderr, "unknown option %s\n", key.c_str());
      return 2;
    }
  }
  for (const std::string& c : commands)
    if (!command_table().count(c)) {
      std::string known;
      for (const auto& [name, path] : command_table()) known += " " + name;
      std::fprintf(stderr, "unknown command path %s (known:%s)\n", c.c_str(), known.c_str());
      return 2;
    }
  char dir_template[] = "/tmp/arenaplan-scale-XXXXXX";
  const bool keep = !write_dir.empty();
  if (keep) commands.clear();
  const char* dir = keep ? write_dir.c_str() : mkdtemp(dir_template);
  if (!dir) {
    std::perror("mkdtemp");
    return 1;
  }
  std::printf("binary %s; many-outputs graphs have min(%d, ops/2) graph outputs\n", bin.c_str(), outputs);
  if (goals_only) shapes.clear();
  if (!shapes.empty()) {
    print_load("load before");
    std::printf("%-9s %7s  %-22s %8s %8s %9s %9s  %-8s %-30s %s\n", "shape", "ops", "command", "wall s", "cpu s", "peak MiB",
                "out MiB", "status", "growth wall/cpu/mem/out", "goal (<10 s or --time-limit +10 %, <1 GiB, out <1 GiB)");
  }
  int misses = 0, rows = 0, wall_only = 0;
  for (const std::string& shape : shapes) {
    std::map<std::string, Run> previous;
    int previous_size = 0;
    for (int n : sizes) {
      const std::string stem = std::string(dir) + "/" + shape + "-" + std::to_string(n);
      // REWRITE: one legal rewrite of the shape (an add overwriting an input that dies there).
      std::map<std::string, std::string> files = {{"GRAPH", stem + ".json"},
                                                  {"SHAPED", stem + "-shaped.json"},
                                                  {"PLAN", stem + "-plan.json"},
                                                  {"REWRITE", stem + "-rewrite.txt"}};
      // Generated in a child: Linux carries a process's peak RSS across fork and exec, so the
      // bench itself must stay small for the children's figures to be theirs.
      if (const pid_t gen = fork(); gen == 0) {
        const Graph g = shape == "many"   ? many_outputs_chain_graph(n, outputs, 1)
                        : shape == "bars" ? recent_reads_graph(n, 1)
                                          : long_residual_chain_graph(n, 1);
        std::ofstream(files.at("GRAPH")) << graph_to_json(g);
        std::ofstream(files.at("SHAPED")) << shaped_chain_json(n);
        std::ofstream(files.at("REWRITE")) << one_in_place_rewrite(g);
        _exit(0);
      } else {
        waitpid(gen, nullptr, 0);
      }
      const std::string rewrite_file = files.at("REWRITE");
      files["REWRITE"] = read_text(rewrite_file);
      std::remove(rewrite_file.c_str());
      // The plan `verify` checks: what `layout --json` writes.
      if (std::find(commands.begin(), commands.end(), "verify") != commands.end())
        run_child(bin, {"layout", "GRAPH", "--planner", "portfolio", "--json"}, files, timeout, mem_limit_mib,
                  files.at("PLAN"));
      for (const std::string& c : commands) {
        const CommandPath& path = command_table().at(c);
        const Run r = run_child(bin, path.args, files, timeout, mem_limit_mib);
        char growth[80] = "";
        if (previous.count(c) && previous[c].seconds > 0 && previous[c].cpu_seconds > 0 && previous[c].peak_mib > 0)
          std::snprintf(growth, sizeof growth, "%.1fx/%.1fx/%.1fx/%.1fx (%dx)", r.seconds / previous[c].seconds,
                        r.cpu_seconds / previous[c].cpu_seconds, r.peak_mib / previous[c].peak_mib,
                        previous[c].out_mib > 0 ? r.out_mib / previous[c].out_mib : 0.0, n / std::max(1, previous_size));
        // A command given --time-limit S is held to S + 10 % (the user asked for S); any other to
        // 10 s. Wall time is the goal; on a shared machine it runs ahead of the child's cpu time
        // while the child waits for a core, so a row whose cpu time is within the goal and only its
        // wall time is not says so apart ("wall only"): that is the machine's load, not the command.
        const double time_goal = path.time_limit > 0 ? 1.1 * path.time_limit : 10.0;
        std::string goal = "ok";
        bool missed = false;
        // Exit 1 is an answer (a check failed: the plan does not fit the board), not an error.
        if (r.status != "ok" && r.status != "exit 1") {
          goal = "FAILED (" + r.status + ")";
          missed = true;
        } else if (r.peak_mib >= 1024 || r.cpu_seconds >= time_goal || r.out_mib >= 1024) {
          goal = r.peak_mib >= 1024 ? "MISSED (memory)" : r.out_mib >= 1024 ? "MISSED (output)" : "MISSED (time)";
          missed = true;
        } else if (r.seconds >= time_goal) {
          goal = "wall only over " + std::to_string(time_goal).substr(0, 4) + " s";
          ++wall_only;
        }
        misses += missed;
        ++rows;
        std::printf("%-9s %7d  %-22s %8.2f %8.2f %9.1f %9.1f  %-8s %-30s %s\n", shape.c_str(), n, c.c_str(), r.seconds,
                    r.cpu_seconds, r.peak_mib, r.out_mib, r.status.c_str(), growth, goal.c_str());
        std::fflush(stdout);
        previous[c] = r;
      }
      previous_size = n;
      if (keep) {
        std::printf("wrote %s.json and %s-shaped.json\n", stem.c_str(), stem.c_str());
      } else {
        for (const auto& [key, file] : files)
          if (key != "REWRITE") std::remove(file.c_str());
      }
    }
  }
  if (!keep && !goals_only) {
    print_load("load after");
    std::printf("%d of %d rows miss the goal on cpu time or memory; %d more only on wall time (the machine's load)\n",
                misses, rows, wall_only);
  }
  if (!keep && goals_ops > 0) report_goals(bin, goals_ops, timeout, mem_limit_mib, dir);
  if (!keep) rmdir(dir);
  return 0;
}
