#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <future>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

#include "baton/devices.hpp"
#include "baton/error.hpp"
#include "baton/runtime.hpp"
#include "baton/sim.hpp"
#include "device/sim/sim_device.hpp"

using namespace baton;
using baton::detail::SimDevice;

static SimDevice& sim_dev(DeviceSet& s, int i) {
  return dynamic_cast<SimDevice&>(*s.devices[i]);
}

TEST(SimDevice, SpeedsAndChangesGiveExactTimes) {
  auto set = open_devices("sim:2,1");
  SimDevice& d = sim_dev(set, 0);
  EXPECT_DOUBLE_EQ(d.finish_time(0, 2e9), 1.0);  // 2 units/ns: 2e9 units per second
  d.change_speed(0.5, 1);                        // half-time: half speed
  EXPECT_DOUBLE_EQ(d.finish_time(0, 2e9), 1.5);  // 1e9 done by 0.5 s, 1e9 more at 1e9/s
  EXPECT_DOUBLE_EQ(sim::capacity(d, 0, 1), 1.5e9);
  EXPECT_DOUBLE_EQ(d.speed_at(0.7), 1);
  std::vector<const Device*> both{&d, set.devices[1].get()};
  // 1.5e9 units by d and 1e9 by the other in the first second: 2.5e9 done at t = 1.
  EXPECT_NEAR(sim::oracle_seconds(both, 2.5e9, 0), 1.0, 1e-9);
}

// A kernel of `units` work units per item, no code: only virtual time.
static Kernel cost_kernel(double units) {
  Kernel k("cost");
  k.cost([units](Span s) { return units * double(s.size()); });
  return k;
}

// When the work queued on `q` so far is done.
static double done_at(Queue& q) {
  return static_cast<detail::SimEvent&>(*q.record()).time();
}

TEST(SimDevice, TransfersCostLinkTimeAndLaunchesCostWorkEachOnItsOwnQueue) {
  auto set = open_devices("sim:1");
  SimDevice& d = sim_dev(set, 0);
  DeviceMemory m = d.allocate(55'000'000);
  std::vector<char> host(55'000'000, 3);
  Queue &in = d.queue(QueueRole::copy_in), &compute = d.queue(QueueRole::compute);
  in.write(m, 0, host.data(), host.size(), HostKind::pageable);
  const double landed = done_at(in);
  EXPECT_NEAR(landed, 5e-6 + 1e-3, 1e-12);  // default link: 55 GB/s, 5 us
  // The copy engine and the compute queue work side by side...
  compute.launch(cost_kernel(1e6), {0, 3}, KernelArgs({}));
  EXPECT_NEAR(done_at(compute), d.launch_s() + 3e-3, 1e-12);
  // ...and a kernel that needs the copy starts once it landed.
  compute.wait(in.record());
  compute.launch(cost_kernel(1e6), {0, 1}, KernelArgs({}));
  EXPECT_NEAR(done_at(compute), 2 * d.launch_s() + 4e-3, 1e-12);
  EXPECT_NEAR(done_at(in), landed, 1e-12);  // the copy queue was not held up
  EXPECT_DOUBLE_EQ(d.clock().now(), 0.0);   // nobody waited: virtual time stood still
  d.release(m);
}

