// Share links: round trips, and every way a link can be broken gives a clear error.
#include <doctest/doctest.h>

#include <random>

#include "core/teach/share.h"
#include "tests/unit/test_support.h"

using namespace arenaplan;

namespace {
std::string error_of(std::string_view fragment) {
  return test::input_error_of([&] { decode_share_fragment(fragment); });
}
}  // namespace

TEST_CASE("base64url matches RFC 4648 test vectors (unpadded, url alphabet)") {
  CHECK(base64url_encode("") == "");
  CHECK(base64url_encode("f") == "Zg");
  CHECK(base64url_encode("fo") == "Zm8");
  CHECK(base64url_encode("foo") == "Zm9v");
  CHECK(base64url_encode("foobar") == "Zm9vYmFy");
  CHECK(base64url_encode("\xfb\xff") == "-_8");
  CHECK(base64url_decode("Zm9vYmFy") == "foobar");
  CHECK(base64url_decode("-_8") == "\xfb\xff");
  CHECK_THROWS_WITH_AS(base64url_decode("Zm9v+mFy"), doctest::Contains("character 4 ('+')"), InputError);
}

TEST_CASE("a share link round-trips the whole input state") {
  ShareState s;
  s.example = "two_branch";
  s.order = {"A", "B", "D", "C", "E", "F"};
  s.panel = "Arena";
  s.current_step = 3;
  s.panels["cache"] = {{"capacity", 2}, {"stride", 4}};
  s.panels["arena"] = {{"planner", "tflm-greedy"}};
  std::string link = encode_share_fragment(s);
  CHECK(link.rfind("v1.", 0) == 0);
  ShareState t = decode_share_fragment("#" + link);
  CHECK(share_state_json(t) == share_state_json(s));
  CHECK(t.panels["cache"]["stride"] == 4);
}

TEST_CASE("an inline graph compresses well below the chat-tool limit") {
  ShareState s;
  s.graph_json = *find_example("two_branch");
  std::string link = encode_share_fragment(s);
  CHECK(link.size() < s.graph_json.size());
  CHECK(link.size() < kShareLinkWarnBytes);
  CHECK(decode_share_fragment(link).graph_json == s.graph_json);
}

TEST_CASE("corrupt, truncated and future-version links are refused with a reason") {
  ShareState s;
  s.example = "two_branch";
  s.order = {"A", "B", "C", "D", "E", "F"};
  const std::string link = encode_share_fragment(s);
  CHECK(error_of("") == "share link: not an arenaplan link (expected #v1.<data>)");
  CHECK(error_of("hello") == "share link: not an arenaplan link (expected #v1.<data>)");
  CHECK(error_of("v9." + link.substr(3)).find("made by a newer arenaplan (link version 9") != std::string::npos);
  CHECK(error_of(link.substr(0, link.size() - 4)).find("truncated") != std::string::npos);
  CHECK(error_of(link + "!").find("not base64url") != std::string::npos);
  // Every truncation and every single-character change is refused or decodes to a valid state:
  // never a crash, never garbage accepted silently (the zlib checksum guards the content).
  for (size_t n = 0; n < link.size(); ++n) CHECK(error_of(link.substr(0, n)) != "");
  std::mt19937 rng(7);
  const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  for (int i = 0; i < 300; ++i) {
    std::string bad = link;
    size_t at = 3 + rng() % (bad.size() - 3);
    bad[at] = alphabet[rng() % alphabet.size()];
    if (bad == link) continue;
    std::string err = error_of(bad);
    if (err.empty()) CHECK(share_state_json(decode_share_fragment(bad)) == share_state_json(s));
  }
}

TEST_CASE("a decoded link must name exactly one graph source and valid fields") {
  auto encode_json = [](const std::string& json) { return "v1." + base64url_encode(zlib_compress(json)); };
  CHECK(error_of(encode_json(R"({"v":1})")) == "share link: needs exactly one of an example name or an inline graph");
  CHECK(error_of(encode_json(R"({"v":1,"example":"x","order":"A"})")) == "share link /order: expected an array of op names");
  CHECK(error_of(encode_json(R"({"v":1,"example":"x","step":-1})")) == "share link /step: expected a step number");
  CHECK(error_of(encode_json("not json")) == "share link: decoded data is not JSON");
  CHECK(error_of(encode_json(R"({"v":2,"example":"x"})")).find("newer arenaplan") != std::string::npos);
}

TEST_CASE("a zip bomb is refused instead of exhausting memory") {
  std::string big(kShareMaxDecodedBytes + 1, 'a');
  CHECK(error_of("v1." + base64url_encode(zlib_compress(big))).find("expands past") != std::string::npos);
}
