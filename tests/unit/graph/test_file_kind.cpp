// Files that are neither graph JSON nor .tflite are refused by saying what they look like.
#include <doctest/doctest.h>

#include <string>

#include "core/graph/file_kind.h"

using namespace arenaplan;

TEST_CASE("a PNG, a PDF, a ZIP and binary bytes are named; graph JSON and .tflite pass") {
  const std::string png("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
  CHECK(non_graph_file_kind(png) == "a PNG image");
  CHECK(non_graph_file_kind("%PDF-1.7\n...") == "a PDF document");
  CHECK(non_graph_file_kind(std::string("PK\x03\x04\x14\0", 6))->find("a ZIP archive") == 0);
  CHECK(non_graph_file_kind(std::string("\xFF\xD8\xFF\xE0", 4)) == "a JPEG image");
  CHECK(non_graph_file_kind(std::string("\x01\x02\x03\x00\xFE", 5)) == "binary data");
  CHECK(non_graph_file_kind("") == "an empty file");
  CHECK(non_graph_file_kind("hello world") == "text that is not JSON");
  CHECK(non_graph_file_kind("[1, 2]") == "a JSON array, not a graph object");
  CHECK_FALSE(non_graph_file_kind("  {\"format\": \"arenaplan-graph\"}").has_value());
  CHECK_FALSE(non_graph_file_kind("\xEF\xBB\xBF{}").has_value());  // a UTF-8 BOM is fine
  CHECK_FALSE(non_graph_file_kind(std::string("\x1c\0\0\0TFL3\0\0", 10)).has_value());
  CHECK_FALSE(non_graph_file_kind("{\"name\": \"gr\xC3\xBC" "n\"}").has_value());  // UTF-8 text
  CHECK(non_graph_file_kind("{\"name\": \"caf\xE9\"}")->find("not UTF-8") != std::string::npos);  // latin-1
  CHECK(non_graph_file_kind("caf\xE9 au lait") == "text that is not UTF-8");
}
