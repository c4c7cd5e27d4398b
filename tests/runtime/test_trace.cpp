// Traces: the file a run writes parses as trace-event JSON, has a track per
// device and one for the host, and its spans add up to the run's RunStats;
// counters (telemetry) come out as counter tracks, steals as arrows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "baton/runtime.hpp"
#include "baton/sim.hpp"

using namespace baton;

TEST(Trace, SpansAddUpToTheRunsStats) {
  Options o;
  o.devices = "sim:4,2,1";
  o.perf_model_file = "";
  Runtime rt(o);
  Kernel k("traced");
  k.cpu([](Span, const KernelArgs&) {});
  k.cost([](Span s) { return 1e4 * double(s.size()); });
  auto x = rt.buffer<float>(7000);
  rt.start_trace();
  const double begin = rt.clock().now();
  // sim0 runs at a quarter of the speed its share assumes: the others steal from it.
  sim::change_speed(*rt.devices()[0], begin, 1.0);
  const RunStats stats = rt.parallel_for(Range{7000}, k, inout(x), Policy::ws());
  rt.trace_span("the run", begin, rt.clock().now());
  const std::string path = "test_trace.json";
  rt.write_trace(path);
  std::ifstream in(path);
  const nlohmann::json j = nlohmann::json::parse(in);
  std::remove(path.c_str());

  std::map<int, std::string> tracks;
  std::map<int, std::uint64_t> items, chunks;
  std::map<int, double> busy_us;
  std::map<int, std::uint64_t> stolen;                 // per thief: spans stolen
  std::map<std::uint64_t, std::pair<int, int>> flows;  // id: from, to
  int host_spans = 0;
  for (const auto& e : j.at("traceEvents")) {
    const int tid = e.at("tid").get<int>();
    if (e.at("ph") == "s") flows[e.at("id")].first = tid;
    if (e.at("ph") == "f") flows[e.at("id")].second = tid;
    if (e.at("ph") == "M" && e.at("name") == "thread_name")
      tracks[tid] = e.at("args").at("name").get<std::string>();
    if (e.at("ph") != "X") continue;
    if (e.at("name") == "the run") {
      ++host_spans;
      continue;
    }
    ASSERT_EQ(e.at("name"), "traced");
    EXPECT_GE(e.at("dur").get<double>(), 0.0);
    EXPECT_GE(e.at("args").at("issue_us").get<double>(), 0.0) << "the host's time to issue it";
    const double issued_at = e.at("args").at("issued_at_us").get<double>();
    EXPECT_GE(issued_at, begin * 1e6) << "issued before the run began";
    EXPECT_LE(issued_at, e.at("ts").get<double>()) << "began before it was issued";
    items[tid] += e.at("args").at("items").get<std::uint64_t>();
    chunks[tid] += e.at("args").at("kind") == "chunk";
    busy_us[tid] += e.at("dur").get<double>();
    stolen[tid] += e.at("args").contains("stolen_from");
  }
  EXPECT_EQ(host_spans, 1);
  ASSERT_EQ(tracks.size(), 4u) << "a track per device and the host";
  EXPECT_EQ(tracks[3], "host");
  std::uint64_t all = 0;
  for (int d = 0; d < 3; ++d) {
    const DeviceStats& s = stats.devices[std::size_t(d)];
    EXPECT_EQ(tracks[d], s.name);
    EXPECT_EQ(items[d], s.items) << s.name;
    EXPECT_EQ(chunks[d], s.chunks) << s.name;
    EXPECT_NEAR(busy_us[d] * 1e-6, s.busy_s, 1e-3 * s.busy_s + 1e-9) << s.name;
    EXPECT_EQ(stolen[d], s.steals) << s.name;
    all += items[d];
  }
  EXPECT_EQ(all, 7000u);
  // A steal is an arrow from the victim's track to the thief's.
  std::uint64_t steals = 0;
  for (const DeviceStats& s : stats.devices) steals += s.steals;
  EXPECT_GT(steals, 0u) << "a device slower than its share: the others steal";
  EXPECT_EQ(flows.size(), steals);
  for (const auto& [id, ends] : flows) EXPECT_NE(ends.first, ends.second) << "flow " << id;
}

TEST(Trace, NothingIsNotedWhileItIsOff) {
  Options o;
  o.devices = "sim:1";
  o.perf_model_file = "";
  Runtime rt(o);
  Kernel k("untraced");
  k.cpu([](Span, const KernelArgs&) {});
  auto x = rt.buffer<float>(100);
  rt.parallel_for(Range{100}, k, inout(x));
  rt.start_trace();
  const std::string path = "test_trace_off.json";
  rt.write_trace(path);
  std::ifstream in(path);
  const nlohmann::json j = nlohmann::json::parse(in);
  std::remove(path.c_str());
  for (const auto& e : j.at("traceEvents")) EXPECT_NE(e.at("ph"), "X") << e.dump();
}

