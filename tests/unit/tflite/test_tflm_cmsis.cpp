// The TFLM arena with CMSIS-NN kernels (and the reference kernels on a Cortex-M toolchain) against
// figures measured in the real TFLM built with arm-none-eabi-gcc and run under QEMU for the
// project's own models (tests/unit/data/tflm/README.md, "CMSIS-NN and Cortex-M"), and CMSIS-NN's
// buffer-size rules against the sizes its sources state.
#include <string>
#include <vector>

#include "core/tflite/detail/tflm_cmsis_kernels.h"
#include "core/tflite/tflm_arena.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using arenaplan::test::read_tflm_fixture;

namespace {

// One measurement: the figures of RecordingMicroAllocator's kernel_persistent_buffers category
// (count, requested) and the plain allocator's min arena, used, head and tail, the latter two for
// an arena of exactly the minimum size (the measurement over a large arena at the same end
// alignment).
struct Measured {
  const char* model;
  const char* core;
  TflmKernels kernels;
  Bytes min_arena, used, head, tail;
  int buffers;
  Bytes buffers_requested;
};

constexpr TflmKernels kCmsis = TflmKernels::kCmsisNn, kRef = TflmKernels::kReference;

// QEMU (mps2-an386 cortex-m4, mps3-an547 cortex-m55, mps2-an385 cortex-m3) and x86-64 host
// builds of tflite-micro 90b983c2 with CMSIS-NN 4ab83cc3.
const Measured kMeasured[] = {
    {"ds_cnn_small", "cortex-m4", kCmsis, 12172, 12160, 9024, 3136, 25, 1788},
    {"int8_branches_small", "cortex-m4", kCmsis, 11484, 11472, 9216, 2256, 21, 1116},
    {"int8_inception", "cortex-m4", kCmsis, 54332, 54320, 50176, 4144, 38, 2396},
    {"svdf_int8", "cortex-m4", kCmsis, 2724, 1784, 176, 1608, 8, 368},
    {"svdf_float", "cortex-m4", kCmsis, 3028, 2308, 288, 2020, 8, 368},
    {"ds_cnn_small", "cortex-m55", kCmsis, 21612, 21600, 18416, 3184, 26, 1836},
    {"int8_branches_small", "cortex-m55", kCmsis, 11532, 11520, 9216, 2304, 22, 1156},
    {"int8_inception", "cortex-m55", kCmsis, 54380, 54368, 50176, 4192, 39, 2436},
    {"svdf_int8", "cortex-m55", kCmsis, 3092, 2152, 176, 1976, 13, 736},
    {"svdf_float", "cortex-m55", kCmsis, 3028, 2308, 288, 2020, 8, 368},
    {"ds_cnn_small", "cortex-m3", kCmsis, 12156, 12144, 9024, 3120, 25, 1788},
    {"int8_branches_small", "cortex-m3", kCmsis, 11484, 11472, 9216, 2256, 21, 1116},
    {"int8_inception", "cortex-m3", kCmsis, 54332, 54320, 50176, 4144, 38, 2396},
    {"svdf_int8", "cortex-m3", kCmsis, 2724, 1784, 176, 1608, 8, 368},
    {"svdf_float", "cortex-m3", kCmsis, 3028, 2308, 288, 2020, 8, 368},
    {"ds_cnn_small", "x86-64", kCmsis, 13248, 13248, 9024, 4224, 25, 1964},
    {"int8_branches_small", "x86-64", kCmsis, 12480, 12480, 9216, 3264, 21, 1268},
    {"int8_inception", "x86-64", kCmsis, 55864, 55864, 50176, 5688, 38, 2664},
    {"svdf_int8", "x86-64", kCmsis, 3696, 2576, 176, 2400, 8, 488},
    {"svdf_float", "x86-64", kCmsis, 3952, 3056, 288, 2768, 8, 488},
    {"ds_cnn_small", "cortex-m4", kRef, 12088, 12076, 9024, 3052, 25, 1724},
    {"int8_branches_small", "cortex-m4", kRef, 11420, 11408, 9216, 2192, 21, 1064},
    {"int8_inception", "cortex-m4", kRef, 54268, 54256, 50176, 4080, 38, 2324},
    {"svdf_int8", "cortex-m4", kRef, 2636, 1696, 176, 1520, 8, 280},
    {"svdf_float", "cortex-m4", kRef, 2940, 2220, 288, 1932, 8, 280},
};

TflmArena sized(const Measured& m) {
  TflmArenaOptions o;
  o.target = tflm_target_for_core(m.core, m.kernels);
  return tflm_arena(read_tflm_fixture(std::string(m.model) + ".tflite"), o);
}

}  // namespace

