// Level of detail for dense rectangle views: rectangles smaller than a couple of pixels are
// snapped to the pixel grid and merged with same-coloured neighbours on the same pixel rows, so
// 10,000 thin lifetime bars cost a few hundred primitives instead of 10,000 (software GL pays per
// primitive). Every covered pixel stays covered and a sub-pixel buffer still shows as one pixel;
// what is lost is only detail the screen could not show anyway (borders between sub-pixel
// neighbours). Header-only and free of GL/ImGui so native unit tests check it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

namespace arenaplan::web {

struct LodRect {
  float x0, y0, x1, y1;  // plot units
  uint32_t color;
};

// `units_per_px_x/y`: plot units per framebuffer pixel; `origin_x/y`: plot coordinate of the
// pixel grid's origin (the view's left/top edge). Rectangles at least `keep_px` pixels in both
// directions are kept as they are (they are visible and carry borders), in their original order,
// drawn first; merged ones follow.
template <typename Rect>
std::vector<Rect> merge_subpixel_rects(const std::vector<Rect>& rects, double origin_x, double origin_y,
                                       double units_per_px_x, double units_per_px_y, double keep_px = 2.0) {
  if (!(units_per_px_x > 0) || !(units_per_px_y > 0)) return rects;
  std::vector<Rect> out;
  // (first row, last row + 1, colour) -> pixel-column intervals [c0, c1)
  std::map<std::tuple<int64_t, int64_t, uint32_t>, std::vector<std::pair<int64_t, int64_t>>> bands;
  for (const Rect& r : rects) {
    const double w = (r.x1 - r.x0) / units_per_px_x, h = (r.y1 - r.y0) / units_per_px_y;
    if (w >= keep_px && h >= keep_px) {
      out.push_back(r);
      continue;
    }
    auto cell = [](double v, double origin, double per) { return int64_t(std::floor((v - origin) / per)); };
    const int64_t c0 = cell(r.x0, origin_x, units_per_px_x);
    const int64_t c1 = std::max(c0 + 1, int64_t(std::ceil((r.x1 - origin_x) / units_per_px_x)));
    const int64_t r0 = cell(r.y0, origin_y, units_per_px_y);
    const int64_t r1 = std::max(r0 + 1, int64_t(std::ceil((r.y1 - origin_y) / units_per_px_y)));
    bands[{r0, r1, r.color}].push_back({c0, c1});
  }
  for (auto& [key, spans] : bands) {
    const auto [r0, r1, color] = key;
    std::sort(spans.begin(), spans.end());
    auto emit = [&, r0 = r0, r1 = r1, color = color](int64_t c0, int64_t c1) {
      Rect m{};
      m.x0 = float(origin_x + double(c0) * units_per_px_x);
      m.x1 = float(origin_x + double(c1) * units_per_px_x);
      m.y0 = float(origin_y + double(r0) * units_per_px_y);
      m.y1 = float(origin_y + double(r1) * units_per_px_y);
      m.color = color;
      out.push_back(m);
    };
    int64_t start = spans.front().first, end = spans.front().second;
    for (const auto& [c0, c1] : spans) {
      if (c0 > end) {  // a gap of at least one pixel: the next run starts
        emit(start, end);
        start = c0;
      }
      end = std::max(end, c1);
    }
    emit(start, end);
  }
  return out;
}

}  // namespace arenaplan::web
