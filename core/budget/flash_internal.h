// The measured flash figures behind flash_estimate (flash_figures.cpp), one entry per kernel
// library and optimisation level; included only by flash*.cpp and the tests that check the table.
#pragma once

#include <cstdint>
#include <vector>

#include "core/budget/flash.h"

namespace arenaplan::flash_detail {

struct KernelFigure {
  const char* kind;  // TFLite builtin name
  int64_t bytes;     // what it adds alone minus the shared groups it belongs to
};
struct SharedFigure {
  const char* kinds;  // the kernels that pull the group in, space-separated
  int64_t bytes;
};
struct BuildFigures {
  TflmKernels kernels;
  FlashOpt opt;
  const char* measured_for;  // "cortex-m4f, reference kernels, -Os"
  int64_t runtime_bytes;     // firmware with no kernel, minus its 16-byte dummy model
  std::vector<KernelFigure> own;
  std::vector<SharedFigure> shared;
};

const std::vector<BuildFigures>& flash_figures();

}  // namespace arenaplan::flash_detail
