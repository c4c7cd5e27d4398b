// baton devices: what this machine offers, as a table or JSON.
#include <cstdio>

#include <nlohmann/json.hpp>

#include "baton/devices.hpp"
#include "commands.hpp"
#include "devices_watch.hpp"
#include "resource/nvml.hpp"
#include "table.hpp"

namespace baton::cli {

static void print_config() {
  Table t({"variable", "value", "default", "meaning"});
  for (const auto& v : describe_options(env_options()))
    t.add({v.env, v.value, v.default_value, v.description});
  std::fputs(t.str().c_str(), stdout);
}

// One NVML reading of every GPU: the resource manager's live view.
static void print_telemetry() {
  const Nvml& nvml = Nvml::get();
  if (!nvml.available()) {
    std::printf("telemetry: NVML not available: %s\n", nvml.error().c_str());
    return;
  }
  Table t(
      {"gpu", "util %", "mem util %", "memory used", "memory free", "power W", "SM MHz", "temp C"});
  for (unsigned g = 0; g < nvml.device_count(); ++g)
    if (auto s = nvml.sample(g))
      t.add({std::to_string(g), std::to_string(s->util_gpu_pct), std::to_string(s->util_memory_pct),
             bytes(s->memory_used), bytes(s->memory_free), fixed(s->power_w, 1),
             std::to_string(s->sm_clock_mhz), std::to_string(s->temperature_c)});
  std::fputs(t.str().c_str(), stdout);
}

void add_devices_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("devices", "List the devices a spec opens (default: all detected)");
  cmd->footer("Device specs (--devices or BATON_DEVICES):\n" + device_spec_help());
  auto spec = std::make_shared<std::string>(env_options().devices);
  auto json = std::make_shared<bool>(false);
  auto config = std::make_shared<bool>(false);
  auto topo = std::make_shared<bool>(false);
  auto telemetry = std::make_shared<bool>(false);
  auto watch = std::make_shared<bool>(false);
  auto interval = std::make_shared<double>(1.0);
  auto count = std::make_shared<int>(0);
  cmd->add_option("-d,--devices", *spec, "device spec")->capture_default_str();
  cmd->add_flag("--json", *json, "print JSON instead of a table");
  cmd->add_flag("--config", *config, "print the BATON_* tunables and their values");
  cmd->add_flag("--topology", *topo, "print the topology (nodes and links) as JSON");
  cmd->add_flag(
      "--telemetry", *telemetry,
      "print one NVML reading of every GPU (utilisation, memory, power, clock, temperature)");
  cmd->add_flag("--watch", *watch,
                "a live table of every device's utilisation, memory, power, clock and "
                "temperature (NVML for CUDA GPUs, /proc for devices on the host CPU)");
  cmd->add_option("--interval", *interval, "--watch: seconds between readings")
      ->capture_default_str();
  cmd->add_option("--count", *count, "--watch: tables to show (0: until Ctrl-C)")
      ->capture_default_str();
  cmd->callback([=] {
    if (*config) return print_config();
    if (*telemetry) return print_telemetry();
    DeviceSet set = open_devices(*spec);
    if (*watch) return watch_devices(set, *interval, *count);
    if (*topo) {
      std::printf("%s\n", set.topology.to_json().c_str());
      return;
    }
    if (*json) {
      nlohmann::json j;
      j["devices"] = nlohmann::json::array();
      for (const auto& d : set.devices) {
        const DeviceInfo& i = d->info();
        j["devices"].push_back({{"name", i.name},
                                {"backend", std::string(to_string(i.backend))},
                                {"description", i.description},
                                {"compute_units", i.compute_units},
                                {"peak_gflops", i.peak_gflops},
                                {"memory_bytes", i.memory_bytes},
                                {"memory_node", i.memory_node},
                                {"topology_id", i.topology_id},
                                {"pci_bus_id", i.pci_bus_id}});
      }
      j["notes"] = set.notes;
      std::printf("%s\n", j.dump(2).c_str());
      return;
    }
    Table t({"name", "backend", "units", "peak GFLOP/s", "memory", "node", "description"});
    for (const auto& d : set.devices) {
      const DeviceInfo& i = d->info();
      t.add({i.name, std::string(to_string(i.backend)), std::to_string(i.compute_units),
             fixed(i.peak_gflops, 1), i.memory_bytes ? bytes(i.memory_bytes) : "-",
             std::to_string(i.memory_node), i.description});
    }
    std::fputs(t.str().c_str(), stdout);
    for (const auto& n : set.notes) std::printf("note: %s\n", n.c_str());
  });
}

}  // namespace baton::cli
