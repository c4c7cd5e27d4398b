// baton: the command-line face of the runtime.
#include "cli_app.hpp"

int main(int argc, char** argv) {
  CLI::App app{"baton: spreads work over every GPU, CPU and OpenCL device of a machine"};
  if (int status = baton::cli::add_commands(app)) return status;
  return baton::cli::parse_command_line(app, argc, argv);
}
