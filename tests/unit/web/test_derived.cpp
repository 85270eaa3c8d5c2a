// web/derived.h: a derived value is computed once per key and again only when the key changes.
#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "web/derived.h"

using arenaplan::web::Derived;

TEST_CASE("a derived value is computed once per revision, again when the revision changes") {
  Derived<std::string> d;
  int runs = 0;
  auto compute = [&](std::string& out) { out = "computed " + std::to_string(++runs); };
  CHECK(d.get(7, compute) == "computed 1");
  CHECK(d.get(7, compute) == "computed 1");  // same revision: no second computation
  CHECK(runs == 1);
  CHECK(d.get(8, compute) == "computed 2");
  CHECK(d.get(7, compute) == "computed 3");  // any change of key, not only "newer"
  CHECK(d.computations() == 3);
}

TEST_CASE("reset forces the next get to recompute at the same key") {
  Derived<int> d;
  int runs = 0;
  auto compute = [&](int& out) { out = ++runs; };
  d.get(1, compute);
  d.reset();
  CHECK_FALSE(d.fresh(1));
  CHECK(d.get(1, compute) == 2);
}

TEST_CASE("a composite key recomputes when any part changes") {
  Derived<int, std::pair<uint64_t, int>> d;
  int runs = 0;
  auto compute = [&](int& out) { out = ++runs; };
  d.get({1, 4}, compute);
  d.get({1, 4}, compute);
  d.get({1, 5}, compute);
  d.get({2, 5}, compute);
  CHECK(runs == 3);
}

TEST_CASE("compute starts from a fresh value and a throwing compute leaves the value invalid") {
  Derived<std::string> d;
  d.get(1, [](std::string& out) { out += "a"; });
  CHECK(d.get(2, [](std::string& out) { out += "b"; }) == "b");  // not "ab"
  CHECK_THROWS_AS(d.get(3, [](std::string&) { throw std::runtime_error("refused"); }), std::runtime_error);
  CHECK_FALSE(d.valid());
  CHECK(d.get(3, [](std::string& out) { out = "retried"; }) == "retried");
}
