// The schedule text view stays readable and linear on graphs with thousands of live buffers: each
// live-set cell is cut to its width and says how many buffers it left out.
#include <doctest/doctest.h>

#include <sstream>

#include "core/schedule/schedule.h"
#include "core/schedule/schedule_generators.h"
#include "core/schedule/schedule_json.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;

TEST_CASE("schedule text: a step with hundreds of live buffers shows the first names and how many more") {
  const Graph g = many_outputs_chain_graph(1200, 400, 7);
  ScheduleResult r;
  r.order = g.file_order();
  r.method = "file order";
  const LiveAnalysis live = analyze_lifetimes(g, r.order);
  const std::string text = schedule_text(g, r);
  std::istringstream lines(text);
  std::string line;
  int step_rows = 0, cut_rows = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("chosen order", 0) == 0) break;  // the order itself is one long line by design
    CHECK(line.size() < 200);
    // A step row: "   s  op  live  <set>  op  live  <set>"; check the chosen column's count.
    std::istringstream row(line);
    Step s = -1;
    if (!(row >> s) || s < 0 || s >= static_cast<Step>(live.steps.size())) continue;
    ++step_rows;
    const size_t live_count = live.live_at(s).size();
    const size_t plus = line.rfind(" ... +");
    if (plus == std::string::npos) {
      CHECK(live_count < 20);  // short sets are shown whole
      continue;
    }
    ++cut_rows;
    const size_t more = std::stoul(line.substr(plus + 6));
    // Names shown after the chosen column's live figure ("431 KiB* " or "431 KiB  "), up to the
    // cut (this generator's buffers are named t0, t1, ...: no 'B' in them).
    const size_t set_start = line.rfind('B', plus) + 2;
    size_t shown = 0;
    std::istringstream names(line.substr(set_start, plus - set_start));
    std::string name;
    while (names >> name) ++shown;
    CAPTURE(line);
    CHECK(shown + more == live_count);
  }
  CHECK(step_rows == 1200);
  CHECK(cut_rows > 800);  // the outputs pile up: most steps have far more than fit
}
