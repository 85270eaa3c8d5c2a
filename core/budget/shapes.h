// Shape contracts: symbolic dims with bounds ("dims": {"N": {"min": 1, "max": 8}}) propagated
// through the ops to every tensor's size, arena plans validated for whole ranges of the dims, and
// the run-time check that picks the smallest plan covering an input shape or rejects the shape
// before anything executes.
//
// Usage:
//   ShapeContract c = build_contract(graph, order, {{{"N", {1, 2}}}, {{"N", {3, 8}}}}, {});
//   ShapeCheck ok = check_input_shapes(c, {{"x", {2, 16, 16, 3}}});  // ok.plan: the [1, 2] plan
//   ShapeCheck no = check_input_shapes(c, {{"x", {9, 16, 16, 3}}});  // no.message names N <= 8
//
// Every supported op is monotone in its input dims (output sizes never shrink when an input dim
// grows), so the sizes at the dims' upper bounds are upper bounds for the whole range; the
// contract still re-verifies each plan at the bindings it covers instead of trusting that.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/graph/graph.h"
#include "core/layout/layout.h"
#include "core/graph/lifetime.h"
#include "core/graph/report.h"

namespace arenaplan {

using DimBinding = std::map<std::string, int64_t>;  // symbol -> concrete value
using DimRanges = std::map<std::string, DimBound>;  // symbol -> [min, max]

// Every tensor's concrete shape and size for one binding of the symbolic dims.
struct ShapeInstance {
  DimBinding binding;
  std::vector<std::vector<int64_t>> shapes;  // per tensor; empty for tensors sized in bytes only
  std::vector<Bytes> bytes;                  // per tensor (unaligned)
};

// Propagates shapes through the ops in topological order. Known kinds compute their outputs:
// elementwise (add, mul, relu, ... with broadcasting), conv2d / depthwise_conv2d / max_pool2d /
// avg_pool2d (NHWC; attrs kernel[_h/_w], stride[_h/_w], dilation, padding 0 = valid / 1 = same
// or pad[_h/_w], filters, depth_multiplier, or a constant OHWI weight tensor), dense /
// fully_connected (attr units or constant [units, K] weights), concat (attr axis) and reshape
// (declared output, element count checked). A computed shape must match the declared one. Other
// kinds keep their declared shapes, and so do window/concat ops with no attrs at all (imported
// graphs whose geometry is not carried). Throws InputError naming the op, tensor and dim.
ShapeInstance propagate_shapes(const Graph& g, const DimBinding& binding);

DimBinding lower_binding(const Graph& g);  // every symbol at its min
DimBinding upper_binding(const Graph& g);  // every symbol at its max

// The graph with every tensor sized for one instance (its shape dims set to the binding).
Graph graph_at(const Graph& g, const ShapeInstance& s);

// One arena plan made for the upper corner of `ranges` and verified at the bindings it covers.
struct ContractPlan {
  DimRanges ranges;
  ShapeInstance upper;      // the sizes it was planned for
  LiveAnalysis live;        // lifetimes (do not depend on sizes)
  LayoutProblem problem;    // the problem at `upper`
  ArenaPlan plan;
  int64_t verified_bindings = 0;  // bindings of the range at which verify_plan accepted the offsets
  bool exhaustive = false;        // every binding of the range was checked (else: every corner)
  bool covers(const DimBinding& b) const;
};

struct ShapeContract {
  Graph graph;
  Schedule order;
  std::vector<ContractPlan> plans;  // ascending arena bytes: the first that covers is the smallest
};

// Ranges to keep plans for when the user names none: per symbol [min, min], then power-of-two
// buckets up to max ([1,1], [2,2], [3,4], [5,8] for N in [1, 8]); one range with no symbols.
std::vector<DimRanges> default_ranges(const Graph& g);

// Plans and validates one arena per range. A range missing a symbol takes that symbol's whole
// bound. Throws InputError when a range leaves the graph's bounds ("ranges/1/N: ...").
ShapeContract build_contract(const Graph& g, const Schedule& order, const std::vector<DimRanges>& ranges,
                             const PlanOptions& options);

struct ShapeCheck {
  bool accepted = false;
  std::string message;      // why it was rejected, naming the dim and its bound
  DimBinding binding;       // symbols bound from the input shapes (unbound ones at their max)
  int plan = -1;            // index into ShapeContract::plans
  ShapeInstance instance;   // every tensor at this binding (when accepted)
};

// Binds the symbolic dims from concrete input shapes and selects the smallest plan that covers
// them. Throws InputError for a name that is not a graph input.
ShapeCheck check_input_shapes(const ShapeContract& c, const std::map<std::string, std::vector<int64_t>>& inputs);

// "2x16x16x3", "2,16,16,3" or "[2, 16, 16, 3]" -> dims; throws InputError(where) otherwise.
std::vector<int64_t> parse_shape(const std::string& text, const std::string& where);

// "N=1..2" or "N=3..8,M=1..4" -> ranges; throws InputError(where) otherwise.
DimRanges parse_ranges(const std::string& text, const std::string& where);

// `arenaplan check-shape`'s views (shapes_report.cpp). JSON: {"accepted", "reason" (when
// rejected), "binding", "plans": [{"ranges", "arena_bytes", "planner", "verified_bindings",
// "exhaustive", "selected"}], and when accepted "selected_plan", "arena_bytes", "tensors":
// [{"name", "shape", "bytes", "planned_bytes"}]}. Text: one line per plan, then the verdict.
JsonOut shape_check_json(const ShapeContract& c, const ShapeCheck& check);
std::string shape_check_text(const ShapeContract& c, const ShapeCheck& check);

std::string shape_text(const std::vector<int64_t>& dims);    // "[2, 16, 16, 3]"
std::string ranges_text(const DimRanges& ranges);            // "N in [1, 2]"

}  // namespace arenaplan
