#include "report/html_report.hpp"

#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "baton/error.hpp"
#include "report/svg.hpp"
#include "table.hpp"

namespace baton::cli {

namespace {

using nlohmann::json;

std::string cell(const json& v) {
  if (v.is_string()) return svg::escape(v.get<std::string>());
  if (v.is_number_integer() || v.is_number_unsigned()) return std::to_string(v.get<long long>());
  if (v.is_number()) {
    char b[32];
    std::snprintf(b, sizeof b, "%.4g", v.get<double>());
    return b;
  }
  return svg::escape(v.dump());
}

std::string table(const std::vector<std::string>& head,
                  const std::vector<std::vector<std::string>>& rows) {
  std::string out = "<table><tr>";
  for (const auto& h : head) out += "<th>" + svg::escape(h) + "</th>";
  out += "</tr>";
  for (const auto& r : rows) {
    out += "<tr>";
    for (const auto& c : r) out += "<td>" + c + "</td>";
    out += "</tr>";
  }
  return out + "</table>";
}

bool is_balance(const json& r) {
  return r.contains("runs") && r.contains("oracle_items_per_s");
}
bool is_train_comparison(const json& r) {
  return r.contains("runs") && !r["runs"].empty() && r["runs"][0].contains("samples_per_s");
}
bool is_train_job(const json& r) {
  return r.contains("steps") && r["steps"].is_array();
}

// The policy table and each device's share of the work, per run.
std::string balance_sections(const json& r) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> names;
  for (const auto& d : r["runs"][0]["devices"]) names.push_back(d.value("name", "?"));
  std::vector<svg::Bar> bars;
  for (const auto& run : r["runs"]) {
    int steals = 0;
    svg::Bar bar{run.value("policy", "?"), {}};
    for (const auto& d : run["devices"]) {
      steals += d.value("steals", 0);
      bar.parts.push_back(d.value("items", 0.0));
    }
    bars.push_back(std::move(bar));
    rows.push_back({cell(run["policy"]), si(run.value("items_per_s", 0.0)),
                    percent(run.value("efficiency", 0.0), 1),
                    fixed(run.value("speedup_vs_static", 0.0), 2) + "x",
                    seconds(run.value("makespan_s", 0.0)), std::to_string(steals)});
  }
  return "<h2>Policies</h2><p>" + cell(r["items"]) +
         " items; the oracle (what the devices do together, as calibrated): " +
         si(r.value("oracle_items_per_s", 0.0)) + " items/s.</p>" +
         table({"policy", "items/s", "vs oracle", "vs static", "makespan", "steals"}, rows) +
         "<h2>Each device's share of the work</h2>" +
         svg::share_bars("Items per device, by policy", names, bars);
}

std::string train_sections(const json& r) {
  std::vector<std::vector<std::string>> rows;
  std::vector<svg::Series> losses, rates;
  std::vector<svg::Bar> bars;
  std::vector<std::string> device_names;
  for (const auto& d : r["devices"]) device_names.push_back(d.value("name", "?"));
  for (const auto& run : r["runs"]) {
    const std::string label =
        run.value("devices", std::string("?")) + ", " + run.value("policy", std::string("?"));
    const json& l = run["losses"];
    rows.push_back({cell(run["devices"]), cell(run["batch"]), cell(run["policy"]),
                    si(run.value("samples_per_s", 0.0)), fixed(run.value("speedup", 0.0), 2) + "x",
                    percent(run.value("efficiency_vs_oracle", 0.0), 1),
                    // null where static did not run beside it
                    run.value("vs_static", json()).is_number()
                        ? fixed(run["vs_static"].get<double>(), 2) + "x"
                        : "-",
                    l.is_array() && !l.empty() ? cell(l.front()) + " → " + cell(l.back()) : "-"});
    svg::Series loss{label, {}}, rate{label, {}};
    const json& steps = run["step_seconds"];
    for (std::size_t s = 0; s < steps.size(); ++s) {
      if (l.is_array() && s < l.size()) loss.points.push_back({double(s + 1), l[s].get<double>()});
      const double sec = steps[s].get<double>();
      if (sec > 0) rate.points.push_back({double(s + 1), run.value("batch", 0.0) / sec});
    }
    losses.push_back(std::move(loss));
    rates.push_back(std::move(rate));
    if (run.contains("micro_batches") && run.value("device_count", 0) > 1) {
      svg::Bar bar{label, {}};
      for (const auto& name : device_names)
        bar.parts.push_back(run["micro_batches"].value(name, 0.0));
      bars.push_back(std::move(bar));
    }
  }
  std::string out = "<h2>Runs</h2>" + table({"devices", "batch", "policy", "samples/s", "speed-up",
                                             "vs oracle", "vs static", "loss first → last"},
                                            rows);
  if (!bars.empty())
    out += "<h2>Each device's share of the work</h2>" +
           svg::share_bars("Micro-batches per device in the last step, by run", device_names, bars);
  return out + "<h2>Training by step</h2>" +
         svg::line_chart("Loss", "step", "loss", losses, false) +
         svg::line_chart("Throughput", "step", "samples/s", rates);
}

std::string train_job_sections(const json& r) {
  svg::Series loss{"loss", {}}, rate{"samples/s", {}};
  for (const auto& s : r["steps"]) {
    const double step = s.value("step", 0.0), sec = s.value("seconds", 0.0);
    loss.points.push_back({step, s.value("loss", 0.0)});
    if (sec > 0) rate.points.push_back({step, r.value("batch", 0.0) / sec});
  }
  return "<h2>Training by step</h2><p>" + cell(r.value("policy", json("?"))) + ", " +
         cell(r.value("batch", json(0))) +
         " samples a step; gradients summed: " + cell(r.value("collective", json("-"))) + ".</p>" +
         svg::line_chart("Loss", "step", "loss", {loss}, false) +
         svg::line_chart("Throughput", "step", "samples/s", {rate});
}

// Busy share per device over time, from the trace's spans; and NVML's
// readings, a chart per kind, where the run had any.
std::string utilisation_sections(const TraceEvents& t) {
  constexpr int kBins = 120;
  const auto shares = busy_shares(t, kBins);
  const double width = (t.end_s - t.begin_s) / kBins;
  std::vector<svg::Series> busy;
  for (std::size_t i = 0; i < t.tracks.size(); ++i) {
    if (t.tracks[i].name == "host") continue;
    svg::Series s{t.tracks[i].name, {}};
    for (int b = 0; b < kBins; ++b)
      s.points.push_back({(b + 0.5) * width * 1e3, 100 * shares[i][std::size_t(b)]});
    busy.push_back(std::move(s));
  }
  std::string out = "<h2>Utilisation over time</h2>" +
                    svg::line_chart("Busy share of each device (from the trace's spans)",
                                    "ms into the run", "% busy", busy);
  for (const char* kind : {" util %", " power W", " memory GiB", " SM MHz"}) {
    std::vector<svg::Series> series;
    for (const auto& [name, points] : t.counters) {
      if (name.size() < std::strlen(kind) ||
          name.compare(name.size() - std::strlen(kind), std::string::npos, kind) != 0)
        continue;
      svg::Series s{name.substr(0, name.size() - std::strlen(kind)), {}};
      for (auto [time, value] : points) s.points.push_back({(time - t.begin_s) * 1e3, value});
      series.push_back(std::move(s));
    }
    if (!series.empty())
      out += svg::line_chart(std::string("Telemetry:") + kind, "ms into the run", kind + 1, series);
  }
  return out;
}

}  // namespace

