#include "report/svg.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>

namespace baton::cli::svg {

namespace {

constexpr int kWidth = 960;  // the whole picture
constexpr int kLeft = 110;   // room for the y axis, and for row labels of up to 14 characters
constexpr int kRight = 20;
constexpr int kPlot = kWidth - kLeft - kRight;

std::string num(double v, int decimals = 1) {
  char b[48];
  std::snprintf(b, sizeof b, "%.*f", decimals, v);
  return b;
}

std::string value_label(double v);

// A round step for about `ticks` ticks over `range`.
double tick_step(double range, int ticks) {
  const double raw = std::max(range, 1e-12) / ticks;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * p) return m * p;
  return 10 * p;
}

// Seconds as a short label, in the unit the axis's range asks for.
std::string time_label(double s, double range) {
  if (range < 2e-3) return num(s * 1e6, 0) + " us";
  if (range < 2) return num(s * 1e3, range < 0.02 ? 1 : 0) + " ms";
  return num(s, 1) + " s";
}

// A tick's label, with as many decimals as the ticks' step needs.
std::string tick_label(double v, double step) {
  if (std::fabs(v) < step * 1e-6) v = 0;  // not "-0"
  if (std::fabs(v) >= 1e4) return value_label(v);
  return num(v, std::max(0, int(-std::floor(std::log10(step) + 1e-9))));
}

std::string value_label(double v) {
  const double a = std::fabs(v);
  if (a >= 1e9) return num(v / 1e9, 1) + "G";
  if (a >= 1e6) return num(v / 1e6, 1) + "M";
  if (a >= 1e4) return num(v / 1e3, 0) + "k";
  if (a >= 10 || a == 0) return num(v, 0);
  if (a >= 1) return num(v, 1);
  return num(v, 3);
}

std::string open_svg(int height, const std::string& title) {
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(kWidth) +
         "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(kWidth) +
         " " + std::to_string(height) + "\" role=\"img\"><title>" + escape(title) + "</title>";
}

std::string text(double x, double y, const std::string& s, const char* anchor = "start",
                 const char* extra = "") {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + anchor + "\"" + extra +
         ">" + escape(s) + "</text>";
}

// Room left of the plot for the longest of `labels` (about 7 px a character).
double left_for(const std::vector<std::string>& labels) {
  double longest = 0;
  for (const auto& l : labels) longest = std::max(longest, double(l.size()));
  return std::max(double(kLeft), 7.0 * longest + 16);
}

std::string legend(const std::vector<std::string>& names, double y) {
  std::string out;
  double x = kLeft;
  for (std::size_t i = 0; i < names.size(); ++i) {
    out += "<rect x=\"" + num(x) + "\" y=\"" + num(y - 9) +
           "\" width=\"10\" height=\"10\" fill=\"" + colour(i) + "\"/>" + text(x + 14, y, names[i]);
    x += 24 + 7.0 * double(names[i].size());
    if (x > kWidth - 120) {
      x = kLeft;
      y += 16;
    }
  }
  return out;
}

}  // namespace

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

const char* colour(std::size_t i) {
  static const char* palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                  "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};
  return palette[i % (sizeof palette / sizeof palette[0])];
}

std::string line_chart(const std::string& title, const std::string& x_label,
                       const std::string& y_label, const std::vector<Series>& series,
                       bool from_zero) {
  const int top = 30, plot_h = 220, height = top + plot_h + 60 + 16 * int(series.size() / 6);
  double x0 = 1e300, x1 = -1e300, y0 = from_zero ? 0 : 1e300, y1 = -1e300;
  for (const Series& s : series)
    for (auto [x, y] : s.points) {
      x0 = std::min(x0, x), x1 = std::max(x1, x);
      y0 = std::min(y0, y), y1 = std::max(y1, y);
    }
  std::string out = open_svg(height, title) + text(kLeft, 18, title, "start", " class=\"t\"");
  if (x0 > x1) return out + text(kLeft, top + 40, "(no data)") + "</svg>";
  if (x1 == x0) x1 = x0 + 1;
  if (y1 <= y0) y1 = y0 + 1;
  const double ystep = tick_step(y1 - y0, 4);
  y1 = std::ceil(y1 / ystep) * ystep;
  y0 = std::floor(y0 / ystep) * ystep;
  auto px = [&](double x) { return kLeft + (x - x0) / (x1 - x0) * kPlot; };
  auto py = [&](double y) { return top + plot_h - (y - y0) / (y1 - y0) * plot_h; };
  for (double y = y0; y <= y1 + ystep / 2; y += ystep)
    out += "<line class=\"g\" x1=\"" + num(kLeft) + "\" x2=\"" + num(kLeft + kPlot) + "\" y1=\"" +
           num(py(y)) + "\" y2=\"" + num(py(y)) + "\"/>" +
           text(kLeft - 6, py(y) + 4, tick_label(y, ystep), "end");
  const double xstep = tick_step(x1 - x0, 6);
  for (double x = std::ceil(x0 / xstep) * xstep; x <= x1 + xstep / 1e6; x += xstep)
    out += text(px(x), top + plot_h + 16, tick_label(x, xstep), "middle");
  out += text(kLeft + kPlot / 2.0, top + plot_h + 34, x_label, "middle") +
         text(14, top + plot_h / 2.0, y_label, "middle",
              (" transform=\"rotate(-90 14 " + num(top + plot_h / 2.0) + ")\"").c_str());
  std::vector<std::string> names;
  for (std::size_t i = 0; i < series.size(); ++i) {
    std::string d;
    for (auto [x, y] : series[i].points)
      d += (d.empty() ? "M" : " L") + num(px(x)) + " " + num(py(y));
    out +=
        "<path d=\"" + d + "\" fill=\"none\" stroke=\"" + colour(i) + "\" stroke-width=\"1.8\"/>";
    names.push_back(series[i].name);
  }
  return out + legend(names, top + plot_h + 52) + "</svg>";
}

