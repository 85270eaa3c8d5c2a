// libFuzzer target: exercise JSON and answers. A bad exercise ends in InputError; any answer to a
// valid exercise is checked (right or wrong, with feedback), never a crash or an exception.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/teach/exercise.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace arenaplan;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // The input is "exercise JSON" + optional "\n---\n" + "answer": one input drives both parts.
  const size_t cut = text.find("\n---\n");
  const std::string_view json = text.substr(0, cut);
  const std::string_view answer = cut == std::string_view::npos ? std::string_view("0") : text.substr(cut + 5);
  Exercise ex;
  try {
    ex = parse_exercise_json(json);
  } catch (const InputError&) {
    return 0;
  }
  ExerciseProgress progress;
  submit_answer(ex, progress, answer);  // must not throw: a malformed answer is a wrong answer
  take_hint(ex, progress);
  const JsonOut saved = progress_json(progress);
  progress_from_json(saved, ex, "fuzz");  // the writer's output always reads back
  exercise_json(ex);
  return 0;
}