// Devices behind one link to host share it, per direction: partitions of a
// GPU on its PCIe link, GPUs behind one switch's uplink. A wide link carries
// narrow streams side by side, and devices on links of their own copy at once.
TEST(SimDevice, DevicesBehindOneLinkShareItsBandwidth) {
  auto set = open_devices("sim:" BATON_TEST_DIR "/sim_shared_link.json");
  ASSERT_EQ(set.devices.size(), 3u);
  const std::size_t gb = 1'000'000'000;  // 0.1 s over a 10 GB/s link
  std::vector<DeviceMemory> mem;
  for (int i = 0; i < 3; ++i) mem.push_back(sim_dev(set, i).allocate(gb));
  auto in = [&](int i) -> Queue& { return sim_dev(set, i).queue(QueueRole::copy_in); };
  auto out = [&](int i) -> Queue& { return sim_dev(set, i).queue(QueueRole::copy_out); };
  for (int i = 0; i < 3; ++i) in(i).write(mem[i], 0, nullptr, gb, HostKind::pinned);
  EXPECT_NEAR(done_at(in(0)), 5e-6 + 0.1, 1e-9);
  EXPECT_NEAR(done_at(in(1)), 5e-6 + 0.2, 1e-9) << "p1 copied beside p0 at the link's full rate";
  EXPECT_NEAR(done_at(in(2)), 5e-6 + 0.05, 1e-9) << "a device on a link of its own waited";
  // The other direction is free: results go home beside the inputs.
  out(0).read(nullptr, mem[0], 0, gb, HostKind::pinned);
  EXPECT_NEAR(done_at(out(0)), 5e-6 + 0.1, 1e-9);
  EXPECT_EQ(sim_dev(set, 0).bytes_moved(LinkKind::pcie), 2 * gb);
  for (int i = 0; i < 3; ++i) sim_dev(set, i).release(mem[i]);
}

TEST(SimDevice, EventsOrderWorkAcrossDevicesAndWaitingMovesTime) {
  auto set = open_devices("sim:1,1");
  SimDevice &a = sim_dev(set, 0), &b = sim_dev(set, 1);
  ASSERT_EQ(&a.clock(), &b.clock());  // one clock for the set
  a.queue(QueueRole::compute).launch(cost_kernel(1e9), {0, 2}, KernelArgs({}));
  EventPtr e = a.queue(QueueRole::compute).record();
  EXPECT_NEAR(static_cast<detail::SimEvent&>(*e).time(), 2.0 + a.launch_s(), 1e-12);
  EXPECT_FALSE(e->ready());
  EXPECT_TRUE(b.queue(QueueRole::compute).can_wait(e));
  b.queue(QueueRole::compute).wait(e);
  EXPECT_DOUBLE_EQ(done_at(b.queue(QueueRole::compute)), 2.0 + a.launch_s());  // after a's event
  e->wait();  // the host waits: time moves to the event
  EXPECT_TRUE(e->ready());
  EXPECT_DOUBLE_EQ(a.clock().now(), 2.0 + a.launch_s());
}

TEST(SimDevice, FailsAtTheGivenTime) {
  auto set = open_devices("sim:1");
  SimDevice& d = sim_dev(set, 0);
  sim::fail_at(d, 1.0);
  Queue& q = d.queue(QueueRole::compute);
  EXPECT_NO_THROW(q.launch(cost_kernel(1e9), {0, 1}, KernelArgs({})));  // starts at 0, ends ~1.0
  try {
    q.launch(cost_kernel(1e9), {0, 1}, KernelArgs({}));  // starts after 1.0
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::device_failed);
    EXPECT_EQ(e.where(), "sim0");
  }
}

// Twins run any work alike, so a benchmark runs one of them alone for both.
TEST(SimDevice, TwinsHaveOneSpeedMemoryAndHostLinkAndNoChanges) {
  auto set = open_devices("sim:2,2,1");
  EXPECT_TRUE(sim_dev(set, 1).twin_of(sim_dev(set, 0)));
  EXPECT_FALSE(sim_dev(set, 2).twin_of(sim_dev(set, 0))) << "another speed";
  sim_dev(set, 1).change_speed(0.5, 1);
  EXPECT_FALSE(sim_dev(set, 1).twin_of(sim_dev(set, 0))) << "one that slows mid-run";
  auto cpu = open_devices("cpu:1x1");
  EXPECT_FALSE(sim_dev(set, 0).twin_of(*cpu.devices[0]));
  EXPECT_FALSE(cpu.devices[0]->twin_of(sim_dev(set, 0)));
}

