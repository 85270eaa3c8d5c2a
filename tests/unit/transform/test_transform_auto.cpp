// The automatic rewrite search: never worse than hand-written sequences or the best
// single rewrite, a lower bound that never exceeds what it finds, budgets, MAC caps, slicing.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "core/transform/transform_auto.h"
#include "tests/unit/model_builder.h"
#include "tests/unit/rewrite_test_support.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;
using namespace arenaplan::test;

namespace {

AutoRewriteOptions quick_options() {
  AutoRewriteOptions o;
  o.time_limit_seconds = 600;  // limits below are counts, so results do not depend on the machine
  o.max_evaluations = 600;
  o.whatif.plan_time_limit_seconds = 0.2;
  return o;
}

Bytes peak_of(const Graph& g) { return analyze_lifetimes(g, topological_order(g)).peak_bytes; }

// A random int8 NHWC network: 1x1 convs, relus and adds over 8x8 maps, every op reachable.
Graph random_network(uint64_t seed, int ops) {
  std::mt19937_64 rng(seed);
  const int channels[] = {8, 16, 32, 64};
  std::string tensors, list;
  std::vector<std::pair<std::string, int>> acts = {{"x0", 16}};
  std::vector<int> uses = {0};
  auto tensor = [&](const std::string& name, const std::string& shape, bool constant) {
    tensors += (tensors.empty() ? "" : ",") + std::string("\"") + name + "\":{\"shape\":" + shape +
               ",\"dtype\":\"int8\"" + (constant ? ",\"constant\":true" : "") + "}";
  };
  tensor("x0", "[8,8,16]", false);
  for (int i = 0; i < ops; ++i) {
    const size_t a = acts.size() - 1 - rng() % std::min<size_t>(acts.size(), 3);
    const std::string out = "t" + std::to_string(i);
    const std::string op = "o" + std::to_string(i);
    int c = acts[a].second;
    std::string inputs = "\"" + acts[a].first + "\"", kind;
    size_t b = a;
    for (size_t k = 0; k < acts.size(); ++k)
      if (k != a && acts[k].second == c && uses[k] < 2) b = k;
    const int pick = static_cast<int>(rng() % 3);
    if (pick == 2 && b != a) {
      kind = "add";
      inputs += ",\"" + acts[b].first + "\"";
      ++uses[b];
    } else if (pick == 1) {
      kind = "relu";
    } else {
      kind = "conv2d";
      const int co = channels[rng() % 4];
      const std::string w = "w" + std::to_string(i);
      tensor(w, "[" + std::to_string(co) + ",1,1," + std::to_string(c) + "]", true);
      inputs += ",\"" + w + "\"";
      c = co;
    }
    ++uses[a];
    tensor(out, "[8,8," + std::to_string(c) + "]", false);
    list += (list.empty() ? "" : ",") + std::string("{\"name\":\"") + op + "\",\"kind\":\"" + kind +
            "\",\"inputs\":[" + inputs + "],\"outputs\":[\"" + out + "\"]}";
    acts.push_back({out, c});
    uses.push_back(0);
  }
  std::string outputs;
  for (size_t k = 1; k < acts.size(); ++k)
    if (uses[k] == 0) outputs += (outputs.empty() ? "\"" : ",\"") + acts[k].first + "\"";
  return parse_graph_json("{\"format\":\"arenaplan-graph\",\"version\":1,\"name\":\"random\",\"alignment\":16,"
                          "\"tensors\":{" + tensors + "},\"ops\":[" + list + "],\"inputs\":[\"x0\"],\"outputs\":[" +
                          outputs + "]}");
}

void check_verified(const AutoRewriteResult& r) {
  CHECK(r.report.after.verified);
  CHECK(r.report.after.sim_ok);
  CHECK(r.report.outputs_check == "bit-exact");
  CHECK(r.lower_bound_bytes <= r.report.after.peak_bytes);
  CHECK(r.report.after.peak_bytes <= r.report.before.peak_bytes);
}

}  // namespace

