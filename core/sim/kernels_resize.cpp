// Model kernels that resample an NHWC image: RESIZE_BILINEAR (float32, TFLM's reference
// interpolation), RESIZE_NEAREST_NEIGHBOR (int8, int16, float32: pixels copied) and
// DEPTH_TO_SPACE (any type).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/sim/detail/model_kernels.h"

namespace arenaplan::sim {

namespace {

// TFLM's ComputeInterpolationValues: the source coordinate and its two clamped neighbours.
void interpolation(float value, float scale, bool half_pixel, int64_t size, float& scaled, int64_t& lo, int64_t& hi) {
  scaled = half_pixel ? (value + 0.5f) * scale - 0.5f : value * scale;
  lo = std::max<int64_t>(static_cast<int64_t>(std::floor(scaled)), 0);
  hi = std::min<int64_t>(static_cast<int64_t>(std::ceil(scaled)), size - 1);
}

// TFLM's GetNearestNeighbor: the source index of output index `o`, in float as TFLM computes it.
int64_t nearest_source(int64_t o, int64_t in, int64_t out, bool align, bool half_pixel) {
  const float scale = align && out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
                                       : static_cast<float>(in) / static_cast<float>(out);
  const float at = (static_cast<float>(o) + (half_pixel ? 0.5f : 0.0f)) * scale;
  int64_t s = std::min<int64_t>(align ? static_cast<int64_t>(tflm::round_half_away(at)) : static_cast<int64_t>(std::floor(at)), in - 1);
  if (half_pixel) s = std::max<int64_t>(s, 0);
  return s;
}

// Input and output NHWC of one batch and depth, the size operand a constant matching the output.
void check_resize_shapes(const KernelContext& c, const char* kind, const std::vector<int64_t>& x, const std::vector<int64_t>& y) {
  c.require(c.inputs() == 2, std::string(kind) + " expects an image and a size operand");
  c.require(x.size() == 4 && y.size() == 4 && x[0] == y[0] && x[3] == y[3], "input and output must be NHWC of one batch and depth");
  const auto size = c.const_ints(c.in(1));
  c.require(size.size() == 2 && size[0] == y[1] && size[1] == y[2], "the size operand does not match the output");
}

}  // namespace

ModelKernel prepare_resize_nearest_neighbor(const KernelContext& c) {
  const Tensor &xt = c.in(0), &yt = c.out(0);
  const auto x = c.dims(xt), y = c.dims(yt);
  check_resize_shapes(c, "resize_nearest_neighbor", x, y);
  c.require(xt.dtype == yt.dtype && (c.is(yt, DType::kInt8) || c.is(yt, DType::kInt16) || c.is(yt, DType::kFloat32)),
            "resize_nearest_neighbor runs int8, int16 or float32 (input and output of one type)");
  const bool align = c.attr("align_corners", 0) != 0, half = c.attr("half_pixel_centers", 0) != 0;
  const int64_t n = x[0], ih = x[1], iw = x[2], oh = y[1], ow = y[2];
  const size_t pixel = static_cast<size_t>(x[3] * dtype_width(*yt.dtype));  // bytes of one pixel's channels
  std::vector<int64_t> src_y(static_cast<size_t>(oh)), src_x(static_cast<size_t>(ow));
  for (int64_t o = 0; o < oh; ++o) src_y[o] = nearest_source(o, ih, oh, align, half);
  for (int64_t o = 0; o < ow; ++o) src_x[o] = nearest_source(o, iw, ow, align, half);
  ModelKernel k{"resize_nearest_neighbor"};
  k.work.alu_ops = c.count(yt);
  k.run = [=](const Operand* in, const Operand* out) {
    uint8_t* dst = out[0].data;
    for (int64_t b = 0; b < n; ++b)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox, dst += pixel)
          std::memcpy(dst, in[0].data + static_cast<size_t>((b * ih + src_y[oy]) * iw + src_x[ox]) * pixel, pixel);
  };
  return k;
}