// One thread runs at a time: the host until it waits, then the workers in
// the order they were started, whatever order the system starts their
// threads in; time moves once nobody can run, to the earliest time waited
// for, and the workers due then go in seat order again.
TEST(SimClock, ThreadsTakeTurnsInOneOrderAndTimeMovesWhenNoneCanRun) {
  auto clock = std::make_shared<detail::SimClock>();
  constexpr int kWorkers = 3;
  std::vector<std::unique_ptr<Parker>> parkers;
  std::vector<std::thread> workers;
  std::mutex mu;
  std::vector<std::pair<int, double>> log;  // who ran, at what time
  for (int i = 0; i < kWorkers; ++i) {
    parkers.push_back(clock->make_parker(true));
    clock->worker_starting(*parkers.back());
  }
  for (int i = kWorkers - 1; i >= 0; --i)  // the last to take a turn starts first
    workers.emplace_back([&, i] {
      clock->attach_worker(*parkers[std::size_t(i)]);
      for (int round = 0; round < 2; ++round) {
        {
          std::lock_guard lock(mu);
          log.push_back({i, clock->now()});
        }
        clock->wait_until(1.0);  // all due at once
      }
      clock->detach_worker();
    });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  {
    std::lock_guard lock(mu);
    EXPECT_TRUE(log.empty()) << "a worker ran while the host held the turn";
  }
  clock->wait_until(5.0);
  EXPECT_DOUBLE_EQ(clock->now(), 5.0);
  clock->host_leaving();
  for (auto& w : workers) w.join();
  const std::vector<std::pair<int, double>> want{{0, 0.0}, {1, 0.0}, {2, 0.0},
                                                 {0, 1.0}, {1, 1.0}, {2, 1.0}};
  EXPECT_EQ(log, want);
}

// A worker is in turn from before its thread starts: time does not move past
// the work it is about to take while its thread is slow to be scheduled (a
// step's first chunk once started 2 ms late, 1 run in 30 under load).
TEST(SimClock, AWorkerStillStartingHoldsTime) {
  auto clock = std::make_shared<detail::SimClock>();
  auto parker = clock->make_parker(true);
  std::atomic<bool> go{false};
  double seen = -1;
  clock->worker_starting(*parker);
  std::thread worker([&] {
    while (!go) std::this_thread::yield();  // a thread slow to be scheduled
    clock->attach_worker(*parker);
    clock->wait_until(1.0);
    seen = clock->now();
    clock->detach_worker();
  });
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    go = true;
  });
  clock->wait_until(5.0);
  later.join();
  worker.join();
  EXPECT_DOUBLE_EQ(seen, 1.0) << "time moved past the worker before it started";
  EXPECT_DOUBLE_EQ(clock->now(), 5.0);
}

// A parked worker lets time move; once unparked it runs when the host's turn
// ends (the host waits again, or leaves).
TEST(SimClock, AParkedWorkerCountsAsBlockedAndAnUnparkWakesIt) {
  auto clock = std::make_shared<detail::SimClock>();
  auto parker = clock->make_parker(true);
  std::atomic<bool> woke{false};
  clock->worker_starting(*parker);
  std::thread worker([&] {
    clock->attach_worker(*parker);
    parker->park();
    woke = true;
    clock->detach_worker();
  });
  clock->wait_until(2.0);  // the worker parks: time may move
  EXPECT_DOUBLE_EQ(clock->now(), 2.0);
  EXPECT_FALSE(woke);
  parker->unpark();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(woke) << "the woken worker ran in the host's turn";
  clock->host_leaving();
  worker.join();
  EXPECT_TRUE(woke);
}

