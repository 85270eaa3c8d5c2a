// QUANTIZE and DEQUANTIZE with uint8 and int16 tensors (a camera's uint8 input, an int16 audio
// model's edges), and int16 LOGISTIC and TANH (TFLM's interpolated sigmoid table): against the
// definitions and against values worked by hand from TFLM's documented arithmetic.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "core/sim/detail/tflm_math.h"
#include "tests/unit/sim_one_op.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using test::bytes_of;
using test::OneOpModel;
using test::quant;
using test::values_of;

namespace {

std::vector<uint8_t> every_uint8() {
  std::vector<uint8_t> v;
  for (int i = 0; i <= 255; ++i) v.push_back(static_cast<uint8_t>(i));
  return v;
}

std::vector<int16_t> every_int16(int step) {
  std::vector<int16_t> v;
  for (int i = -32768; i <= 32767; i += step) v.push_back(static_cast<int16_t>(i));
  return v;
}

// A one-op unary model from `x` to a tensor `y` of `y_type`; returns y's bytes.
template <class In>
std::vector<uint8_t> run_unary(const char* kind, const std::vector<In>& xs, DType x_type, Quantization qx, DType y_type,
                               std::optional<Quantization> qy) {
  OneOpModel m;
  const int64_t n = static_cast<int64_t>(xs.size());
  TensorId x = m.input("x", {n}, x_type, bytes_of(xs), qx);
  TensorId y = m.tensor("y", {n}, y_type, qy);
  m.op("op", kind, {x}, {y});
  return m.run({y})[0];
}

std::string refusal_of(const char* kind, DType x_type, Quantization qx, DType y_type, std::optional<Quantization> qy) {
  OneOpModel m;
  TensorId x = m.tensor("x", {4}, x_type, qx);
  TensorId y = m.tensor("y", {4}, y_type, qy);
  m.op("op", kind, {x}, {y});
  return m.refusal();
}

}  // namespace

TEST_CASE("quantize uint8 -> int8: the 128 shift of a camera input, and a rescale; int8 -> uint8 back") {
  const auto xs = every_uint8();
  auto shifted = values_of<int8_t>(run_unary("quantize", xs, DType::kUInt8, quant(0.02f, 128), DType::kInt8, quant(0.02f, 0)));
  for (int i = 0; i <= 255; ++i) CHECK(shifted[i] == i - 128);

  // 0.02 / 0.025 = 0.8, a multiplier of shift 0, so TFLM rounds once (a ratio below one half
  // rounds twice: 0.4 would give 1 for x - zp = 1); (x - 10) * 0.8 is never a tie.
  auto rescaled = values_of<int8_t>(run_unary("quantize", xs, DType::kUInt8, quant(0.02f, 10), DType::kInt8, quant(0.025f, -3)));
  for (int i = 0; i <= 255; ++i) {
    CAPTURE(i);
    const long want = std::lround(0.8 * (i - 10)) - 3;
    CHECK(rescaled[i] == std::clamp<long>(want, -128, 127));
  }

  std::vector<int8_t> signed_xs;
  for (int i = -128; i <= 127; ++i) signed_xs.push_back(static_cast<int8_t>(i));
  auto back = run_unary("quantize", signed_xs, DType::kInt8, quant(0.02f, 0), DType::kUInt8, quant(0.02f, 128));
  for (int i = 0; i <= 255; ++i) CHECK(int{back[i]} == i);

  CHECK(refusal_of("quantize", DType::kUInt8, quant(0.02f, 128), DType::kInt16, quant(0.02f, 0)).find(
            "quantize from uint8 runs to int8 only (TFLM)") != std::string::npos);
  CHECK(refusal_of("quantize", DType::kInt16, quant(0.02f, 0), DType::kUInt8, quant(0.02f, 128)).find(
            "quantize to uint8 runs from int8 only (TFLM)") != std::string::npos);
  CHECK(refusal_of("quantize", DType::kFloat32, quant(1.f, 0), DType::kUInt8, quant(0.02f, 128)).find("float32") !=
        std::string::npos);
}

