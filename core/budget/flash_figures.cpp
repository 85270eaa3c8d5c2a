// placeholder until measured
#include "core/budget/flash_internal.h"
namespace arenaplan::flash_detail {
const std::vector<BuildFigures>& flash_figures() {
  static const std::vector<BuildFigures> figures = {
      {TflmKernels::kReference, FlashOpt::kOs, "cortex-m4f, reference kernels, -Os", 1000, {{"conv_2d", 10}, {"max_pool_2d", 5}, {"average_pool_2d", 5}}, {{"max_pool_2d average_pool_2d", 7}}},
      {TflmKernels::kCmsisNn, FlashOpt::kOs, "cortex-m4f, CMSIS-NN kernels, -Os", 1000, {{"conv_2d", 10}}, {}}};
  return figures;
}
}  // namespace arenaplan::flash_detail