TEST_CASE("auto on whatif_fusion reaches the hand-written fuse + in-place + order sequence, though no rewrite helps alone") {
  const Graph g = example_graph("whatif_fusion");
  WhatIfOptions w;
  w.measure_alone = false;
  const WhatIfReport hand = run_whatif(g, {{"fuse:c2,r2"}, {"inplace:r0"}, {"order:best"}}, w, {});
  const AutoRewriteResult r = auto_rewrite(g, quick_options());
  check_verified(r);
  CHECK(r.report.after.peak_bytes <= hand.after.peak_bytes);
  CHECK(r.report.after.peak_bytes < r.report.before.peak_bytes);
  // Each applied rewrite's saving is the peak without it minus the peak with all, re-measured.
  REQUIRE_FALSE(r.applied.empty());
  for (const AutoApplied& a : r.applied) {
    CAPTURE(a.spec);
    if (!a.saving_bytes) continue;
    std::vector<WhatIfSpec> others;
    for (const AutoApplied& b : r.applied)
      if (&b != &a) others.push_back({b.spec});
    const WhatIfReport without = run_whatif(g, others, w, {});
    CHECK(*a.peak_without_bytes == without.after.peak_bytes);
    CHECK(*a.saving_bytes == without.after.peak_bytes - r.report.after.peak_bytes);
  }
  const JsonOut j = auto_rewrite_json(r);
  CHECK(j["auto"]["lower_bound_bytes"] == r.lower_bound_bytes);
  CHECK(j["auto"]["applied"].size() == r.applied.size());
  CHECK(j["outputs"]["check"] == "bit-exact");
  CHECK(j["after"]["peak_bytes"] == r.report.after.peak_bytes);
}

TEST_CASE("auto <= the best single rewrite on generated networks, and the bound never exceeds either") {
  for (uint64_t seed = 1; seed <= 8; ++seed) {
    CAPTURE(seed);
    const Graph g = normalized(random_network(seed, 9 + static_cast<int>(seed % 4)));
    AutoRewriteOptions o = quick_options();
    o.whatif.simulate = seed % 2 == 0;  // half of them simulated (slower), all compared bit for bit
    const AutoRewriteResult r = auto_rewrite(g, o);
    Bytes best_single = peak_of(g);
    for (const RewriteKind* k : searched_kinds(o))
      for (const std::string& spec : k->candidates(g)) {
        try {
          best_single = std::min(best_single, peak_of(apply_transformation(g, parse_transformation(spec), o.context).graph));
        } catch (const InputError&) {
        }
      }
    CHECK(r.report.after.peak_bytes <= best_single);
    CHECK(r.lower_bound_bytes <= best_single);
    CHECK(r.lower_bound_bytes <= r.report.after.peak_bytes);
    CHECK(r.report.after.verified);
    CHECK(r.report.outputs_check == "bit-exact");
    if (r.report.after.simulated) CHECK(r.report.after.sim_ok);
  }
}

TEST_CASE("the lower bound counts untouched working sets and what must be live around them") {
  // No kind searched: nothing is touched. r0 (I -> J) and r2 (Y2 -> Z2) each hold two 64 KiB
  // tensors while they run, in any order; no op holds more in every order (B and D's outputs need
  // not coexist), so the bound is 128 KiB, which the best order alone reaches.
  const Graph g = example_graph("whatif_fusion");
  const Bytes untouched = auto_lower_bound(g, {});
  CHECK(untouched == 128 * KiB);
  WhatIfOptions w;
  w.measure_alone = false;
  w.simulate = false;
  CHECK(run_whatif(g, {{"order:best"}}, w, {}).after.peak_bytes == untouched);
  // Searching fuse and in-place touches r0, r2 and their neighbours: the bound can only fall, and
  // stays below what the search reaches.
  AutoRewriteOptions o = quick_options();
  o.kinds = {"fuse", "inplace", "order"};
  const Bytes bound = auto_lower_bound(g, searched_kinds(o));
  CHECK(bound < untouched);
  o.whatif.simulate = false;
  CHECK(bound <= auto_rewrite(g, o).report.after.peak_bytes);
}

TEST_CASE("a budget: the search stops at the first sequence that fits with the fewest extra MACs") {
  const Graph g = example_graph("whatif_fusion");
  AutoRewriteOptions free = quick_options();
  const AutoRewriteResult best = auto_rewrite(g, free);
  AutoRewriteOptions o = quick_options();
  o.budget_bytes = best.report.after.peak_bytes;
  const AutoRewriteResult r = auto_rewrite(g, o);
  check_verified(r);
  CHECK(r.report.after.peak_bytes <= *o.budget_bytes);
  CHECK(r.budget_met == (r.report.after.arena_bytes <= *o.budget_bytes));
  // Fitting costs no more work than the lowest peak did (or none at all: the search stops at the
  // first fitting sequence without extra MACs).
  CHECK(r.extra_macs <= std::max<int64_t>(0, best.extra_macs));
  CHECK(auto_budget_shortfall(r).empty() == r.budget_met);

  // Below the bound nothing fits, and the shortfall names the bound.
  o.budget_bytes = r.lower_bound_bytes - 16;
  const AutoRewriteResult no = auto_rewrite(g, o);
  CHECK_FALSE(no.budget_met);
  const std::string why = auto_budget_shortfall(no);
  CHECK(why.find("lower bound " + format_bytes_exact(no.lower_bound_bytes)) != std::string::npos);
  CHECK(why.find("no sequence of the searched rewrites fits") != std::string::npos);
}

