// libFuzzer: the command line. The input is lines: leading NAME=VALUE lines
// set BATON_* variables (read as Options::from_env() reads them), the rest
// are the arguments. Parsing must end in status 0 or a one-line error with
// status 2; the commands' own work is not run (each command stops once its
// arguments are parsed and checked), so each input costs what parsing costs.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "baton/error.hpp"
#include "baton/options.hpp"
#include "cli_app.hpp"

namespace {

constexpr std::size_t kMaxArgs = 24;

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size() && out.size() < kMaxArgs + 8) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

struct Parsed {};

// A command's arguments are parsed and checked before this runs; its own
// callback (the work) never does. The callbacks stay: they own the
// arguments' storage.
void stop_once_parsed(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands({})) {
    sub->parse_complete_callback([] { throw Parsed{}; });
    stop_once_parsed(*sub);
  }
}

// BATON_* variables from the input's leading lines; returns how many lines were used.
std::size_t check_environment(const std::vector<std::string>& lines) {
  std::vector<std::string> set;
  std::size_t i = 0;
  for (; i < lines.size() && i < 4; ++i) {
    const auto eq = lines[i].find('=');
    if (lines[i].rfind("BATON_", 0) != 0 || eq == std::string::npos) break;
    const std::string name = lines[i].substr(0, eq);
    setenv(name.c_str(), lines[i].c_str() + eq + 1, 1);
    set.push_back(name);
  }
  try {
    baton::Options::from_env();
  } catch (const baton::Error&) {
  }
  for (const auto& name : set) unsetenv(name.c_str());
  return i;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string> lines =
      lines_of(std::string(reinterpret_cast<const char*>(data), size));
  const std::size_t first = check_environment(lines);
  std::vector<const char*> argv = {"baton"};
  for (std::size_t i = first; i < lines.size() && argv.size() <= kMaxArgs; ++i)
    argv.push_back(lines[i].c_str());
  CLI::App app{"baton"};
  if (baton::cli::add_commands(app) != 0) __builtin_trap();  // the environment is clean here
  stop_once_parsed(app);
  try {
    const int status = baton::cli::parse_command_line(app, int(argv.size()), argv.data());
    if (status != 0 && status != 2) __builtin_trap();
  } catch (const Parsed&) {
  }
  return 0;
}