// A machine's wake_us: an unparked thread runs that much later in virtual
// time, or at its own time if that comes first.
TEST(SimClock, AnUnparkedThreadRunsAWakeLater) {
  auto clock = std::make_shared<detail::SimClock>();
  clock->wake_after(0.5);
  auto parker = clock->make_parker(true);
  double woke_at = -1;
  clock->worker_starting(*parker);
  std::thread worker([&] {
    clock->attach_worker(*parker);
    parker->park();
    woke_at = clock->now();
    parker->park_until(4.0);  // woken at 3.8 + 0.5: its own time comes first
    woke_at += clock->now();
    clock->detach_worker();
  });
  clock->wait_until(2.0);
  parker->unpark();
  clock->wait_until(3.8);
  parker->unpark();
  clock->wait_until(10.0);
  clock->host_leaving();
  worker.join();
  EXPECT_DOUBLE_EQ(woke_at, 2.5 + 4.0);
}

// A spread task's devices start a wake after it is submitted, as an H100's
// partitions began a run's first chunks 30 to 100 us after it.
TEST(SimDevice, ARunStartsAWakeAfterItsSubmission) {
  for (double wake_us : {0.0, 100.0}) {
    const char* path = "test_sim_wake.json";
    std::ofstream(path) << R"({"launch_us": 0, "execute": false, "wake_us": )" << wake_us
                        << R"(, "devices": [{"id": "a", "speed": 2}, {"id": "b", "speed": 1}]})";
    Options o;
    o.devices = std::string("sim:") + path;
    o.perf_model_file = "";
    Runtime rt(o);
    std::remove(path);
    Kernel k("work");
    k.cpu([](Span, const KernelArgs&) {});
    k.cost([](Span s) { return 1e4 * double(s.size()); });            // 10 us an item at speed 1
    rt.parallel_for(Range{3000, 0}, k, Policy::by_name("weighted"));  // workers park after it
    const RunStats r = rt.parallel_for(Range{3000, 0}, k, Policy::by_name("weighted"));
    double busy = 0;
    for (const auto& d : r.devices) busy = std::max(busy, d.busy_s);
    EXPECT_NEAR(r.makespan_s - busy, wake_us * 1e-6, 1e-9) << wake_us;
  }
}

// A host thread that ends in its turn gives it up: another host's wait moves
// time.
TEST(SimClock, AHostThreadThatEndsGivesUpItsTurn) {
  auto clock = std::make_shared<detail::SimClock>();
  std::thread([&] { clock->wait_until(1.0); }).join();  // ends holding the turn
  auto other = std::async(std::launch::async, [&] { clock->wait_until(2.0); });
  ASSERT_EQ(other.wait_for(std::chrono::seconds(10)), std::future_status::ready)
      << "the turn stayed with a thread that had ended";
  EXPECT_DOUBLE_EQ(clock->now(), 2.0);
}

TEST(SimDevice, TopologyFileDescribesDevicesLinksAndEvents) {
  const char* path = "test_sim_machine.json";
  std::ofstream(path) << R"({"launch_us": 1,
    "devices": [{"id": "g0", "speed": 4, "changes": [{"at_s": 1, "speed": 2}]}, {"id": "g1", "speed": 4}],
    "links": [{"a": "g0", "b": "g1", "kind": "nvlink", "gbps": 400, "latency_us": 1}]})";
  auto set = open_devices(std::string("sim:") + path);
  ASSERT_EQ(set.devices.size(), 2u);
  EXPECT_DOUBLE_EQ(sim_dev(set, 0).speed_at(1.5), 2);
  auto p = set.topology.path("g0", "g1");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->worst, LinkKind::nvlink);
  EXPECT_TRUE(set.topology.path("g0", "host"));  // default host link added
  std::remove(path);
}