TEST_CASE("--max-extra-macs 0: the simulated MACs after never exceed those before") {
  for (uint64_t seed = 11; seed <= 14; ++seed) {
    CAPTURE(seed);
    const Graph g = random_network(seed, 10);
    AutoRewriteOptions o = quick_options();
    o.max_extra_macs_pct = 0;
    const AutoRewriteResult r = auto_rewrite(g, o);
    REQUIRE(r.report.after.simulated);
    CHECK(r.report.after.macs <= r.report.before.macs);
    CHECK(r.extra_macs == r.report.after.macs - r.report.before.macs);
  }
}

TEST_CASE("a slice per frame finds what one call finds; cancel stops at once with the best so far") {
  const Graph g = example_graph("whatif_fusion");
  AutoRewriteOptions o = quick_options();
  o.whatif.simulate = false;
  const AutoRewriteResult whole = auto_rewrite(g, o);
  AutoRewriteSearch s(g, o);
  int frames = 0;
  while (!s.step(0.0)) ++frames;  // one rewrite per call
  CHECK(frames > 10);
  std::vector<std::string> whole_specs;
  for (const WhatIfStep& st : whole.report.steps) whole_specs.push_back(st.spec);
  CHECK(s.best_specs() == whole_specs);
  CHECK(s.result().report.after.peak_bytes == whole.report.after.peak_bytes);

  AutoRewriteSearch c(g, o);
  c.step(0.0);
  c.cancel();
  CHECK(c.step(10.0));
  CHECK(c.progress().evaluations <= 2);
  CHECK(c.result().report.after.verified);
}

TEST_CASE("the kind table: quantize only when asked, unknown kinds named") {
  AutoRewriteOptions o;
  for (const RewriteKind* k : searched_kinds(o)) CHECK(k->bit_exact);
  o.allow_value_changes = true;
  bool quantize = false;
  for (const RewriteKind* k : searched_kinds(o)) quantize = quantize || std::string(k->name) == "quantize";
  CHECK(quantize);
  o.kinds = {"fuse", "nope"};
  CHECK_THROWS_WITH_AS(searched_kinds(o), doctest::Contains("unknown rewrite kind \"nope\""), InputError);
  o.kinds = {"fuse"};
  REQUIRE(searched_kinds(o).size() == 1);
  // Every candidate spec of every kind parses.
  const Graph g = example_graph("tiny_cnn");
  for (const RewriteKind& k : rewrite_kinds())
    for (const std::string& spec : k.candidates(g)) CHECK_NOTHROW(parse_transformation(spec));
}

TEST_CASE("the lower bound stays below every graph a random walk of legal rewrites reaches, in its best order") {
  AutoRewriteOptions o;
  o.context.order_time_limit_seconds = 0.2;
  const std::vector<const RewriteKind*> kinds = searched_kinds(o);
  std::vector<Graph> graphs = {example_graph("whatif_fusion"), example_graph("whatif_interact"),
                               example_graph("residual_block"), example_graph("inception_cell")};
  for (uint64_t seed = 21; seed <= 26; ++seed) graphs.push_back(random_network(seed, 10));
  std::mt19937_64 rng(5);
  int bound_positive = 0, steps = 0;
  for (const Graph& original : graphs) {
    CAPTURE(original.name);
    const Bytes bound = auto_lower_bound(original, kinds);
    bound_positive += bound > 0;
    for (int walk = 0; walk < 4; ++walk) {
      Graph g = normalized(original);
      for (int k = 0; k < 6; ++k) {
        std::vector<std::string> specs;
        for (const RewriteKind* kind : kinds)
          for (const std::string& s : kind->candidates(g)) specs.push_back(s);
        std::shuffle(specs.begin(), specs.end(), rng);
        for (const std::string& s : specs) {
          try {
            g = apply_transformation(g, parse_transformation(s), o.context).graph;
            ++steps;
            break;
          } catch (const InputError&) {
          }
        }
        const Graph best_order = apply_transformation(g, parse_transformation("order:best"), o.context).graph;
        CHECK(bound <= peak_of(best_order));
      }
    }
  }
  CHECK(steps > 50);          // the walks did rewrite
  CHECK(bound_positive >= 1);  // and some bound had something to say
}

