// The memory summary of an imported model (`arenaplan import`): what the file holds and the
// activation peak in file order.
//
// Usage:
//   TfliteModel m = import_tflite(bytes);
//   TfliteSummary s = tflite_summary(m, analyze_lifetimes(m.graph, m.graph.file_order()));
//   tflite_summary_json(s);  tflite_summary_text("model.tflite", s);
#pragma once

#include <string>

#include "core/graph/lifetime.h"
#include "core/graph/report.h"
#include "core/tflite/tflite_import.h"

namespace arenaplan {

struct TfliteSummary {
  const TfliteModel& model;
  const LiveAnalysis& live;    // lifetimes in the file's operator order
  int64_t activation_tensors;  // arena tensors that are not persistent
  std::string peak_op;         // the op running at the peak ("" for a model without ops)
  Bytes lower_bound_bytes;     // io_lower_bound_bytes: the largest op's inputs + outputs
};
TfliteSummary tflite_summary(const TfliteModel& m, const LiveAnalysis& live);

// {"name", "sha256", "file_bytes", "schema_version", "subgraphs": [{"name", "tensors",
// "operators"}], "ops", "folded_ops", "custom_ops", "activation_tensors", "constant_bytes",
// "folded_bytes", "variable_bytes", "peak_bytes", "peak_step", "peak_op", "lower_bound_bytes",
// "has_offline_plan", "npu_ops": [op names], "working_tensors": [{"tensor", "bytes", "op",
// "offline_offset"}]}.
JsonOut tflite_summary_json(const TfliteSummary& s);
// The same for people; `label` names the model (its path).
std::string tflite_summary_text(const std::string& label, const TfliteSummary& s);

}  // namespace arenaplan
