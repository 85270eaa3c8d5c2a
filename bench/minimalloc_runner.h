// Runs MiniMalloc (google/minimalloc, built by hand outside this repository; its path in
// $ARENAPLAN_MINIMALLOC) on one CSV at one capacity, for the benches that print its time beside
// ours. Header-only; native (fork/exec), like the benches that include it.
//
//   std::string why;
//   const double secs = bench::run_minimalloc(bench::minimalloc_binary(), csv_path, capacity, 60, &why);
//   if (secs < 0) std::printf("MiniMalloc: %s\n", why.c_str());
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "bench/bench_util.h"

namespace arenaplan::bench {

// $ARENAPLAN_MINIMALLOC when it names an executable, else "".
inline std::string minimalloc_binary() {
  const char* env = std::getenv("ARENAPLAN_MINIMALLOC");
  const std::string path = env && *env ? env : "";
  return !path.empty() && access(path.c_str(), X_OK) == 0 ? path : "";
}

// MiniMalloc told `capacity`: wall seconds until it exits with a solution, < 0 when it failed or
// timed out (then *why says which).
inline double run_minimalloc(const std::string& binary, const std::string& csv, long long capacity, double limit,
                             std::string* why) {
  const std::string capacity_flag = "--capacity=" + std::to_string(capacity);
  const std::string input_flag = "--input=" + csv;
  const double t0 = now();
  std::fflush(stdout);  // else the child's freopen writes our buffered lines a second time
  const pid_t pid = fork();
  if (pid == 0) {
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    execl(binary.c_str(), binary.c_str(), capacity_flag.c_str(), input_flag.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  if (pid < 0) {
    *why = "fork failed";
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (now() - t0 > limit) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      *why = "timed out";
      return -1;
    }
    usleep(2000);
  }
  const double secs = now() - t0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    *why = "exit status " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return -1;
  }
  return secs;
}

}  // namespace arenaplan::bench
