#include "core/sim/sim_cycles.h"

#include <cmath>
#include <cstdio>

#include "core/budget/board.h"
#include "core/graph/graph.h"
#include "core/graph/op_kinds.h"
#include "core/graph/report.h"

namespace arenaplan::sim {
namespace {

// The figures of one fitted profile. The cycles per MAC are what bench/latency_bench.cpp --fit
// solves from the profile's three fit rows (KWS, IC, AD: one each for the depthwise-separable pair,
// the 3x3 convs and the fully connected layers); the rest are priors the fit works around:
// `store_byte` is the requantization of each output element (CMSIS-NN's arm_nn_requantize is about
// eight DSP instructions, two outputs per loop; Helium does a vector of them; the reference
// kernels' MultiplyByQuantizedMultiplier is 64-bit C arithmetic), `load_byte` an activation byte
// loaded once, `flash_byte` a weight byte through the flash accelerator or cache.
struct Fit {
  double conv, separable, fully_connected;  // cycles per MAC; depthwise and 1x1 share `separable`
  double element;                           // cycles per elementwise / pooling element
  double load_byte, store_byte, flash_byte;
  double overhead;  // cycles per op: interpreter dispatch and kernel prologue
  double band;      // relative error the bench measured on the held-out rows
};

McuProfile make(const char* name, const char* core, const char* kernels, double clock, const Fit& f,
                const char* basis, const char* assumptions) {
  McuProfile p;
  p.name = name;
  p.core = core;
  p.kernels = kernels;
  p.clock_mhz = clock;
  p.basis = basis;
  p.assumptions = assumptions;
  auto at = [](CostTable& t, CostKind k) -> double& { return t[static_cast<int>(k)]; };
  // A MAC outside the three fitted groups (a hand-written graph's generic op) costs like a conv.
  p.cycles_per_mac.fill(f.conv);
  at(p.cycles_per_mac, CostKind::kDepthwise) = f.separable;
  at(p.cycles_per_mac, CostKind::kPointwise) = f.separable;
  at(p.cycles_per_mac, CostKind::kFullyConnected) = f.fully_connected;
  // LSTM / SVDF gates are matrix-vector products: both libraries run them through the
  // fully-connected loops, plus per-gate elementwise work counted in alu_ops.
  at(p.cycles_per_mac, CostKind::kLstm) = f.fully_connected;
  // Softmax does an exp and a division per element (TFLM's fixed-point exp is about ten multiply
  // steps); a copy moves words, a quarter of an elementwise op per byte.
  p.cycles_per_element.fill(f.element);
  at(p.cycles_per_element, CostKind::kSoftmax) = 10 * f.element;
  at(p.cycles_per_element, CostKind::kDataMovement) = 0.25 * f.element;
  p.sram_load_cycles_per_byte = f.load_byte;
  p.sram_store_cycles_per_byte = f.store_byte;
  p.flash_load_cycles_per_byte = f.flash_byte;
  p.op_overhead_cycles = f.overhead;
  p.error_band = f.band;
  p.dma_bytes_per_cycle = 2.0;
  return p;
}

// A profile derived from a fitted one: every cycle figure times `ratio`, a cross-core ratio
// measured on the same models in another framework (or, where none exists, an assumption the
// basis states).
McuProfile scaled(const McuProfile& from, const std::string& name, const std::string& core, double clock,
                  double ratio, double band, const std::string& basis, const std::string& assumptions) {
  McuProfile p = from;
  p.name = name;
  p.core = core;
  p.clock_mhz = clock;
  for (double& c : p.cycles_per_mac) c *= ratio;
  for (double& c : p.cycles_per_element) c *= ratio;
  p.sram_load_cycles_per_byte *= ratio;
  p.sram_store_cycles_per_byte *= ratio;
  p.flash_load_cycles_per_byte *= ratio;
  p.op_overhead_cycles *= ratio;
  p.error_band = band;
  p.basis = basis;
  p.assumptions = assumptions;
  return p;
}

// Cycle ratios between cores running the same four MLPerf Tiny models in one framework (cycles =
// clock / median throughput), the spread over the four models in brackets.
constexpr double kM7PerM33 = 0.67;     // X-CUBE-AI 7.3, NUCLEO-H7A3ZI-Q / NUCLEO-U575ZI-Q, v1.0 ST [0.66, 0.68]
constexpr double kM4PerM33 = 1.23;     // X-CUBE-AI 7.3, NUCLEO-L4R5ZI / NUCLEO-U575ZI-Q, v1.0 ST [1.17, 1.30]
constexpr double kM0plusPerM4 = 5.2;   // Bosch HALE 1.0, NUCLEO-G0B1RE / NUCLEO-L4R5ZI, v1.1 [4.4, 5.8]
// No measurement: the M3 runs CMSIS-NN's plain-C path like the M0+, with single-cycle 32-bit
// MUL/MLA and Thumb-2 loads; the M55 runs the M85's Helium kernels on a single-issue pipeline.
constexpr double kM3PerM0plus = 0.6;   // assumption
constexpr double kM55PerM85 = 1.3;     // assumption

}  // namespace

const char* cost_kind_name(CostKind k) {
  static const char* const names[kCostKinds] = {"conv",    "depthwise", "1x1 conv", "fully connected", "pooling",
                                                "elementwise", "softmax", "lstm", "data movement", "other"};
  const int i = static_cast<int>(k);
  return i >= 0 && i < kCostKinds ? names[i] : "other";
}

CostKind cost_kind_of(const std::string& op_kind, bool pointwise) {
  switch (op_family(op_kind)) {
    case OpFamily::kConv: return pointwise ? CostKind::kPointwise : CostKind::kConv;
    case OpFamily::kDepthwiseConv: return CostKind::kDepthwise;
    case OpFamily::kDense: return CostKind::kFullyConnected;
    case OpFamily::kMaxPool:
    case OpFamily::kAvgPool:
    case OpFamily::kPool: return CostKind::kPooling;
    case OpFamily::kConcat:
    case OpFamily::kReshape: return CostKind::kDataMovement;
    case OpFamily::kElementwise: return CostKind::kElementwise;
    case OpFamily::kSoftmax: return CostKind::kSoftmax;
    case OpFamily::kOther: break;
  }
  static const char* const lstm[] = {"lstm", "unidirectional_sequence_lstm", "svdf", "gru", "rnn"};
  for (const char* k : lstm)
    if (op_kind == k) return CostKind::kLstm;
  static const char* const moves[] = {"pad", "padv2", "transpose", "strided_slice", "slice", "split", "split_v",
                                      "depth_to_space", "space_to_depth", "gather", "pack", "unpack", "tile"};
  for (const char* k : moves)
    if (op_kind == k) return CostKind::kDataMovement;
  if (op_kind == "mean" || op_kind == "reduce_max" || op_kind == "sum") return CostKind::kPooling;
  if (op_kind == "log_softmax" || op_kind == "hard_swish") return CostKind::kSoftmax;
  return CostKind::kElementwise;
}

const std::vector<McuProfile>& mcu_profiles() {
  // The fitted rows and the held-out rows of each fitted profile are listed in
  // bench/data/mlperf_tiny_latency.json; bench/latency_bench.cpp prints the fit and its errors.
  static const std::vector<McuProfile> profiles = [] {
    const McuProfile m4 = make(
        "cortex-m4", "cortex-m4", "cmsis-nn", 168, {6.676, 8.272, 3.949, 0.5, 0.5, 4, 0.5, 2000, 0.14},
        "fitted to MLPerf Tiny v0.5 reference submission, NUCLEO-L4R5ZI at 120 MHz (TFLM 2.3.1 + CMSIS-NN of 2021)",
        "Cortex-M4F (STM32F4/L4/G4, nRF52, SAMD51): CMSIS-NN DSP path (SMLAD); the 2021 kernels, about twice "
        "the cycles per MAC the M33 fit shows for newer ones");
    const McuProfile m33 = make(
        "cortex-m33", "cortex-m33", "cmsis-nn", 200, {3.894, 3.641, 2.894, 0.5, 0.5, 4, 0.5, 1500, 0.13},
        "fitted to MLPerf Tiny v0.7 Renesas EK-RA6M4 at 200 MHz (TFLM + CMSIS-NN)",
        "Cortex-M33 with DSP (RA6M4/M5, STM32U5, nRF5340, nRF54L, RP2350, EFR32MG24): CMSIS-NN DSP path");
    const McuProfile m85 = make(
        "cortex-m85", "cortex-m85", "cmsis-nn", 480, {0.305, 0.628, 0.671, 0.1, 0.125, 1, 0.25, 800, 0.24},
        "fitted to MLPerf Tiny v1.2 Renesas EK-RA8D1 at 480 MHz (TFLM + CMSIS-NN)",
        "Cortex-M85 (RA8D1): CMSIS-NN MVE (Helium) path");
    const McuProfile rv32 = make(
        "riscv32", "riscv32", "reference", 160, {32.949, 41.748, 15.052, 2.0, 1.0, 16, 2.0, 4000, 0.13},
        "fitted to MLPerf Tiny v0.5 Peng Cheng Laboratory PCL Scepu02 at 336 MHz (RV32IMAC, TFLM 2.3.1 "
        "reference kernels)",
        "RV32IMAC with TFLM's reference kernels (ESP32-C3/C6/P4 and other RISC-V MCUs; Xtensa ESP32s run it too)");
    const McuProfile m7 = scaled(m33, "cortex-m7", "cortex-m7", 480, kM7PerM33, 0.30,
                                 "derived: the Cortex-M33 fit x 0.67, the M7/M33 cycle ratio of X-CUBE-AI 7.3 on "
                                 "NUCLEO-H7A3ZI-Q vs NUCLEO-U575ZI-Q (MLPerf Tiny v1.0)",
                                 "Cortex-M7 (STM32F7/H7, i.MX RT): dual issue, CMSIS-NN DSP path; no MLPerf Tiny TFLM row");
    const McuProfile m0plus = scaled(
        m33, "cortex-m0plus", "cortex-m0plus", 133, kM0plusPerM4 * kM4PerM33, 0.40,
        "derived: the Cortex-M33 fit x 1.23 (M4/M33, X-CUBE-AI 7.3, MLPerf Tiny v1.0) x 5.2 (M0+/M4, Bosch HALE on "
        "NUCLEO-G0B1RE vs NUCLEO-L4R5ZI, v1.1)",
        "Cortex-M0+ (RP2040, SAMD21, STM32G0): CMSIS-NN's plain-C path, no DSP extension; no MLPerf Tiny TFLM row");
    const McuProfile m3 = scaled(m0plus, "cortex-m3", "cortex-m3", 72, kM3PerM0plus, 0.50,
                                 "derived: the Cortex-M0+ profile x 0.6, an assumption (no measurement of an M3)",
                                 "Cortex-M3: CMSIS-NN's plain-C path with single-cycle 32-bit multiply-accumulate");
    const McuProfile m55 = scaled(m85, "cortex-m55", "cortex-m55", 400, kM55PerM85, 0.50,
                                  "derived: the Cortex-M85 fit x 1.3, an assumption for the M55's single-issue "
                                  "pipeline (no MLPerf Tiny TFLM row)",
                                  "Cortex-M55 (Alif Ensemble, Himax WE2, STM32N6): CMSIS-NN MVE (Helium) path");
    // TFLM's reference kernels on an Arm core: no MLPerf Tiny row exists, so the RV32IMAC
    // reference fit (a scalar in-order core with single-cycle multiply, as the M0+/M3/M4/M33
    // running portable C) stands in; dual-issue cores at the measured M7/M33 ratio.
    std::vector<McuProfile> out;
    for (const McuProfile* p : {&m0plus, &m3, &m4, &m7, &m33, &m55, &m85}) {
      out.push_back(*p);
      const bool dual_issue = p->core == "cortex-m7" || p->core == "cortex-m85";
      out.push_back(scaled(rv32, p->core + "/reference", p->core, p->clock_mhz, dual_issue ? kM7PerM33 : 1.0, 0.50,
                           std::string("derived: the RV32IMAC reference-kernel fit") + (dual_issue ? " x 0.67 (dual issue)" : "") +
                               "; no MLPerf Tiny row runs TFLM's reference kernels on this core",
                           p->core + " running TFLM's reference (portable C) kernels"));
    }
    out.push_back(rv32);
    return out;
  }();
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

const McuProfile* profile_for_core(const std::string& core, const std::string& kernels) {
  for (const McuProfile& p : mcu_profiles())
    if (p.core == core && (kernels.empty() || p.kernels == kernels)) return &p;
  return nullptr;
}

McuProfile profile_for_board(const MemoryMap& board, std::optional<double> clock_mhz) {
  // Cores without a profile of their own run the nearest one: an Xtensa LX6/LX7 or a RISC-V with
  // TFLM's reference kernels is a scalar in-order core like the fitted RV32IMAC.
  std::string core = board.core;
  if (core.rfind("xtensa", 0) == 0 || core.rfind("riscv", 0) == 0 || core.rfind("rv32", 0) == 0) core = "riscv32";
  if (core == "cortex-m33+nodsp" || core == "cortex-m23") core = "cortex-m3";
  if (core == "cortex-m52") core = "cortex-m55";
  const McuProfile* p = profile_for_core(core, board.kernels);
  if (!p) p = profile_for_core(core, "");
  if (!p)
    throw InputError("--board " + board.name, "no cycle profile for core \"" + board.core +
                                                  "\"; give --profile (see `arenaplan simulate --help`)");
  McuProfile out = *p;
  if (core != board.core) out.assumptions += "; stands in for the board's " + board.core;
  if (board.clock_mhz > 0) out.clock_mhz = board.clock_mhz;
  if (clock_mhz) out.clock_mhz = *clock_mhz;
  return out;
}

int64_t op_cycles(const McuProfile& p, const OpWork& w) {
  const int k = static_cast<int>(w.kind);
  double c = p.op_overhead_cycles + p.cycles_per_mac[k] * static_cast<double>(w.macs) +
             p.cycles_per_element[k] * static_cast<double>(w.alu_ops) +
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

std::string latency_text(const McuProfile& p, double latency_us) {
  char band[32];
  std::snprintf(band, sizeof band, " (+-%.0f %%)", 100 * p.error_band);
  return milliseconds_text(latency_us) + band;
}

const char* cycle_model_note() {
  return "Cycle counts are a model fitted to MLPerf Tiny latencies of TFLM, not a measurement: per-op "
         "overhead + cycles per MAC and per element for the op's kind (conv, depthwise, 1x1, fully connected, "
         "pooling, elementwise, softmax, LSTM, data movement) + cycles per byte loaded/stored per region (arena "
         "SRAM, weights in flash); the band is the error the latency bench measured for the "
         "profile. DMA streams overlap later ops and stall only when they have not finished by their "
         "completion step.";
}

}  // namespace arenaplan::sim
