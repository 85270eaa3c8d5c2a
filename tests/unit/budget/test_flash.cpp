// The flash figure against real firmwares: arm-none-eabi-size of TFLM built for a Cortex-M4F with
// exactly the kernels each project model uses (tests/unit/data/tflm_flash/, how: its README.md).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "core/budget/flash.h"
#include "core/tflite/tflite_import.h"
#include "tests/unit/budget/flash_fixtures.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using arenaplan::test::read_test_file;
using arenaplan::test::source_path;
using arenaplan::test::read_tflm_fixture;

namespace {

using test::MeasuredBuild;
const auto& kMeasured = test::kMeasuredFlashBuilds;

nlohmann::json read_flash_fixture(const std::string& name) {
  return nlohmann::json::parse(
      read_test_file(source_path("tests/unit/data/tflm_flash/") + name + ".json"));
}

bool is_project_model(const std::string& file) {
  return file.size() > 7 && file.compare(file.size() - 7, 7, ".tflite") == 0 && file != "keyword_scrambled.tflite" &&
         file != "keyword_scrambled_8bit.tflite" && file != "person_detect.tflite";
}

}  // namespace

TEST_CASE("flash: every measured project model is predicted within 5 % of arm-none-eabi-size of its firmware") {
  for (const MeasuredBuild& m : kMeasured) {
    const nlohmann::json fixture = read_flash_fixture(m.fixture);
    int models = 0;
    for (const nlohmann::json& fw : fixture.at("firmwares")) {
      const std::string file = fw.at("model").get<std::string>();
      if (!is_project_model(file)) continue;
      CAPTURE(m.fixture);
      CAPTURE(file);
      const std::string bytes = read_tflm_fixture(file);
      const TfliteModel model = import_tflite(bytes);
      REQUIRE(model.sha256 == fw.at("model_sha256").get<std::string>());  // the file that was measured
      const FlashEstimate e = flash_estimate_kinds(tflm_kernel_kinds(bytes), static_cast<Bytes>(bytes.size()), m.build);
      // The firmware registered exactly the kernels the estimate charges.
      std::set<std::string> kinds;
      for (const FlashKernel& k : e.kernels) kinds.insert(k.kind);
      CHECK(kinds == fw.at("kernels").get<std::set<std::string>>());
      CHECK(e.estimated.empty());
      const double measured = fw.at("measured_flash").get<double>();
      CHECK(fw.at("text").get<double>() + fw.at("data").get<double>() == measured);
      CHECK(std::fabs(static_cast<double>(e.total_bytes) - measured) <= 0.05 * measured);
      ++models;
    }
    CHECK(models >= 8);  // the fixture measured the project's models, not none
  }
}

TEST_CASE("flash: the runtime alone and each kernel alone are what their firmwares measured") {
  for (const MeasuredBuild& m : kMeasured) {
    const nlohmann::json fixture = read_flash_fixture(m.fixture);
    for (const nlohmann::json& fw : fixture.at("firmwares")) {
      const std::string name = fw.at("case").get<std::string>();
      if (name != "runtime" && name.rfind("k_", 0) != 0) continue;
      CAPTURE(m.fixture);
      CAPTURE(name);
      const FlashEstimate e =
          flash_estimate_kinds(fw.at("kernels").get<std::vector<std::string>>(), fw.at("model_bytes").get<Bytes>(), m.build);
      CHECK(e.total_bytes == fw.at("measured_flash").get<Bytes>());
    }
  }
}

TEST_CASE("flash: code two kernels share is charged once, not once per kernel") {
  const FlashBuild build{TflmKernels::kReference, FlashOpt::kOs, "cortex-m4"};
  const FlashEstimate runtime = flash_estimate_kinds(std::vector<std::string>{}, 0, build);
  const FlashEstimate max_pool = flash_estimate_kinds({"max_pool_2d"}, 0, build);
  const FlashEstimate avg_pool = flash_estimate_kinds({"average_pool_2d"}, 0, build);
  const FlashEstimate both = flash_estimate_kinds({"max_pool_2d", "average_pool_2d"}, 0, build);
  REQUIRE_FALSE(both.shared.empty());  // one pooling file, one set of helpers
  CHECK(both.total_bytes < max_pool.total_bytes + avg_pool.total_bytes - runtime.total_bytes);
  CHECK(both.kernels.size() == 2);
}

