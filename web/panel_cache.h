// The Cache lab's entry point for the Exercises panel: "Try it in the Cache lab" on a cache
// question loads its cache (lines, ways, policy) and its requests (a list or a stride).
#pragma once

#include "core/teach/exercise.h"
#include "web/app.h"

namespace arenaplan::web {

// The lab set to the question (nothing run yet: the student steps it) and the tab opened; a
// cache the lab refuses leaves the lab as it was, with the reason shown there.
void load_cache_question(AppState& s, const Exercise& ex);

}  // namespace arenaplan::web
