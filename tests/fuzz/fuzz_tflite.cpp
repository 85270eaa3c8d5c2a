// libFuzzer target: any bytes into the .tflite importer, then the lifetimes and (when the import
// succeeds) both .tflite exports. The only acceptable failure is an InputError.
// Build: cmake -DARENAPLAN_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ ... && ./fuzz_tflite corpus/
// (seed the corpus with .cache/models/*.tflite).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/graph/lifetime.h"
#include "core/tflite/tflite_export.h"
#include "core/tflite/tflite_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace arenaplan;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (bool fold : {true, false}) {
    try {
      TfliteImportOptions options;
      options.fold_constant_ops = fold;
      TfliteModel m = import_tflite(bytes, options);
      LiveAnalysis live = analyze_lifetimes(m.graph, m.graph.file_order());
      if (fold) continue;
      // Exports must accept every model the importer accepts (sizes permitting).
      std::vector<Bytes> offsets(live.buffers.size(), 0);
      Bytes at = 0;
      for (size_t b = 0; b < live.buffers.size() && at < (Bytes{1} << 30); ++b) {
        offsets[b] = at;
        at += live.buffers[b].size;
      }
      if (at < (Bytes{1} << 30)) {
        std::string with_plan = tflite_with_offline_plan(bytes, offline_offsets_for(m, live, offsets));
        import_tflite(with_plan, options);
      }
      std::string same = tflite_reordered(bytes, file_operator_order(m, m.graph.file_order()));
      import_tflite(same, options);
    } catch (const InputError&) {
    }
  }
  return 0;
}
