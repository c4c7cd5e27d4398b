// The report's pictures as inline SVG: a per-track timeline (Gantt), line
// charts and stacked share bars. Plain strings, no script: the page shows
// them as they are.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "report/trace_events.hpp"

namespace baton::cli::svg {

// Text made safe inside HTML and SVG.
std::string escape(const std::string& s);
// The i-th colour of the report's palette (cycles).
const char* colour(std::size_t i);

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y), x ascending
};
// Lines over a shared x axis, with a legend; the y axis from 0 (`from_zero`,
// unless a value is negative) or around the values.
std::string line_chart(const std::string& title, const std::string& x_label,
                       const std::string& y_label, const std::vector<Series>& series,
                       bool from_zero = true);

// One row per track, a rectangle per run of spans of one name (spans closer
// than a pixel merge), coloured by name, on the trace's time axis.
std::string gantt(const TraceEvents& t);

struct Bar {
  std::string label;          // "ws"
  std::vector<double> parts;  // one per part name, summing to the bar's whole
};
// A horizontal bar per label, split into its parts' shares of the whole.
std::string share_bars(const std::string& title, const std::vector<std::string>& part_names,
                       const std::vector<Bar>& bars);

}  // namespace baton::cli::svg
