// Model kernels that resample an NHWC image: RESIZE_BILINEAR (float32 and int8, TFLM's reference
// interpolation), RESIZE_NEAREST_NEIGHBOR (int8, int16, float32: pixels copied),
// DEPTH_TO_SPACE and SPACE_TO_DEPTH (int8, float32).
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

// TFLM's ComputeInterpolationValuesInteger: the source coordinate in 1/1024ths and its neighbours
// (C++ division truncates toward zero, as TFLM's does).
void interpolation_10(int32_t value, int32_t scale_10, bool half_pixel, int32_t size, int32_t& scaled, int32_t& lo, int32_t& hi) {
  scaled = half_pixel ? value * scale_10 + scale_10 / 2 - (1 << 9) : value * scale_10;
  lo = std::max(scaled / (1 << 10), 0);
  hi = std::min((scaled + (1 << 10) - 1) / (1 << 10), size - 1);
}

// TFLM's ResizeBilinearInteger: weights in 1/1024ths, the sum of four products in 2^-20, rounded
// half away from zero (TFLM's default double rounding build).
ModelKernel resize_bilinear_int8(const std::vector<int64_t>& x, const std::vector<int64_t>& y, bool align, bool half) {
  const int32_t n = static_cast<int32_t>(x[0]), ih = static_cast<int32_t>(x[1]), iw = static_cast<int32_t>(x[2]);
  const int32_t d = static_cast<int32_t>(x[3]), oh = static_cast<int32_t>(y[1]), ow = static_cast<int32_t>(y[2]);
  int32_t hs = ((1 << 10) * ih + oh / 2) / oh, ws = ((1 << 10) * iw + ow / 2) / ow;
  if (align && oh > 1) hs = ((1 << 10) * (ih - 1) + (oh - 1) / 2) / (oh - 1);
  if (align && ow > 1) ws = ((1 << 10) * (iw - 1) + (ow - 1) / 2) / (ow - 1);
  ModelKernel k{"resize_bilinear int8"};
  k.work.alu_ops = 8 * int64_t{n} * oh * ow * d;
  k.run = [=](const Operand* in, const Operand* out) {
    const int8_t* src = as<int8_t>(in[0]);
    int8_t* dst = as_mut<int8_t>(out[0]);
    auto at = [&](int32_t b, int32_t yy, int32_t xx, int32_t ch) {
      return int64_t{src[((int64_t{b} * ih + yy) * iw + xx) * d + ch]};
    };
    for (int32_t b = 0; b < n; ++b)
      for (int32_t oy = 0; oy < oh; ++oy) {
        int32_t sy, y0, y1;
        interpolation_10(oy, hs, half, ih, sy, y0, y1);
        const int64_t dy = sy - (1 << 10) * y0;
        for (int32_t ox = 0; ox < ow; ++ox) {
          int32_t sx, x0, x1;
          interpolation_10(ox, ws, half, iw, sx, x0, x1);
          const int64_t dx = sx - (1 << 10) * x0;
          for (int32_t ch = 0; ch < d; ++ch) {
            const int64_t v = at(b, y0, x0, ch) * ((1 << 10) - dy) * ((1 << 10) - dx) +
                              at(b, y1, x0, ch) * dy * ((1 << 10) - dx) + at(b, y0, x1, ch) * ((1 << 10) - dy) * dx +
                              at(b, y1, x1, ch) * dy * dx;
            const int64_t round = v > 0 ? (1 << 19) : -(1 << 19);
            dst[((int64_t{b} * oh + oy) * ow + ox) * d + ch] = static_cast<int8_t>((v + round) / (1 << 20));
          }
        }
      }
  };
  return k;
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
  const bool align = c.attr("align_corners", 0) != 0, half = c.attr("half_pixel_centers", 0) != 0;
  c.require(!(align && half), "resize_bilinear refuses align_corners with half_pixel_centers (TFLM)");
  if (c.is(xt, DType::kInt8) && c.is(yt, DType::kInt8)) {
    // TFLM's 1/1024 coordinates are int32: larger images overflow them.
    for (int64_t v : {x[1], x[2], y[1], y[2], x[3]}) c.require(v >= 1 && v < (1 << 20), "resize_bilinear int8: a dimension beyond 2^20");
    return resize_bilinear_int8(x, y, align, half);
  }
  c.require(c.is(xt, DType::kFloat32) && c.is(yt, DType::kFloat32), "resize_bilinear runs float32 or int8 (TFLM)");
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

namespace {

// DEPTH_TO_SPACE and SPACE_TO_DEPTH move the same elements in opposite directions: element
// (b, y, x, c) of the shallow tensor [N, H, W, C] is element (b, y / bs, x / bs,
// c + ((y % bs) * bs + x % bs) * C) of the deep one [N, H / bs, W / bs, C * bs * bs].
ModelKernel block_rearrange(const KernelContext& c, bool to_depth) {
  const char* kind = to_depth ? "space_to_depth" : "depth_to_space";
  c.require(c.inputs() == 1 && c.outputs() == 1, std::string(kind) + " expects one input and one output");
  const Tensor &xt = c.in(0), &yt = c.out(0);
  c.require(xt.dtype == yt.dtype && (c.is(xt, DType::kFloat32) || c.is(xt, DType::kInt8)),
            std::string(kind) + " runs float32 or int8 (TFLM)");
  const auto shallow = c.dims(to_depth ? xt : yt), deep = c.dims(to_depth ? yt : xt);
  const int64_t bs = c.attr("block_size", 0);
  c.require(bs >= 1 && shallow.size() == 4 && deep.size() == 4 && deep[0] == shallow[0] && deep[1] * bs == shallow[1] &&
                deep[2] * bs == shallow[2] && deep[3] == shallow[3] * bs * bs,
            "shapes do not match block_size " + std::to_string(bs));
  const size_t w = static_cast<size_t>(dtype_width(*yt.dtype));
  const int64_t n = shallow[0], h = shallow[1], wd = shallow[2], ch = shallow[3], dh = deep[1], dw = deep[2], dc = deep[3];
  ModelKernel k{to_depth ? "space_to_depth" : "depth_to_space"};
  k.work.alu_ops = c.count(yt);
  k.run = [=](const Operand* in, const Operand* out) {
    for (int64_t b = 0; b < n; ++b)
      for (int64_t y = 0; y < h; ++y)
        for (int64_t x = 0; x < wd; ++x)
          for (int64_t z = 0; z < ch; ++z) {
            const size_t flat = static_cast<size_t>(((b * h + y) * wd + x) * ch + z) * w;
            const size_t stacked = static_cast<size_t>(((b * dh + y / bs) * dw + x / bs) * dc + z + ((y % bs) * bs + x % bs) * ch) * w;
            if (to_depth) std::memcpy(out[0].data + stacked, in[0].data + flat, w);
            else std::memcpy(out[0].data + flat, in[0].data + stacked, w);
          }
  };
  return k;
}

}  // namespace

ModelKernel prepare_depth_to_space(const KernelContext& c) { return block_rearrange(c, false); }
ModelKernel prepare_space_to_depth(const KernelContext& c) { return block_rearrange(c, true); }

}  // namespace arenaplan::sim
