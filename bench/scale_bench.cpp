// Scale benchmark (issue 19 item 4): wall time and peak memory of the everyday CLI paths against
// the graph size, on the two shapes a user with a big exported graph has: a residual-style chain
// (one input, one output) and a chain with thousands of graph outputs. Each command runs as its own
// `arenaplan` process (stdout to /dev/null), so the figures are what a user sees, set-up included;
// the peak memory is the child's maxrss. Each row shows its growth against the previous size: about
// 10x per 10x ops is linear, about 100x is quadratic.
//
//   bench_scale_bench [--bin build/native/arenaplan] [--sizes 1000,10000,100000] [--outputs 2000]
//                     [--shapes residual,many] [--commands analyze,analyze-json,schedule,...]
//                     [--timeout S] [--mem-limit-mib M]
// A child is killed after --timeout seconds (default 60) and limited to --mem-limit-mib of address
// space (default 4096), so an unfixed quadratic path cannot take the shared machine down.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <fcntl.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "core/graph/graph_json.h"
#include "core/schedule/schedule_generators.h"

using namespace arenaplan;

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

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

// The command paths measured: name -> arguments after the graph file.
const std::map<std::string, std::vector<std::string>>& command_table() {
  static const std::map<std::string, std::vector<std::string>> table = {
      {"analyze", {"analyze"}},
      {"analyze-json", {"analyze", "--json"}},
      {"schedule", {"schedule", "--time-limit", "10"}},
      {"schedule-json", {"schedule", "--time-limit", "10", "--json"}},
      {"simulate", {"simulate"}},
      {"layout", {"layout"}},
      {"export-h", {"export", "--format", "c-header"}},
  };
  return table;
}

struct Run {
  double seconds = 0;
  double peak_mib = 0;
  std::string status = "ok";
};

Run run_child(const std::string& bin, const std::string& command, const std::string& graph, double timeout,
              long mem_limit_mib) {
  const std::vector<std::string>& rest = command_table().at(command);
  std::vector<std::string> args = {bin, rest[0], graph};
  args.insert(args.end(), rest.begin() + 1, rest.end());
  const double t0 = now();
  const pid_t pid = fork();
  if (pid == 0) {
    const int devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
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
  while (true) {
    const pid_t done = wait4(pid, &status, WNOHANG, &usage);
    if (done == pid) break;
    if (now() - t0 > timeout) {
      kill(pid, SIGKILL);
      wait4(pid, &status, 0, &usage);
      r.status = "timeout";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  r.seconds = now() - t0;
  r.peak_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;
  if (r.status == "ok") {
    if (WIFSIGNALED(status)) r.status = "signal " + std::to_string(WTERMSIG(status));
    else if (WEXITSTATUS(status) != 0) r.status = "exit " + std::to_string(WEXITSTATUS(status));
  }
  return r;
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
  std::vector<std::string> shapes = {"residual", "many"};
  std::vector<std::string> commands = {"analyze", "analyze-json", "schedule", "simulate", "layout"};
  int outputs = 2000;
  double timeout = 60;
  long mem_limit_mib = 4096;
  std::string write_dir;  // --write-graphs DIR: only write the graphs there (to run one command by hand)
  for (int i = 1; i < argc; i += 2) {
    const std::string key = argv[i], value = i + 1 < argc ? argv[i + 1] : "";
    if (key == "--help" || value.empty()) {
      std::fprintf(stderr, "usage: bench_scale_bench [--bin PATH] [--sizes 1000,10000,100000] [--outputs N] "
                           "[--shapes residual,many] [--commands analyze,...] [--timeout S] [--mem-limit-mib M]\n");
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
    else {
      std::fprintf(stderr, "unknown option %s\n", key.c_str());
      return 2;
    }
  }
  for (const std::string& c : commands)
    if (!command_table().count(c)) {
      std::fprintf(stderr, "unknown command path %s\n", c.c_str());
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
  std::printf("%-9s %7s  %-13s %9s %10s  %-8s %12s\n", "shape", "ops", "command", "seconds", "peak MiB", "status",
              "growth t/mem");
  for (const std::string& shape : shapes) {
    std::map<std::string, Run> previous;
    int previous_size = 0;
    for (int n : sizes) {
      const std::string path = std::string(dir) + "/" + shape + "-" + std::to_string(n) + ".json";
      // Generated in a child: Linux carries a process's peak RSS across fork and exec, so the
      // bench itself must stay small for the children's figures to be theirs.
      if (const pid_t gen = fork(); gen == 0) {
        const Graph g = shape == "many" ? many_outputs_chain_graph(n, outputs, 1) : long_residual_chain_graph(n, 1);
        std::ofstream(path) << graph_to_json(g);
        _exit(0);
      } else {
        waitpid(gen, nullptr, 0);
      }
      for (const std::string& c : commands) {
        const Run r = run_child(bin, c, path, timeout, mem_limit_mib);
        char growth[64] = "";
        if (previous.count(c) && previous[c].seconds > 0 && previous[c].peak_mib > 0)
          std::snprintf(growth, sizeof growth, "%.1fx/%.1fx (%dx ops)", r.seconds / previous[c].seconds,
                        r.peak_mib / previous[c].peak_mib, n / std::max(1, previous_size));
        std::printf("%-9s %7d  %-13s %9.2f %10.1f  %-8s %s\n", shape.c_str(), n, c.c_str(), r.seconds, r.peak_mib,
                    r.status.c_str(), growth);
        std::fflush(stdout);
        previous[c] = r;
      }
      previous_size = n;
      if (keep) std::printf("wrote %s\n", path.c_str());
      else std::remove(path.c_str());
    }
  }
  if (!keep) rmdir(dir);
  return 0;
}
