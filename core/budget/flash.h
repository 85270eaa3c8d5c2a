// Flash a TFLM firmware needs: the model's bytes (a const array in flash) + TFLM's runtime
// (MicroInterpreter, allocator, planner, flatbuffer parsing, logging, libc it pulls in) + the code
// and constants of the kernels the model registers, for one kernel library and optimisation
// level. The figures are arm-none-eabi-size (text + data) of real firmwares built from TFLM for a
// Cortex-M4F (core/budget/flash.cpp keeps the table and how it was measured).
//
// Usage:
//   FlashBuild build{TflmKernels::kCmsisNn, FlashOpt::kOs, "cortex-m4"};
//   FlashEstimate f = flash_estimate_kinds(tflm_kernel_kinds(tflite), tflite.size(), build);
//   // f.total_bytes = f.model_bytes + f.runtime_bytes + f.kernel_bytes; f.estimated names kernels
//   // with no measurement (charged the largest measured kernel, never 0)
//   FlashCheck c = check_flash(f, board.flash_bytes);   // c.fits, c.free_bytes
//   std::cout << flash_text(f, c);   // the line `arenaplan budget` prints
//
// A kernel's code is not counted once per kernel: kernels share helpers (CMSIS-NN's conv,
// depthwise and fully connected share the s8 matrix routines; max and average pooling one file),
// so the table keeps each kernel's own bytes and, apart, the code groups of kernels share, each
// charged once when the model uses any kernel of the group.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/graph/graph.h"
#include "core/graph/report.h"  // JsonOut
#include "core/tflite/tflm_arena.h"  // TflmKernels

namespace arenaplan {

// The optimisation level firmware is built with: -Os (size) or -O2 (speed, TFLM's default for
// its kernels; its runtime stays at -Os, as TFLM's Makefile builds it).
enum class FlashOpt { kOs, kO2 };
const char* flash_opt_name(FlashOpt o);                 // "Os", "O2"
FlashOpt parse_flash_opt(const std::string& name);      // "Os"/"O2" (also "-Os"); InputError naming --opt

struct FlashBuild {
  TflmKernels kernels = TflmKernels::kReference;
  FlashOpt opt = FlashOpt::kOs;
  std::string core;  // -mcpu name ("cortex-m7"); "" unknown: the Cortex-M4F figures, said so
};

// One kernel the model registers, what it adds on its own.
struct FlashKernel {
  std::string kind;       // TFLite builtin name, as the importer names ops ("conv_2d")
  Bytes bytes = 0;        // own code + constants + strings
  bool measured = false;  // false: no measurement, charged an estimate (see FlashEstimate::estimated)
};
// Code several of the model's kernels share, charged once.
struct FlashSharedCode {
  std::vector<std::string> kinds;  // every kernel that pulls it in (the model uses at least one)
  Bytes bytes = 0;
};

struct FlashEstimate {
  FlashBuild build;
  std::string measured_for;         // the build the figures come from ("cortex-m4f, CMSIS-NN, -Os")
  std::string note;                 // "" or why the figures may not be this core's (another ISA)
  Bytes model_bytes = 0;            // the .tflite as a const array
  Bytes runtime_bytes = 0;          // TFLM's fixed part, with no kernel
  Bytes kernel_bytes = 0;           // sum of kernels[].bytes and shared[].bytes
  Bytes total_bytes = 0;            // model + runtime + kernels
  std::vector<FlashKernel> kernels; // the distinct kinds, in first-use order
  std::vector<FlashSharedCode> shared;
  std::vector<std::string> estimated;  // kinds without a measurement, by name
};

// The estimate for the distinct op kinds of a model whose file is model_bytes long.
FlashEstimate flash_estimate_kinds(const std::vector<std::string>& kinds, Bytes model_bytes, const FlashBuild& build);

// The kernels a .tflite makes TFLM link: every subgraph-0 operator's kind (TFLite builtin name or
// custom code), all-constant ops too (TFLM runs every operator; arenaplan's import folds those
// away by default). InputError for a file that is not a valid model.
std::vector<std::string> tflm_kernel_kinds(std::string_view tflite_bytes);

// The kinds the table has a measurement for (TFLite builtin names), sorted.
std::vector<std::string> flash_measured_kinds();

// The estimate against the board's flash (flash_bytes 0: the board gives none, nothing to check).
struct FlashCheck {
  Bytes flash_bytes = 0;
  bool known = false;  // the board gives its flash size
  bool fits = true;    // total <= flash (true when unknown: nothing says it does not)
  Bytes free_bytes = 0;  // flash - total; negative when it does not fit
};
FlashCheck check_flash(const FlashEstimate& f, Bytes flash_bytes);

// "flash: model 21,264 B + TFLM runtime 52,120 B + 8 kernels 31,002 B = 104,386 B of 2 MiB: fits
// (free 1.9 MiB) (CMSIS-NN, -Os, measured for cortex-m4f)" plus a line naming estimated kernels.
std::string flash_text(const FlashEstimate& f, const FlashCheck& c);
// {"model_bytes", "runtime_bytes", "kernel_bytes", "total_bytes", "kernels": [{"kind", "bytes",
//  "measured"}], "shared": [{"kinds", "bytes"}], "estimated", "kernel_library", "opt", "core",
//  "measured_for", "note", "flash_bytes", "known", "fits", "free_bytes"}
JsonOut flash_json(const FlashEstimate& f, const FlashCheck& c);

}  // namespace arenaplan
