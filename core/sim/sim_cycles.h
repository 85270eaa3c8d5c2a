// The cycle model of the simulated microcontroller. It is a MODEL, not a measurement: each op
// costs a fixed dispatch overhead, plus cycles per multiply-accumulate and per other element
// operation, plus cycles per byte loaded and stored in each memory region (arena SRAM, weights in
// flash). Every input byte is counted once (ideal reuse in registers), which favours big kernels;
// real cores add cache, bus and pipeline effects this ignores. Profiles state their assumptions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace arenaplan::sim {

struct McuProfile {
  std::string name;         // "cortex-m4"
  std::string assumptions;  // one line: the part it stands for and where the numbers come from
  double clock_mhz = 0;
  double cycles_per_mac = 0;        // int8 x int8 -> int32 multiply-accumulate
  double cycles_per_alu_op = 0;     // compare, add, copy, exp step: one element
  double sram_load_cycles_per_byte = 0;
  double sram_store_cycles_per_byte = 0;
  double flash_load_cycles_per_byte = 0;  // constant tensors (weights, biases) live in flash
  double op_overhead_cycles = 0;          // interpreter dispatch + kernel prologue per op
  double dma_bytes_per_cycle = 0;         // asynchronous reads stream at this rate
};

// The built-in profiles: "cortex-m0plus", "cortex-m4" (default), "cortex-m7".
const std::vector<McuProfile>& mcu_profiles();
// The profile of that name; throws InputError listing the known names otherwise.
const McuProfile& find_mcu_profile(const std::string& name);

// One op's traffic and work, as the simulator counted them.
struct OpWork {
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

// The sentence the UI, the CLI JSON ("model_note") and the docs show next to every cycle count.
const char* cycle_model_note();

}  // namespace arenaplan::sim