TEST(SimDevice, BadTopologyFilesAreClearErrors) {
  const char* cases[] = {
      R"({"devices": []})",
      R"({"devices": [{"id": "a"}]})",
      R"({"devices": [{"id": "a", "speed": 0}]})",
      R"({"devices": [{"id": "a", "speed": 1}], "links": [{"a": "a", "b": "q", "gbps": 1}]})",
      R"({"devices": [{"id": "a", "speed": 1, "changes": [{"at_s": -1, "speed": 1}]}]})",
      "not json",
      R"({"devices": [{"id": "a", "speed": 1, "memory_gbps": -1}]})",
      R"({"execute": 1, "devices": [{"id": "a", "speed": 1}]})",
      R"({"devices": [{"id": "a", "speed": 1}], "switches": ["a"]})",
      R"({"pipeline_depth": 0, "devices": [{"id": "a", "speed": 1}]})",
      R"({"pipeline_depth": 2.5, "devices": [{"id": "a", "speed": 1}]})",
      R"({"wake_us": -1, "devices": [{"id": "a", "speed": 1}]})",
      R"({"devices": [{"id": "a", "speed": 1, "pipeline_depth": 9}]})",
      R"({"devices": [{"id": "a", "speed": 1, "pipeline_depth": 1.5}]})",
      R"({"devices": [{"id": "a", "speed": 1, "parallel_items": 10, "busy_items": 11}]})",
      R"({"devices": [{"id": "a", "speed": 1, "parallel_items": 10, "wave_step": 2.5}]})",
  };
  for (const char* text : cases) {
    try {
      baton::detail::sim_machine_from_json(text, "m.json");
      ADD_FAILURE() << "accepted " << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::bad_topology) << text;
      EXPECT_EQ(e.where(), "m.json");
    }
  }
}

// A kernel bound by memory takes its bytes over the device's bandwidth when
// that is the longer time (a roofline); its compute time when that is.
TEST(SimDevice, MemoryBoundKernelsTakeTheirBytesOverTheBandwidth) {
  const char* path = "test_sim_roofline.json";
  std::ofstream(path) << R"({"launch_us": 0,
    "devices": [{"id": "g0", "speed": 1, "memory_gbps": 100}]})";
  auto set = open_devices(std::string("sim:") + path);
  std::remove(path);
  SimDevice& d = sim_dev(set, 0);
  Kernel k = cost_kernel(1e6);                               // 1 ms of compute per item
  k.traffic([](Span s) { return 1e9 * double(s.size()); });  // 10 ms of memory per item
  d.queue(QueueRole::compute).launch(k, {0, 2}, KernelArgs({}));
  EXPECT_NEAR(done_at(d.queue(QueueRole::compute)), 20e-3, 1e-12);
  Kernel compute_bound = cost_kernel(1e8);  // 100 ms per item against 10 ms of memory
  compute_bound.traffic([](Span s) { return 1e9 * double(s.size()); });
  d.queue(QueueRole::compute).launch(compute_bound, {0, 1}, KernelArgs({}));
  EXPECT_NEAR(done_at(d.queue(QueueRole::compute)), 120e-3, 1e-12);
}

// Time only (BATON_SIM_EXECUTE=0, "execute": false): a plan of a machine too
// large to run here. Launches and copies take their time and touch nothing.
// A device that stands for a GPU runs an item a thread in waves: a last part
// of one takes as long as busy_items where it has no more, else as its whole
// steps of wave_step (a block on every SM).
TEST(SimDevice, APartOfAWaveTakesItsBusyItemsOrItsWholeSteps) {
  const char* path = "test_sim_waves_steps.json";
  std::ofstream(path) << R"({"launch_us": 0, "execute": false, "devices": [{"id": "g",
    "speed": 1, "parallel_items": 1000, "busy_items": 200, "wave_step": 100}]})";
  auto set = open_devices(std::string("sim:") + path);
  std::remove(path);
  SimDevice& d = sim_dev(set, 0);
  const Kernel k = cost_kernel(1);                              // 1 ns an item at speed 1
  EXPECT_NEAR(d.finish_time(0, k, {0, 2000}), 2000e-9, 1e-15);  // two waves
  EXPECT_NEAR(d.finish_time(0, k, {0, 2050}), 2200e-9, 1e-15);  // and 50: as 200
  EXPECT_NEAR(d.finish_time(0, k, {0, 2250}), 2300e-9, 1e-15);  // and 250: 3 steps
  EXPECT_NEAR(d.finish_time(0, k, {0, 1}), 200e-9, 1e-15);
}

