// Generated exercises: a seeded generator per exercise kind, with difficulty 1 (a few ops or
// requests, round sizes) to 5 (an inception cell or a residual chain with scratch buffers, a
// set-associative cache under OPT). The same (kind, difficulty, seed) gives the same exercise
// file, byte for byte, natively and in Wasm (detail/seeded_rng.h says how).
//
//   GeneratedExercise g = generate_exercise({ExerciseKind::kFindOrder, 3, 7});
//   write(g.json);                         // an ordinary arenaplan-exercise file
//   check_answer(g.exercise, g.reference_answer).correct;   // always true
//
// Graphs come from the schedule generators (core/schedule/schedule_generators.h: skip chains,
// residual chains, inception cells), dressed for a classroom: ops named A, B, C... so an order
// can be typed as "ABDC", each tensor named after the op that makes it, sizes redrawn as round
// multiples of 8 or 16 KiB so the answer needs thought about lifetimes rather than arithmetic.
// A draw that would make a trivial question (the file order already meets the bound, every
// request misses, every planner fits the budget, an injected violation that is not the only one)
// is replaced by the next attempt's draw, deterministically. fit-budget and broken-rule plan with
// the interactive planners only (no time limit), so their questions too are the same everywhere.
//
// Every generated exercise is parsed back with parse_exercise_json (which proves an answer
// exists) and its reference answer is checked by check_answer before it is returned; a failure
// there is a bug (std::logic_error), never a question without an answer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/teach/exercise.h"

namespace arenaplan {

constexpr int kMinDifficulty = 1;
constexpr int kMaxDifficulty = 5;
// Seeds stay below 2^53 so a share link's JSON (read by JavaScript too) keeps them exact.
constexpr uint64_t kMaxExerciseSeed = (uint64_t{1} << 53) - 1;

struct GeneratorSpec {
  ExerciseKind kind = ExerciseKind::kPredictPeak;
  int difficulty = 1;  // kMinDifficulty..kMaxDifficulty
  uint64_t seed = 0;   // 0..kMaxExerciseSeed
};

struct GeneratedExercise {
  std::string json;              // the exercise file (no answer in it)
  Exercise exercise;             // parse_exercise_json(json)
  std::string reference_answer;  // one correct answer, verified by check_answer
};

// The kinds with a generator, in menu order.
const std::vector<ExerciseKind>& generated_kinds();

// "predict-peak" or "predict_peak" (either spelling), ...; throws InputError(where, ...) naming
// the kinds otherwise.
ExerciseKind exercise_kind_from_name(std::string_view name, const std::string& where);

// "predict-peak", "find-order", ...: the generator's spelling of a kind (the CLI's --kind).
const char* generator_kind_name(ExerciseKind kind);

// Throws InputError for a difficulty or seed out of range.
GeneratedExercise generate_exercise(const GeneratorSpec& spec);

// FNV-1a 64 of the text: the same on every platform (student variants, set hashes, digests).
uint64_t stable_hash(std::string_view text);
// 16 lower-case hex digits.
std::string hash_hex(uint64_t h);

}  // namespace arenaplan
