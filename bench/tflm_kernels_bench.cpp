// TFLM's whole arena per kernel library and core, for every .tflite in a folder: the reference
// kernels and CMSIS-NN's three code paths (plain C on cortex-m3, DSP on cortex-m4, MVE on
// cortex-m55; arm-none-eabi-gcc, short enums; and CMSIS-NN's plain C on a 64-bit host), head /
// tail / minimum each. With --measured, the
// figures the real TFLM gave (bench/data/tflm_cmsis_measured.json: QEMU runs of TFLM 90b983c2 +
// CMSIS-NN 4ab83cc3, see that file) beside each prediction, with the difference.
//
//   bench_tflm_kernels_bench [--data DIR] [--measured FILE.json]
// DIR defaults to the repository's own fixtures (tests/unit/data/tflm); public models (MLPerf
// Tiny, TFLM's examples) are not in the repository: give their folder.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/tflite/tflm_arena.h"

using namespace arenaplan;

namespace {

struct Column {
  const char* label;  // also the key in the measured file
  const char* core;
  TflmKernels kernels;
};
const Column kColumns[] = {{"reference/cortex-m4", "cortex-m4", TflmKernels::kReference},
                           {"cmsis-nn/cortex-m3", "cortex-m3", TflmKernels::kCmsisNn},
                           {"cmsis-nn/cortex-m4", "cortex-m4", TflmKernels::kCmsisNn},
                           {"cmsis-nn/cortex-m55", "cortex-m55", TflmKernels::kCmsisNn},
                           {"cmsis-nn/x86-64", "x86-64", TflmKernels::kCmsisNn}};

}  // namespace

int main(int argc, char** argv) {
  std::string dir = bench::source_path("tests/unit/data/tflm"), measured_path;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--data")) dir = argv[i + 1];
    else if (!std::strcmp(argv[i], "--measured")) measured_path = argv[i + 1];
  }
  nlohmann::json measured = nlohmann::json::object();
  if (!measured_path.empty()) {
    std::string text;
    if (!bench::read_text(measured_path, &text)) {
      std::fprintf(stderr, "cannot read %s\n", measured_path.c_str());
      return 2;
    }
    measured = nlohmann::json::parse(text)["min_arena_bytes"];
  }
  std::vector<std::filesystem::path> models;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".tflite") models.push_back(e.path());
  std::sort(models.begin(), models.end());

  std::printf("%-34s %-20s %8s %8s %8s %9s %7s\n", "model", "kernels/core", "head", "tail", "min", "measured", "diff");
  int compared = 0, exact = 0, below = 0;
  for (const auto& path : models) {
    std::string bytes;
    bench::read_text(path.string(), &bytes);
    const std::string name = path.stem().string();
    for (const Column& c : kColumns) {
      TflmArenaOptions o;
      o.target = tflm_target_for_core(c.core, c.kernels);
      try {
        const double t0 = bench::now();
        const TflmArena a = tflm_arena(bytes, o);
        const double ms = (bench::now() - t0) * 1e3;
        std::printf("%-34s %-20s %8lld %8lld %8lld", name.c_str(), c.label, static_cast<long long>(a.head_bytes),
                    static_cast<long long>(a.tail_bytes), static_cast<long long>(a.min_arena_bytes));
        const auto m = measured.find(c.label);
        if (m != measured.end() && m->contains(name)) {
          const long long want = (*m)[name].get<long long>();
          const long long diff = static_cast<long long>(a.min_arena_bytes) - want;
          std::printf(" %9lld %+7lld", want, diff);
          ++compared;
          exact += diff == 0;
          below += diff < 0;
        } else {
          std::printf(" %9s %7s", "-", "");
        }
        std::printf("  %s(%.1f ms)\n", a.estimated_ops.empty() ? "" : "estimated ops ", ms);
      } catch (const InputError& e) {
        std::printf("%-34s %-20s refused: %s\n", name.c_str(), c.label, e.what());
      }
    }
  }
  if (compared) std::printf("\n%d measured figures: %d exact, %d below the measurement\n", compared, exact, below);
  return 0;
}
