// baton doctor: the source document's troubleshooting list as checks. Short
// probes of the devices (each link timed against its nominal figure, each
// device's free memory, devices that share cores or a GPU calibrated alone
// and together, a short balance run under static and ws, traced), and any
// traces (--trace) and runs' results (--results, a command's --json) given;
// each finding says what was seen and, where something is off, what to change.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include <nlohmann/json.hpp>

#include "baton/error.hpp"
#include "baton/runtime.hpp"
#include "commands.hpp"
#include "common/text_file.hpp"
#include "doctor/results_checks.hpp"
#include "doctor/trace_checks.hpp"
#include "json_output.hpp"
#include "report/recording.hpp"
#include "resource/link_probe.hpp"
#include "resource/telemetry.hpp"
#include "table.hpp"
#include "workloads/balance_case.hpp"

namespace baton::cli {

using namespace workloads;  // the balance harness

namespace {

struct DoctorArgs {
  std::string devices = env_options().devices;
  std::vector<std::string> traces, results;
  bool probe = true;
  int probe_mib = 64;
  std::uint64_t items = 0;  // 0: enough for the devices (more with a GPU)
  bool json = false;
};

// Devices this close to full are reported.
constexpr double kNearlyFull = 0.9;

void check_links(DeviceSet& set, int mib, Findings& out) {
  int slow = 0;
  std::string slowest;
  double worst = 1e300;
  for (const detail::LinkMeasure& m : detail::probe_links(set, std::size_t(mib) << 20, 3)) {
    const std::string link = m.from + " -> " + m.to + " (" + m.route + ")";
    const bool staged = m.route == "via host";  // two copies, one after the other
    if (!staged && m.nominal_gbps > 0 && m.measured_gbps / m.nominal_gbps < worst) {
      worst = m.measured_gbps / m.nominal_gbps;
      slowest = link + " " + fixed(m.measured_gbps, 1) + " GB/s of " + fixed(m.nominal_gbps, 1);
    }
    if (!m.slow) continue;
    if (staged) {
      out.push_back({"links", "info",
                     link + ": " + fixed(m.measured_gbps, 1) + " GB/s through host memory (" +
                         m.kind + " " + fixed(m.nominal_gbps, 1) + " GB/s each way)",
                     ""});
      continue;
    }
    ++slow;
    out.push_back({"links", "warn",
                   link + ": " + fixed(m.measured_gbps, 1) + " GB/s measured, " +
                       fixed(m.nominal_gbps, 1) + " nominal (" + m.kind + ")",
                   "below half its kind's figure: a GPU in a narrower or older slot, a link "
                   "trained down, or peer access off (the copy goes through host memory). Check "
                   "nvidia-smi topo -m and the slot; baton topo --probe measures it again."});
  }
  if (slow == 0 && !slowest.empty())
    out.push_back(
        {"links", "ok",
         "every link within half of its nominal figure; the lowest: " + slowest + " GB/s nominal",
         ""});
}

void check_memory(DeviceSet& set, Findings& out) {
  std::vector<const Device*> devs;
  for (const auto& d : set.devices) devs.push_back(d.get());
  Telemetry telemetry(devs, std::chrono::milliseconds(50), 8);
  telemetry.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  telemetry.stop();
  for (std::size_t d = 0; d < devs.size(); ++d) {
    const auto r = telemetry.latest(d);
    if (!r || r->memory_total == 0) continue;
    const double used = double(r->memory_used) / double(r->memory_total);
    const std::string what = devs[d]->name() + ": " + bytes(r->memory_used) + " of " +
                             bytes(r->memory_total) + " in use (" + percent(used, 0) + ")";
    if (used < kNearlyFull) {
      out.push_back({"memory", "ok", what, ""});
      continue;
    }
    out.push_back({"memory", "warn", what,
                   "nearly full: baton's buffers may fall back to managed memory (slow) or leave "
                   "the device out of split runs. Stop what else runs there (nvidia-smi), or run "
                   "a smaller problem."});
  }
}

// Calibration and a short run under static, then one under ws, traced: the
// same checks as for a user's run (static's uneven split is its nature, and
// only its time is kept, for the comparison).
void check_balance(const DoctorArgs& a, Findings& out) {
  Options opt = env_options();
  opt.devices = a.devices;
  Runtime rt(opt);
  Shape shape;
  // A GPU does 2^20 items in well under a millisecond: too short to split.
  const bool gpu = std::any_of(rt.devices().begin(), rt.devices().end(), [](const auto& d) {
    return d->info().backend == BackendKind::cuda;
  });
  shape.items = a.items ? a.items : gpu ? std::uint64_t(1) << 26 : std::uint64_t(1) << 20;
  BalanceCase work(rt, shape);
  progress("doctor: calibrating the devices, alone and side by side...");
  const Calibration cal = work.calibrate();
  nlohmann::json j{{"oracle_items_per_s", cal.oracle_rate()},
                   {"sharing", sharing_json(rt, cal)},
                   {"runs", nlohmann::json::array()}};
  const std::string trace = std::filesystem::temp_directory_path() /
                            ("baton-doctor-" + std::to_string(::getpid()) + ".json");
  progress("doctor: a short run under static");
  const RunStats fixed_split = work.run("static");
  j["runs"].push_back(run_json(fixed_split, 1.0));
  Recording recording(trace, "");
  recording.start(rt);
  progress("doctor: a short run under ws");
  const RunStats r = work.run("ws");
  rt.trace_span("ws", r.start_s, r.start_s + r.makespan_s);
  recording.stop();
  j["runs"].push_back(run_json(r, speedup_over(fixed_split.makespan_s, r)));
  progress_done();
  Findings results = check_results(j), spans = check_trace(read_trace_events(trace));
  std::filesystem::remove(trace);
  out.insert(out.end(), results.begin(), results.end());
  out.insert(out.end(), spans.begin(), spans.end());
}

void run_doctor(const DoctorArgs& a) {
  if (a.probe_mib < 1 || a.probe_mib > 4096)
    raise(Errc::invalid_argument, "--probe-mib", "must be from 1 to 4096");
  if (a.items != 0 && a.items < 1024)
    raise(Errc::invalid_argument, "--items", "must be at least 1024 (0: chosen for the devices)");
  Findings found;
  std::vector<std::string> sources;
  // The files first: a bad one is said before any probe runs.
  for (const std::string& path : a.results) {
    const std::string text = detail::read_text_file(path, Errc::invalid_argument, "results");
    Findings f;
    try {  // a field of another type than a run's is as bad as no JSON
      f = check_results(nlohmann::json::parse(text));
    } catch (const nlohmann::json::exception& e) {
      raise(Errc::invalid_argument, path, std::string("not a run's JSON: ") + e.what());
    }
    for (Finding& x : f) x.what = path + ": " + x.what;
    found.insert(found.end(), f.begin(), f.end());
    sources.push_back("results " + path);
  }
  for (const std::string& path : a.traces) {
    Findings f = check_trace(read_trace_events(path));
    for (Finding& x : f) x.what = path + ": " + x.what;
    found.insert(found.end(), f.begin(), f.end());
    sources.push_back("trace " + path);
  }
  if (a.probe) {
    {
      DeviceSet set = open_devices(a.devices);
      progress("doctor: timing the links...");
      check_links(set, a.probe_mib, found);
      check_memory(set, found);
    }
    check_balance(a, found);
    sources.push_back("probes of " + a.devices);
  }
  if (sources.empty())
    raise(Errc::invalid_argument, "doctor",
          "nothing to check: --no-probe, and no --trace or --results");
  int warnings = 0;
  nlohmann::json j = nlohmann::json::array();
  for (const Finding& f : found) {
    warnings += f.status == "warn";
    j.push_back({{"area", f.area}, {"status", f.status}, {"what", f.what}, {"change", f.change}});
  }
  if (emit_json({{"checked", sources}, {"warnings", warnings}, {"findings", j}}, a.json, ""))
    return;
  for (const std::string& s : sources) std::printf("checked: %s\n", s.c_str());
  for (const Finding& f : found) {
    std::printf("%-4s  %-8s %s\n", f.status.c_str(), f.area.c_str(), f.what.c_str());
    if (!f.change.empty()) std::printf("                change: %s\n", f.change.c_str());
  }
  std::printf("%d warning%s\n", warnings, warnings == 1 ? "" : "s");
}

}  // namespace

void add_doctor_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "doctor",
      "Checks the devices, links, memory and balance, and reads traces and results, "
      "saying what to change");
  auto a = std::make_shared<DoctorArgs>();
  cmd->add_option("-d,--devices", a->devices, "device spec to probe (see baton devices --help)")
      ->capture_default_str();
  cmd->add_option("--trace", a->traces,
                  "a trace to read (--trace of bench balance or train): utilisation per run, "
                  "and why it is uneven; may be given several times");
  cmd->add_option("--results", a->results,
                  "a run's results to read (--json or --json-out of bench balance or train): out "
                  "of memory, managed memory, failures, sharing, efficiency; may be given "
                  "several times");
  cmd->add_flag("!--no-probe", a->probe, "read the files only: no probe of the devices");
  cmd->add_option("--probe-mib", a->probe_mib, "MiB per timed copy when probing the links")
      ->capture_default_str();
  cmd->add_option("--items", a->items,
                  "items of the short balance run (0: 2^20, or 2^26 where a GPU takes part)")
      ->capture_default_str();
  cmd->add_flag("--json", a->json, "print the findings as JSON");
  cmd->callback([a] { run_doctor(*a); });
}

}  // namespace baton::cli
