// baton bench sweep: the balance benchmark over many shapes of work (compute
// per item, bytes moved per item, length of the run), one row each: every
// policy against the oracle, and whether ws keeps up with the better of
// static and weighted.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <type_traits>

#include <nlohmann/json.hpp>

#include "baton/error.hpp"
#include "baton/runtime.hpp"
#include "commands.hpp"
#include "device/host_memory.hpp"
#include "json_output.hpp"
#include "output_file.hpp"
#include "policy_list.hpp"
#include "table.hpp"
#include "workloads/balance_case.hpp"

namespace baton::cli {

using namespace workloads;  // the balance harness

namespace {

struct SweepArgs {
  std::string devices = env_options().devices;
  std::string policies = "static,weighted,ws";
  std::string iters = "1,256,65536";
  std::string bytes = "4,8,64";
  std::string ms = "20";
  int repeat = 3;
  double max_gib = 2;
  bool from_host = false;
  bool json = false;
  std::string json_out;
};

template <class T>
std::vector<T> numbers(const std::string& list, const char* option) {
  std::vector<T> out;
  for (const std::string& tok : list_items(list, option)) {
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(tok, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != tok.size() || !(v > 0) || !std::isfinite(v))
      raise(Errc::invalid_argument, option, "'" + tok + "' is not a positive finite number");
    if constexpr (std::is_integral_v<T>)
      if (v != std::floor(v) || v > double(std::numeric_limits<T>::max()))
        raise(Errc::invalid_argument, option,
              "'" + tok + "' is not a whole number from 1 to " +
                  std::to_string(std::numeric_limits<T>::max()));
    out.push_back(T(v));
  }
  if (out.empty()) raise(Errc::invalid_argument, option, "give at least one value");
  return out;
}

// A case of `ms` under ws, up to 30 % more, never less (within a factor of
// 2, cases sized for 20 ms ran 10 to 17 ms on an H100: no run of 20 ms):
// its items grown from `start` (a small probe, or what the last length of run
// took, scaled) up to `most`. The probe that lands is the case: buffers of
// GiBs take seconds to make. Each probe is calibrated before it is timed, as
// the case's runs will be: uncalibrated, a kernel is weighted by the devices'
// nominal peaks, which gave a CPU beside an H100 far too much (cases sized for
// 20 ms ran 1.5 ms once calibrated, and at 2^18 fma steps 11 ms).
struct SizedCase {
  std::unique_ptr<BalanceCase> work;
  Calibration cal;
  double calibration_s = 0;  // wall seconds its calibration took
  double took_s = 0;         // its run under ws
};

SizedCase sized_case(Runtime& rt, Shape shape, double ms, std::uint64_t start, std::uint64_t most,
                     double link_gbps) {
  shape.items = std::clamp<std::uint64_t>(start, 16, std::max<std::uint64_t>(16, most));
  for (int round = 0;; ++round) {
    SizedCase probe;
    probe.work = std::make_unique<BalanceCase>(rt, shape, link_gbps);
    Clock& wall = host_clock();  // the runtime's may be virtual
    const double at = wall.now();
    probe.cal = probe.work->calibrate();  // which also loads modules and places buffers
    probe.calibration_s = wall.now() - at;
    const double s = probe.took_s = probe.work->run("ws").makespan_s;
    const double want = ms * 1e-3;
    if ((s >= want && s <= want * 1.3) || round == 5) return probe;
    const double scale = s > 0 ? want * 1.12 / s : 64;
    const std::uint64_t next =
        std::clamp<std::uint64_t>(std::uint64_t(double(shape.items) * std::min(scale, 64.0)), 16,
                                  std::max<std::uint64_t>(16, most));
    if (next == shape.items) return probe;
    shape.items = next;
  }
}

// The most items a case may have: `max_bytes` of buffers, and what half the
// free host memory holds: the host's copy, and a replica in each memory of
// its own that lives in host memory (a sim device that runs code, an OpenCL
// device). A GPU's memory is its own, and a sim device that keeps time only
// holds address space: counted as replicas, four H100 partitions capped
// memory-bound cases at half the buffers asked for, and sim:dgx1's at a 9th.
std::uint64_t most_items(const Runtime& rt, const Shape& shape, std::uint64_t max_bytes) {
  std::set<MemoryNode> in_host_memory;
  for (const auto& d : rt.devices()) {
    const DeviceInfo& info = d->info();
    if (info.memory_node != kHostNode && info.code_backend() != BackendKind::cuda)
      in_host_memory.insert(info.memory_node);
  }
  // A case's buffers hold its bytes per item: 4 written only, else a float
  // read and one written per 8.
  const std::uint64_t per_item = std::uint64_t(shape.bytes);
  return std::min(max_bytes / per_item,
                  detail::host_available_bytes() / 2 / (in_host_memory.size() + 1) / per_item);
}

struct Row {
  Shape shape;
  double target_ms = 0;
  Calibration cal;
  std::vector<RunStats> runs;  // per policy, the median
  // Per policy, every run's makespan: how far apart a policy's runs fell.
  std::vector<std::vector<double>> makespans_s;
  // Wall seconds the row took: sizing its case (buffers made and filled,
  // probe runs), calibrating it, the policies' runs (each checked).
  double sizing_s = 0, calibration_s = 0, runs_s = 0;
};

void run_sweep(const SweepArgs& args) {
  if (args.repeat < 1) raise(Errc::invalid_argument, "--repeat", "must be at least 1");
  if (!(args.max_gib > 0) || !std::isfinite(args.max_gib))
    raise(Errc::invalid_argument, "--max-gib", "must be a finite number above 0");
  check_writable(args.json_out, "--json-out");
  std::vector<std::string> policies = policy_list(args.policies);
  const auto iters = numbers<int>(args.iters, "--iters");
  const auto bytes = numbers<int>(args.bytes, "--bytes");
  auto ms = numbers<double>(args.ms, "--ms");  // shortest first: each sizes the next
  std::sort(ms.begin(), ms.end());
  ms.erase(std::unique(ms.begin(), ms.end()), ms.end());
  for (int b : bytes) width_of(b);
  Options opt = env_options();
  opt.devices = args.devices;
  opt.write_back = opt.write_back || args.from_host;
  DeviceSet set = open_devices(opt.devices, opt);
  // Measured on the devices before the runtime takes them, as topo --probe does.
  const HostLinks links = args.from_host ? measure_host_links(set) : HostLinks{};
  Runtime rt(std::move(set), opt);

  std::vector<Row> rows;
  int repeated = 0;  // lengths of run whose case was already run (buffers at their cap)
  const std::size_t cases = iters.size() * bytes.size() * ms.size();
  std::size_t step = 0;
  for (int it : iters)
    for (int b : bytes) {
      Shape shape;
      shape.iters = it;
      shape.bytes = b;
      shape.from_host = args.from_host;
      const std::uint64_t most =
          most_items(rt, shape, std::uint64_t(args.max_gib * double(1ull << 30)));
      std::uint64_t start = 1 << 10;  // the next length's first probe
      double last_ms = 0;             // what the last length's case took under ws
      for (double target : ms) {
        ++step;
        if (last_ms > 0) {
          if (rows.back().shape.items >= most) {  // the longer run would be the same case
            ++repeated;
            continue;
          }
          start = std::uint64_t(double(rows.back().shape.items) * target / last_ms);
        }
        progress("[" + std::to_string(step) + "/" + std::to_string(cases) + "] " +
                 std::to_string(it) + " fma steps, " + std::to_string(b) + " bytes, ~" +
                 fixed(target, 0) + " ms");
        Clock& wall = host_clock();  // the runtime's may be virtual
        double at = wall.now();
        SizedCase sized = sized_case(rt, shape, target, start, most, links.both_ways_gbps);
        BalanceCase& work = *sized.work;
        Row row;
        row.calibration_s = sized.calibration_s;  // the case's; the other probes' count as sizing
        row.sizing_s = wall.now() - at - row.calibration_s;
        row.shape = work.shape();
        row.target_ms = target;
        row.cal = std::move(sized.cal);
        at = wall.now();
        std::string line = "[" + std::to_string(step) + "/" + std::to_string(cases) + "] " +
                           std::to_string(it) + " fma, " + std::to_string(b) + " B, " +
                           std::to_string(row.shape.items) + " items:";
        // Each repeat runs every policy once, as bench balance does.
        std::vector<std::vector<RunStats>> reps(policies.size());
        row.makespans_s.resize(policies.size());
        for (int r = 0; r < args.repeat; ++r)
          for (std::size_t p = 0; p < policies.size(); ++p) {
            reps[p].push_back(work.run(policies[p]));
            row.makespans_s[p].push_back(reps[p].back().makespan_s);
          }
        for (std::size_t p = 0; p < policies.size(); ++p) {
          row.runs.push_back(median_run(std::move(reps[p])));
          line += " " + policies[p] + " " + fixed(100 * row.runs.back().efficiency, 1) + "% in " +
                  fixed(row.runs.back().makespan_s * 1e3, 1) + " ms";
        }
        row.runs_s = wall.now() - at;
        line += " (sized in " + fixed(row.sizing_s, 1) + " s, calibrated in " +
                fixed(row.calibration_s, 1) + " s, runs " + fixed(row.runs_s, 1) + " s)";
        progress_result(line);
        rows.push_back(std::move(row));
        last_ms = sized.took_s * 1e3;
      }
    }
  progress_done();

  // ws against the better of the baselines that ran (static and weighted;
  // on a CPU beside a GPU static's even split takes hundreds of times longer,
  // so a sweep there may leave it out).
  auto index = [&](const char* name) {
    auto at = std::find(policies.begin(), policies.end(), name);
    return at == policies.end() ? -1 : int(at - policies.begin());
  };
  const int ws = index("ws"), st = index("static");
  std::vector<int> baselines;
  for (const char* name : {"static", "weighted"})
    if (index(name) >= 0) baselines.push_back(index(name));
  const std::string against = baselines.size() > 1 ? "the better of static and weighted"
                              : baselines.empty()  ? ""
                                                   : policies[std::size_t(baselines[0])];
  const bool compare = ws >= 0 && !baselines.empty();
  nlohmann::json j;
  j["devices"] = nlohmann::json::array();
  for (const auto& d : rt.devices()) j["devices"].push_back(d->name());
  j["rows"] = nlohmann::json::array();
  j["from_host"] = args.from_host;
  if (args.from_host) {
    j["host_link_gbps"] = links.one_way_gbps;
    j["host_link_both_ways_gbps"] = links.both_ways_gbps;
  }
  std::vector<std::string> head{"fma/item", "bytes/item", "items", "ms asked", "ms (ws)"};
  for (const auto& p : policies) head.push_back(p + " %");
  head.push_back("GB/s (ws)");
  head.push_back("oracle");
  if (args.from_host) head.insert(head.end(), {"in GB/s", "out GB/s"});
  if (compare) head.push_back("ws vs best baseline");
  Table t(head);
  // Issue 9's range is runs of 5 ms to 1 s; a shape whose buffers hit the
  // memory cap can run shorter than asked, where a few chunks' start-up shows.
  int losses = 0, short_of_oracle = 0, long_runs = 0, losses_5ms = 0, runs_5ms = 0, in_waves = 0;
  int losses_in_spread = 0;  // where ws's fastest run ended no later than the baseline's slowest
  for (const Row& r : rows) {
    const RunStats& main = r.runs[ws >= 0 ? ws : 0];
    std::vector<std::string> cells{std::to_string(r.shape.iters), std::to_string(r.shape.bytes),
                                   std::to_string(r.shape.items), fixed(r.target_ms, 0),
                                   fixed(main.makespan_s * 1e3, 2)};
    nlohmann::json jr{
        {"iters", r.shape.iters},
        {"bytes_per_item", r.shape.bytes},
        {"items", r.shape.items},
        {"target_ms", r.target_ms},
        {"oracle_items_per_s", r.cal.oracle_rate()},
        {"wall_s", {{"sizing", r.sizing_s}, {"calibration", r.calibration_s}, {"runs", r.runs_s}}},
        {"runs", nlohmann::json::array()}};
    for (std::size_t p = 0; p < policies.size(); ++p) {
      cells.push_back(fixed(100 * r.runs[p].efficiency, 1));
      // As bench balance's --json has a run: each device's items, chunks,
      // steals and busy time with the figures.
      const double static_s = st >= 0 ? r.runs[st].makespan_s : 0;
      jr["runs"].push_back(run_json(r.runs[p], speedup_over(static_s, r.runs[p])));
      jr["runs"].back()["makespans_s"] = r.makespans_s[p];
      if (args.from_host) {
        jr["runs"].back()["gbps_in"] = gbps_in(r.runs[p]);
        jr["runs"].back()["gbps_out"] = gbps_out(r.runs[p]);
      }
    }
    const double gbps =
        main.makespan_s > 0 ? double(r.shape.items) * r.shape.bytes / main.makespan_s * 1e-9 : 0;
    cells.push_back(fixed(gbps, 2));
    // Which bound the percentages are of: the summed rates, or the least
    // time the devices' waves allow where that is more (RunStats).
    const double over = waves_over_rates(main, r.cal, double(r.shape.items));
    const bool by_waves = over > 0;
    in_waves += by_waves;
    cells.push_back(by_waves ? "waves +" + fixed(100 * (over - 1), 1) + "%" : "rates");
    jr["oracle_by"] = by_waves ? "waves" : "rates";
    jr["waves_bound_s"] = main.waves_bound_s;
    if (args.from_host)
      cells.insert(cells.end(), {fixed(gbps_in(main), 2), fixed(gbps_out(main), 2)});
    if (compare) {
      int better = baselines[0];
      for (int b : baselines)
        if (r.runs[b].makespan_s < r.runs[better].makespan_s) better = b;
      const double best = r.runs[better].makespan_s;
      const double ratio = r.runs[ws].makespan_s > 0 ? best / r.runs[ws].makespan_s : 0;
      const bool lost = ratio < 0.98;
      losses += lost;
      const auto& ws_runs = r.makespans_s[ws];
      const auto& best_runs = r.makespans_s[better];
      losses_in_spread += lost && *std::min_element(ws_runs.begin(), ws_runs.end()) <=
                                      *std::max_element(best_runs.begin(), best_runs.end());
      if (best >= 0.005) ++runs_5ms, losses_5ms += lost;
      cells.push_back(fixed(ratio, 3) + "x" + (lost ? "  LOSES" : ""));
      jr["ws_vs_best_baseline"] = ratio;
    }
    if (ws >= 0 && main.makespan_s >= 0.02) {
      ++long_runs;
      short_of_oracle += main.efficiency < 0.95;
    }
    t.add(cells);
    j["rows"].push_back(jr);
  }
  j["lengths_not_run_again"] = repeated;
  j["ws_losses"] = losses;
  j["ws_losses_on_runs_of_5ms_or_more"] = losses_5ms;
  j["ws_losses_within_the_runs_spread"] = losses_in_spread;
  j["ws_below_95_percent_on_20ms_runs"] = short_of_oracle;
  if (emit_json(j, args.json, args.json_out)) return;
  std::string names;
  for (const auto& d : rt.devices()) names += (names.empty() ? "" : ", ") + d->name();
  std::printf("bench sweep on %s: %% of the oracle per policy (medians of %d)%s\n", names.c_str(),
              args.repeat, rt.clock().is_virtual() ? " (sim: virtual time)" : ", results checked");
  if (args.from_host && links.both_ways_gbps > 0)
    std::printf(
        "from host: inputs written by the host before each run, results home at its end; "
        "the oracle is capped by the host links' %s GB/s per direction, measured both ways at "
        "once (topology: %s GB/s one way)\n",
        fixed(links.both_ways_gbps, 1).c_str(), fixed(links.one_way_gbps, 1).c_str());
  else if (args.from_host)
    std::printf("from host: the devices work in host memory; no host link to cross\n");
  std::fputs(t.str().c_str(), stdout);
  if (in_waves)
    std::printf(
        "oracle: the items over the summed rates, or (%d of %zu rows, \"waves\", by how much "
        "more) the least time the devices' waves allow, a part of a wave as its steps and no "
        "less than the calibration's least run\n",
        in_waves, rows.size());
  if (repeated)
    std::printf(
        "%d of the lengths of run asked for left out: the cap on buffers (--max-gib) made "
        "them the case of a shorter one's row\n",
        repeated);
  if (compare) {
    std::printf(
        "ws more than 2%% behind %s: %d of %zu cases; on runs of 5 ms or more (the baseline's): "
        "%d of %d\n",
        against.c_str(), losses, rows.size(), losses_5ms, runs_5ms);
    if (losses > 0 && args.repeat > 1)
      std::printf(
          "of those, %d within the runs' spread: ws's fastest run no later than the baseline's "
          "slowest (more runs, -r, tell them apart)\n",
          losses_in_spread);
  }
  if (ws >= 0)
    std::printf("ws below 95%% of the oracle on runs of 20 ms or more: %d of %d\n", short_of_oracle,
                long_runs);
}

}  // namespace

void add_sweep_command(CLI::App& bench) {
  auto* cmd = bench.add_subcommand(
      "sweep",
      "The balance benchmark over shapes of work: compute and bytes per item, length of run");
  cmd->footer(
      "Percentages are of the oracle, as bench balance has it (baton bench balance --help); the "
      "oracle column says which bound it is per row: the summed rates, or the devices' waves and "
      "by how much later.");
  auto args = std::make_shared<SweepArgs>();
  cmd->add_option("-d,--devices", args->devices, "device spec (see baton devices --help)")
      ->capture_default_str();
  cmd->add_option("-p,--policies", args->policies,
                  "policies, comma-separated (baton bench balance --help lists them)")
      ->capture_default_str();
  cmd->add_option("-i,--iters", args->iters, "fma steps per element, comma-separated")
      ->capture_default_str();
  cmd->add_option("-b,--bytes", args->bytes,
                  "bytes moved per item, comma-separated: 4 (written only) or multiples of 8")
      ->capture_default_str();
  cmd->add_option("--ms", args->ms,
                  "lengths of run to size each case for (ms, under ws), comma-separated")
      ->capture_default_str();
  cmd->add_option(
         "-r,--repeat", args->repeat,
         "runs per policy and case, the policies taking turns; the median is reported, each run's "
         "time in --json")
      ->capture_default_str();
  cmd->add_option("--max-gib", args->max_gib,
                  "largest buffers of a case, GiB (a fast case then runs shorter than --ms)")
      ->capture_default_str();
  cmd->add_flag("--from-host", args->from_host,
                "each run starts from inputs the host has just written and ends with its results "
                "back in host memory: the data crosses the host links both ways (bench balance "
                "--help)");
  cmd->add_flag("--json", args->json, "print the results as JSON instead of a table");
  cmd->add_option("--json-out", args->json_out, "also write the results as JSON to this file");
  cmd->callback([args] { run_sweep(*args); });
}

}  // namespace baton::cli
