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

void write_analysis_json_members(std::ostream& stream, const Graph& g, const LiveAnalysis& a, int depth) {
  // Every name is spelled once; the per-step lists point at the spellings. The text is gathered
  // in a buffer written out in 64 KiB pieces: hundreds of megabytes of small stream writes were
  // most of the time on a graph with thousands of outputs.
  std::vector<std::string> op_name(g.ops.size()), buffer_name(a.buffers.size());
  for (size_t o = 0; o < g.ops.size(); ++o) op_name[o] = quoted(g.ops[o].name);
  for (size_t b = 0; b < a.buffers.size(); ++b) buffer_name[b] = quoted(a.buffers[b].name);
  const std::string pad(2 * depth, ' '), element_pad(2 * (depth + 1), ' '), field_pad(2 * (depth + 2), ' ');
  std::string out;
  auto flush = [&](size_t above) {
    if (out.size() < above) return;
    stream.write(out.data(), static_cast<std::streamsize>(out.size()));
    out.clear();
  };
  auto write_names = [&](const std::vector<const std::string*>& items, int list_depth) {
    if (items.empty()) {
      out += "[]";
      return;
    }
    const std::string inner(2 * (list_depth + 1), ' ');
    out += "[\n";
    for (size_t i = 0; i < items.size(); ++i) {
      out += inner;
      out += *items[i];
      out += i + 1 < items.size() ? ",\n" : "\n";
      flush(size_t{1} << 16);
    }
    out += std::string(2 * list_depth, ' ') + "]";
  };
  std::vector<const std::string*> items;
  auto buffer_items = [&](const std::vector<int>& buffers) -> const std::vector<const std::string*>& {
    items.clear();
    for (int b : buffers) items.push_back(&buffer_name[b]);
    return items;
  };
  out += pad + "\"graph\": " + quoted(g.name) + ",\n" + pad + "\"order\": ";
  items.clear();
  for (OpId o : a.order) items.push_back(&op_name[o]);
  write_names(items, depth);
  out += ",\n" + pad + "\"steps\": ";
  if (a.steps.empty()) {
    out += "[]";
  } else {
    out += "[\n";
    LiveSweep sweep(a);
    for (size_t s = 0; s < a.steps.size(); ++s) {
      out += element_pad + "{\n" + field_pad + "\"op\": " + op_name[a.steps[s].op] + ",\n" + field_pad + "\"live\": ";
      write_names(buffer_items(sweep.at(static_cast<Step>(s))), depth + 2);
      out += ",\n" + field_pad + "\"live_bytes\": " + std::to_string(a.steps[s].live_bytes) + "\n" + element_pad + "}" +
             (s + 1 < a.steps.size() ? ",\n" : "\n");
    }
    out += pad + "]";
  }
  out += ",\n" + pad + "\"peak_bytes\": " + std::to_string(a.peak_bytes) + ",\n" + pad + "\"peak_step\": " +
         std::to_string(a.peak_step) + ",\n" + pad + "\"peak_tensors\": ";
  write_names(buffer_items(a.steps.empty() ? std::vector<int>{} : a.live_at(a.peak_step)), depth);
  out += ",\n" + pad + "\"total_bytes\": " + std::to_string(a.total_bytes) + ",\n" + pad +
         "\"largest_tensor_bytes\": " + std::to_string(a.largest_tensor_bytes);
  flush(0);
}

void write_analysis_json(std::ostream& out, const Graph& g, const LiveAnalysis& a) {
  out << "{\n";
  write_analysis_json_members(out, g, a, 1);
  out << "\n}";
}

void write_json_at_depth(std::ostream& out, const JsonOut& value, int depth, int indent) {
  // dump() escapes line breaks inside strings, so every raw one starts a line of the layout.
  const std::string text = value.dump(indent), pad = "\n" + std::string(static_cast<size_t>(indent * depth), ' ');
  size_t from = 0;
  for (size_t nl = text.find('\n'); nl != std::string::npos; from = nl + 1, nl = text.find('\n', from)) {
    out.write(text.data() + from, static_cast<std::streamsize>(nl - from));
    out << pad;
  }
  out.write(text.data() + from, static_cast<std::streamsize>(text.size() - from));
}

}  // namespace arenaplan
