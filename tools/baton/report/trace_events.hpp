// A trace written by --trace (Chrome/Perfetto trace-event JSON, see
// src/submit/trace_log.hpp) read back: each track's spans and each counter's
// series, for the HTML report and for baton doctor.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace baton::cli {

struct Span {
  std::string name;
  double begin_s = 0, end_s = 0;
  std::uint64_t items = 0;
  std::uint64_t first = 0;  // its first item
  bool stolen = false;
};

struct Track {
  std::string name;  // a device's, or "host"
  std::vector<Span> spans;
  double busy_s() const;
};

struct TraceEvents {
  std::vector<Track> tracks;  // in the trace's track order
  // "cuda0 util %": (time, value) in time order.
  std::map<std::string, std::vector<std::pair<double, double>>> counters;
  double begin_s = 0, end_s = 0;  // of every span
  bool simulated = false;
  int steals = 0;
  const Track* host() const;
};

// Throws Error(invalid_argument, path) naming what is not a baton trace.
TraceEvents read_trace_events(const std::string& path);

// Per track, the share of each of `bins` equal slices of [begin, end) that
// its spans cover (overlapping spans count once).
std::vector<std::vector<double>> busy_shares(const TraceEvents& t, int bins);

}  // namespace baton::cli
