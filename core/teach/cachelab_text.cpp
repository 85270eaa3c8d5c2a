// `arenaplan cache`'s text view of a cache-lab run.
#include <sstream>

#include "core/teach/cachelab.h"

namespace arenaplan {

std::string cache_report_text(const CacheLab& lab) {
  std::ostringstream out;
  out << policy_name(lab.config().policy) << ", " << lab.config().lines << " lines";
  if (lab.sets() > 1) out << " (" << lab.sets() << " sets x " << lab.config().ways << " ways)";
  out << ", requests " << lab.stream().describe() << "\n\n   k  block  result  evicted  contents (most recent first)\n";
  for (const CacheAccess& a : lab.history()) {
    out << (a.k < 10 ? "   " : a.k < 100 ? "  " : " ") << a.k << "  " << a.block << (a.block < 10 ? "      " : "     ")
        << (a.hit ? "hit " : "miss") << "    " << (a.evicted ? std::to_string(*a.evicted) : "-") << "        ";
    for (Block b : a.contents) out << b << " ";
    out << "\n";
  }
  out << "\n" << lab.hits() << " hits, " << lab.misses() << " misses\n";
  return out.str();
}

}  // namespace arenaplan