TEST_CASE("CMSIS-NN arenas: every figure measured in TFLM on Cortex-M and on a host, to the byte") {
  for (const Measured& m : kMeasured) {
    CAPTURE(m.model);
    CAPTURE(m.core);
    CAPTURE(tflm_kernels_name(m.kernels));
    const TflmArena a = sized(m);
    CHECK(a.min_arena_bytes == m.min_arena);
    CHECK(a.arena_used_bytes == m.used);
    CHECK(a.head_bytes == m.head);
    CHECK(a.tail_bytes == m.tail);
    for (const TflmCategory& c : a.categories)
      if (c.name == "kernel_persistent_buffers") {
        CHECK(c.count == m.buffers);
        CHECK(c.requested_bytes == m.buffers_requested);
      }
    CHECK(a.estimated_ops.empty());
  }
}

TEST_CASE("CMSIS-NN buffer rules: im2col, the 3x3 depthwise fast path, MVE's channel blocks") {
  using tflm::NnDims;
  using tflm::Window;
  const Window same3{1, 1, 1, 1, 1, 1};  // stride 1, dilation 1, pads of 1
  // A 3x3 conv over 24 channels: 216 columns, two int16 im2col columns (DSP, plain C); four rows
  // of whole 16-byte Q registers on MVE (14 x 16).
  const NnDims in{1, 12, 2, 24}, f3{1, 3, 3, 24}, out{1, 12, 2, 32};
  CHECK(tflm::convolve_wrapper_s8_buffer_size(CmsisNnIsa::kDsp, same3, in, f3, out) == 2 * 216 * 2);
  CHECK(tflm::convolve_wrapper_s8_buffer_size(CmsisNnIsa::kPlainC, same3, in, f3, out) == 2 * 216 * 2);
  CHECK(tflm::convolve_wrapper_s8_buffer_size(CmsisNnIsa::kMve, same3, in, f3, out) == 4 * 14 * 16);
  // Columns rounded up to 4 on DSP: 10x4 over one channel is 40, 3x3 over 3 channels 27 -> 28.
  CHECK(tflm::convolve_wrapper_s8_buffer_size(CmsisNnIsa::kDsp, Window{2, 2, 1, 1, 4, 1}, NnDims{1, 49, 10, 1},
                                              NnDims{1, 10, 4, 1}, NnDims{1, 25, 5, 16}) == 160);
  CHECK(tflm::convolve_wrapper_s8_buffer_size(CmsisNnIsa::kDsp, same3, NnDims{1, 8, 8, 3}, NnDims{1, 3, 3, 3},
                                              NnDims{1, 8, 8, 8}) == 2 * 28 * 2);
  // 1x1 without padding: no buffer, whatever the stride (gcc builds).
  const Window one{2, 2, 1, 1, 0, 0};
  for (CmsisNnIsa isa : {CmsisNnIsa::kPlainC, CmsisNnIsa::kDsp, CmsisNnIsa::kMve})
    CHECK(tflm::convolve_wrapper_s8_buffer_size(isa, one, NnDims{1, 8, 8, 16}, NnDims{1, 1, 1, 16},
                                                NnDims{1, 4, 4, 8}) == 0);

  // Depthwise 3x3 with pads <= 1: no buffer on DSP; MVE asks 4 x 124 x 9 = 4,464 B whatever the
  // channel count; plain C never asks.
  for (int32_t c : {8, 64, 200}) {
    const NnDims dw_in{1, 10, 10, c}, dw_f{1, 3, 3, c}, dw_out{1, 10, 10, c};
    CHECK(tflm::depthwise_conv_wrapper_s8_buffer_size(CmsisNnIsa::kDsp, same3, dw_in, dw_f, dw_out) == 0);
    CHECK(tflm::depthwise_conv_wrapper_s8_buffer_size(CmsisNnIsa::kMve, same3, dw_in, dw_f, dw_out) == 4464);
    CHECK(tflm::depthwise_conv_wrapper_s8_buffer_size(CmsisNnIsa::kPlainC, same3, dw_in, dw_f, dw_out) == 0);
  }
  // 5x5 (pads of 2): DSP's generic buffer of channels x 25 int16.
  const Window same5{1, 1, 1, 1, 2, 2};
  CHECK(tflm::depthwise_conv_wrapper_s8_buffer_size(CmsisNnIsa::kDsp, same5, NnDims{1, 25, 5, 24},
                                                    NnDims{1, 5, 5, 24}, NnDims{1, 25, 5, 24}) == 24 * 25 * 2);
  // A depth multiplier (output channels != input channels) takes no optimised path on DSP.
  CHECK(tflm::depthwise_conv_wrapper_s8_buffer_size(CmsisNnIsa::kDsp, same5, NnDims{1, 25, 5, 8},
                                                    NnDims{1, 5, 5, 16}, NnDims{1, 25, 5, 16}) == 0);
}

