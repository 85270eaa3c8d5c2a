// How far the flash figure (core/budget/flash.h) is from arm-none-eabi-size of real TFLM
// firmwares: for every .tflite in the given folders that a fixture of tests/unit/data/tflm_flash/
// measured (same file name and sha256), predicted vs measured flash (text + data) and the error,
// per measured build; a model no firmware measured gets its prediction only. The project's models
// are tests/unit/data/tflm/; TFLM's own (person_detect, keyword_scrambled) are measured too but not
// part of this repository: pass their folder.
//
//   bench_flash_bench [DIR...]     default: tests/unit/data/tflm
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "core/budget/flash.h"
#include "core/tflite/tflite_import.h"
#include "tests/unit/budget/flash_fixtures.h"

using namespace arenaplan;

namespace {

using test::MeasuredBuild;
const auto& kMeasured = test::kMeasuredFlashBuilds;

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> dirs;
  for (int i = 1; i < argc; ++i) dirs.push_back(argv[i]);
  if (dirs.empty()) dirs.push_back(bench::source_path("tests/unit/data/tflm"));
  std::vector<std::filesystem::path> models;
  for (const std::string& d : dirs) {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(d, ec))
      if (entry.path().extension() == ".tflite") models.push_back(entry.path());
    if (ec) std::printf("cannot list %s: %s\n", d.c_str(), ec.message().c_str());
  }
  std::sort(models.begin(), models.end());
  double worst = 0;
  int compared = 0;
  for (const MeasuredBuild& m : kMeasured) {
    std::string text;
    const std::string fixture_path = bench::source_path("tests/unit/data/tflm_flash/") + m.fixture + ".json";
    if (!bench::read_text(fixture_path, &text)) {
      std::printf("cannot read %s\n", fixture_path.c_str());
      return 2;
    }
    const nlohmann::json fixture = nlohmann::json::parse(text);
    std::printf("\n%s (%s)\n%-32s %10s %10s %10s %8s\n", m.fixture,
                flash_estimate_kinds(std::vector<std::string>{}, 0, m.build).measured_for.c_str(), "model", "bytes",
                "predicted", "measured", "error");
    for (const auto& path : models) {
      std::string bytes;
      if (!bench::read_text(path.string(), &bytes)) continue;
      TfliteModel model;
      try {
        model = import_tflite(bytes);
      } catch (const std::exception& e) {
        std::printf("%-32s refused: %s\n", path.filename().string().c_str(), e.what());
        continue;
      }
      const FlashEstimate e = flash_estimate_kinds(tflm_kernel_kinds(bytes), static_cast<Bytes>(bytes.size()), m.build);
      const nlohmann::json* measured = nullptr;
      for (const nlohmann::json& fw : fixture.at("firmwares"))
        if (fw.at("model") == path.filename().string() && fw.value("model_sha256", "") == model.sha256) measured = &fw;
      std::printf("%-32s %10lld %10lld", path.filename().string().c_str(), static_cast<long long>(bytes.size()),
                  static_cast<long long>(e.total_bytes));
      if (measured) {
        const double mb = measured->at("measured_flash").get<double>();
        const double err = 100.0 * (static_cast<double>(e.total_bytes) - mb) / mb;
        worst = std::max(worst, std::fabs(err));
        ++compared;
        std::printf(" %10.0f %+7.2f %%", mb, err);
      } else {
        std::printf(" %10s %8s", "-", "-");
      }
      if (!e.estimated.empty()) {
        std::printf("  estimated:");
        for (const std::string& k : e.estimated) std::printf(" %s", k.c_str());
      }
      std::printf("\n");
    }
  }
  std::printf("\n%d measured firmwares compared, worst error %.2f %% (the bar: 5 %%)\n", compared, worst);
  return worst <= 5.0 ? 0 : 1;
}
