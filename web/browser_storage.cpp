#include "web/browser_storage.h"

#include <cstdlib>

#ifdef __EMSCRIPTEN__
#include <emscripten.h>
#endif

namespace arenaplan::web {

std::optional<std::string> storage_read(const std::string& key) {
#ifdef __EMSCRIPTEN__
  // The value comes back in memory malloc'd by the page (0 when absent), freed here.
  char* text = reinterpret_cast<char*>(EM_ASM_INT({
    let value = null;
    try { value = localStorage.getItem('arenaplan.' + UTF8ToString($0)); } catch (e) {}
    if (value === null) return 0;
    const n = lengthBytesUTF8(value) + 1;
    const p = _malloc(n);
    stringToUTF8(value, p, n);
    return p;
  }, key.c_str()));
  if (!text) return std::nullopt;
  std::string out(text);
  std::free(text);
  return out;
#else
  (void)key;
  return std::nullopt;
#endif
}

bool storage_write(const std::string& key, const std::string& value) {
#ifdef __EMSCRIPTEN__
  return EM_ASM_INT({
    try { localStorage.setItem('arenaplan.' + UTF8ToString($0), UTF8ToString($1)); return 1; } catch (e) { return 0; }
  }, key.c_str(), value.c_str()) != 0;
#else
  (void)key;
  (void)value;
  return false;
#endif
}

}  // namespace arenaplan::web
