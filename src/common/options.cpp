#include "baton/options.hpp"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <utility>

#include "baton/error.hpp"

namespace baton {

namespace {

[[noreturn]] void bad(const char* env, const std::string& text, const char* expected) {
  raise(Errc::invalid_argument, env, "'" + text + "' is not " + expected);
}

void parse(const char* env, const std::string& text, std::string& out) {
  (void)env;
  out = text;
}

void parse(const char* env, const std::string& text, bool& out) {
  if (text == "1" || text == "true" || text == "on" || text == "yes")
    out = true;
  else if (text == "0" || text == "false" || text == "off" || text == "no")
    out = false;
  else
    bad(env, text, "a boolean (1/0, true/false, on/off)");
}

void parse(const char* env, const std::string& text, int& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  if (ec != std::errc() || end != text.data() + text.size() || out < 0)
    bad(env, text, "a whole number >= 0");
}

void parse(const char* env, const std::string& text, double& out) {
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(out) || out < 0)
    bad(env, text, "a number >= 0");
}

std::string format(const std::string& v) {
  return v;
}
std::string format(bool v) {
  return v ? "1" : "0";
}
std::string format(int v) {
  return std::to_string(v);
}
std::string format(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

}  // namespace

Options Options::from_env() {
  Options o;
#define BATON_OPTION_READ(type, field, env, dflt, text) \
  if (const char* v = std::getenv(env); v && *v) parse(env, v, o.field);
  BATON_OPTIONS(BATON_OPTION_READ)
#undef BATON_OPTION_READ
  // Divisors: below 1 they would mean nothing (the policies take at least 1).
  for (const auto& [env, value] : {std::pair{"BATON_TAIL_SPLIT", o.tail_split},
                                   std::pair{"BATON_MIN_CHUNK_DIV", o.min_chunk_div}})
    if (value < 1) bad(env, std::getenv(env), "a number >= 1");
  return o;
}

const Options& env_options() {
  static const Options o = Options::from_env();
  return o;
}

std::vector<OptionInfo> describe_options(const Options& o) {
  const Options defaults;
  std::vector<OptionInfo> rows;
#define BATON_OPTION_ROW(type, field, env, dflt, text) \
  rows.push_back({env, format(o.field), format(defaults.field), text});
  BATON_OPTIONS(BATON_OPTION_ROW)
#undef BATON_OPTION_ROW
  return rows;
}

}  // namespace baton