TEST_CASE("TFLM targets: a core gives the pointer and enum size and CMSIS-NN's code path") {
  const TflmTarget m4 = tflm_target_for_core("cortex-m4", TflmKernels::kCmsisNn);
  CHECK(m4.pointer_bytes == 4);
  CHECK(m4.enum_bytes == 1);
  CHECK(m4.isa == CmsisNnIsa::kDsp);
  CHECK(tflm_target_for_core("cortex-m0plus", TflmKernels::kCmsisNn).isa == CmsisNnIsa::kPlainC);
  CHECK(tflm_target_for_core("cortex-m55", TflmKernels::kCmsisNn).isa == CmsisNnIsa::kMve);
  CHECK(tflm_target_for_core("cortex-m85", TflmKernels::kReference).kernels == TflmKernels::kReference);
  const TflmTarget host = tflm_target_for_core("x86-64", TflmKernels::kCmsisNn);
  CHECK(host.pointer_bytes == 8);
  CHECK(host.enum_bytes == 4);
  CHECK(host.isa == CmsisNnIsa::kPlainC);
  CHECK(tflm_target_text(m4) == "CMSIS-NN kernels (dsp) for cortex-m4, 32-bit pointers, 1-byte enums");

  CHECK(test::input_error_of([] { tflm_target_for_core("cortex-m99", TflmKernels::kCmsisNn); }).rfind(
            "--core: unknown core \"cortex-m99\"; known: cortex-m0, ", 0) == 0);
  CHECK(test::input_error_of([] { parse_tflm_kernels("cmsis"); }) ==
        "--kernels: expected reference or cmsis-nn, found \"cmsis\"");
  TflmTarget bad;
  bad.pointer_bytes = 8;
  bad.enum_bytes = 1;
  CHECK(test::input_error_of([&] { check_tflm_target(bad); }) ==
        "--enum-bytes: short enums are modelled for 32-bit targets only");
  bad.pointer_bytes = 4;
  bad.enum_bytes = 2;
  CHECK(test::input_error_of([&] { check_tflm_target(bad); }) == "--enum-bytes: expected 1 or 4, found 2");

  // The JSON names the kernels, their version and the code path.
  const nlohmann::ordered_json j = tflm_arena_json(sized(kMeasured[0]));
  CHECK(j["kernels"] == "cmsis-nn");
  CHECK(j["cmsis_nn_isa"] == "dsp");
  CHECK(j["cmsis_nn_version"] == "CMSIS-NN@4ab83cc3cc98fb85ed6dafb55e8ca02f1628dcae");
  CHECK(j["enum_bytes"] == 1);
  CHECK(j["core"] == "cortex-m4");
}