TEST(SimDevice, TimeOnlyRunsNoCodeAndCopiesNothing) {
  Options o;
  o.sim_execute = false;
  auto set = open_devices("sim:1", o);
  SimDevice& d = sim_dev(set, 0);
  int runs = 0;
  Kernel k = cost_kernel(1e6);
  k.cpu([&runs](Span, const KernelArgs&) { ++runs; });
  d.queue(QueueRole::compute).launch(k, {0, 3}, KernelArgs({}));
  EXPECT_EQ(runs, 0);
  EXPECT_NEAR(done_at(d.queue(QueueRole::compute)), d.launch_s() + 3e-3, 1e-12);
  DeviceMemory m = d.allocate(16);
  std::memset(m.ptr, 0, 16);
  const std::vector<char> host(16, 7);
  d.queue(QueueRole::copy_in).write(m, 0, host.data(), host.size(), HostKind::pageable);
  EXPECT_EQ(static_cast<const char*>(m.ptr)[0], 0) << "bytes were copied";
  EXPECT_GT(done_at(d.queue(QueueRole::copy_in)), 0.0) << "the copy took no time";
  d.release(m);
}

// A prefetch ends when its copies have landed, and no kernel waits for them:
// a kernel submitted after it on the same device runs while a batch for later
// is copied in (on the compute queue, the prefetch held it back for the copy).
TEST(SimDevice, APrefetchEndsWithItsCopiesAndHoldsNoKernel) {
  Options o;
  o.devices = "sim:1";
  o.perf_model_file = "";
  o.sim_execute = false;
  Runtime rt(o);
  auto batch = rt.buffer<char>(55'000'000);  // 1 ms over the default 55 GB/s host link
  Kernel touch("touch");
  touch.cpu([](Span, const KernelArgs&) {}).cost([](Span) { return 0.0; }).prefetch();
  Kernel work = cost_kernel(2.5e5);  // 0.25 ms
  work.cpu([](Span, const KernelArgs&) {});
  const double start = rt.clock().now();
  Task fetch = rt.submit(Range{1}, touch, in(batch, whole), on(0));
  Task worked = rt.submit(Range{1}, work, on(0));
  rt.wait(worked);
  const double work_s = rt.clock().now() - start;
  rt.wait(fetch);
  const double fetch_s = rt.clock().now() - start;
  EXPECT_NEAR(fetch_s, 1e-3, 0.1e-3) << "the prefetch ended before its copies";
  EXPECT_LT(work_s, 0.5e-3) << "the kernel waited for the prefetch's copies";
}

// A side task's input copies land before it goes down the in-order side
// queue: a side task after it whose input is at hand does not wait for them
// (a ring's adds of one bucket waited behind another bucket's copies).
TEST(SimDevice, ASideTaskJoinsItsQueueOnceItsCopiesHaveLanded) {
  Options o;
  o.devices = "sim:nvswitch8";
  o.perf_model_file = "";
  o.sim_execute = false;
  Runtime rt(o);
  auto far = rt.buffer<char>(450'000'000);  // made on device 1: 1 ms over NVSwitch to device 0
  auto near = rt.buffer<char>(1000);        // made on device 0
  Kernel make("make");
  make.cpu([](Span, const KernelArgs&) {}).cost([](Span) { return 0.0; });
  rt.wait(rt.submit(Range{1}, make, out(far, whole), on(1)));
  rt.wait(rt.submit(Range{1}, make, out(near, whole), on(0)));
  Kernel read("side_read");
  read.cpu([](Span, const KernelArgs&) {}).cost([](Span) { return 0.0; }).side_queue();
  const double start = rt.clock().now();
  Task first = rt.submit(Range{1}, read, in(far, whole), on(0));
  Task second = rt.submit(Range{1}, read, in(near, whole), on(0));
  rt.wait(second);
  const double second_s = rt.clock().now() - start;
  rt.wait(first);
  const double first_s = rt.clock().now() - start;
  EXPECT_GT(first_s, 0.9e-3) << "the far input's copy took no time";
  EXPECT_LT(second_s, 0.2 * first_s) << "the second side task waited for the first one's copy";
}