std::string report_trace_path(const std::string& dir) {
  return dir + "/trace.json";
}

void prepare_report_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    raise(Errc::invalid_argument, "--report", "cannot make the folder '" + dir + "'");
  if (!std::ofstream(dir + "/index.html"))
    raise(Errc::invalid_argument, "--report", "cannot write in '" + dir + "'");
}

void write_report(const std::string& dir, const std::string& command, const json& results,
                  const TraceEvents& trace) {
  std::string body;
  if (is_balance(results)) body += balance_sections(results);
  if (is_train_comparison(results)) body += train_sections(results);
  if (is_train_job(results)) body += train_job_sections(results);
  body += "<h2>Timeline</h2><p>" +
          std::string(trace.simulated ? "Virtual time (sim devices). " : "") +
          std::to_string(trace.steals) +
          " steals. The trace is trace.json beside this page: open it in ui.perfetto.dev to "
          "zoom.</p>" +
          svg::gantt(trace) + utilisation_sections(trace);
  const std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  const std::string page =
      "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>baton report</title>"
      "<style>body{font:14px/1.4 system-ui,sans-serif;margin:24px auto;max-width:1000px;color:#222}"
      "h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}"
      "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 8px;"
      "text-align:right}th{background:#f3f3f3}svg{display:block;margin:8px 0}"
      "svg text{font:12px system-ui,sans-serif;fill:#333}svg .t{font-weight:600;font-size:13px}"
      "svg .in{fill:#fff}svg .g{stroke:#e4e4e4}code{background:#f3f3f3;padding:1px 4px}</style>"
      "</head><body><h1>baton report</h1><p><code>" +
      svg::escape(command) + "</code><br>" + date + "</p>" + body + "</body></html>\n";
  std::ofstream out(dir + "/index.html");
  if (!(out << page)) raise(Errc::invalid_argument, dir, "cannot write index.html");
}

}  // namespace baton::cli
