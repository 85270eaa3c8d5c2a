#include "core/graph/file_kind.h"

#include <algorithm>

namespace arenaplan {
namespace {

struct Magic {
  std::string_view prefix;
  const char* what;
};

// Signatures of the files people drop by mistake (images, documents, archives, other models).
constexpr Magic kMagics[] = {
    {"\x89PNG\r\n\x1a\n", "a PNG image"},
    {"\xFF\xD8\xFF", "a JPEG image"},
    {"GIF87a", "a GIF image"},
    {"GIF89a", "a GIF image"},
    {"%PDF-", "a PDF document"},
    {"PK\x03\x04", "a ZIP archive (or an Office document / Keras .keras file)"},
    {"\x1F\x8B", "a gzip-compressed file"},
    {"BM", "a BMP image"},
    {"\x7F" "ELF", "an ELF executable"},
    {"\x89HDF\r\n\x1a\n", "an HDF5 file (a Keras .h5 model?)"},
    {"<!DOCTYPE", "an HTML page"},
    {"<html", "an HTML page"},
    {"<?xml", "an XML document"},
};

bool starts_with(std::string_view s, std::string_view p) { return s.size() >= p.size() && s.substr(0, p.size()) == p; }

enum class TextKind { kUtf8, kNotUtf8, kBinary };

// UTF-8 that decodes cleanly, text in another encoding (bytes >= 0x80 that are not UTF-8), or
// binary (control bytes other than whitespace). Looks at the first 64 KiB.
TextKind text_kind(std::string_view s) {
  size_t i = 0;
  const size_t n = std::min<size_t>(s.size(), 64 * 1024);
  bool utf8 = true;
  while (i < n) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c < 0x20 && c != '\n' && c != '\r' && c != '\t') return TextKind::kBinary;
      ++i;
      continue;
    }
    const int extra = (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : -1;
    bool ok = extra > 0;
    for (int k = 1; ok && k <= extra && i + k < n; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    if (!ok) utf8 = false;
    i += ok ? extra + 1 : 1;
  }
  return utf8 ? TextKind::kUtf8 : TextKind::kNotUtf8;
}

}  // namespace

std::optional<std::string> non_graph_file_kind(std::string_view bytes) {
  if (bytes.empty()) return std::string("an empty file");
  if (bytes.size() >= 8 && bytes.substr(4, 4) == "TFL3") return std::nullopt;
  for (const Magic& m : kMagics)
    if (starts_with(bytes, m.prefix)) return std::string(m.what);
  std::string_view text = bytes;
  if (starts_with(text, "\xEF\xBB\xBF")) text.remove_prefix(3);
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return std::string("an empty text file");
  const TextKind kind = text_kind(text);
  if (kind == TextKind::kBinary) return std::string("binary data");
  if (kind == TextKind::kNotUtf8)
    return std::string(text[first] == '{' ? "JSON text that is not UTF-8 (save it as UTF-8)" : "text that is not UTF-8");
  if (text[first] == '{') return std::nullopt;
  if (text[first] == '[') return std::string("a JSON array, not a graph object");
  return std::string("text that is not JSON");
}

}  // namespace arenaplan
