// The subcommands of the baton CLI; each adds itself to the app.
#pragma once

#include <CLI/CLI.hpp>

namespace baton::cli {

void add_devices_command(CLI::App& app);
void add_topo_command(CLI::App& app);
void add_bench_command(CLI::App& app);    // bench balance, and the others under bench
void add_sweep_command(CLI::App& bench);  // bench sweep
void add_train_command(CLI::App& app);    // train, where the training layer is built
void add_doctor_command(CLI::App& app);

}  // namespace baton::cli
