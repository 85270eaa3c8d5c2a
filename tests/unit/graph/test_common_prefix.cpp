// common_name_prefix (core/graph/names.h): what the views strip from a converted model's names.
#include <doctest/doctest.h>

#include "core/graph/names.h"

using namespace arenaplan;

TEST_CASE("the shared scope of every name, up to its last separator") {
  CHECK(common_name_prefix({"model_1/tf.math.add_3", "model_1/tf.math.multiply", "model_1/tf.math.add_10"}) ==
        "model_1/tf.math.");
  CHECK(common_name_prefix({"model_1/conv/a", "model_1/pool"}) == "model_1/");
  // "conv_" is part of the names, not a scope: nothing is stripped.
  CHECK(common_name_prefix({"conv_1", "conv_2"}) == "");
  CHECK(common_name_prefix({"A", "B", "C"}) == "");
  CHECK(common_name_prefix({"model_1/x"}) == "");
  // A name that is the scope itself would become empty.
  CHECK(common_name_prefix({"m/", "m/a"}) == "");
}
