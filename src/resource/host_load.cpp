#include "resource/host_load.hpp"

#include <fstream>
#include <sstream>

namespace baton::detail {

std::vector<CpuTimes> parse_proc_stat(const std::string& text) {
  std::vector<CpuTimes> cpus;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("cpu", 0) != 0) continue;
    std::istringstream fields(line);
    std::string name;
    fields >> name;
    // user nice system idle iowait irq softirq steal (guest time is in user)
    std::uint64_t v[8] = {};
    for (auto& x : v)
      if (!(fields >> x)) x = 0;
    CpuTimes t;
    t.busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
    t.total = t.busy + v[3] + v[4];
    if (name == "cpu")
      cpus.insert(cpus.begin(), t);
    else if (!cpus.empty())
      cpus.push_back(t);
  }
  return cpus;
}

std::vector<CpuTimes> read_cpu_times() {
  std::ifstream in("/proc/stat");
  std::stringstream text;
  text << in.rdbuf();
  return parse_proc_stat(text.str());
}

double busy_share(const CpuTimes& before, const CpuTimes& after) {
  if (after.total <= before.total || after.busy < before.busy) return 0;
  return double(after.busy - before.busy) / double(after.total - before.total);
}

}  // namespace baton::detail
