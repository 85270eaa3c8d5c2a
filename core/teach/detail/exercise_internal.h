// Shared by the exercise units (exercise_parse.cpp reads files, exercise.cpp checks answers,
// exercise_json.cpp writes views): text helpers, limits and the placement arithmetic both parsing
// and checking need. Included only inside core/teach.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph/json_read.h"
#include "core/teach/exercise.h"

namespace arenaplan::exercise_detail {

constexpr int kMaxCount = 1000000;  // attempts, wrong answers in a progress record
constexpr size_t kMaxAnswerChars = 1000;
constexpr double kSolveSeconds = 2.0;  // schedule search / exact layout when proving an answer exists

// The message of an InputError without its "where: " prefix.
std::string message_of(const InputError& e);
// A place inside an embedded document: "/graph" + "/tensors/A" -> "/graph/tensors/A".
std::string nested(const std::string& where, const std::string& inner);
std::string trim(std::string_view s);
std::string lower(std::string s);
// "A, B and D".
std::string join_and(const std::vector<std::string>& items);
// At most `n` bytes of `text`, never cutting a UTF-8 character in half.
std::string utf8_prefix(std::string_view text, size_t n);
// Quotes the student's text in feedback, cut short so a pasted essay stays readable.
std::string quote_answer(const std::string& text);

int64_t get_int_in(const json_read::Json& j, const std::string& where, int64_t lo, int64_t hi);

// place_tensor: the fixed offsets with the placed buffer at `offset`.
std::vector<Bytes> offsets_with(const ExercisePlacement& p, Bytes offset);
// The lowest offset of the placed buffer that keeps the arena within `limit`, if any.
std::optional<Bytes> lowest_fit(const ExercisePlacement& p, Bytes limit);
// cache_misses: the lab after the exercise's requests.
CacheLab run_lab(const Exercise& ex);

}  // namespace arenaplan::exercise_detail
