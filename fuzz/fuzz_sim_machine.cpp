// libFuzzer: the sim machine reader (sim:FILE.json and the presets). Any
// input either loads or is refused with a baton::Error; what loads is a
// machine the sim backend can open.
#include <cstddef>
#include <cstdint>
#include <string>

#include "baton/error.hpp"
#include "device/sim/sim_device.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  baton::detail::SimMachine m;
  try {
    m = baton::detail::sim_machine_from_json(text, "fuzz");
  } catch (const baton::Error&) {
    return 0;
  }
  if (m.devices.empty() || m.devices.size() > 1024) __builtin_trap();
  if (m.pipeline_depth < 1 || m.pipeline_depth > 8) __builtin_trap();
  for (const auto& d : m.devices)
    if (!(d.speed > 0) || d.memory_gbps < 0) __builtin_trap();
  for (const auto& l : m.links)
    if (!(l.gbps > 0) || l.latency_us < 0) __builtin_trap();
  return 0;
}
