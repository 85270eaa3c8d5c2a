#include "core/graph/json_read.h"

#include <algorithm>

namespace arenaplan::json_read {

Json parse_document(std::string_view text) {
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    const size_t byte = std::min<size_t>(e.byte == 0 ? 0 : e.byte - 1, text.size());
    const size_t line = 1 + std::count(text.begin(), text.begin() + byte, '\n');
    const size_t nl = text.substr(0, byte).rfind('\n');
    const size_t col = byte - (nl == std::string_view::npos ? 0 : nl + 1) + 1;
    const std::string msg = e.what();
    const auto p = msg.find("syntax error");
    throw InputError("line " + std::to_string(line) + ", column " + std::to_string(col),
                     "invalid JSON (" + (p == std::string::npos ? msg : msg.substr(p)) + ")");
  } catch (const Json::exception& e) {
    const std::string msg = e.what();
    const auto p = msg.find("] ");
    throw InputError("JSON", "invalid JSON (" + (p == std::string::npos ? msg : msg.substr(p + 2)) + ")");
  }
}

// JSON pointer escaping (RFC 6901) so names with '/' or '~' still give a valid place.
std::string ptr(const std::string& parent, const std::string& key) {
  std::string k;
  for (char c : key) {
    if (c == '~') k += "~0";
    else if (c == '/') k += "~1";
    else k += c;
  }
  return parent + "/" + k;
}
std::string ptr(const std::string& parent, size_t index) {
  return parent + "/" + std::to_string(index);
}

std::string kind_of(const Json& j) {
  switch (j.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::object: return "an object";
    case Json::value_t::array: return "an array";
    case Json::value_t::string: return "a string";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::number_float: return "a fractional number";
    default: return "a number";
  }
}

void expect_keys(const Json& obj, const std::string& where, std::initializer_list<const char*> allowed) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    bool ok = false;
    for (const char* a : allowed) ok = ok || it.key() == a;
    if (ok) continue;
    std::string list;
    for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    throw InputError(ptr(where, it.key()), "unknown key; expected one of: " + list);
  }
}

const Json& require(const Json& obj, const char* key, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end()) throw InputError(where.empty() ? "/" : where, std::string("missing required key \"") + key + "\"");
  return *it;
}

std::string get_string(const Json& j, const std::string& where) {
  if (!j.is_string()) throw InputError(where, "expected a string, found " + kind_of(j));
  return j.get<std::string>();
}

int64_t get_int(const Json& j, const std::string& where) {
  if (j.is_number_integer()) return j.get<int64_t>();
  if (j.is_number_unsigned()) {
    auto v = j.get<uint64_t>();
    if (v > static_cast<uint64_t>(INT64_MAX)) throw InputError(where, "number overflows 64 bits");
    return static_cast<int64_t>(v);
  }
  throw InputError(where, "expected an integer, found " + kind_of(j));
}

bool get_bool(const Json& j, const std::string& where) {
  if (!j.is_boolean()) throw InputError(where, "expected true or false, found " + kind_of(j));
  return j.get<bool>();
}

}  // namespace arenaplan::json_read
