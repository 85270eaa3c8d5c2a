// Names as views show them: a converted model's op and tensor names share a long scope
// ("model_1/tf.math."), which views drop so the rest stays readable (the full name on hover).
#pragma once

#include <string>
#include <vector>

namespace arenaplan {

// The part every name shares up to and including its last separator ('/', '.', ':', ';'), so
// views of a converted model can drop it ("model_1/tf.math.add_3" -> "add_3" when every name starts
// "model_1/tf.math."). "" when the names share none, when there are fewer than two, or when
// stripping it would leave some name empty.
std::string common_name_prefix(const std::vector<std::string>& names);

}  // namespace arenaplan