TEST_CASE("non_dominated keeps the verified points no other beats on both peak and extra MACs") {
  auto pt = [](Bytes peak, int64_t macs, bool ok = true) {
    ParetoPoint p;
    p.peak_bytes = peak;
    p.extra_macs = macs;
    p.verified = ok;
    return p;
  };
  const std::vector<ParetoPoint> f =
      non_dominated({pt(500, 40), pt(900, 0), pt(700, 10), pt(800, 10), pt(700, 20), pt(100, 5, false), pt(600, 40)});
  REQUIRE(f.size() == 3);
  CHECK(f[0].peak_bytes == 900);
  CHECK(f[1].peak_bytes == 700);
  CHECK(f[1].extra_macs == 10);
  CHECK(f[2].peak_bytes == 500);  // (600, 40) is beaten by (500, 40); the unverified point never counts
}

// The page steps a ParetoSearch in its worker; the CLI runs pareto_frontier to the end. With
// count limits the two must give the same frontier however thinly the page slices the work.
TEST_CASE("ParetoSearch stepped in small slices gives pareto_frontier's frontier; cancel stops it, marked") {
  const Graph g = residual_mcunet_style(1);
  ParetoOptions o;
  o.search = quick_options();
  o.search.max_evaluations = 150;
  o.caps_pct = {0, 5, 40};
  const JsonOut whole = pareto_json(pareto_frontier(g, o));

  ParetoSearch s(g, o);
  int steps = 0, last_stage = 0;
  while (!s.step(0.0005)) {
    ++steps;
    CHECK(s.progress().stage >= last_stage);  // stages only move forward
    last_stage = s.progress().stage;
    CHECK(s.progress().stage <= s.progress().stages);
  }
  CHECK(steps > 3);  // it did come back between slices
  CHECK(s.progress().stage == s.progress().stages);
  CHECK_FALSE(s.progress().stopped);
  CHECK(pareto_json(s.frontier()) == whole);

  ParetoSearch c(g, o);
  c.step(0.0005);
  c.cancel();
  CHECK(c.step(1.0));
  CHECK(c.done());
  CHECK(c.progress().stopped);
  CHECK(c.progress().stage < c.progress().stages);
}

TEST_CASE("pareto_frontier on an MCUNet-like graph: non-dominated, monotone, each point re-applied gives its peak, bit-exact") {
  for (uint64_t seed : {1, 3}) {
    CAPTURE(seed);
    const Graph g = residual_mcunet_style(seed);
    ParetoOptions o;
    o.search = quick_options();
    o.search.max_evaluations = 300;
    o.caps_pct = {0, 5, 40, 200};
    const ParetoFrontier f = pareto_frontier(g, o);
    REQUIRE(!f.points.empty());
    CHECK(f.tried.size() >= 4);  // one per cap, then the recipes that apply
    CHECK(f.points.front().peak_bytes <= f.start_peak_bytes);
    for (size_t i = 0; i < f.points.size(); ++i) {
      const ParetoPoint& p = f.points[i];
      CHECK(p.verified);
      CHECK(p.outputs_check == "bit-exact");
      if (p.cap_pct >= 0) CHECK(p.extra_macs_pct <= p.cap_pct + 1e-9);  // -1: the recipe, kept within the largest cap
      CHECK(p.extra_macs_pct <= 200 + 1e-9);
      if (i > 0) {
        CHECK(p.extra_macs > f.points[i - 1].extra_macs);
        CHECK(p.peak_bytes < f.points[i - 1].peak_bytes);
      }
      // No tried point beats it on both axes.
      for (const ParetoPoint& t : f.tried)
        CHECK_FALSE((t.verified && t.peak_bytes <= p.peak_bytes && t.extra_macs <= p.extra_macs &&
                     (t.peak_bytes < p.peak_bytes || t.extra_macs < p.extra_macs)));
      std::vector<WhatIfSpec> list;
      for (const std::string& s : p.rewrites) list.push_back({s, true});
      WhatIfOptions w = o.search.whatif;
      w.stop_on_error = true;
      const WhatIfReport again = run_whatif(g, list, w, o.search.context);
      CHECK(again.after.peak_bytes == p.peak_bytes);
      CHECK(again.after.macs - again.before.macs == p.extra_macs);
      CHECK(again.outputs_check == "bit-exact");
    }
    // The patch stages across the residual blocks make extra MACs buy memory here.
    CHECK(f.points.back().peak_bytes < f.start_peak_bytes);
  }
}

TEST_CASE("msf candidates: each inverted-residual block with its ADD, applied bit-exact") {
  const Graph g = residual_mcunet_style(2);
  const std::vector<std::string> specs = msf_candidates(g);
  CHECK(std::find(specs.begin(), specs.end(), "msf:expand1,dw1,project1,add1=2") != specs.end());
  const std::vector<uint8_t> want = evaluate_outputs(g);
  const Rewrite r = apply_transformation(g, parse_transformation("msf:expand1,dw1,project1,add1=4"), {});
  CHECK(r.figures.at("streamed_pairs") == 4);
  CHECK(evaluate_outputs(r.graph) == want);
}
