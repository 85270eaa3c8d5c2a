#include "core/sim/sim_cycles.h"

#include <cmath>

#include "core/graph/graph.h"

namespace arenaplan::sim {

const std::vector<McuProfile>& mcu_profiles() {
  // Rough public figures for CMSIS-NN-style int8 kernels; good for comparing plans, not for sign-off.
  static const std::vector<McuProfile> profiles = {
      {"cortex-m0plus",
       "Cortex-M0+ class at 48 MHz (RP2040/SAMD21-like): no DSP extension, 1-cycle MUL but byte "
       "loads, sign extension and loop overhead around each MAC; flash with 1 wait state",
       48, 4.0, 2.0, 0.5, 0.5, 1.0, 400, 1.0},
      {"cortex-m4",
       "Cortex-M4F class at 168 MHz (STM32F4-like): SMLAD does two 16-bit MACs per cycle, operand "
       "unpacking halves that; 32-bit SRAM loads pipelined; flash behind the ART prefetch",
       168, 1.0, 1.0, 0.25, 0.25, 0.5, 300, 2.0},
      {"cortex-m7",
       "Cortex-M7 class at 480 MHz (STM32H7-like): dual issue, 64-bit TCM bus; flash through the "
       "instruction/data caches",
       480, 0.5, 0.5, 0.125, 0.125, 0.25, 200, 4.0},
  };
  return profiles;
}

const McuProfile& find_mcu_profile(const std::string& name) {
  std::string known;
  for (const McuProfile& p : mcu_profiles()) {
    if (p.name == name) return p;
    known += (known.empty() ? "" : ", ") + p.name;
  }
  throw InputError("profile", "unknown MCU profile \"" + name + "\"; known: " + known);
}

int64_t op_cycles(const McuProfile& p, const OpWork& w) {
  double c = p.op_overhead_cycles + p.cycles_per_mac * static_cast<double>(w.macs) +
             p.cycles_per_alu_op * static_cast<double>(w.alu_ops) +
             p.sram_load_cycles_per_byte * static_cast<double>(w.sram_bytes_read) +
             p.flash_load_cycles_per_byte * static_cast<double>(w.flash_bytes_read) +
             p.sram_store_cycles_per_byte * static_cast<double>(w.bytes_written) +
             (p.sram_store_cycles_per_byte + p.sram_load_cycles_per_byte) * static_cast<double>(w.temp_bytes) +
             p.sram_load_cycles_per_byte * static_cast<double>(w.reread_bytes);
  return static_cast<int64_t>(std::ceil(c));
}

int64_t dma_cycles(const McuProfile& p, int64_t bytes) {
  return p.dma_bytes_per_cycle > 0 ? static_cast<int64_t>(std::ceil(static_cast<double>(bytes) / p.dma_bytes_per_cycle)) : 0;
}

double cycles_to_us(const McuProfile& p, int64_t cycles) {
  return p.clock_mhz > 0 ? static_cast<double>(cycles) / p.clock_mhz : 0;
}

const char* cycle_model_note() {
  return "Cycle counts are a model, not a measurement: per-op overhead + cycles per MAC and per "
         "element op + cycles per byte loaded/stored per region (arena SRAM, weights in flash), each "
         "input byte counted once; DMA streams overlap later ops and stall only when they have not "
         "finished by their completion step. Use them to compare plans, not to promise latency.";
}

}  // namespace arenaplan::sim
