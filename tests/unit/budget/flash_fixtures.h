// The four measured firmware builds (tests/unit/data/tflm_flash/<fixture>.json, how they were
// built: its README.md) and the flash build each stands for; the unit test and
// bench_flash_bench read the same list.
#pragma once

#include "core/budget/flash.h"

namespace arenaplan::test {

struct MeasuredBuild {
  const char* fixture;  // tests/unit/data/tflm_flash/<fixture>.json
  FlashBuild build;
};
inline const MeasuredBuild kMeasuredFlashBuilds[] = {
    {"m4f-ref-Os", {TflmKernels::kReference, FlashOpt::kOs, "cortex-m4"}},
    {"m4f-cmsis-Os", {TflmKernels::kCmsisNn, FlashOpt::kOs, "cortex-m4"}},
    {"m4f-ref-O2", {TflmKernels::kReference, FlashOpt::kO2, "cortex-m4"}},
    {"m4f-cmsis-O2", {TflmKernels::kCmsisNn, FlashOpt::kO2, "cortex-m4"}},
};

}  // namespace arenaplan::test
