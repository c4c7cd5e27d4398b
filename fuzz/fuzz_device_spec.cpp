// libFuzzer: the device-spec grammar (--devices, BATON_DEVICES), a sim item's
// list of speeds, and BATON_FAULT. Any input either parses or is refused
// with a baton::Error; what parses is items of a backend word and its
// arguments, which written out again parse to the same items.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "baton/devices.hpp"
#include "baton/error.hpp"
#include "device/sim/sim_device.hpp"
#include "submit/fault.hpp"

namespace {

bool ends_with_json(const std::string& s) {
  return s.size() >= 5 && s.compare(s.size() - 5, 5, ".json") == 0;
}

void check_spec(const std::string& s) {
  const std::vector<baton::SpecItem> items = baton::parse_device_spec(s);
  std::string again;
  for (const baton::SpecItem& item : items) {
    if (item.backend.empty() ||
        item.backend.find_first_not_of("abcdefghijklmnopqrstuvwxyz") != std::string::npos)
      __builtin_trap();  // a backend is a lowercase word
    again += (again.empty() ? "" : ",") + item.backend + (item.args.empty() ? "" : ":" + item.args);
  }
  const std::vector<baton::SpecItem> reparsed = baton::parse_device_spec(again);
  if (reparsed.size() != items.size()) __builtin_trap();
  for (std::size_t i = 0; i < items.size(); ++i)
    if (reparsed[i].backend != items[i].backend || reparsed[i].args != items[i].args)
      __builtin_trap();
  for (const baton::SpecItem& item : items) {
    // A path would make the fuzzer read files of this machine; presets and
    // numbers are what the spec itself holds.
    if (item.backend == "sim" && !ends_with_json(item.args)) {
      const baton::detail::SimMachine m = baton::detail::parse_sim_args(item.args);
      if (m.devices.empty() || m.devices.size() > 1024) __builtin_trap();
      for (const auto& d : m.devices)
        if (!(d.speed > 0)) __builtin_trap();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string s(reinterpret_cast<const char*>(data), size);
  try {
    check_spec(s);
  } catch (const baton::Error&) {
  }
  try {
    const auto after = baton::detail::parse_faults(s, {"cpu0", "sim1", "cuda0.p1", "opencl0.0"});
    if (after.size() != 4) __builtin_trap();
    for (long long n : after)
      if (n < -1) __builtin_trap();
  } catch (const baton::Error&) {
  }
  return 0;
}
