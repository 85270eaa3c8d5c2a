// Reading user JSON with errors that name the place: JSON pointers (RFC 6901) and typed getters
// shared by every parser of a hand-written format (graphs, boards). Each getter throws
// InputError(where, "expected ..., found ...").
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "core/graph/graph.h"

namespace arenaplan::json_read {

using Json = nlohmann::ordered_json;  // keeps the file's key order (tensor order is a tie-break)

// Parses a whole document. Every failure is an InputError: syntax errors name "line L, column C",
// numbers too large for a double name the offending text (nlohmann throws those as out_of_range).
Json parse_document(std::string_view text);

std::string ptr(const std::string& parent, const std::string& key);  // "/tensors" + "a/b" -> "/tensors/a~1b"
std::string ptr(const std::string& parent, size_t index);
std::string kind_of(const Json& j);  // "an object", "a string", ... for messages

// Throws for the first key of `obj` not in `allowed`, listing what is allowed.
void expect_keys(const Json& obj, const std::string& where, std::initializer_list<const char*> allowed);
const Json& require(const Json& obj, const char* key, const std::string& where);

std::string get_string(const Json& j, const std::string& where);
int64_t get_int(const Json& j, const std::string& where);
bool get_bool(const Json& j, const std::string& where);

}  // namespace arenaplan::json_read