ModelKernel prepare_resize_bilinear(const KernelContext& c) {
  const Tensor &xt = c.in(0), &yt = c.out(0);
  const auto x = c.dims(xt), y = c.dims(yt);
  check_resize_shapes(c, "resize_bilinear", x, y);
  c.require(c.is(xt, DType::kFloat32) && c.is(yt, DType::kFloat32), "resize_bilinear runs float32 only");
  const bool align = c.attr("align_corners", 0) != 0, half = c.attr("half_pixel_centers", 0) != 0;
  const int64_t n = x[0], ih = x[1], iw = x[2], d = x[3], oh = y[1], ow = y[2];
  float hs = static_cast<float>(ih) / static_cast<float>(oh), ws = static_cast<float>(iw) / static_cast<float>(ow);
  if (align && oh > 1) hs = static_cast<float>(ih - 1) / static_cast<float>(oh - 1);
  if (align && ow > 1) ws = static_cast<float>(iw - 1) / static_cast<float>(ow - 1);
  ModelKernel k{"resize_bilinear float32"};
  k.work.alu_ops = 8 * c.count(yt);
  k.run = [=](const Operand* in, const Operand* out) {
    const float* src = as<float>(in[0]);
    float* dst = as_mut<float>(out[0]);
    auto at = [&](int64_t b, int64_t yy, int64_t xx, int64_t ch) { return src[((b * ih + yy) * iw + xx) * d + ch]; };
    for (int64_t b = 0; b < n; ++b)
      for (int64_t oy = 0; oy < oh; ++oy) {
        float sy;
        int64_t y0, y1;
        interpolation(static_cast<float>(oy), hs, half, ih, sy, y0, y1);
        for (int64_t ox = 0; ox < ow; ++ox) {
          float sx;
          int64_t x0, x1;
          interpolation(static_cast<float>(ox), ws, half, iw, sx, x0, x1);
          const float dy = sy - static_cast<float>(y0), dx = sx - static_cast<float>(x0);
          for (int64_t ch = 0; ch < d; ++ch)
            dst[((b * oh + oy) * ow + ox) * d + ch] = at(b, y0, x0, ch) * (1 - dy) * (1 - dx) + at(b, y1, x0, ch) * dy * (1 - dx) +
                                                       at(b, y0, x1, ch) * (1 - dy) * dx + at(b, y1, x1, ch) * dy * dx;
        }
      }
  };
  return k;
}

ModelKernel prepare_depth_to_space(const KernelContext& c) {
  const Tensor &xt = c.in(0), &yt = c.out(0);
  const auto x = c.dims(xt), y = c.dims(yt);
  const int64_t bs = c.attr("block_size", 0);
  c.require(bs >= 1 && x.size() == 4 && y.size() == 4 && x[0] == y[0] && x[1] * bs == y[1] && x[2] * bs == y[2] &&
                x[3] == y[3] * bs * bs,
            "shapes do not match block_size " + std::to_string(bs));
  c.require(xt.dtype == yt.dtype, "input and output types differ");
  const int w = dtype_width(*yt.dtype);
  const int64_t ih = x[1], iw = x[2], id = x[3], oh = y[1], ow = y[2], od = y[3], n = y[0];
  ModelKernel k{"depth_to_space"};
  k.work.alu_ops = c.count(yt);
  k.run = [=](const Operand* in, const Operand* out) {
    for (int64_t b = 0; b < n; ++b)
      for (int64_t oy = 0; oy < oh; ++oy)
        for (int64_t ox = 0; ox < ow; ++ox)
          for (int64_t ch = 0; ch < od; ++ch) {
            const int64_t ic = ch + ((oy % bs) * bs + ox % bs) * od;
            const int64_t src = ((b * ih + oy / bs) * iw + ox / bs) * id + ic;
            const int64_t dst = ((b * oh + oy) * ow + ox) * od + ch;
            std::memcpy(out[0].data + dst * w, in[0].data + src * w, static_cast<size_t>(w));
          }
  };
  return k;
}

}  // namespace arenaplan::sim
