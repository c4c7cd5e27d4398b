// The baton command line, apart from main() so that the fuzz target drives
// the same parsing. Both steps print any error as one line on stderr,
// "baton: ...", and return the exit status (0: go on).
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace baton::cli {

// Adds every command. Fails when a BATON_* default does not parse.
int add_commands(CLI::App& app);
// Parses argv and runs the command it names.
int parse_command_line(CLI::App& app, int argc, const char* const* argv);
// The same for a caller that is no command line (the Python package): runs
// `args` (without the program's name) and raises what went wrong, a usage
// error of CLI11's as Error(invalid_argument).
void run_command(const std::vector<std::string>& args);

}  // namespace baton::cli