TEST_CASE("dequantize uint8 and int16 -> float32: (x - zero point) * scale in double, rounded once") {
  const auto us = every_uint8();
  auto fu = values_of<float>(run_unary("dequantize", us, DType::kUInt8, quant(0.0173f, 131), DType::kFloat32, {}));
  for (int i = 0; i <= 255; ++i) CHECK(fu[i] == static_cast<float>(double{0.0173f} * (i - 131)));
  const auto ss = every_int16(97);
  auto fs = values_of<float>(run_unary("dequantize", ss, DType::kInt16, quant(3.1e-4f, -5), DType::kFloat32, {}));
  for (size_t i = 0; i < ss.size(); ++i) CHECK(fs[i] == static_cast<float>(double{3.1e-4f} * (ss[i] + 5)));
  CHECK(refusal_of("dequantize", DType::kInt32, quant(0.5f, 0), DType::kFloat32, {}).find("int8, uint8, int16") !=
        std::string::npos);
}

TEST_CASE("int16 logistic and tanh: TFLM's table, worked by hand, and within the table's error of the functions") {
  // Scale 2^-12: the power-of-two case (multiplier 3, no shift). x = 1000 -> 3000 on the table's
  // scale: logistic reads entries 5 and 6 (36169, 36843) at 440/512: (36169*512 + 440*674 + 512)
  // >> 10 = 18374; tanh reads entries 11 and 12 (40149, 40794) at 184/256:
  // (40149*256 + 184*645 - 2^23 + 128) >> 8 = 7845.
  const Quantization q12 = quant(1.0f / 4096, 0), q15 = quant(1.0f / 32768, 0);
  // For -1000 the symmetric forms: (2^25 - 18815088 + 511) >> 10 = 14394 and
  // (-10396824 + 2^23 + 127) >> 8 = -7845 (an arithmetic shift: floor).
  const std::vector<int16_t> probe = {0, 1000, -1000};
  auto lg = values_of<int16_t>(run_unary("logistic", probe, DType::kInt16, q12, DType::kInt16, q15));
  CHECK(lg == std::vector<int16_t>{16384, 18374, 14394});
  auto th = values_of<int16_t>(run_unary("tanh", probe, DType::kInt16, q12, DType::kInt16, q15));
  CHECK(th == std::vector<int16_t>{0, 7845, -7845});

  // A scale that is no power of two takes Prepare's multiplier; the outputs stay within the
  // table's interpolation error of the real functions over the whole int16 range.
  for (float sx : {1.0f / 4096, 1.0f / 3000, 0.0007f}) {
    CAPTURE(sx);
    const auto xs = every_int16(13);
    auto l = values_of<int16_t>(run_unary("logistic", xs, DType::kInt16, quant(sx, 0), DType::kInt16, q15));
    auto t = values_of<int16_t>(run_unary("tanh", xs, DType::kInt16, quant(sx, 0), DType::kInt16, q15));
    for (size_t i = 0; i < xs.size(); ++i) {
      CAPTURE(xs[i]);
      const double real = double{sx} * xs[i];
      const double want_l = std::min(32767.0, 32768.0 / (1.0 + std::exp(-real)));
      const double want_t = std::clamp(32768.0 * std::tanh(real), -32768.0, 32767.0);
      CHECK(std::fabs(l[i] - want_l) <= 8.0);
      CHECK(std::fabs(t[i] - want_t) <= 16.0);
      if (i > 0) CHECK(l[i] >= l[i - 1]);
      if (i > 0) CHECK(t[i] >= t[i - 1]);
    }
  }

  CHECK(refusal_of("logistic", DType::kInt16, quant(1.0f / 4096, 3), DType::kInt16, q15).find(
            "int16 logistic and tanh need zero points 0 (TFLM)") != std::string::npos);
  CHECK(refusal_of("tanh", DType::kInt16, quant(1e30f, 0), DType::kInt16, q15).find("out of TFLM's range") !=
        std::string::npos);
  CHECK(refusal_of("logistic", DType::kInt16, quant(1e-30f, 0), DType::kInt16, q15).find("out of TFLM's range") !=
        std::string::npos);
  CHECK(refusal_of("tanh", DType::kInt16, q12, DType::kInt16, quant(1.0f / 256, 0)).find(
            "int16 logistic and tanh need output scale 2^-15 (TFLM)") != std::string::npos);
}