// What each copy moves is counted on the kind of link it crossed: host
// copies on the device's host link, peer copies on the path between them.
TEST(SimDevice, CopiesCountTheirBytesOnTheLinksTheyCross) {
  auto set = open_devices("sim:nvswitch8");
  SimDevice &a = sim_dev(set, 0), &b = sim_dev(set, 1);
  DeviceMemory ma = a.allocate(1 << 20), mb = b.allocate(1 << 20);
  std::vector<char> host(1 << 20, 1);
  a.queue(QueueRole::copy_in).write(ma, 0, host.data(), 1000, HostKind::pageable);
  a.queue(QueueRole::copy_out).read(host.data(), ma, 0, 300, HostKind::pageable);
  ASSERT_TRUE(b.copy_from_peer(b.queue(QueueRole::copy_in), mb, 0, a, ma, 0, 4096));
  EXPECT_EQ(sim::bytes_moved(a, LinkKind::pcie), 1300u);
  EXPECT_EQ(sim::bytes_moved(a, LinkKind::nvlink), 0u) << "the sender counts nothing";
  EXPECT_EQ(sim::bytes_moved(b, LinkKind::nvlink), 4096u);
  EXPECT_EQ(sim::bytes_moved(b, LinkKind::pcie), 0u);
  a.release(ma);
  b.release(mb);
}

// A sim device that keeps time only stands for a GPU: of a kernel's
// arguments it copies in what the CUDA code reads, not what the cpu code does.
TEST(SimDevice, KeepingTimeOnlyItReadsWhatTheCudaCodeReads) {
  Kernel k("reads_one_of_two");
  k.cpu([](Span, const KernelArgs&) {});
  k.unused(BackendKind::cuda, {0});
  for (bool execute : {false, true}) {
    Options o;
    o.devices = "sim:1";
    o.perf_model_file = "";
    o.sim_execute = execute;
    Runtime rt(o);
    EXPECT_EQ(rt.devices()[0]->info().code_backend(),
              execute ? BackendKind::sim : BackendKind::cuda);
    auto fp32 = rt.buffer<float>(1 << 18);
    auto bf16 = rt.buffer<std::uint16_t>(1 << 18);
    rt.wait(rt.submit(Range{1}, k, in(fp32, whole), in(bf16, whole), on(0)));
    EXPECT_EQ(sim::bytes_moved(*rt.devices()[0], LinkKind::pcie),
              execute ? (4u + 2u) << 18 : 2u << 18)
        << (execute ? "running code" : "keeping time");
  }
}

