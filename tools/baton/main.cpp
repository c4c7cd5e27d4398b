// baton: the command-line face of the runtime.
#include <cstdio>
#include <string>

#include "baton/error.hpp"
#include "commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"baton: spreads work over every GPU, CPU and OpenCL device of a machine"};
  app.require_subcommand(1);
  try {
    // The commands take their defaults from BATON_* variables, which may not parse.
    baton::cli::add_devices_command(app);
    baton::cli::add_topo_command(app);
    baton::cli::add_bench_command(app);
#ifdef BATON_HAVE_TRAIN
    baton::cli::add_train_command(app);
#endif
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
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    // One line, as every other error: what CLI11 found, and where to look.
    std::fprintf(stderr, "baton: usage: %s (see baton --help)\n", e.what());
    return 2;
  } catch (const baton::Error& e) {
    std::fprintf(stderr, "baton: %s\n", e.what());
    return 2;
  }
  return 0;
}
