// web/rect_lod.h: merging sub-pixel rectangles must keep exactly the pixels the screen would
// show (each input rectangle snapped outward to whole pixels), per colour.
#include <doctest/doctest.h>

#include <random>
#include <set>
#include <tuple>

#include "web/rect_lod.h"

using arenaplan::web::LodRect;
using arenaplan::web::merge_subpixel_rects;

namespace {

using Pixel = std::tuple<int, int, uint32_t>;  // column, row, colour

// Pixels whose centre lies inside `r` snapped outward to the grid (1 unit = 1 pixel here).
void cover(std::set<Pixel>& px, const LodRect& r) {
  const int c0 = int(std::floor(r.x0)), c1 = std::max(c0 + 1, int(std::ceil(r.x1)));
  const int r0 = int(std::floor(r.y0)), r1 = std::max(r0 + 1, int(std::ceil(r.y1)));
  for (int y = r0; y < r1; ++y)
    for (int x = c0; x < c1; ++x) px.insert({x, y, r.color});
}

}  // namespace

TEST_CASE("rect LOD: large rectangles pass through unchanged and first") {
  const std::vector<LodRect> in = {{0, 0, 10, 5, 1}, {2.2f, 7.1f, 2.4f, 7.2f, 2}, {20, 0, 30, 3, 3}};
  const auto out = merge_subpixel_rects(in, 0, 0, 1, 1);
  REQUIRE(out.size() == 3);
  CHECK(out[0].x1 == 10);
  CHECK(out[1].x0 == 20);
  // The sub-pixel one became one whole pixel.
  CHECK(out[2].x0 == 2);
  CHECK(out[2].x1 == 3);
  CHECK(out[2].y0 == 7);
  CHECK(out[2].y1 == 8);
}

TEST_CASE("rect LOD: thousands of thin bars merge into far fewer, covering the same pixels per colour") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> x(0, 400), len(0.05f, 40), y(0, 100);
  std::vector<LodRect> in;
  for (int i = 0; i < 10000; ++i) {
    const float x0 = x(rng), y0 = y(rng);
    in.push_back({x0, y0, x0 + len(rng), y0 + 0.3f, uint32_t(rng() % 4)});
  }
  const auto out = merge_subpixel_rects(in, 0, 0, 1, 1);
  CHECK(out.size() < in.size() / 2);
  std::set<Pixel> want, got;
  for (const LodRect& r : in) cover(want, r);
  for (const LodRect& r : out) cover(got, r);
  CHECK(got == want);
}

TEST_CASE("rect LOD: a zoomed-out view (many units per pixel) and a shifted origin") {
  // 1 pixel = 8 units across, 0.5 units down; the grid starts at (100, 10).
  const std::vector<LodRect> in = {{100, 10, 104, 10.2f, 9}, {104, 10.1f, 108, 10.3f, 9}, {124, 10, 126, 10.1f, 9}};
  const auto out = merge_subpixel_rects(in, 100, 10, 8, 0.5);
  REQUIRE(out.size() == 2);  // the first two touch the same pixel; the third is a pixel apart
  CHECK(out[0].x0 == 100);
  CHECK(out[0].x1 == 108);
  CHECK(out[1].x0 == 124);
  CHECK(out[1].x1 == 132);
}