// Counters (telemetry) go on tracks of their own, by name, in time order as
// given, and only while tracing is on.
TEST(Trace, CountersAreTracksOfTheirOwn) {
  Options o;
  o.devices = "sim:1";
  o.perf_model_file = "";
  Runtime rt(o);
  rt.trace_counter("dropped util %", 1.0, 50);  // before start_trace: not noted
  rt.start_trace();
  rt.trace_counter("cpu0 util %", 1.0, 25);
  rt.trace_counter("cpu0 util %", 1.5, 75);
  rt.trace_counter("cpu0 power W", 1.5, 300);
  const std::string path = "test_trace_counters.json";
  rt.write_trace(path);
  std::ifstream in(path);
  const nlohmann::json j = nlohmann::json::parse(in);
  std::remove(path.c_str());
  std::map<std::string, std::vector<std::pair<double, double>>> counters;
  for (const auto& e : j.at("traceEvents"))
    if (e.at("ph") == "C") counters[e.at("name")].push_back({e.at("ts"), e.at("args").at("value")});
  ASSERT_EQ(counters.size(), 2u);
  EXPECT_EQ(counters["cpu0 util %"],
            (std::vector<std::pair<double, double>>{{1.0e6, 25}, {1.5e6, 75}}));
  EXPECT_EQ(counters["cpu0 power W"], (std::vector<std::pair<double, double>>{{1.5e6, 300}}));
}

// A task that waits for a task on another device is an arrow from the end of
// the span it waited for to its own span: one per cross-device edge, none
// between tasks of one device.
TEST(Trace, CrossDeviceDependenciesAreArrows) {
  Options o;
  o.devices = "sim:2,1";
  o.perf_model_file = "";
  Runtime rt(o);
  Kernel k("step");
  k.cpu([](Span, const KernelArgs&) {});
  k.cost([](Span s) { return 1e5 * double(s.size()); });
  auto a = rt.buffer<float>(1000), b = rt.buffer<float>(1000);
  rt.start_trace();
  // a on sim0; b from a on sim1 (an edge across); a rewritten on sim1 after
  // b there (edges within sim1, and across from sim0's write of a); a read on
  // sim0 (across, from sim1's write).
  rt.submit(Range{1000}, k, out(a), on(0));
  rt.submit(Range{1000}, k, in(a), out(b), on(1));
  rt.submit(Range{1000}, k, in(b), inout(a), on(1));
  rt.submit(Range{1000}, k, in(a), on(0));  // after sim1's write of a: across again
  const std::string path = "test_trace_deps.json";
  rt.write_trace(path);
  std::ifstream in(path);
  const nlohmann::json j = nlohmann::json::parse(in);
  std::remove(path.c_str());
  std::map<std::uint64_t, std::pair<double, double>> from, to;  // id: (tid, ts)
  std::map<int, std::vector<std::pair<double, double>>> spans;  // tid: (begin, end)
  for (const auto& e : j.at("traceEvents")) {
    if (e.value("cat", "") == "depends" && e.at("ph") == "s")
      from[e.at("id")] = {e.at("tid").get<double>(), e.at("ts").get<double>()};
    if (e.value("cat", "") == "depends" && e.at("ph") == "f")
      to[e.at("id")] = {e.at("tid").get<double>(), e.at("ts").get<double>()};
    if (e.at("ph") == "X")
      spans[e.at("tid")].push_back(
          {e.at("ts").get<double>(), e.at("ts").get<double>() + e.at("dur").get<double>()});
  }
  ASSERT_EQ(from.size(), 3u) << "sim0 -> sim1 twice (b from a, a after a), sim1 -> sim0";
  ASSERT_EQ(to.size(), 3u);
  std::vector<std::pair<double, double>> edges;  // (from tid, to tid)
  for (const auto& [id, f] : from) {
    edges.push_back({f.first, to.at(id).first});
    // It leaves from inside a span of its track that ended before the arrow's end.
    bool inside = false;
    for (auto [begin, end] : spans[int(f.first)])
      inside = inside || (f.second >= begin && f.second <= end && end <= to.at(id).second + 1e-3);
    EXPECT_TRUE(inside) << "arrow " << id << " leaves from no span";
    bool lands = false;  // ... and ends inside a span of the task that waited
    for (auto [begin, end] : spans[int(to.at(id).first)])
      lands = lands || (to.at(id).second >= begin && to.at(id).second <= end);
    EXPECT_TRUE(lands) << "arrow " << id << " ends in no span";
  }
  std::sort(edges.begin(), edges.end());
  EXPECT_EQ(edges, (std::vector<std::pair<double, double>>{{0, 1}, {0, 1}, {1, 0}}));
}
