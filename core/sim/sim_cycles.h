// The cycle model of the simulated microcontroller. It is a MODEL fitted to published
// measurements, not a measurement: each op costs a fixed dispatch overhead, plus cycles per
// multiply-accumulate and per other element operation for its kind of op (a 1x1 conv, a depthwise
// conv and a fully connected layer run different CMSIS-NN loops), plus cycles per byte loaded and
// stored in each memory region (arena SRAM, weights in flash). A profile is one core with one
// kernel library (TFLM's reference kernels or CMSIS-NN); its figures come from MLPerf Tiny
// latencies of TFLM on a board with that core (bench/data/mlperf_tiny_latency.json,
// bench/latency_bench.cpp), and its error band is what that bench measured on the rows it did not
// fit. Latency is therefore always shown with the band ("50.6 ms (+-12 %)"), never bare.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace arenaplan {
struct MemoryMap;
}

namespace arenaplan::sim {

// The kinds of work a kernel library spends its time on differently.
enum class CostKind {
  kConv,            // a KxK convolution (K > 1)
  kDepthwise,       // depthwise convolution
  kPointwise,       // 1x1 convolution (CMSIS-NN's fast path)
  kFullyConnected,  // fully connected / matrix-vector
  kPooling,         // average / max pooling, mean
  kElementwise,     // add, mul, activations, (de)quantize
  kSoftmax,         // softmax and friends (exp, normalisation)
  kLstm,            // recurrent cells (LSTM, SVDF)
  kDataMovement,    // reshape, concatenation, pad, transpose, slices
  kOther,           // anything else: charged as elementwise
};
inline constexpr int kCostKinds = 10;
const char* cost_kind_name(CostKind k);  // "conv", "depthwise", "1x1 conv", ...
// The kind an op of this TFLite / graph kind spelling is charged as; `pointwise` marks a conv whose
// window is 1x1 (the kernel knows).
CostKind cost_kind_of(const std::string& op_kind, bool pointwise);

using CostTable = std::array<double, kCostKinds>;  // indexed by CostKind

struct McuProfile {
  std::string name;         // "cortex-m33" (its usual library) or "cortex-m33/reference"
  std::string core;         // -mcpu spelling: "cortex-m33", "riscv32", "xtensa-lx7"
  std::string kernels;      // "cmsis-nn" or "reference"
  std::string assumptions;  // one line: what the figures stand for and where they come from
  double clock_mhz = 0;     // default clock; a board or --clock-mhz replaces it
  CostTable cycles_per_mac{};      // int8 x int8 -> int32 multiply-accumulate, per kind
  CostTable cycles_per_element{};  // compare, add, copy, exp step: one element, per kind
  double sram_load_cycles_per_byte = 0;
  double sram_store_cycles_per_byte = 0;
  double flash_load_cycles_per_byte = 0;  // constant tensors (weights, biases) live in flash
  double op_overhead_cycles = 0;          // interpreter dispatch + kernel prologue per op
  double dma_bytes_per_cycle = 0;         // asynchronous reads stream at this rate
  // Relative error the latency bench measured for this profile (0.12 = +-12 %): on its held-out
  // rows when it has any, else on its fitted rows widened for a profile derived from another core.
  double error_band = 0;
  std::string basis;  // "fitted to ..." or "derived from ...": which measurements stand behind it
};

// Every built-in profile: Cortex-M0+, M3, M4 (M4F), M7, M33, M55, M85 with CMSIS-NN and with
// TFLM's reference kernels, and RISC-V / Xtensa cores with the reference kernels.
const std::vector<McuProfile>& mcu_profiles();
// The profile of that name ("cortex-m4", "cortex-m4/reference"); InputError listing the known names otherwise.
const McuProfile& find_mcu_profile(const std::string& name);
// The profile of a core and kernel library ("" = the library the core usually runs: CMSIS-NN on
// Cortex-M, reference elsewhere); nullptr when there is none.
const McuProfile* profile_for_core(const std::string& core, const std::string& kernels);
// A board's profile: its core and kernel library, clocked at the board's clock unless
// `clock_mhz` says otherwise; InputError (naming --board) when no profile fits its core.
McuProfile profile_for_board(const MemoryMap& board, std::optional<double> clock_mhz);

// One op's traffic and work, as the simulator counted them.
struct OpWork {
  CostKind kind = CostKind::kOther;
  int64_t macs = 0;
  int64_t alu_ops = 0;
  int64_t sram_bytes_read = 0;
  int64_t flash_bytes_read = 0;
  int64_t bytes_written = 0;
  // Bytes a kernel stages through a temporary before writing them to the output (the in-place
  // depthwise and pointwise conv kernels), or through a scratch plane between two fused stages
  // (the streamed pointwise -> depthwise kernel: every element of the vanished expansion is
  // stored once and read back by the depthwise window): one extra SRAM store and load per byte.
  // The streamed kernel's MACs are the two convs' own; it pays this plane traffic (which replaces
  // the expansion's arena store and load) and its input re-reads (below), and saves one dispatch.
  int64_t temp_bytes = 0;
  // Input bytes a kernel loads again after the first pass, which the "each input byte once" rule
  // would otherwise hide: the streamed pointwise -> depthwise kernel walks its whole input once per
  // expanded channel (the plain pointwise conv uses each input pixel for every output channel
  // while it is in registers). One SRAM load per byte.
  int64_t reread_bytes = 0;
};

// Cycles of one op under a profile (rounded up to whole cycles). A folded PAD costs its consumer
// nothing extra (the window loop already tests every cell against the border); the PAD op's copy
// is what the rewrite saves.
int64_t op_cycles(const McuProfile& p, const OpWork& w);
// Cycles a DMA engine needs to stream `bytes`.
int64_t dma_cycles(const McuProfile& p, int64_t bytes);
double cycles_to_us(const McuProfile& p, int64_t cycles);
// "50.6 ms (+-12 %)": a latency with the profile's measured error band.
std::string latency_text(const McuProfile& p, double latency_us);

// The sentence the UI, the CLI JSON ("model_note") and the docs show next to every cycle count.
const char* cycle_model_note();

}  // namespace arenaplan::sim
