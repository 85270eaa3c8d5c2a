// What a file that is not a graph looks like, for clear refusals: "a PNG image", "a ZIP archive",
// "binary data". The page and the CLI accept graph JSON and .tflite models; everything else is
// refused by naming what it is instead of reporting a JSON syntax error deep inside it.
//
// Usage:
//   if (auto what = non_graph_file_kind(bytes)) refuse("this is " + *what + ", not a graph JSON or .tflite model");
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace arenaplan {

// nullopt when the bytes could be graph JSON or a .tflite model (text starting with '{' after
// optional whitespace or a UTF-8 BOM, or the TFL3 identifier); otherwise a short description of
// what they look like ("a PNG image", "a PDF document", "text that is not JSON", "binary data").
std::optional<std::string> non_graph_file_kind(std::string_view bytes);

}  // namespace arenaplan
