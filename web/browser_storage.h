// The browser's local storage for what a page keeps between visits (a student's saved work). Keys
// get the page's "arenaplan." prefix. Storage can be missing or refuse (private modes, quota):
// reads then find nothing and writes say so, and the page goes on for its lifetime. Natively
// there is no storage: reads find nothing, writes report false.
#pragma once

#include <optional>
#include <string>

namespace arenaplan::web {

std::optional<std::string> storage_read(const std::string& key);
bool storage_write(const std::string& key, const std::string& value);

}  // namespace arenaplan::web
