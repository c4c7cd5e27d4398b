// baton: the command-line face of the runtime.
#include <cstdio>

#include "baton/error.hpp"
#include "commands.hpp"

int main(int argc, char** argv) {
  CLI::App app{"baton: spreads work over every GPU, CPU and OpenCL device of a machine"};
  app.require_subcommand(1);
  baton::cli::add_devices_command(app);
  baton::cli::add_topo_command(app);
  baton::cli::add_bench_command(app);
#ifdef BATON_HAVE_TRAIN
  baton::cli::add_train_command(app);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const baton::Error& e) {
    std::fprintf(stderr, "baton: %s\n", e.what());
    return 2;
  }
  return 0;
}
