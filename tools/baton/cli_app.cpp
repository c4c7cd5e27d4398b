#include "cli_app.hpp"

#include <cstdio>
#include <string>

#include "baton/error.hpp"
#include "commands.hpp"
#include "report/recording.hpp"

namespace baton::cli {

namespace {

// Runs `f`, turning the errors a user can cause into one line and status 2.
template <class F>
int reporting_errors(CLI::App& app, F f) {
  try {
    f();
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    // One line, as every other error: what CLI11 found, and where to look.
    std::fprintf(stderr, "baton: usage: %s (see baton --help)\n", e.what());
    return 2;
  } catch (const Error& e) {
    std::fprintf(stderr, "baton: %s\n", e.what());
    return 2;
  }
  return 0;
}

void add_every_command(CLI::App& app) {
  app.require_subcommand(1);
  add_devices_command(app);
  add_topo_command(app);
  add_bench_command(app);
  add_doctor_command(app);
#ifdef BATON_HAVE_TRAIN
  add_train_command(app);
#endif
}

}  // namespace

int add_commands(CLI::App& app) {
  // The commands take their defaults from BATON_* variables, which may not parse.
  return reporting_errors(app, [&] { add_every_command(app); });
}

void run_command(const std::vector<std::string>& args) {
  CLI::App app{"baton"};
  add_every_command(app);
  std::vector<const char*> argv{"baton"};
  for (const auto& a : args) argv.push_back(a.c_str());
  set_command_line(int(argv.size()), argv.data());
  try {
    app.parse(int(argv.size()), argv.data());
  } catch (const CLI::ParseError& e) {
    raise(Errc::invalid_argument, "usage", e.what());
  }
}

int parse_command_line(CLI::App& app, int argc, const char* const* argv) {
  set_command_line(argc, argv);
  // CLI11 would only say that a command is required.
  if (argc > 1 && argv[1][0] != '-') {
    std::string known;
    bool found = false;
    for (const CLI::App* c : app.get_subcommands({})) {
      known += (known.empty() ? "" : ", ") + c->get_name();
      found = found || c->get_name() == argv[1];
    }
    if (!found) {
      std::fprintf(stderr, "baton: usage: unknown command '%s' (commands: %s)\n", argv[1],
                   known.c_str());
      return 2;
    }
  }
  return reporting_errors(app, [&] { app.parse(argc, argv); });
}

}  // namespace baton::cli