// A sim device measured as a real one takes the times the performance
// models hold for it (per kernel, at the nearest size), and its cost for
// other kernels.
TEST(SimDevice, AMeasuredDeviceTakesTheTimesItsModelsHold) {
  const std::string dir = testing::TempDir();
  std::ofstream(dir + "/models.json")
      << R"({"version": 1, "models": [{"kernel": "measured", "device": "ref0 | a real device",
             "size_class": 10, "seconds_per_item": [1e-6, 1e-6, 1e-6, 1e-6]}]})";
  const std::string machine = dir + "/measured.json";
  std::ofstream(machine) << R"({"launch_us": 0, "perf_models": "models.json", "devices": [
      {"id": "gpu0", "speed": 1, "measured_as": "ref0 | a real device"}]})";
  auto set = open_devices("sim:" + machine);
  SimDevice& d = sim_dev(set, 0);
  Queue& compute = d.queue(QueueRole::compute);
  Kernel measured("measured"), other("other");  // 1 unit an item: 1 ns at speed 1
  for (Kernel* k : {&measured, &other}) k->cost([](Span s) { return double(s.size()); });
  compute.launch(measured, {0, 1024}, KernelArgs({}));
  EXPECT_NEAR(done_at(compute), 1024e-6, 1e-12) << "not the measured 1 us per item";
  compute.launch(other, {0, 1024}, KernelArgs({}));  // 1024 units at 1 per ns
  EXPECT_NEAR(done_at(compute), 1024e-6 + 1024e-9, 1e-12) << "not its cost";
  // Other sizes take the time per item of the nearest size measured.
  compute.launch(measured, {0, 100}, KernelArgs({}));
  EXPECT_NEAR(done_at(compute), 1124e-6 + 1024e-9, 1e-12);
  // A device measured as one of no models, or models that are not there: clear errors.
  std::ofstream(dir + "/no_models.json")
      << R"({"devices": [{"id": "g", "speed": 1, "measured_as": "ref0 | a real device"}]})";
  std::ofstream(dir + "/missing.json")
      << R"({"perf_models": "none.json", "devices": [{"id": "g", "speed": 1}]})";
  for (const char* bad : {"/no_models.json", "/missing.json"}) {
    try {
      open_devices("sim:" + dir + bad);
      ADD_FAILURE() << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::bad_topology) << e.what();
    }
  }
}

// The preset machines open by name, with the links their sources state: a
// DGX-1's pairs without NVLink of their own go over PCIe, NVSwitch joins
// every pair at 450 GB/s, and every preset says where its figures come from.
TEST(SimPresets, OpenByNameWithTheirLinks) {
  for (const char* name : {"nvswitch8", "dgx1", "pcie4", "mixed4"}) {
    auto set = open_devices(std::string("sim:") + name);
    EXPECT_GE(set.devices.size(), 4u) << name;
    for (std::size_t i = 0; i < set.devices.size(); ++i)
      for (std::size_t j = 0; j < set.devices.size(); ++j)
        EXPECT_TRUE(set.topology.path(set.devices[i]->info().topology_id,
                                      set.devices[j]->info().topology_id))
            << name << ": no path between devices " << i << " and " << j;
    std::ifstream in(std::string(BATON_PRESETS_DIR) + "/" + name + ".json");
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_NE(text.str().find("\"about\""), std::string::npos) << name << " states no source";
    // GPUs: their workers keep work in flight, as the CUDA backend's do.
    EXPECT_EQ(set.devices[0]->info().pipeline_depth, 3) << name;
  }
  EXPECT_EQ(open_devices("sim:4,2").devices[0]->info().pipeline_depth, 1);
  // A device's own depth: a CPU beside GPUs keeps one chunk in flight.
  const char* path = "test_sim_depths.json";
  std::ofstream(path) << R"({"pipeline_depth": 3, "devices": [
    {"id": "cpu", "speed": 1, "pipeline_depth": 1}, {"id": "gpu", "speed": 8}]})";
  auto mixed = open_devices(std::string("sim:") + path);
  EXPECT_EQ(mixed.devices[0]->info().pipeline_depth, 1);
  EXPECT_EQ(mixed.devices[1]->info().pipeline_depth, 3);
  auto dgx1 = open_devices("sim:dgx1");
  EXPECT_EQ(dgx1.topology.path("gpu0", "gpu3")->gbps, 50);
  EXPECT_EQ(dgx1.topology.path("gpu0", "gpu1")->worst, LinkKind::nvlink);
  EXPECT_EQ(dgx1.topology.path("gpu0", "gpu5")->worst, LinkKind::pcie);
  auto nvswitch = open_devices("sim:nvswitch8");
  EXPECT_EQ(nvswitch.topology.path("gpu2", "gpu7")->gbps, 450);
  try {
    open_devices("sim:dgx2000");
    ADD_FAILURE() << "an unknown preset opened";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::bad_device_spec);
    EXPECT_NE(std::string(e.what()).find("no preset machine 'dgx2000'"), std::string::npos)
        << e.what();
  }
}