std::string gantt(const TraceEvents& t) {
  const int row = 22, top = 30;
  const int height = top + row * int(t.tracks.size()) + 60;
  const double t0 = t.begin_s, range = std::max(t.end_s - t.begin_s, 1e-12);
  std::vector<std::string> labels;
  for (const Track& tr : t.tracks) labels.push_back(tr.name);
  const double left = left_for(labels), plot = kWidth - left - kRight;
  auto px = [&](double s) { return left + (s - t0) / range * plot; };
  std::map<std::string, std::size_t> colours;  // span name -> palette index, by first sight
  std::vector<std::string> names;
  std::string out =
      open_svg(height, "timeline") +
      text(kLeft, 18, "Timeline: a row per device (and the host's steps)", "start", " class=\"t\"");
  for (std::size_t r = 0; r < t.tracks.size(); ++r) {
    const Track& tr = t.tracks[r];
    const double y = top + double(r) * row;
    out += text(left - 6, y + 15, tr.name, "end");
    const bool host = tr.name == "host";
    int host_spans = 0;
    // Runs of one name, merged where the gap between them is under a pixel.
    const Span* run = nullptr;
    double run_end = 0;
    auto flush = [&] {
      if (!run) return;
      // The host's spans (steps, policies' runs) alternate in two greys, out of the legend.
      const char* fill = host ? (host_spans++ % 2 ? "#9a9a9a" : "#6f6f6f") : nullptr;
      if (!host) {
        auto [it, added] = colours.emplace(run->name, colours.size());
        if (added) names.push_back(run->name);
        fill = colour(it->second);
      }
      const double x = px(run->begin_s), w = std::max(0.5, px(run_end) - x);
      out += "<rect x=\"" + num(x, 2) + "\" y=\"" + num(y + 3) + "\" width=\"" + num(w, 2) +
             "\" height=\"" + std::to_string(row - 6) + "\" fill=\"" + fill + "\"><title>" +
             escape(run->name) + "</title></rect>";
      // The host's spans (a step, a policy's run) say what they are where they fit.
      if (host && w > 7.0 * double(run->name.size()))
        out += text(x + w / 2, y + 15, run->name, "middle", " class=\"in\"");
    };
    for (const Span& s : tr.spans) {
      if (run && s.name == run->name && px(s.begin_s) - px(run_end) < 1.0) {
        run_end = std::max(run_end, s.end_s);
        continue;
      }
      flush();
      run = &s;
      run_end = s.end_s;
    }
    flush();
  }
  const double axis_y = top + row * double(t.tracks.size()) + 14;
  const double step = tick_step(range, 8);
  for (double s = 0; s <= range + step / 1e6; s += step)
    out += text(px(t0 + s), axis_y, time_label(s, range), "middle");
  return out + legend(names, axis_y + 22) + "</svg>";
}

std::string share_bars(const std::string& title, const std::vector<std::string>& part_names,
                       const std::vector<Bar>& bars) {
  const int row = 26, top = 30;
  const int height = top + row * int(bars.size()) + 40 + 16 * int(part_names.size() / 6);
  std::vector<std::string> labels;
  for (const Bar& b : bars) labels.push_back(b.label);
  const double left = left_for(labels), plot = kWidth - left - kRight;
  std::string out = open_svg(height, title) + text(left, 18, title, "start", " class=\"t\"");
  for (std::size_t b = 0; b < bars.size(); ++b) {
    const double y = top + double(b) * row;
    out += text(left - 6, y + 17, bars[b].label, "end");
    const double whole = std::accumulate(bars[b].parts.begin(), bars[b].parts.end(), 0.0);
    double x = left;
    for (std::size_t p = 0; p < bars[b].parts.size(); ++p) {
      const double w = whole > 0 ? bars[b].parts[p] / whole * plot : 0;
      out += "<rect x=\"" + num(x, 2) + "\" y=\"" + num(y + 3) + "\" width=\"" + num(w, 2) +
             "\" height=\"" + std::to_string(row - 6) + "\" fill=\"" + colour(p) + "\"><title>" +
             escape(part_names[p] + ": " + num(whole > 0 ? 100 * bars[b].parts[p] / whole : 0) +
                    " %") +
             "</title></rect>";
      if (w > 40)
        out += text(x + w / 2, y + 17, num(100 * bars[b].parts[p] / whole, 0) + " %", "middle",
                    " class=\"in\"");
      x += w;
    }
  }
  return out + legend(part_names, top + row * double(bars.size()) + 22) + "</svg>";
}

}  // namespace baton::cli::svg
