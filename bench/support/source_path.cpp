// The one bench source compiled with AP_SOURCE_DIR (the clone's absolute path), so that the bench
// programs themselves compile to the same objects in every clone and ccache reuses them.
#include "bench/bench_util.h"

namespace arenaplan::bench {

std::string source_path(const std::string& relative) { return std::string(AP_SOURCE_DIR) + "/" + relative; }

}  // namespace arenaplan::bench
