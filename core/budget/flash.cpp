#include "core/budget/flash.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "core/budget/flash_internal.h"
#include "core/tflite/tflite_import.h"

namespace arenaplan {

using flash_detail::BuildFigures;

namespace {

std::vector<std::string> split_kinds(const char* kinds) {
  std::vector<std::string> out;
  std::istringstream in(kinds);
  for (std::string k; in >> k;) out.push_back(k);
  return out;
}

const BuildFigures& figures_for(const FlashBuild& build) {
  for (const BuildFigures& f : flash_detail::flash_figures())
    if (f.kernels == build.kernels && f.opt == build.opt) return f;
  throw InputError("--kernels", std::string("no flash figures for ") + tflm_kernels_name(build.kernels) + " at -" +
                                    flash_opt_name(build.opt));
}

// What a kernel costs in a firmware that has no other kernel: its own bytes and every group it
// belongs to. The largest of these is what a kernel without a measurement is charged: a flash
// figure that errs must err towards "does not fit".
Bytes alone_bytes(const BuildFigures& f, const std::string& kind) {
  Bytes bytes = 0;
  for (const auto& k : f.own)
    if (kind == k.kind) bytes += k.bytes;
  for (const auto& s : f.shared) {
    const std::vector<std::string> kinds = split_kinds(s.kinds);
    if (std::find(kinds.begin(), kinds.end(), kind) != kinds.end()) bytes += s.bytes;
  }
  return bytes;
}

// The figures are Thumb-2 code for a Cortex-M4F; other Cortex-M cores with the same ISA level
// compile to code of about that size, others differ (say so rather than pretend).
std::string core_note(const std::string& core) {
  if (core.empty() || core == "cortex-m4" || core == "cortex-m4f") return "";
  if (core == "cortex-m7" || core == "cortex-m33" || core == "cortex-m35p")
    return "figures measured for cortex-m4f; " + core + " runs the same Thumb-2 DSP code path, not measured";
  if (core.rfind("cortex-m", 0) == 0)
    return "figures measured for cortex-m4f; " + core +
           " compiles another code path (no DSP extension, or Helium), not measured";
  return "figures measured for cortex-m4f (Thumb-2); " + core + " is another instruction set, not measured";
}

}  // namespace

const char* flash_opt_name(FlashOpt o) { return o == FlashOpt::kOs ? "Os" : "O2"; }

FlashOpt parse_flash_opt(const std::string& name) {
  if (name == "Os" || name == "-Os") return FlashOpt::kOs;
  if (name == "O2" || name == "-O2") return FlashOpt::kO2;
  throw InputError("--opt", "expected Os or O2, found \"" + name + "\"");
}

std::vector<std::string> flash_measured_kinds() {
  std::set<std::string> kinds;
  for (const BuildFigures& f : flash_detail::flash_figures())
    for (const auto& k : f.own) kinds.insert(k.kind);
  return {kinds.begin(), kinds.end()};
}

FlashEstimate flash_estimate_kinds(const std::vector<std::string>& kinds, Bytes model_bytes, const FlashBuild& build) {
  const BuildFigures& f = figures_for(build);
  FlashEstimate e;
  e.build = build;
  e.measured_for = f.measured_for;
  e.note = core_note(build.core);
  e.model_bytes = model_bytes;
  e.runtime_bytes = f.runtime_bytes;
  Bytes largest_alone = 0;
  for (const auto& k : f.own) largest_alone = std::max(largest_alone, alone_bytes(f, k.kind));
  std::set<std::string> seen;
  for (const std::string& kind : kinds) {
    if (!seen.insert(kind).second) continue;
    FlashKernel k{kind, 0, false};
    for (const auto& own : f.own)
      if (kind == own.kind) {
        k.bytes = own.bytes;
        k.measured = true;
      }
    if (!k.measured) {
      k.bytes = largest_alone;
      e.estimated.push_back(kind);
    }
    e.kernels.push_back(k);
    e.kernel_bytes += k.bytes;
  }
  for (const auto& s : f.shared) {
    FlashSharedCode code{split_kinds(s.kinds), s.bytes};
    if (std::none_of(code.kinds.begin(), code.kinds.end(), [&](const std::string& k) { return seen.count(k) > 0; }))
      continue;
    e.kernel_bytes += code.bytes;
    e.shared.push_back(std::move(code));
  }
  e.total_bytes = e.model_bytes + e.runtime_bytes + e.kernel_bytes;
  return e;
}

std::vector<std::string> tflm_kernel_kinds(std::string_view tflite_bytes) {
  TfliteImportOptions options;
  options.fold_constant_ops = false;
  std::vector<std::string> kinds;
  for (const Op& op : import_tflite(tflite_bytes, options).graph.ops) kinds.push_back(op.kind);
  return kinds;
}

FlashCheck check_flash(const FlashEstimate& f, Bytes flash_bytes) {
  FlashCheck c;
  c.flash_bytes = flash_bytes;
  c.known = flash_bytes > 0;
  if (!c.known) return c;
  c.free_bytes = flash_bytes - f.total_bytes;
  c.fits = c.free_bytes >= 0;
  return c;
}

std::string flash_text(const FlashEstimate& f, const FlashCheck& c) {
  std::ostringstream out;
  out << "flash: model " << with_commas(f.model_bytes) << " B + TFLM runtime " << with_commas(f.runtime_bytes)
      << " B + " << f.kernels.size() << (f.kernels.size() == 1 ? " kernel " : " kernels ") << with_commas(f.kernel_bytes)
      << " B = " << with_commas(f.total_bytes) << " B";
  if (c.known)
    out << " of " << format_bytes(c.flash_bytes) << ": "
        << (c.fits ? "fits (free " + format_size(c.free_bytes) + ")" : "DOES NOT FIT (over by " + format_size(-c.free_bytes) + ")");
  else
    out << " (the board gives no flash size)";
  out << " (" << f.measured_for << ")\n";
  if (!f.estimated.empty()) {
    out << "  estimated (no measurement, charged the largest measured kernel):";
    for (const std::string& k : f.estimated) out << " " << k;
    out << "\n";
  }
  if (!f.note.empty()) out << "  note: " << f.note << "\n";
  return out.str();
}

JsonOut flash_json(const FlashEstimate& f, const FlashCheck& c) {
  JsonOut kernels = JsonOut::array();
  for (const FlashKernel& k : f.kernels) kernels.push_back({{"kind", k.kind}, {"bytes", k.bytes}, {"measured", k.measured}});
  JsonOut shared = JsonOut::array();
  for (const FlashSharedCode& s : f.shared) shared.push_back({{"kinds", s.kinds}, {"bytes", s.bytes}});
  return {{"model_bytes", f.model_bytes},
          {"runtime_bytes", f.runtime_bytes},
          {"kernel_bytes", f.kernel_bytes},
          {"total_bytes", f.total_bytes},
          {"kernels", kernels},
          {"shared", shared},
          {"estimated", f.estimated},
          {"kernel_library", tflm_kernels_name(f.build.kernels)},
          {"opt", flash_opt_name(f.build.opt)},
          {"core", f.build.core},
          {"measured_for", f.measured_for},
          {"note", f.note},
          {"flash_bytes", c.flash_bytes},
          {"known", c.known},
          {"fits", c.fits},
          {"free_bytes", c.free_bytes}};
}

}  // namespace arenaplan
