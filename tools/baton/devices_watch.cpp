#include "devices_watch.hpp"

#include <unistd.h>

#include <cstdio>
#include <thread>

#include "baton/error.hpp"
#include "resource/telemetry.hpp"
#include "table.hpp"

namespace baton::cli {

namespace {

std::string or_dash(bool known, const std::string& text) {
  return known ? text : "-";
}

std::string table_of(const DeviceSet& set, const Telemetry& t) {
  Table table({"device", "source", "util %", "memory used / total", "power W", "SM MHz", "temp C"});
  for (std::size_t d = 0; d < set.devices.size(); ++d) {
    const auto r = t.latest(d);
    const bool on = r.has_value();
    table.add({set.devices[d]->name(), t.source(d),
               or_dash(on && r->util_pct >= 0, on ? fixed(r->util_pct, 0) : ""),
               or_dash(on && r->memory_total > 0,
                       on ? bytes(r->memory_used) + " / " + bytes(r->memory_total) : ""),
               or_dash(on && r->power_w >= 0, on ? fixed(r->power_w, 1) : ""),
               or_dash(on && r->clock_mhz > 0, on ? std::to_string(r->clock_mhz) : ""),
               or_dash(on && r->temperature_c >= 0, on ? std::to_string(r->temperature_c) : "")});
  }
  return table.str();
}

}  // namespace

void watch_devices(const DeviceSet& set, double interval_s, int count) {
  if (!(interval_s >= 0.01 && interval_s <= 3600))
    raise(Errc::invalid_argument, "--interval", "must be from 0.01 to 3600 seconds");
  if (count < 0) raise(Errc::invalid_argument, "--count", "must be 0 (until stopped) or more");
  std::vector<const Device*> devices;
  for (const auto& d : set.devices) devices.push_back(d.get());
  const auto period = std::chrono::milliseconds(std::max<long>(10, long(interval_s * 1000)));
  Telemetry t(devices, period);
  t.start();
  const bool tty = isatty(STDOUT_FILENO);
  for (int round = 1; count == 0 || round <= count; ++round) {
    // A load is a difference of two readings: the first table waits for two.
    const std::uint64_t wanted = std::uint64_t(round) + 1;
    while (t.rounds() < wanted) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const double cost = t.seconds_per_round();
    char head[256];
    std::snprintf(head, sizeof head,
                  "baton devices --watch: %zu device(s), every %.2f s; a round of readings costs "
                  "%.0f us (%.3f %% of one core)%s\n",
                  devices.size(), interval_s, cost * 1e6, 100 * cost / interval_s,
                  tty ? ", Ctrl-C to stop" : "");
    if (tty) std::fputs("\033[H\033[2J", stdout);  // in place, as top does
    std::fputs(head, stdout);
    std::fputs(table_of(set, t).c_str(), stdout);
    std::fflush(stdout);
  }
  t.stop();
}

}  // namespace baton::cli
