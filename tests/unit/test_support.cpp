// The one test source compiled with AP_SOURCE_DIR (the clone's absolute path). Were the path a
// definition of every test source, each fresh clone would compile all of them anew: ccache hashes
// the command line and the preprocessed text, and both would differ from any earlier clone's.
#include "test_support.h"

namespace arenaplan::test {

std::string source_path(const std::string& relative) { return std::string(AP_SOURCE_DIR) + "/" + relative; }

}  // namespace arenaplan::test
