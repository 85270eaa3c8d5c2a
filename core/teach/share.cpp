#include "core/teach/share.h"

#include <zlib.h>

#include <algorithm>

#include "core/graph/graph.h"

namespace arenaplan {

namespace {
constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
const std::string kWhere = "share link";
}  // namespace

std::string base64url_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() * 4 + 2) / 3);
  uint32_t acc = 0;
  int bits = 0;
  for (unsigned char c : bytes) {
    acc = (acc << 8) | c;
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += kAlphabet[(acc >> bits) & 63];
    }
  }
  if (bits > 0) out += kAlphabet[(acc << (6 - bits)) & 63];
  return out;
}

std::string base64url_decode(std::string_view text) {
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    int v = c >= 'A' && c <= 'Z' ? c - 'A'
            : c >= 'a' && c <= 'z' ? c - 'a' + 26
            : c >= '0' && c <= '9' ? c - '0' + 52
            : c == '-' ? 62 : c == '_' ? 63 : -1;
    if (v < 0)
      throw InputError(kWhere, "character " + std::to_string(i) + " ('" + std::string(1, c) +
                                   "') is not base64url; was the link cut or altered?");
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return out;
}

std::string zlib_compress(std::string_view bytes) {
  uLongf size = compressBound(static_cast<uLong>(bytes.size()));
  std::string out(size, '\0');
  if (compress2(reinterpret_cast<Bytef*>(out.data()), &size, reinterpret_cast<const Bytef*>(bytes.data()),
                static_cast<uLong>(bytes.size()), Z_BEST_COMPRESSION) != Z_OK)
    throw std::runtime_error("zlib compression failed");
  out.resize(size);
  return out;
}

std::string zlib_decompress(std::string_view bytes, size_t max_bytes) {
  z_stream z{};
  if (inflateInit(&z) != Z_OK) throw std::runtime_error("zlib init failed");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  std::string out;
  char chunk[16384];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(chunk);
    z.avail_out = sizeof chunk;
    rc = inflate(&z, Z_NO_FLUSH);
    out.append(chunk, sizeof chunk - z.avail_out);
    if (out.size() > max_bytes) {
      inflateEnd(&z);
      throw InputError(kWhere, "expands past " + std::to_string(max_bytes) + " bytes; refused");
    }
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break;  // input ended before the stream did
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END)
    throw InputError(kWhere, rc == Z_DATA_ERROR ? "data is corrupt (checksum or format error)"
                                                : "data is truncated (the link was cut short?)");
  return out;
}

void check_embed_view(const std::string& view) {
  if (view.empty()) return;
  for (const char* v : {"live", "lifetimes", "arena", "graph", "cache"})
    if (view == v) return;
  const std::string id = view.rfind("exercise:", 0) == 0 ? view.substr(9) : "";
  const bool id_ok = !id.empty() && id.size() <= 64 && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  });
  if (!id_ok)
    throw InputError(kWhere + " /embed", "expected live, lifetimes, arena, graph, cache or exercise:NAME, found \"" +
                                             view.substr(0, 80) + "\"");
}

JsonOut share_state_json(const ShareState& s) {
  JsonOut j;
  j["v"] = kShareVersion;
  if (!s.example.empty()) j["example"] = s.example;
  if (!s.graph_json.empty()) j["graph"] = s.graph_json;
  if (!s.order.empty()) j["order"] = s.order;
  if (!s.panel.empty()) j["panel"] = s.panel;
  j["step"] = s.current_step;
  if (!s.panels.empty()) j["panels"] = s.panels;
  if (!s.assignment.is_null()) j["assignment"] = s.assignment;
  if (!s.embed.empty()) j["embed"] = s.embed;
  return j;
}

ShareState share_state_from_json(const JsonOut& j) {
  if (!j.is_object()) throw InputError(kWhere, "expected a JSON object");
  if (!j.contains("v") || !j["v"].is_number_integer())
    throw InputError(kWhere + " /v", "missing version number");
  int v = j["v"].get<int>();
  if (v > kShareVersion)
    throw InputError(kWhere + " /v", "made by a newer arenaplan (link version " + std::to_string(v) +
                                         ", this page reads up to " + std::to_string(kShareVersion) + ")");
  if (v < 1) throw InputError(kWhere + " /v", "unknown link version " + std::to_string(v));
  auto str = [&](const char* key, std::string& into) {
    if (!j.contains(key)) return;
    if (!j[key].is_string()) throw InputError(kWhere + " /" + key, "expected a string");
    into = j[key].get<std::string>();
  };
  ShareState s;
  str("example", s.example);
  str("graph", s.graph_json);
  str("panel", s.panel);
  if (s.example.empty() == s.graph_json.empty())
    throw InputError(kWhere, "needs exactly one of an example name or an inline graph");
  if (j.contains("order")) {
    if (!j["order"].is_array()) throw InputError(kWhere + " /order", "expected an array of op names");
    for (const auto& o : j["order"]) {
      if (!o.is_string()) throw InputError(kWhere + " /order", "expected op names");
      s.order.push_back(o.get<std::string>());
    }
  }
  if (j.contains("step")) {
    if (!j["step"].is_number_integer() || j["step"].get<int64_t>() < 0 || j["step"].get<int64_t>() > 1 << 24)
      throw InputError(kWhere + " /step", "expected a step number");
    s.current_step = j["step"].get<int>();
  }
  if (j.contains("panels")) {
    if (!j["panels"].is_object()) throw InputError(kWhere + " /panels", "expected an object");
    s.panels = j["panels"];
  }
  if (j.contains("assignment")) {  // checked by parse_assignment_json where it is opened
    if (!j["assignment"].is_object()) throw InputError(kWhere + " /assignment", "expected an assignment object");
    s.assignment = j["assignment"];
  }
  str("embed", s.embed);
  check_embed_view(s.embed);
  return s;
}

std::string encode_share_fragment(const ShareState& s) {
  return "v" + std::to_string(kShareVersion) + "." + base64url_encode(zlib_compress(share_state_json(s).dump()));
}

ShareState decode_share_fragment(std::string_view fragment) {
  if (!fragment.empty() && fragment[0] == '#') fragment.remove_prefix(1);
  size_t dot = fragment.find('.');
  if (fragment.size() < 2 || fragment[0] != 'v' || dot == std::string_view::npos)
    throw InputError(kWhere, "not an arenaplan link (expected #v1.<data>)");
  int version = 0;
  for (size_t i = 1; i < dot; ++i) {
    if (fragment[i] < '0' || fragment[i] > '9' || version > 100000)
      throw InputError(kWhere, "bad version prefix");
    version = version * 10 + (fragment[i] - '0');
  }
  if (version > kShareVersion)
    throw InputError(kWhere, "made by a newer arenaplan (link version " + std::to_string(version) +
                                 ", this page reads up to " + std::to_string(kShareVersion) + ")");
  std::string json = zlib_decompress(base64url_decode(fragment.substr(dot + 1)), kShareMaxDecodedBytes);
  JsonOut j = JsonOut::parse(json, nullptr, false);
  if (j.is_discarded()) throw InputError(kWhere, "decoded data is not JSON");
  return share_state_from_json(j);
}

}  // namespace arenaplan
