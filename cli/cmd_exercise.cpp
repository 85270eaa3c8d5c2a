// arenaplan exercise: the guided classroom exercises (core/teach/exercise.h) from the command line.
//   exercise list                       the built-in exercises
//   exercise show NAME|FILE [--hints]   the question and what the student is given
//   exercise check NAME|FILE --answer TEXT   exit 0 correct, 1 not yet, 2 bad input
//   exercise generate --kind KIND --difficulty 1..5 --seed N [-o FILE] [--json]
//                                       a new exercise file (exercise_generate.h)
//   exercise result SETFILE --student NAME --answer A1 --answer A2 ... [-o FILE]
//                                       a student's result file (assignment.h), each answer checked once
//   exercise grade RESULT... [--set SETFILE] [--json]   the class table; exit 1 when a result is rejected
//   exercise link SETFILE [--base URL]  the share link that opens the set in the playground
#include <cstdio>
#include <iostream>

#include "core/graph/report.h"
#include "cli/command.h"
#include "core/graph/examples.h"
#include "core/teach/exercise.h"
#include "core/teach/assignment.h"
#include "core/teach/exercise_generate.h"

namespace arenaplan::cli {
namespace {

// A built-in exercise ("exercise_place_c" or "example:exercise_place_c"), else a file; errors name
// it first, as every command's inputs do (cli/input.cpp).
Exercise load_exercise(const std::string& ref) {
  const auto parse = [&](const std::string& text) { return in_file(ref, [&] { return parse_exercise_json(text); }); };
  if (is_example(ref)) {
    const std::string& text = example_text(ref);
    if (!is_exercise_json(text)) throw InputError(ref, "a built-in graph, not an exercise (see `arenaplan exercise list`)");
    return parse(text);
  }
  if (const std::string* text = find_example(ref); text && is_exercise_json(*text)) return parse(*text);
  if (ref.find('/') == std::string::npos && ref.find('.') == std::string::npos)
    throw InputError(ref, "no built-in exercise of that name (see `arenaplan exercise list`)");
  return parse(read_file(ref));
}

int run_list(const Args& args) {
  const std::vector<Exercise> all = builtin_exercises();
  if (args.flag("json")) {
    JsonOut out = JsonOut::array();
    for (const Exercise& ex : all)
      out.push_back({{"name", ex.name}, {"title", ex.title}, {"kind", exercise_kind_name(ex.kind)}, {"points", ex.points}});
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  for (const Exercise& ex : all) std::printf("%-24s %-13s %s\n", ex.name.c_str(), exercise_kind_name(ex.kind), ex.title.c_str());
  return 0;
}

void print_placement(const Exercise& ex, const JsonOut& j) {
  std::cout << "Place " << ex.tensor << " (" << format_bytes(j["tensor_bytes"].get<Bytes>()) << ", live at steps "
            << j["tensor_first"].get<int>() << ".." << j["tensor_last"].get<int>() << ", offsets multiples of "
            << j["alignment"].get<Bytes>() << " B); the arena may use at most " << format_bytes(ex.limit_bytes) << ".\n"
            << "Fixed offsets of the other buffers" << (ex.placement.from_plan ? " (from the verified optimal plan)" : "")
            << ":\n  buffer    offset (B)    size (B)   live steps\n";
  for (const JsonOut& b : j["fixed"])
    std::printf("  %-10s %9s %11s   %d..%d\n", b["name"].get<std::string>().c_str(),
                with_commas(b["offset"].get<Bytes>()).c_str(), with_commas(b["size"].get<Bytes>()).c_str(),
                b["first"].get<int>(), b["last"].get<int>());
}

// The graph a student reasons about: each op with what it reads and makes, sizes included.
void print_graph(const Graph& g) {
  auto sized = [&](TensorId t) { return g.tensors[t].name + " (" + format_bytes(g.tensors[t].bytes) + ")"; };
  for (const Op& op : g.ops) {
    std::string reads, makes;
    for (TensorId t : op.inputs) reads += (reads.empty() ? "" : ", ") + sized(t);
    for (TensorId t : op.outputs) makes += (makes.empty() ? "" : ", ") + sized(t);
    std::cout << "  " << op.name << ": reads " << reads << "; makes " << makes;
    if (op.scratch_bytes) std::cout << "; scratch " << format_bytes(op.scratch_bytes);
    std::cout << "\n";
  }
  std::string outputs;
  for (TensorId t : g.outputs) outputs += (outputs.empty() ? "" : ", ") + g.tensors[t].name;
  std::cout << "  graph outputs: " << outputs << "\n";
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// The plan a broken_rule question judges: one row per buffer, as the plan states it, offsets and
// sizes in plain bytes on every row (a unit chosen per value would print the one misaligned
// offset in bytes among KiB, which gives the answer away).
void print_plan_under_test(const Exercise& ex, const JsonOut& j) {
  const JsonOut& plan = j["plan"];
  std::cout << ", order " << order_names(ex.graph.graph, ex.order) << "\nThe plan: arena "
            << format_bytes(plan["arena_bytes"].get<Bytes>()) << ", offsets multiples of " << plan["alignment"].get<Bytes>()
            << " B\n  buffer    offset (B)    size (B)   live steps (as the plan assumed)\n";
  for (const JsonOut& b : plan["buffers"])
    std::printf("  %-10s %9s %11s   %d..%d\n", b["name"].get<std::string>().c_str(),
                with_commas(b["offset"].get<Bytes>()).c_str(), with_commas(b["size"].get<Bytes>()).c_str(),
                b["first"].get<int>(), b["last"].get<int>());
}

void print_parameters(const Exercise& ex, const JsonOut& j) {
  if (ex.uses_graph()) std::cout << "Graph: " << j["graph"].get<std::string>();
  switch (ex.kind) {
    case ExerciseKind::kPredictPeak: std::cout << ", order " << order_names(ex.graph.graph, ex.order) << "\n"; break;
    case ExerciseKind::kFindOrder:
      std::cout << (ex.limit_inclusive ? ", peak at most " : ", peak below ") << format_bytes(ex.limit_bytes) << "\n";
      break;
    case ExerciseKind::kPlaceTensor:
      std::cout << ", order " << order_names(ex.graph.graph, ex.order) << "\n";
      print_placement(ex, j);
      break;
    case ExerciseKind::kCacheMisses:
      std::cout << "Cache: " << ex.cache.lines << " lines, "
                << (ex.cache.ways ? std::to_string(ex.cache.ways) + " ways" : std::string("fully associative")) << ", "
                << policy_name(ex.cache.policy) << "; "
                << (ex.stride ? "request k touches block k mod " + std::to_string(ex.stride) : "a list of blocks") << "; "
                << ex.requests << " requests\n";
      break;
    case ExerciseKind::kFitBudget:
      if (ex.planner.empty())
        std::cout << ", order " << order_names(ex.graph.graph, ex.order) << "\nBudget " << format_bytes(ex.limit_bytes)
                  << " for the arena; planners to choose from: " << join_names(ex.planners) << "\n";
      else
        std::cout << "\nBudget " << format_bytes(ex.limit_bytes) << " for the arena; the planner: " << ex.planner << "\n";
      break;
    case ExerciseKind::kBrokenRule: print_plan_under_test(ex, j); break;
  }
}

int run_show(const Args& args) {
  const Exercise ex = load_exercise(args.positional_at(1, "NAME or FILE"));
  const JsonOut j = exercise_json(ex);
  if (args.flag("json")) {
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::cout << ex.name << ": " << ex.title << " (" << exercise_kind_name(ex.kind) << ", " << ex.points
            << " points)\n\n" << ex.question << "\n\n";
  print_parameters(ex, j);
  if (ex.uses_graph() && ex.graph.example.empty()) print_graph(ex.graph.graph);  // no built-in to look up
  std::cout << "Answer: " << answer_format(ex.kind) << "\n";
  if (args.flag("hints"))
    for (size_t i = 0; i < ex.hints.size(); ++i) std::cout << "Hint " << i + 1 << ": " << ex.hints[i] << "\n";
  else if (!ex.hints.empty())
    std::cout << ex.hints.size() << " hints (--hints shows them; each costs 3 points in the playground)\n";
  return 0;
}

int run_check(const Args& args) {
  const Exercise ex = load_exercise(args.positional_at(1, "NAME or FILE"));
  const auto answer = args.option("answer");
  if (!answer) throw InputError("--answer", "missing: the answer to check, e.g. --answer \"192 KiB\"");
  const AnswerCheck check = check_answer(ex, *answer);
  if (args.flag("json")) {
    std::cout << JsonOut{{"exercise", ex.name}, {"kind", exercise_kind_name(ex.kind)}, {"answer", *answer},
                         {"correct", check.correct}, {"feedback", check.feedback}, {"points", ex.points}}
                     .dump(2, ' ', false, JsonOut::error_handler_t::replace)  // the answer may be any bytes
              << "\n";
  } else {
    std::cout << (check.correct ? "Correct: " : "Not yet: ") << check.feedback << "\n";
  }
  return check.correct ? 0 : 1;
}

// `-o FILE` (a short option the shared parser reads as two positionals) or --out FILE, as in export.
std::optional<std::string> output_path(const Args& args, std::vector<std::string>& positional) {
  std::optional<std::string> out = args.option("out");
  for (size_t i = 0; i < positional.size(); ++i) {
    if (positional[i] != "-o") continue;
    if (i + 1 >= positional.size()) throw InputError("-o", "needs a file name");
    out = positional[i + 1];
    positional.erase(positional.begin() + static_cast<std::ptrdiff_t>(i), positional.begin() + static_cast<std::ptrdiff_t>(i) + 2);
    break;
  }
  return out;
}

int run_generate(const Args& args, const std::optional<std::string>& out_path) {
  const auto kind = args.option("kind");
  if (!kind)
    throw InputError("--kind", "missing: predict-peak, find-order, place-tensor, cache-misses, fit-budget or broken-rule");
  GeneratorSpec spec;
  spec.kind = exercise_kind_from_name(*kind, "--kind");
  spec.difficulty = static_cast<int>(args.int_option("difficulty", kMinDifficulty, kMinDifficulty, kMaxDifficulty));
  spec.seed = static_cast<uint64_t>(args.int_option("seed", 1, 0, static_cast<int64_t>(kMaxExerciseSeed)));
  const GeneratedExercise gen = generate_exercise(spec);
  if (out_path) write_file(*out_path, gen.json);
  if (args.flag("json")) {
    std::cout << exercise_json(gen.exercise).dump(2) << "\n";
  } else if (out_path) {
    std::cout << "wrote " << *out_path << ": " << gen.exercise.title << "\n" << gen.exercise.question << "\n";
  } else {
    std::cout << gen.json;
  }
  return 0;
}

Assignment load_set(const std::string& path) {
  return in_file(path, [&] { return parse_assignment_json(read_file(path)); });
}

int run_result(const Args& args, const std::vector<std::string>& positional, const std::optional<std::string>& out_path) {
  const Assignment set = load_set(positional.at(1));
  const auto student = args.option("student");
  if (!student || normalize_student(*student).empty()) throw InputError("--student", "missing: the student's name or number");
  const std::vector<Exercise> exercises = assignment_exercises(set, *student);
  const std::vector<std::string> answers = args.options("answer");
  if (answers.size() > exercises.size())
    throw InputError("--answer", std::to_string(answers.size()) + " answers for " + std::to_string(exercises.size()) +
                                     " exercises");
  std::vector<ExerciseProgress> progress(exercises.size());
  for (size_t i = 0; i < answers.size(); ++i)
    if (!answers[i].empty()) submit_answer(exercises[i], progress[i], answers[i]);
  const std::string text = result_json(set, *student, progress).dump(2) + "\n";
  if (out_path) write_file(*out_path, text);
  else std::cout << text;
  return 0;
}

int run_grade(const Args& args, const std::vector<std::string>& positional) {
  if (positional.size() < 2) throw InputError("arguments", "missing: the result files to grade");
  std::optional<Assignment> set;
  if (const auto set_path = args.option("set")) set = load_set(*set_path);
  std::vector<std::pair<std::string, std::string>> results;
  for (size_t i = 1; i < positional.size(); ++i) results.emplace_back(positional[i], read_file(positional[i]));
  const ClassReport report = grade_results(results, set ? &*set : nullptr);
  if (args.flag("json")) std::cout << class_report_json(report).dump(2) << "\n";
  else std::cout << class_report_text(report);
  return report.rejected() > 0 ? 1 : 0;
}

int run_link(const Args& args, const std::vector<std::string>& positional) {
  const Assignment set = load_set(positional.at(1));
  std::cout << args.option("base").value_or("") << "#" << assignment_link_fragment(set) << "\n";
  return 0;
}

int run_exercise(const Args& args) {
  const std::string& action = args.positional_at(0, "an action: list, show, check or generate");
  std::vector<std::string> positional = args.positional;
  const std::optional<std::string> out_path = output_path(args, positional);
  if (action == "grade") return run_grade(args, positional);
  const size_t wanted = action == "list" || action == "generate" ? 1 : 2;
  if ((action == "result" || action == "link") && positional.size() < 2)
    throw InputError("arguments", "missing: the set file (an arenaplan-assignment)");
  if (positional.size() > wanted)
    throw InputError("arguments", "unexpected \"" + positional[wanted] + "\"; usage: arenaplan exercise list | show NAME|FILE | check NAME|FILE --answer TEXT | generate --kind KIND --difficulty 1..5 --seed N [-o FILE]");
  if (action == "generate") return run_generate(args, out_path);
  if (action == "result") return run_result(args, positional, out_path);
  if (action == "link") return run_link(args, positional);
  if (action == "list") return run_list(args);
  if (action == "show") return run_show(args);
  if (action == "check") return run_check(args);
  throw InputError("arguments", "unknown action \"" + action + "\"; expected list, show, check, generate, result, grade or link");
}

}  // namespace

ARENAPLAN_COMMAND("exercise",
                  "exercise list | show NAME|FILE [--hints] | check NAME|FILE --answer TEXT [--json] | generate --kind "
                  "KIND --difficulty 1..5 --seed N [-o|--out FILE] [--json] | result SETFILE --student NAME --answer A "
                  "[--answer B ...] [-o FILE] | grade RESULT... [--set SETFILE] [--json] | link SETFILE [--base URL]",
                  {"json", "hints"}, {"answer", "kind", "difficulty", "seed", "out", "student", "set", "base"}, run_exercise,
                  "Classroom exercises: list, show a question, check an answer, generate new ones, make and grade student result files, make an assignment link.",
                  {{"answer", "the student's answer (check, result; repeatable for result)"},
                   {"kind", "generate: the exercise kind (find-order, fit-budget, broken-rule, ...)"},
                   {"difficulty", "generate: 1..5 (default: 1)"},
                   {"seed", "generate: the seed (default: 1)"},
                   {"out", "write the file here (generate, result; also -o FILE)"},
                   {"student", "result: the student's name"},
                   {"set", "grade: the assignment set the results must come from"},
                   {"base", "link: the playground's address to put before the fragment (default: none)"},
                   {"json", "machine-readable output"},
                   {"hints", "show: include the hints"}},
                  {"exercise list", "exercise show exercise_predict_peak --hints"});

}  // namespace arenaplan::cli
