#include "core/graph/report.h"

#include <cstdio>
#include <functional>
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

// The number of buffers live at each step, from the buffers' intervals (a difference array).
std::vector<int> live_counts(const LiveAnalysis& a) {
  std::vector<int> delta(a.steps.size() + 1, 0);
  for (const LiveBuffer& b : a.buffers) {
    ++delta[static_cast<size_t>(b.first)];
    --delta[static_cast<size_t>(b.last) + 1];
  }
  std::vector<int> counts(a.steps.size());
  int live = 0;
  for (size_t s = 0; s < counts.size(); ++s) counts[s] = live += delta[s];
  return counts;
}

// One buffer's lifetime: the interval that replaces per-step live lists in the views.
JsonOut buffer_json(const LiveBuffer& b) {
  return {{"name", b.name}, {"size", b.size}, {"first", b.first}, {"last", b.last}, {"category", category_name(b.category)}};
}

// The analysis's closing members, after the lists: the peak and the totals.
JsonOut summary_json(const LiveAnalysis& a) {
  JsonOut out;
  out["peak_bytes"] = a.peak_bytes;
  out["peak_step"] = a.peak_step;
  out["peak_tensors"] = a.steps.empty() ? JsonOut::array() : name_list(a, a.live_at(a.peak_step));
  out["total_bytes"] = a.total_bytes;
  out["largest_tensor_bytes"] = a.largest_tensor_bytes;
  return out;
}

JsonOut step_json(const Graph& g, const StepLive& st, int live_count) {
  return {{"op", g.ops[st.op].name}, {"live_bytes", st.live_bytes}, {"live_count", live_count}};
}

}  // namespace

JsonOut analysis_json(const Graph& g, const LiveAnalysis& a) {
  JsonOut out;
  out["graph"] = g.name;
  out["order"] = order_json(g, a.order);
  JsonOut buffers = JsonOut::array();
  for (const LiveBuffer& b : a.buffers) buffers.push_back(buffer_json(b));
  out["buffers"] = std::move(buffers);
  JsonOut steps = JsonOut::array();
  const std::vector<int> counts = live_counts(a);
  for (size_t s = 0; s < a.steps.size(); ++s) steps.push_back(step_json(g, a.steps[s], counts[s]));
  out["steps"] = std::move(steps);
  JsonOut summary = summary_json(a);  // a local: items() only refers to the object it iterates
  for (auto& [key, value] : summary.items()) out[key] = std::move(value);
  return out;
}

void write_analysis_text(std::ostream& out, const Graph& g, const LiveAnalysis& a) {
  out << "graph " << g.name << ", order " << order_names(g, a.order, "-") << "\n\n";
  out << "step  op          live bytes   live\n";
  LiveSweep sweep(a);  // live sets derived step by step, never all held at once
  for (size_t s = 0; s < a.steps.size(); ++s) {
    const StepLive& st = a.steps[s];
    const std::vector<int>& live_now = sweep.at(static_cast<Step>(s));
    std::string live;
    for (size_t i = 0; i < live_now.size() && i < kMaxNamesListed; ++i) live += (i ? " " : "") + a.buffers[live_now[i]].name;
    if (live_now.size() > kMaxNamesListed) live += " +" + std::to_string(live_now.size() - kMaxNamesListed) + " more";
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

void write_json_array_member(std::ostream& out, const std::string& key, const std::function<bool(JsonOut&)>& next,
                             int depth) {
  const std::string pad(2 * static_cast<size_t>(depth), ' ');
  out << pad << quoted(key) << ": ";
  JsonOut element;
  if (!next(element)) {
    out << "[]";
    return;
  }
  out << "[\n";
  for (bool more = true; more;) {
    out << pad << "  ";
    write_json_at_depth(out, element, depth + 1);
    more = next(element);
    out << (more ? ",\n" : "\n");
  }
  out << pad << "]";
}

void write_json_array_member(std::ostream& out, const std::string& key, size_t count,
                             const std::function<JsonOut(size_t)>& element, int depth) {
  size_t i = 0;
  write_json_array_member(out, key, [&](JsonOut& e) { return i < count && (e = element(i++), true); }, depth);
}

void write_analysis_json_members(std::ostream& out, const Graph& g, const LiveAnalysis& a, int depth) {
  // One small element at a time, each spelled by dump() itself: the document (tens of megabytes
  // at 100,000 ops) is never held as a JSON tree.
  const std::string pad(2 * static_cast<size_t>(depth), ' ');
  out << pad << "\"graph\": " << quoted(g.name) << ",\n";
  write_json_array_member(out, "order", a.order.size(), [&](size_t i) { return JsonOut(g.ops[a.order[i]].name); }, depth);
  out << ",\n";
  write_json_array_member(out, "buffers", a.buffers.size(), [&](size_t b) { return buffer_json(a.buffers[b]); }, depth);
  out << ",\n";
  const std::vector<int> counts = live_counts(a);
  write_json_array_member(out, "steps", a.steps.size(), [&](size_t s) { return step_json(g, a.steps[s], counts[s]); }, depth);
  const JsonOut summary = summary_json(a);
  for (const auto& [key, value] : summary.items()) {
    out << ",\n" << pad << quoted(key) << ": ";
    write_json_at_depth(out, value, depth);
  }
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

std::string with_commas(int64_t v) {
  std::string s = std::to_string(v < 0 ? -v : v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(static_cast<size_t>(i), ",");
  return v < 0 ? "-" + s : s;
}

std::string milliseconds_text(double microseconds) {
  const int64_t thousandths = static_cast<int64_t>(microseconds + 0.5);  // of a ms: 1 us
  char frac[8];
  std::snprintf(frac, sizeof frac, ".%03lld", static_cast<long long>(thousandths % 1000));
  return with_commas(thousandths / 1000) + frac + " ms";
}

}  // namespace arenaplan
