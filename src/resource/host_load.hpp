// The host CPU's load from /proc/stat: busy and total time, for the whole
// host and per CPU. A share over an interval is the difference of two reads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace baton::detail {

struct CpuTimes {
  std::uint64_t busy = 0;   // user, nice, system, irq, softirq, steal (jiffies)
  std::uint64_t total = 0;  // busy, idle and iowait
};

// /proc/stat's text: [0] the whole host ("cpu"), then "cpu0", "cpu1", ... in
// order. Lines it does not know are skipped; empty where there is no "cpu" line.
std::vector<CpuTimes> parse_proc_stat(const std::string& text);
// /proc/stat now; empty where it cannot be read.
std::vector<CpuTimes> read_cpu_times();
// The busy share (0..1) between two reads of one CPU; 0 when no time passed.
double busy_share(const CpuTimes& before, const CpuTimes& after);

}  // namespace baton::detail
