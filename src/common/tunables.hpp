// Every tunable of baton in one table: name, environment variable, default and
// what it does. Read in one place; printed by `baton devices --config`.
#pragma once

#include <string>
#include <vector>

namespace baton::detail {

struct Tunable {
  const char* env;            // BATON_* variable
  const char* default_value;  // used when the variable is unset or empty
  const char* description;
};

const std::vector<Tunable>& tunables();
// The value in force: the environment's, else the default. Unknown names are an internal error.
std::string tunable(const char* env);
// Numeric value; a malformed number is Errc::invalid_argument naming the variable.
double tunable_number(const char* env);

}  // namespace baton::detail
