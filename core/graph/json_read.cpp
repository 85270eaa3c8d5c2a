#include "core/graph/json_read.h"

#include <algorithm>
#include <memory>
#include <unordered_map>
#include <vector>

namespace arenaplan::json_read {

namespace {

// Builds the document as nlohmann's own parser does, except that a big object finds its keys
// through a hash index: ordered_json looks every key up by a linear search, which made reading
// a graph of 100,000 tensors quadratic. Duplicate keys keep nlohmann's rule (the last value
// wins, in the first key's place).
class OrderedDomBuilder {
 public:
  using number_integer_t = Json::number_integer_t;
  using number_unsigned_t = Json::number_unsigned_t;
  using number_float_t = Json::number_float_t;
  using string_t = Json::string_t;
  using binary_t = Json::binary_t;

  explicit OrderedDomBuilder(Json& root) : root_(root) {}

  bool null() { return add(nullptr); }
  bool boolean(bool v) { return add(v); }
  bool number_integer(number_integer_t v) { return add(v); }
  bool number_unsigned(number_unsigned_t v) { return add(v); }
  bool number_float(number_float_t v, const string_t&) { return add(v); }
  bool string(string_t& v) { return add(std::move(v)); }
  bool binary(binary_t& v) { return add(Json::binary(std::move(v))); }
  bool start_object(std::size_t) { return open(Json::object()); }
  bool start_array(std::size_t) { return open(Json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(string_t& k) {
    Frame& f = stack_.back();
    Json::object_t& object = f.value->get_ref<Json::object_t&>();
    size_t at = object.size();
    if (f.index) {
      auto [it, inserted] = f.index->try_emplace(k, object.size());
      at = it->second;
    } else {
      for (size_t i = 0; i < object.size(); ++i)
        if ((object.begin() + i)->first == k) at = i;
      if (object.size() >= kIndexFrom) {  // big enough for a hash index from now on
        f.index = std::make_unique<std::unordered_map<std::string, size_t>>();
        for (size_t i = 0; i < object.size(); ++i) f.index->emplace((object.begin() + i)->first, i);
        f.index->emplace(k, object.size());
      }
    }
    if (at == object.size()) object.emplace_back(std::move(k), nullptr);
    element_ = &(object.begin() + at)->second;
    return true;
  }
  template <class Exception>
  bool parse_error(std::size_t, const std::string&, const Exception& ex) {
    throw ex;
  }

 private:
  static constexpr size_t kIndexFrom = 16;
  struct Frame {
    Json* value;
    std::unique_ptr<std::unordered_map<std::string, size_t>> index;  // key -> position
  };

  template <class V>
  Json* place(V&& v) {
    if (stack_.empty()) {
      root_ = Json(std::forward<V>(v));
      return &root_;
    }
    Json* parent = stack_.back().value;
    if (parent->is_array()) {
      Json::array_t& array = parent->get_ref<Json::array_t&>();
      array.emplace_back(std::forward<V>(v));
      return &array.back();
    }
    *element_ = Json(std::forward<V>(v));
    return element_;
  }
  template <class V>
  bool add(V&& v) {
    place(std::forward<V>(v));
    return true;
  }
  bool open(Json&& container) {
    stack_.push_back({place(std::move(container)), nullptr});
    return true;
  }
  bool close() {
    stack_.pop_back();
    return true;
  }

  Json& root_;
  std::vector<Frame> stack_;
  Json* element_ = nullptr;  // the value slot of the last key read
};

}  // namespace

Json parse_document(std::string_view text) {
  try {
    Json doc;
    OrderedDomBuilder builder(doc);
    Json::sax_parse(text.begin(), text.end(), &builder);
    return doc;
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
