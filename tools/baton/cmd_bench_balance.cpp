// baton bench balance: the main job. Runs one kernel (fma steps and bytes
// moved per item as asked) over every device under each policy and prints,
// side by side, makespan, throughput, efficiency against the oracle (what
// the devices do together, as calibrated), speed-up over static, and each
// device's share and steals.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>

#include <nlohmann/json.hpp>

#include "baton/error.hpp"
#include "baton/runtime.hpp"
#include "baton/sim.hpp"
#include "commands.hpp"
#include "json_output.hpp"
#include "output_file.hpp"
#include "policy_list.hpp"
#include "report/recording.hpp"
#include "sched/policy.hpp"
#include "table.hpp"
#include "workloads/balance_case.hpp"
#include "workloads/sim_bytes.hpp"

namespace baton::cli {

using namespace workloads;  // the balance harness

namespace {

struct BalanceArgs {
  std::string devices = env_options().devices;
  std::string policies = detail::policy_names();
  Shape shape;
  int repeat = 1;
  std::string slowdown;  // "DEV:FACTOR"
  bool json = false;
  std::string json_out;
  std::string trace;
  std::string report;  // --report DIR
};

// "DEV:FACTOR": device DEV runs FACTOR times slower from half of the oracle time on.
std::pair<std::size_t, double> parse_slowdown(const std::string& s, std::size_t devices) {
  auto colon = s.find(':');
  char* end = nullptr;
  if (colon == std::string::npos)
    raise(Errc::invalid_argument, "--slowdown", "expected DEV:FACTOR, e.g. 0:4");
  unsigned long dev = std::strtoul(s.c_str(), &end, 10);
  if (end != s.c_str() + colon || dev >= devices)
    raise(Errc::invalid_argument, "--slowdown",
          "'" + s.substr(0, colon) + "' is not a device index below " + std::to_string(devices));
  double f = std::strtod(s.c_str() + colon + 1, &end);
  if (*end || !(f >= 1) || !std::isfinite(f))
    raise(Errc::invalid_argument, "--slowdown",
          "factor '" + s.substr(colon + 1) + "' must be a finite number >= 1");
  return {dev, f};
}

// A run and, on sim devices, the bytes its copies moved by kind of link.
struct Measured {
  RunStats run;
  LinkBytes bytes{};
};

void run_balance(const BalanceArgs& args) {
  if (args.repeat < 1) raise(Errc::invalid_argument, "--repeat", "must be at least 1");
  check_writable(args.json_out, "--json-out");
  std::vector<std::string> policy_names = policy_list(args.policies);
  width_of(args.shape.bytes);
  Options opt = env_options();
  opt.devices = args.devices;
  opt.write_back = opt.write_back || args.shape.from_host;
  Recording recording(args.trace, args.report);
  DeviceSet set = open_devices(opt.devices, opt);
  // Measured on the devices before the runtime takes them, as topo --probe does.
  const HostLinks links = args.shape.from_host ? measure_host_links(set) : HostLinks{};
  Runtime rt(std::move(set), opt);
  const auto& devs = rt.devices();
  const bool sim = rt.clock().is_virtual();
  BalanceCase work(rt, args.shape, links.both_ways_gbps);
  progress("calibrating the devices, alone and side by side...");
  const Calibration cal = work.calibrate();
  const std::vector<double>& alone = cal.alone;
  // --slowdown: device DEV slows down at half of each run's oracle time and
  // recovers after it; the run is measured against what the devices could
  // have done with that slow-down (sim::oracle_seconds).
  std::size_t slow_dev = 0;
  double slow_factor = 1, half_s = 0;
  if (!args.slowdown.empty()) {
    if (!sim) raise(Errc::invalid_argument, "--slowdown", "only sim devices can be slowed down");
    std::tie(slow_dev, slow_factor) = parse_slowdown(args.slowdown, devs.size());
    half_s = double(args.shape.items) * args.shape.passes / cal.oracle_rate() / 2;
  }
  std::vector<const Device*> all;
  for (const auto& d : devs) all.push_back(d.get());
  const double work_units = work.kernel().cost_of({0, args.shape.items}) * args.shape.passes;

  nlohmann::json j;
  j["devices"] = nlohmann::json::array();
  for (std::size_t d = 0; d < devs.size(); ++d)
    j["devices"].push_back({{"name", devs[d]->name()},
                            {"description", devs[d]->info().description},
                            {"standalone_items_per_s", alone[d]},
                            {"used_items_per_s", cal.used[d]},
                            {"least_run_s", cal.least_run_s[d]},
                            {"busy_items", cal.busy_items[d]},
                            {"left_out", bool(cal.left_out[d])}});
  j["oracle_items_per_s"] = cal.oracle_rate();
  j["host_memory"] = rt.host_memory();
  j["sharing"] = sharing_json(rt, cal);
  j["items"] = args.shape.items;
  j["iters"] = args.shape.iters;
  j["bytes_per_item"] = args.shape.bytes;
  j["passes"] = args.shape.passes;
  j["from_host"] = args.shape.from_host;
  if (args.shape.from_host) {
    j["host_link_gbps"] = links.one_way_gbps;
    j["host_link_both_ways_gbps"] = links.both_ways_gbps;
  }
  j["slowdown"] = args.slowdown;
  j["runs"] = nlohmann::json::array();
  std::vector<Measured> results;
  recording.start(rt);  // the policies' runs, calibration aside
  // Each repeat runs every policy once, so that a slow drift of the machine
  // (a neighbour's load, clocks) falls on all of them alike.
  std::vector<std::vector<Measured>> reps(policy_names.size());
  for (int r = 0; r < args.repeat; ++r)
    for (std::size_t p = 0; p < policy_names.size(); ++p) {
      progress("[" + std::to_string(p + 1) + "/" + std::to_string(policy_names.size()) + "] " +
               policy_names[p] + " run " + std::to_string(r + 1) + "/" +
               std::to_string(args.repeat));
      const double speed = devs[slow_dev]->info().peak_gflops;
      if (half_s > 0)
        sim::change_speed(*devs[slow_dev], rt.clock().now() + half_s, speed / slow_factor);
      const LinkBytes bytes_before = sim_bytes_moved(rt);
      RunStats run = work.run(policy_names[p]);
      const LinkBytes bytes = bytes_between(bytes_before, sim_bytes_moved(rt));
      rt.trace_span(policy_names[p], run.start_s, run.start_s + run.makespan_s);
      if (half_s > 0) {
        sim::change_speed(*devs[slow_dev], run.start_s + run.makespan_s, speed);
        run.oracle_s =
            std::max(sim::oracle_seconds(all, work_units, run.start_s), work.link_bound_s());
        run.efficiency = run.makespan_s > 0 ? run.oracle_s / run.makespan_s : 0;
      }
      reps[p].push_back({run, bytes});
    }
  for (auto& policy_reps : reps)
    results.push_back(median_by_makespan(
        std::move(policy_reps), [](const Measured& m) -> const RunStats& { return m.run; }));
  progress_done();
  recording.stop();

  const RunStats* base = nullptr;
  for (const auto& m : results)
    if (m.run.policy == "static") base = &m.run;
  // On sim devices, what crossed each kind of link (the kinds any run used).
  std::vector<std::size_t> kinds;
  for (std::size_t k = 0; k < kLinkKinds; ++k)
    if (std::any_of(results.begin(), results.end(), [&](const Measured& m) { return m.bytes[k]; }))
      kinds.push_back(k);
  std::vector<std::string> head{"policy", "makespan", "items/s", "vs oracle", "vs static"};
  for (std::size_t k : kinds) head.push_back("GB " + std::string(to_string(LinkKind(k))));
  if (args.shape.from_host) head.insert(head.end(), {"GB/s in", "GB/s out"});
  head.push_back("share % (steals) per device");
  Table t(head);
  for (const auto& [r, bytes] : results) {
    std::string shares;
    for (const auto& d : r.devices)
      shares += d.name + " " + fixed(100.0 * double(d.items) / double(r.items), 1) + " (" +
                std::to_string(d.steals) + ")" + (d.failed ? " FAILED" : "") + "  ";
    const double speedup = speedup_over(base ? base->makespan_s : 0, r);
    std::vector<std::string> row{r.policy, seconds(r.makespan_s), si(r.throughput()),
                                 percent(r.efficiency, 1), base ? fixed(speedup, 2) + "x" : "-"};
    nlohmann::json moved = nlohmann::json::object();
    for (std::size_t k : kinds) {
      row.push_back(fixed(double(bytes[k]) / 1e9, 3));
      moved[std::string(to_string(LinkKind(k)))] = bytes[k];
    }
    if (args.shape.from_host) row.insert(row.end(), {fixed(gbps_in(r), 2), fixed(gbps_out(r), 2)});
    row.push_back(shares);
    t.add(row);
    j["runs"].push_back(run_json(r, speedup));
    if (args.shape.from_host) {
      j["runs"].back()["gbps_in"] = gbps_in(r);
      j["runs"].back()["gbps_out"] = gbps_out(r);
    }
    if (sim) j["runs"].back()["sim_bytes_moved"] = moved;
  }
  recording.report(j);
  if (emit_json(j, args.json, args.json_out)) return;
  std::printf(
      "bench balance: %llu items x %d fma steps, %d bytes moved per item%s, on %zu device(s)%s%s\n",
      static_cast<unsigned long long>(args.shape.items), args.shape.iters, args.shape.bytes,
      args.shape.passes > 1 ? (", " + std::to_string(args.shape.passes) + " passes").c_str() : "",
      devs.size(), sim ? " (sim: virtual time)" : ", results checked",
      args.slowdown.empty() ? "" : (", slowdown " + args.slowdown + " at half-time").c_str());
  for (std::size_t d = 0; d < devs.size(); ++d)
    std::printf("  %-10s alone: %s items/s  (%s)\n", devs[d]->name().c_str(), si(alone[d]).c_str(),
                devs[d]->info().description.c_str());
  for (const auto& g : cal.groups) {
    std::string names;
    for (int d : g.devices) names += (names.empty() ? "" : " + ") + devs[d]->name();
    std::printf("  %s share %s: side by side %s items/s, the best alone %s items/s: %s\n",
                names.c_str(), g.resource.c_str(), si(g.together).c_str(), si(g.best_alone).c_str(),
                g.alone_wins ? "the others are left out" : "all of them run");
  }
  std::printf(
      "  oracle: %s items/s, the sum of the rates above%s\n", si(cal.oracle_rate()).c_str(),
      cal.groups.empty() ? "" : " (devices that share a resource as they ran side by side)");
  const double work_items = double(args.shape.items) * args.shape.passes;
  const double waves_s = results.front().run.waves_bound_s;
  if (args.slowdown.empty() && waves_over_rates(results.front().run, cal, work_items) > 0)
    std::printf(
        "  in the devices' waves these items take at least %s (%s items/s): a part of a wave "
        "costs its steps and no less than the calibration's least run; the oracle is that\n",
        seconds(waves_s).c_str(), si(work_items / waves_s).c_str());
  std::printf("  host memory of buffers: %s\n", rt.host_memory().c_str());
  if (args.shape.from_host && links.both_ways_gbps > 0)
    std::printf(
        "  from host: each run reads inputs the host just wrote and ends with its results in "
        "host memory; the oracle is capped by the host links' %s GB/s per direction, measured "
        "both ways at once (topology: %s GB/s one way)\n",
        fixed(links.both_ways_gbps, 1).c_str(), fixed(links.one_way_gbps, 1).c_str());
  else if (args.shape.from_host)
    std::printf("  from host: the devices work in host memory; no host link to cross\n");
  for (const auto& n : rt.notes()) std::printf("  note: %s\n", n.c_str());
  std::fputs(t.str().c_str(), stdout);
  for (const auto& [r, bytes] : results) {
    if (r.managed_memory)
      std::printf("note: %s: device memory ran out; some replicas used unified memory\n",
                  r.policy.c_str());
    if (r.reruns)
      std::printf("note: %s: %llu span(s) re-run after a device failed\n", r.policy.c_str(),
                  static_cast<unsigned long long>(r.reruns));
    for (const auto& d : r.devices)
      if (!d.out_of_memory.empty())
        std::printf("note: %s: the buffers did not fit %s (%s); the others ran its share\n",
                    r.policy.c_str(), d.name.c_str(), d.out_of_memory.c_str());
  }
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto* bench = app.add_subcommand("bench", "Benchmarks");
  bench->require_subcommand(1);
  auto* cmd = bench->add_subcommand(
      "balance", "Balance one compute-bound kernel over the devices under each policy");
  cmd->footer(
      "\"vs oracle\" is the oracle's time over the run's. The oracle is the items over the sum of "
      "the devices' calibrated rates (devices that share cores or a GPU counted as they ran side "
      "by side), and no sooner than the devices' waves allow: a GPU runs a wave of items at "
      "once, and a last part of one costs its steps and no less than the calibration's least "
      "run. The output says which of the two it is.");
  auto args = std::make_shared<BalanceArgs>();
  cmd->add_option("-d,--devices", args->devices, "device spec (see baton devices --help)")
      ->capture_default_str();
  cmd->add_option("-p,--policies", args->policies,
                  policy_help("policies to compare, comma-separated:"))
      ->capture_default_str();
  // Unsigned: CLI11 would take "-5" as 2^64 - 5.
  cmd->add_option("-n,--items", args->shape.items, "work items")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("-c,--chunk", args->shape.chunk,
                  "chunk in items: launches of at most this many (0: one per span handed out)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_option("-i,--iters", args->shape.iters, "fma steps per element (compute per item)")
      ->capture_default_str();
  cmd->add_option("-b,--bytes", args->shape.bytes,
                  "bytes moved per item: 4 (written only) or 8 per float read and written")
      ->capture_default_str();
  cmd->add_option("-r,--repeat", args->repeat,
                  "runs per policy, the policies taking turns; the median is reported")
      ->capture_default_str();
  cmd->add_option("--passes", args->shape.passes,
                  "passes a run makes over the data, each reading what the one before wrote where "
                  "it lies (items a device takes from another move between them: an iterative "
                  "solver's sweeps); needs --bytes 8 or more")
      ->capture_default_str();
  cmd->add_flag("--from-host", args->shape.from_host,
                "each run starts from inputs the host has just written and ends with its results "
                "back in host memory (written back behind later chunks): the data crosses the "
                "host links both ways, and the table gives GB/s in and out");
  cmd->add_option("--slowdown", args->slowdown,
                  "sim only: DEV:FACTOR slows device DEV by FACTOR at half-time");
  cmd->add_flag("--json", args->json, "print the results as JSON instead of a table");
  cmd->add_option("--json-out", args->json_out, "also write the results as JSON to this file");
  cmd->add_option("--trace", args->trace,
                  "write a trace of the policies' runs to this file (Chrome/Perfetto trace-event "
                  "JSON: a track per device with a span per chunk, counter tracks of each "
                  "device's utilisation, memory, power and clock)");
  cmd->add_option("--report", args->report,
                  "write an HTML report of the runs into this folder (index.html: the policy "
                  "table, each device's share, a timeline per device, utilisation over time; "
                  "trace.json beside it)");
  cmd->callback([args] { run_balance(*args); });
  add_sweep_command(*bench);
}

}  // namespace baton::cli
