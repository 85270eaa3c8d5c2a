// What every benchmark program needs and nothing in core provides: a clock, a whole file's bytes
// and the clone's own files. Included by bench/*.cpp (each its own program), natively and in Wasm;
// source_path is defined in bench/support/source_path.cpp, linked into every bench.
//
//   const double t0 = bench::now();
//   run();
//   std::printf("%.3f s\n", bench::now() - t0);
#pragma once

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

namespace arenaplan::bench {

// A file of the clone, by its path from the repository root.
std::string source_path(const std::string& relative);

// Wall-clock seconds on a steady clock: only differences mean anything.
inline double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// CPU seconds of this process: on a shared machine wall time says more about the neighbours than
// about the code. Under Node, Emscripten's clock() is wall time; process.cpuUsage() is not (it
// includes V8's compiler threads, a real cost of running Wasm).
inline double cpu_now() {
#ifdef __EMSCRIPTEN__
  return EM_ASM_DOUBLE({
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  });
#else
  return static_cast<double>(std::clock()) / CLOCKS_PER_SEC;
#endif
}

// The folder of MiniMalloc's benchmark files (google/minimalloc's `challenging/` instances,
// A.1048576.csv ... K.1048576.csv): --data DIR, else $ARENAPLAN_MINIMALLOC_DATA. They are not part
// of this repository; without either the instances are reported absent.
inline std::string minimalloc_data_dir(const std::string& given) {
  if (!given.empty()) return given;
  const char* env = std::getenv("ARENAPLAN_MINIMALLOC_DATA");
  return env && *env ? env : "(no --data DIR or ARENAPLAN_MINIMALLOC_DATA)";
}

// A whole file's bytes into `out`; false when it cannot be opened (the caller says which file).
inline bool read_text(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  *out = ss.str();
  return true;
}

}  // namespace arenaplan::bench
