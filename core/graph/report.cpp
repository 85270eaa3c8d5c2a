#include "core/graph/report.h"

#include <iomanip>
#include <ostream>
#include <sstream>

namespace arenaplan {

JsonOut order_json(const Graph& g, const Schedule& order) {
  JsonOut names = JsonOut::array();
  for (OpId o : order) names.push_back(g.ops[o].name);
  return names;
}

namespace {

JsonOut name_list(const LiveAnalysis& a, const std::vector<int>& buffers) {
  JsonOut names = JsonOut::array();
  for (int b : buffers) names.push_back(a.buffers[b].name);
  return names;
}

// A string as nlohmann's dump() spells it (quotes and escapes), so the streamed view matches it.
std::string quoted(const std::string& s) { return JsonOut(s).dump(); }

}  // namespace

JsonOut analysis_json(const Graph& g, const LiveAnalysis& a) {
  JsonOut out;
  out["graph"] = g.name;
  out["order"] = order_json(g, a.order);
  JsonOut steps = JsonOut::array();
  LiveSweep sweep(a);
  for (size_t s = 0; s < a.steps.size(); ++s) {
    const StepLive& st = a.steps[s];
    steps.push_back({{"op", g.ops[st.op].name},
                     {"live", name_list(a, sweep.at(static_cast<Step>(s)))},
                     {"live_bytes", st.live_bytes}});
  }
  out["steps"] = steps;
  out["peak_bytes"] = a.peak_bytes;
  out["peak_step"] = a.peak_step;
  out["peak_tensors"] = a.steps.empty() ? JsonOut::array() : name_list(a, a.live_at(a.peak_step));
  out["total_bytes"] = a.total_bytes;
  out["largest_tensor_bytes"] = a.largest_tensor_bytes;
  return out;
}

void write_analysis_text(std::ostream& out, const Graph& g, const LiveAnalysis& a) {
  out << "graph " << g.name << ", order " << order_names(g, a.order, "-") << "\n\n";
  out << "step  op          live bytes   live\n";
  LiveSweep sweep(a);  // live sets derived step by step, never all held at once
  for (size_t s = 0; s < a.steps.size(); ++s) {
    const StepLive& st = a.steps[s];
    std::string live;
    for (int b : sweep.at(static_cast<Step>(s))) live += (live.empty() ? "" : " ") + a.buffers[b].name;
    out << std::setw(4) << s << "  " << std::left << std::setw(10) << g.ops[st.op].name << std::right << std::setw(12)
        << format_bytes(st.live_bytes) << "   " << live << (static_cast<Step>(s) == a.peak_step ? "   <- peak" : "")
        << "\n";
  }
  out << "\npeak " << format_bytes(a.peak_bytes) << " (" << a.peak_bytes << " B) at step " << a.peak_step << " ("
      << g.ops[a.order[a.peak_step]].name << "); all tensors " << format_bytes(a.total_bytes) << ", largest "
      << format_bytes(a.largest_tensor_bytes) << "\n\ntimeline (# = live):\n";
  write_timeline_text(out, g, a);
}

std::string analysis_text(const Graph& g, const LiveAnalysis& a) {
  std::ostringstream out;
  write_analysis_text(out, g, a);
  return out.str();
}

void write_analysis_json(std::ostream& stream, const Graph& g, const LiveAnalysis& a) {
  // Every name is spelled once; the per-step lists point at the spellings. The text is gathered
  // in a buffer written out in 64 KiB pieces: hundreds of megabytes of small stream writes were
  // most of the time on a graph with thousands of outputs.
  std::vector<std::string> op_name(g.ops.size()), buffer_name(a.buffers.size());
  for (size_t o = 0; o < g.ops.size(); ++o) op_name[o] = quoted(g.ops[o].name);
  for (size_t b = 0; b < a.buffers.size(); ++b) buffer_name[b] = quoted(a.buffers[b].name);
  std::string out;
  auto flush = [&](size_t above) {
    if (out.size() < above) return;
    stream.write(out.data(), static_cast<std::streamsize>(out.size()));
    out.clear();
  };
  auto write_names = [&](const std::vector<const std::string*>& items, int depth) {
    if (items.empty()) {
      out += "[]";
      return;
    }
    const std::string inner(2 * (depth + 1), ' ');
    out += "[\n";
    for (size_t i = 0; i < items.size(); ++i) {
      out += inner;
      out += *items[i];
      out += i + 1 < items.size() ? ",\n" : "\n";
      flush(size_t{1} << 16);
    }
    out += std::string(2 * depth, ' ') + "]";
  };
  std::vector<const std::string*> items;
  auto buffer_items = [&](const std::vector<int>& buffers) -> const std::vector<const std::string*>& {
    items.clear();
    for (int b : buffers) items.push_back(&buffer_name[b]);
    return items;
  };
  out += "{\n  \"graph\": " + quoted(g.name) + ",\n  \"order\": ";
  items.clear();
  for (OpId o : a.order) items.push_back(&op_name[o]);
  write_names(items, 1);
  out += ",\n  \"steps\": ";
  if (a.steps.empty()) {
    out += "[]";
  } else {
    out += "[\n";
    LiveSweep sweep(a);
    for (size_t s = 0; s < a.steps.size(); ++s) {
      out += "    {\n      \"op\": " + op_name[a.steps[s].op] + ",\n      \"live\": ";
      write_names(buffer_items(sweep.at(static_cast<Step>(s))), 3);
      out += ",\n      \"live_bytes\": " + std::to_string(a.steps[s].live_bytes) + "\n    }" +
             (s + 1 < a.steps.size() ? ",\n" : "\n");
    }
    out += "  ]";
  }
  out += ",\n  \"peak_bytes\": " + std::to_string(a.peak_bytes) + ",\n  \"peak_step\": " +
         std::to_string(a.peak_step) + ",\n  \"peak_tensors\": ";
  write_names(buffer_items(a.steps.empty() ? std::vector<int>{} : a.live_at(a.peak_step)), 1);
  out += ",\n  \"total_bytes\": " + std::to_string(a.total_bytes) + ",\n  \"largest_tensor_bytes\": " +
         std::to_string(a.largest_tensor_bytes) + "\n}";
  flush(0);
}

}  // namespace arenaplan