TEST_CASE("flash: a kernel without a measurement is named and charged the largest measured kernel, never 0") {
  const FlashBuild build{TflmKernels::kCmsisNn, FlashOpt::kOs, "cortex-m4"};
  const FlashEstimate e = flash_estimate_kinds({"conv_2d", "my_custom_op", "conv_2d"}, 1000, build);
  REQUIRE(e.kernels.size() == 2);  // distinct kinds
  CHECK(e.estimated == std::vector<std::string>{"my_custom_op"});
  CHECK_FALSE(e.kernels[1].measured);
  Bytes largest = 0;
  for (const std::string& kind : flash_measured_kinds()) {
    const Bytes alone = flash_estimate_kinds({kind}, 0, build).total_bytes - e.runtime_bytes;
    largest = std::max(largest, alone);
  }
  CHECK(e.kernels[1].bytes == largest);
  CHECK(largest > 0);
  CHECK(flash_text(e, check_flash(e, 0)).find("estimated (no measurement, charged the largest measured kernel): my_custom_op") !=
        std::string::npos);
}

TEST_CASE("flash: a board with too little flash does not fit; one without a flash size is not judged") {
  const FlashEstimate e = flash_estimate_kinds({"conv_2d", "softmax"}, 20000, {TflmKernels::kReference, FlashOpt::kOs, ""});
  const FlashCheck small = check_flash(e, e.total_bytes - 1);
  CHECK_FALSE(small.fits);
  CHECK(small.free_bytes == -1);
  CHECK(flash_text(e, small).find("DOES NOT FIT (over by 1 B)") != std::string::npos);
  const FlashCheck exact = check_flash(e, e.total_bytes);
  CHECK(exact.fits);
  const FlashCheck unknown = check_flash(e, 0);
  CHECK(unknown.fits);
  CHECK_FALSE(unknown.known);
  CHECK(flash_json(e, small)["fits"] == false);
}

TEST_CASE("flash: -O2 and another core are other figures, said so") {
  CHECK(parse_flash_opt("Os") == FlashOpt::kOs);
  CHECK(parse_flash_opt("-O2") == FlashOpt::kO2);
  CHECK(arenaplan::test::input_error_of([] { parse_flash_opt("O3"); }).find("--opt") != std::string::npos);
  const FlashEstimate m7 = flash_estimate_kinds({"conv_2d"}, 0, {TflmKernels::kReference, FlashOpt::kOs, "cortex-m7"});
  CHECK(m7.note.find("measured for cortex-m4f") != std::string::npos);
  const FlashEstimate m4 = flash_estimate_kinds({"conv_2d"}, 0, {TflmKernels::kReference, FlashOpt::kOs, "cortex-m4"});
  CHECK(m4.note.empty());
}

TEST_CASE("flash: the kernels of ops the import folds (all-constant DEQUANTIZE) are linked all the same") {
  const std::string bytes = arenaplan::test::read_model_fixture("hand_landmark_lite.tflite");
  const TfliteModel folded = import_tflite(bytes);
  REQUIRE_FALSE(folded.folded_ops.empty());
  for (const Op& op : folded.graph.ops) CHECK(op.kind != "dequantize");
  const std::vector<std::string> kinds = tflm_kernel_kinds(bytes);
  CHECK(kinds.size() == folded.graph.ops.size() + folded.folded_ops.size());
  const FlashEstimate e = flash_estimate_kinds(kinds, static_cast<Bytes>(bytes.size()), {});
  CHECK(std::any_of(e.kernels.begin(), e.kernels.end(), [](const FlashKernel& k) { return k.kind == "dequantize"; }));
  CHECK(std::find(e.estimated.begin(), e.estimated.end(), "dequantize") != e.estimated.end());  // not measured
}
