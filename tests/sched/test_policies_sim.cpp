// The policies on virtual devices, where times are exact: the figures the
// foundation issue asks for, and the behaviour of ws-topo on a skewed topology.
#include <gtest/gtest.h>

#include "baton/runtime.hpp"
#include "baton/sim.hpp"
#include "sched/policy.hpp"
#include "workloads/balance_kernels.hpp"

using namespace baton;

namespace {

Kernel fma_cost() {
  return workloads::fma_kernel(1000, false);
}

RunStats run(Runtime& rt, const char* policy, std::uint64_t n = 1'000'000) {
  Kernel k = fma_cost();
  rt.calibrate(Range{n, 0}, k);
  return rt.parallel_for(Range{n, 0}, k, Policy::by_name(policy));
}

Runtime sim_rt(const std::string& spec) {
  Options o;
  o.devices = spec;
  o.perf_model_file = "";
  return Runtime(o);
}

std::vector<const Device*> all_devices(const Runtime& rt) {
  std::vector<const Device*> v;
  for (const auto& d : rt.devices()) v.push_back(d.get());
  return v;
}

}  // namespace

TEST(PoliciesSim, StaticIsBoundByTheSlowestDeviceAndBalancersReachTheOracle) {
  auto rt = sim_rt("sim:8,4,2,1");
  RunStats st = run(rt, "static");
  EXPECT_NEAR(st.efficiency, 4.0 / 15.0, 0.01);  // 4 x the slowest's rate over the sum
  RunStats w = run(rt, "weighted");
  EXPECT_GE(w.efficiency, 0.97);
  RunStats ws = run(rt, "ws");
  EXPECT_GE(ws.efficiency, 0.97);
  EXPECT_TRUE(ws.simulated);
  std::uint64_t items = 0;
  for (const auto& d : ws.devices) items += d.items;
  EXPECT_EQ(items, ws.items);
  EXPECT_GT(ws.devices[0].items, ws.devices[3].items * 6);  // shares follow speed
}

TEST(PoliciesSim, WorkStealingAdaptsWhenADeviceSlowsDown) {
  auto rt = sim_rt("sim:8,4,2,1");
  Kernel k = fma_cost();
  const std::uint64_t n = 1'000'000;
  auto alone = rt.calibrate(Range{n, 0}, k).alone;
  const double half = double(n) / (alone[0] + alone[1] + alone[2] + alone[3]) / 2;
  Device& fast = *rt.devices()[0];
  // Device 0 runs 4x slower from half-time on, and recovers after the run.
  auto slowed = [&](const char* policy) {
    sim::change_speed(fast, rt.clock().now() + half, 2.0);
    RunStats s = rt.parallel_for(Range{n, 0}, k, Policy::by_name(policy));
    sim::change_speed(fast, s.start_s + s.makespan_s, 8.0);
    s.oracle_s = sim::oracle_seconds(all_devices(rt), k.cost_of({0, n}), s.start_s);
    s.efficiency = s.oracle_s / s.makespan_s;
    return s;
  };
  RunStats w = slowed("weighted");
  RunStats ws = slowed("ws");
  EXPECT_GE(ws.efficiency, 0.95);
  // ws-topo too, though the rates it weighs steals by are stale until the
  // slowed device's chunks come back (it once waited for them, at 0.90).
  EXPECT_GE(slowed("ws-topo").efficiency, 0.95);
  EXPECT_LT(w.efficiency, 0.7);
  EXPECT_LT(ws.makespan_s, w.makespan_s);
  EXPECT_GT(ws.devices[1].steals + ws.devices[2].steals + ws.devices[3].steals, 0u);
}

namespace {

// The victims hold all the work; the last device (weight ~0, so an empty
// first share) must steal. paths[thief][v] is the cost of moving v's data to it.
struct Thief {
  detail::MachineView machine;
  detail::Plan plan;
  std::unique_ptr<detail::SchedulingPolicy> policy;
  std::unique_ptr<detail::ChunkSource> source;

  Thief(const char* name, std::vector<PathCost> to_victims, double bytes_per_item) {
    const int n = int(to_victims.size()) + 1;
    machine.devices = n;
    machine.paths.assign(n, std::vector<PathCost>(n));
    for (int v = 0; v + 1 < n; ++v) machine.paths[n - 1][v] = to_victims[v];
    plan.items = 100000;
    plan.max_chunk = 1000;
    plan.min_chunk = 10;
    plan.weights.assign(n, 1.0);
    plan.weights[n - 1] = 1e-12;
    plan.paths = &machine.paths;
    plan.bytes_per_item = bytes_per_item;
    policy = detail::find_policy(name).make(machine);
    source = policy->make_chunk_source();
    source->start(plan);
    // Measured rates: the thief runs 1e6 items/s, every victim 1e5.
    for (int v = 0; v + 1 < n; ++v) source->completed(v, Span{0, 1000}, 0.01);
    source->completed(n - 1, Span{0, 1000}, 0.001);
  }
};

// A chunk source of `name` for two devices with free paths between them;
// start() gives it a plan, its paths filled in.
struct TwoDevices {
  detail::MachineView machine;
  std::unique_ptr<detail::SchedulingPolicy> policy;
  std::unique_ptr<detail::ChunkSource> source;

  explicit TwoDevices(const char* name) {
    machine.devices = 2;
    machine.paths.assign(2, std::vector<PathCost>(2));
    policy = detail::find_policy(name).make(machine);
    source = policy->make_chunk_source();
  }
  void start(detail::Plan plan) {
    plan.paths = &machine.paths;
    source->start(plan);
  }
};

// 100 000 items, all of them device 0's first share: device 1, of weight
// ~0, can only steal.
detail::Plan owner_has_all() {
  detail::Plan plan;
  plan.items = 100000;
  plan.max_chunk = 1000;
  plan.min_chunk = 10;
  plan.weights = {8.0, 1e-12};
  return plan;
}

}  // namespace

TEST(PoliciesSim, WsTopoStealsOnlyWhenTheTransferPays) {
  const PathCost slow{0.001, 5, LinkKind::pcie, 1};  // 1 MB/s
  for (const char* name : {"ws", "ws-topo"}) {
    Thief t(name, {slow}, 1e6);
    ASSERT_TRUE(t.source->next(0));  // the owner starts, leaving halves on its deque
    auto stolen = t.source->next(1);
    if (std::string(name) == "ws") {
      ASSERT_TRUE(stolen);
      EXPECT_EQ(stolen->victim, 0);
    } else {
      EXPECT_FALSE(stolen) << "1 MB per item over 1 MB/s never pays";
    }
  }
  Thief t("ws-topo", {PathCost{450, 2, LinkKind::nvlink, 1}}, 1e3);
  ASSERT_TRUE(t.source->next(0));
  auto stolen = t.source->next(1);
  ASSERT_TRUE(stolen);  // cheap data over NVLink: steal
  EXPECT_GT(stolen->span.size(), 0u);
}

TEST(PoliciesSim, WsTopoPrefersTheNvlinkNeighbour) {
  // Victim 0 over PCIe, victim 1 over NVLink; both have work.
  Thief t("ws-topo", {PathCost{25, 10, LinkKind::pcie, 2}, PathCost{450, 2, LinkKind::nvlink, 1}},
          64);
  ASSERT_TRUE(t.source->next(0));
  ASSERT_TRUE(t.source->next(1));
  auto stolen = t.source->next(2);
  ASSERT_TRUE(stolen);
  EXPECT_EQ(stolen->victim, 1);
}

// In the middle of a run, ws-topo takes half of a victim's queue where moving
// it ends before the victim would have run its queue (it runs that half
// last), not only where the move is shorter than the half's own run there.
TEST(PoliciesSim, WsTopoStealsWhereTheMoveEndsBeforeTheVictimsQueue) {
  // The victim runs 1e5 items/s and queues 98 000 after its first chunk;
  // half of them, 49 MB, take 0.7 s over this link: 0.49 s of the victim's
  // time for the half, 0.98 s for its queue.
  Thief t("ws-topo", {PathCost{0.07, 0, LinkKind::pcie, 2}}, 1000);
  ASSERT_TRUE(t.source->next(0));
  auto stolen = t.source->next(1);
  ASSERT_TRUE(stolen);
  EXPECT_EQ(stolen->victim, 0);
  // 1.6 s over a slower link: longer than the victim's whole queue.
  Thief far("ws-topo", {PathCost{0.03, 0, LinkKind::pcie, 2}}, 1000);
  ASSERT_TRUE(far.source->next(0));
  EXPECT_FALSE(far.source->next(1));
}

TEST(PoliciesSim, AFailedDeviceWorkIsRunElsewhere) {
  for (const char* p : {"static", "ws"}) {
    auto rt = sim_rt("sim:4,4,4");
    Kernel k = fma_cost();
    const std::uint64_t n = 300000;
    rt.calibrate(Range{n, 0}, k);
    sim::fail_at(*rt.devices()[1], rt.clock().now() + 0.005);
    RunStats s = rt.parallel_for(Range{n, 0}, k, Policy::by_name(p));
    EXPECT_TRUE(s.devices[1].failed) << p;
    EXPECT_NE(s.devices[1].failure.find("simulated failure"), std::string::npos);
    EXPECT_EQ(s.devices[0].items + s.devices[1].items + s.devices[2].items, n) << p;
    EXPECT_GE(s.reruns, 1u) << p;
  }
}

// Few heavy items: at the tail a slow device must not take the last items of
// a faster one (it would end last); ws keeps up with weighted's exact shares.
TEST(PoliciesSim, WsLeavesTheLastHeavyItemsToFasterDevices) {
  Kernel heavy = workloads::fma_kernel(2'000'000, false);  // runs of 5 to 30 ms
  for (std::uint64_t n : {35u, 61u, 200u}) {
    auto rt = sim_rt("sim:8,4,2,1");
    rt.calibrate(Range{n, 0}, heavy);
    const RunStats w = rt.parallel_for(Range{n, 0}, heavy, Policy::weighted());
    const RunStats ws = rt.parallel_for(Range{n, 0}, heavy, Policy::ws());
    EXPECT_GE(w.makespan_s, 0.005);
    EXPECT_LE(ws.makespan_s, 1.02 * w.makespan_s) << n << " items";
  }
}

// A GPU runs thousands of items at once: chunks below that take as long as a
// full one, so a share that fits goes in one chunk, whatever the policy; a
// device that runs one item at a time still gets chunks of at most max_chunk.
// ws's first split gives the wide device a whole wave (it takes as long for
// 500 items as for 600), the other 400.
TEST(PoliciesSim, ChunksAreNoSmallerThanWhatADeviceRunsAtOnce) {
  for (const char* name : {"static", "weighted", "ws", "ws-topo"}) {
    TwoDevices two(name);
    auto& source = two.source;
    const std::vector<std::uint64_t> at_once{600, 1};
    detail::Plan plan;
    plan.items = 1000;
    plan.max_chunk = 100;
    plan.min_chunk = 10;
    plan.weights = {1.0, 1.0};
    plan.parallel_items = &at_once;
    two.start(plan);
    auto wide = source->next(0);
    ASSERT_TRUE(wide) << name;
    const bool ws = std::string(name).starts_with("ws");
    EXPECT_EQ(wide->span.size(), ws ? 600u : 500u) << name << ": its whole share at once";
    auto narrow = source->next(1);
    ASSERT_TRUE(narrow) << name;
    EXPECT_LE(narrow->span.size(), 100u) << name;
  }
}

// A run from host memory with write-back copies each span in before it runs
// and its results home after: the first span's copy in is a pipeline's
// fill, the last one's copy home its drain. Its spans are cut finer than 16
// a device; a run on data the devices hold keeps 16, as one whose copies go
// one way only.
TEST(PoliciesSim, SpansAreCutFinerWhereTheirDataCrossesALinkBothWays) {
  Options o;
  o.devices = "sim:dgx1";
  o.perf_model_file = "";
  o.write_back = true;
  Runtime rt(o);
  const std::uint64_t n = std::uint64_t(1) << 26;
  auto src = rt.buffer<float>(n);
  auto dst = rt.buffer<float>(n);
  Kernel k = workloads::fma_rows_kernel(1, 1, false);
  auto go = [&](Buffer<float>& from, Buffer<float>& to) {
    return rt.parallel_for(Range{n, 0}, k, in(from), out(to), 1.0f, 0.0f, 1, 1,
                           Policy::by_name("static"));
  };
  const RunStats from_host = go(src, dst);
  // Reads what the first run left on each device; only its results cross.
  const RunStats resident = go(dst, src);
  ASSERT_EQ(from_host.devices.size(), 8u);
  for (std::size_t d = 0; d < 8; ++d) {
    EXPECT_GT(from_host.devices[d].chunks, 16u) << from_host.devices[d].name;
    EXPECT_EQ(resident.devices[d].chunks, 16u) << resident.devices[d].name;
  }
}

// In a run of 4 ms the plan's bound is a quarter of a millisecond a chunk.
// Once their rates are measured, ws's chunks may last up to 1 ms
// (BATON_BODY_CHUNK_US): fewer chunks, each paying its launch. A run whose
// data crosses a link keeps its copies' bound: measured rates count kernels
// only, and chunks of 1 ms of kernels from host memory took 1.4x static's time
// on sim:dgx1.
TEST(PoliciesSim, WsChunksMayLastAMillisecondWhereNoDataCrossesALink) {
  auto ws_run = [](double body_us, const char* spec, bool from_host) {
    Options o;
    o.devices = spec;
    o.perf_model_file = "";
    o.sim_execute = false;
    o.body_chunk_us = body_us;
    Runtime rt(o);
    if (!from_host) return run(rt, "ws", 60'000);
    const std::uint64_t n = std::uint64_t(1) << 24;
    auto src = rt.buffer<float>(n);
    auto dst = rt.buffer<float>(n);
    return rt.parallel_for(Range{n, 0}, workloads::fma_rows_kernel(1, 1, false), in(src), out(dst),
                           1.0f, 0.0f, 1, 1, Policy::by_name("ws"));
  };
  const RunStats fine = ws_run(0, "sim:8,4,2,1", false);
  const RunStats body = ws_run(1000, "sim:8,4,2,1", false);
  ASSERT_EQ(body.devices.size(), 4u);
  EXPECT_LT(fine.makespan_s, 5e-3) << "a short run, where the plan's bound is under 1 ms";
  for (std::size_t d = 0; d < 4; ++d)
    EXPECT_LT(body.devices[d].chunks, fine.devices[d].chunks) << body.devices[d].name;
  EXPECT_LE(body.makespan_s, fine.makespan_s);
  const RunStats copied_fine = ws_run(0, "sim:dgx1", true);
  const RunStats copied_body = ws_run(1000, "sim:dgx1", true);
  for (std::size_t d = 0; d < copied_body.devices.size(); ++d)
    EXPECT_EQ(copied_body.devices[d].chunks, copied_fine.devices[d].chunks)
        << copied_body.devices[d].name;
  EXPECT_EQ(copied_body.makespan_s, copied_fine.makespan_s);
}

// A task a little longer than a launch on each device, as a training step's
// micro-batches of a small model: with the devices' rates calibrated, its
// chunks need not be cut finer than min_chunk_us (200 us) before one of them
// is measured. Cut by the plan's bounds alone, each device ran 4 chunks of
// its share, a launch each, and ws took 100 us to weighted's 85.
TEST(PoliciesSim, WsRunsAShortCalibratedTaskInAChunkADevice) {
  auto rt = sim_rt("sim:4,2");
  const Kernel k = workloads::fma_kernel(20000, false);
  const Range r{24, 0};
  rt.calibrate(r, k);
  const RunStats w = rt.parallel_for(r, k, Policy::by_name("weighted"));
  const RunStats ws = rt.parallel_for(r, k, Policy::by_name("ws"));
  ASSERT_EQ(ws.devices.size(), 2u);
  for (const auto& d : ws.devices) EXPECT_EQ(d.chunks, 1u) << d.name;
  EXPECT_LE(ws.makespan_s, w.makespan_s * 1.001);
}

// A few heavy items, fewer than a GPU runs at once (the partitions of
// sim_waves.json): a device takes as long for its share as for a whole wave,
// so a span stolen to run after its own doubles a thief's time. On the H200
// ws reached 0.65x of weighted there (2^18 fma steps per item).
TEST(PoliciesSim, WsKeepsUpOnAFewHeavyItems) {
  auto rt = sim_rt("sim:" BATON_TEST_DIR "/sim_waves.json");
  for (std::uint64_t n : {128682u, 143948u, 1000000u}) {
    const double weighted = run(rt, "weighted", n).makespan_s;
    EXPECT_LE(run(rt, "ws", n).makespan_s, 1.02 * weighted) << n << " items";
  }
}

// Heavy items on a partition of 64 SMs (2^17 threads at once), as on the
// H200: of a device's own share, every chunk but one is whole waves (two
// half waves there took 1.27x one whole wave, and ws 0.89x of weighted).
TEST(PoliciesSim, WsRunsWholeWaves) {
  TwoDevices two("ws");
  auto& source = two.source;
  const std::vector<std::uint64_t> at_once{131072, 16384};
  detail::Plan plan;
  plan.items = 399561 + 48219;  // the shares of the H200 run
  plan.max_chunk = 1 << 20;
  plan.min_chunk = 1;
  plan.weights = {399561, 48219};
  plan.parallel_items = &at_once;
  two.start(plan);
  for (int dev : {0, 1}) {
    std::string parts;  // of its own share
    int partial = 0;
    while (auto t = source->next(dev)) {
      source->completed(dev, t->span, double(t->span.size()) * 1e-9);
      if (t->victim >= 0) continue;
      parts += ' ';
      parts += std::to_string(t->span.size());
      partial += t->span.size() % at_once[dev] != 0;
    }
    EXPECT_LE(partial, 1) << "device " << dev << ":" << parts;
  }
}

// A share is cut into even chunks: a cut of chunks of the grain and a sliver
// of what is left pays the sliver's fixed costs (its copies' start-up, a
// launch) for little work. On sim:dgx1 from host memory such cuts gave ws 44
// to 69 chunks a device where static ran 38, and ws trailed static.
TEST(PoliciesSim, WsCutsAShareInEvenChunks) {
  TwoDevices two("ws");
  auto& source = two.source;
  const std::vector<std::uint64_t> at_once{1, 1};
  for (std::uint64_t items : {1'000'003u, 999'999u, 777'777u}) {
    detail::Plan plan;
    plan.items = items;
    plan.max_chunk = plan.min_chunk = 13'514;  // ws's grain: 37 chunks of an even share
    plan.weights = {1, 1};
    plan.parallel_items = &at_once;
    two.start(plan);
    struct Cut {
      std::uint64_t least = ~0ull, most = 0, items = 0, chunks = 0;
    } cut[2];
    for (bool more = true; more;) {  // the devices take turns, as equals do
      more = false;
      for (int dev : {0, 1}) {
        auto t = source->next(dev);
        if (!t) continue;
        more = true;
        source->completed(dev, t->span, double(t->span.size()) * 1e-9);
        ASSERT_LT(t->victim, 0) << "equal devices in step steal nothing";
        Cut& c = cut[dev];
        c.least = std::min(c.least, t->span.size());
        c.most = std::max(c.most, t->span.size());
        c.items += t->span.size();
        ++c.chunks;
      }
    }
    for (const Cut& c : cut) {
      EXPECT_LE(c.most, plan.max_chunk) << items << " items";
      EXPECT_GE(c.least * 100, c.most * 99) << items << " items: a sliver";
      EXPECT_EQ(c.chunks, (c.items + plan.max_chunk - 1) / plan.max_chunk) << items << " items";
    }
  }
}

// A kernel whose GPU code is a native launcher (cuBLAS: a micro-batch of
// training over the whole GPU) runs no item a thread: its spans are not
// rounded up to waves of threads, so ws cuts a device's share into chunks
// (it once took each share whole, and weighed steals as whole waves).
TEST(PoliciesSim, ANativeKernelsItemsAreNotThreads) {
  auto rt = sim_rt("sim:" BATON_TEST_DIR "/sim_waves.json");  // time only: stands for CUDA
  Kernel gemm("micro_batches");
  gemm.native(BackendKind::cuda, [](void*, Span, const KernelArgs&) {});
  gemm.cost([](Span s) { return 1e6 * double(s.size()); });
  rt.calibrate(Range{64, 0}, gemm);
  const RunStats ws = rt.parallel_for(Range{64, 0}, gemm, Policy::by_name("ws"));
  EXPECT_GT(ws.devices[0].chunks, 1u);
  EXPECT_GE(ws.efficiency, 0.9);
}

// A native launcher that runs spans in passes of its own (cuBLAS over 16
// micro-batches at once: each pass reads every weight) gets chunks of whole
// passes, and none below a pass unless its share of the task is smaller.
TEST(PoliciesSim, WsCutsANativeKernelInWholePasses) {
  TwoDevices two("ws");
  auto& source = two.source;
  const std::vector<std::uint64_t> threads{1, 1}, pass{16, 16};
  auto plan_for = [&](std::uint64_t items) {
    detail::Plan plan;
    plan.items = items;
    plan.max_chunk = items / 32;
    plan.min_chunk = 1;
    plan.weights = {14, 1};
    plan.parallel_items = &threads;
    plan.pass_items = &pass;
    return plan;
  };
  for (std::uint64_t items : {1024u, 1000u}) {
    two.start(plan_for(items));
    for (int dev : {0, 1}) {
      std::string parts;
      int partial = 0;
      while (auto t = source->next(dev)) {
        source->completed(dev, t->span, double(t->span.size()) * 1e-3);
        if (t->victim >= 0) continue;  // of its own share
        parts += ' ';
        parts += std::to_string(t->span.size());
        partial += t->span.size() % pass[dev] != 0;
      }
      // What is left of its share, and of a span it stole and ran a pass of.
      EXPECT_LE(partial, 2) << items << " items, device " << dev << ":" << parts;
    }
  }
  // 120 items give device 1 a share of 8, less than a pass: it runs it whole.
  two.start(plan_for(120));
  auto first = source->next(1);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->span.size(), 8u);
}

// A slow device does not steal from a fast one mid-run where the kernel
// runs in passes: what it takes costs it a pass of its own, and it would
// finish it after the owner finished the lot.
TEST(PoliciesSim, WsStealsNoPassThatWouldEndLast) {
  TwoDevices two("ws");
  auto& source = two.source;
  const std::vector<std::uint64_t> threads{1, 1}, pass{16, 16};
  detail::Plan plan;
  plan.items = 1000;
  plan.max_chunk = 16;
  plan.min_chunk = 1;
  plan.weights = {1, 1};
  plan.parallel_items = &threads;
  plan.pass_items = &pass;
  two.start(plan);
  auto fast = source->next(0);
  ASSERT_TRUE(fast);
  source->completed(0, fast->span, 1e-3);  // 16 items in 1 ms
  while (auto own = source->next(1)) {
    ASSERT_LT(own->victim, 0) << "the slow device stole " << own->span.size() << " items";
    source->completed(1, own->span, 0.1);  // 16 items in 100 ms
  }
}

// Through the runtime: Kernel::native's pass reaches the policy.
TEST(PoliciesSim, ANativeKernelsPassSizesItsChunks) {
  auto rt = sim_rt("sim:" BATON_TEST_DIR "/sim_waves.json");  // time only: stands for CUDA
  Kernel gemm("micro_batches");
  constexpr std::uint64_t kPass = 16;
  gemm.native(
      BackendKind::cuda, [](void*, Span, const KernelArgs&) {}, kPass);
  gemm.cost([](Span s) { return 1e6 * double(s.size()); });
  rt.calibrate(Range{1024, 0}, gemm);
  const RunStats ws = rt.parallel_for(Range{1024, 0}, gemm, Policy::by_name("ws"));
  EXPECT_GE(ws.efficiency, 0.9);
  for (const auto& d : ws.devices)
    EXPECT_LE(d.chunks, (d.items + kPass - 1) / kPass + 1) << d.name << ": " << d.items;
}

// A fast device whose worker starts a little late keeps its first share: a
// slow thief that would finish half of it after the owner finished the lot
// takes nothing, whatever the owner's last chunk showed; once the owner has
// started, that chunk's rate counts (it may just have slowed down).
TEST(PoliciesSim, WsLeavesALateStartersShareAlone) {
  TwoDevices two("ws");
  auto& source = two.source;
  two.start(owner_has_all());
  source->completed(0, Span{0, 8000}, 0.001);  // 8e6 items/s
  source->completed(0, Span{0, 1000}, 0.001);  // its last chunk at 1e6
  source->completed(1, Span{0, 1000}, 0.001);  // 1e6 items/s
  EXPECT_FALSE(source->next(1)) << "stole from a device that had not started";
  ASSERT_TRUE(source->next(0));
  auto stolen = source->next(1);
  ASSERT_TRUE(stolen) << "once the owner runs, an idle device steals";
  EXPECT_EQ(stolen->victim, 0);
}

// In the middle of a run an idle thief takes half of a victim's queue only
// where it would end that half before the victim would end all it has: on
// H100 partitions of 88+24+8 SMs the 8-SM one took 8 of its waves where the
// 88-SM one had 4.5 left, and ended last. A victim whose last chunk ran
// slow is weighed at that rate: it may just have slowed down.
TEST(PoliciesSim, WsThiefInTheMiddleTakesOnlyWhatItEndsInTime) {
  auto thief_of = [](double thief_rate, double victim_last_rate) {
    TwoDevices two("ws");
    two.start(owner_has_all());
    for (int i = 0; i < 5; ++i) two.source->completed(0, Span{0, 8000}, 0.001);  // 8e6 items/s
    two.source->completed(0, Span{0, 8000}, 8000 / victim_last_rate);
    two.source->completed(1, Span{0, 1000}, 1000 / thief_rate);
    EXPECT_TRUE(two.source->next(0));
    return two.source->next(1);
  };
  EXPECT_FALSE(thief_of(1e6, 8e6)) << "the half takes the thief 4x the victim's queue";
  EXPECT_TRUE(thief_of(6e6, 8e6)) << "the half takes the thief 2/3 of the victim's queue";
  EXPECT_TRUE(thief_of(1e6, 1e6)) << "the victim's last chunk ran at an eighth of its rate";
}

// A clock the test sets: the source weighs what is left of work in flight
// by the time since it began.
class TestClock final : public Clock {
 public:
  double t = 0;
  double now() const override { return t; }
  std::unique_ptr<Parker> make_parker(bool) override { return nullptr; }
};

// An H100 cut into 48 and 8 SMs, items of 2^18 fma steps: each partition's
// wave takes 4.6 ms. The 48-SM one has a wave in flight since 0 and a part
// of one, 12 288 items, queued; the 8-SM one ends its share at 2.96 ms.
// Taking those items would cost it 0.75 of its wave, 3.45 ms, where the
// 48-SM one ends its wave at 4.6 ms and the part 0.7 ms after: on the H100
// the thief took them, weighing the wave in flight as if it had not begun,
// and ws ran at 0.92x weighted.
TEST(PoliciesSim, WsWeighsWhatIsLeftOfAVictimsWaveInFlight) {
  TestClock clock;
  TwoDevices two("ws");
  const std::vector<std::uint64_t> lanes{98304, 16384}, steps{12288, 2048};
  detail::Plan plan;
  plan.items = 98304 + 12288 + 15170;
  plan.max_chunk = 4096;
  plan.min_chunk = 256;
  plan.body_chunk_s = 1e-3;
  plan.weights = {98304 / 4.6e-3, 16384 / 4.6e-3};
  plan.weights_are_rates = true;
  plan.parallel_items = &lanes;
  plan.wave_step = &steps;
  plan.busy_items = {15420, 2570};
  plan.clock = &clock;
  two.start(plan);
  auto wave = two.source->next(0);
  ASSERT_TRUE(wave);
  ASSERT_EQ(wave->span.size(), 98304u);
  std::uint64_t share = 0;
  while (auto t = two.source->next(1)) share += t->span.size();
  ASSERT_EQ(share, 15170u);
  clock.t = 2.96e-3;
  two.source->completed(1, Span{0, share}, clock.t);
  auto stolen = two.source->next(1);
  EXPECT_FALSE(stolen) << "took " << stolen->span.size() << " items";
}

// At the tail a slow device with work in flight leaves its last chunk to a
// fast one that is finishing its own: popped three deep into a GPU's
// pipeline, such chunks ran while faster partitions idled (sim of H100
// partitions' models: ws 1.68 ms against weighted's 1.56, now 1.56).
TEST(PoliciesSim, WsLeavesASlowDevicesLastChunkToAFastOneFinishing) {
  TwoDevices two("ws");
  auto& source = two.source;
  detail::Plan plan;
  plan.items = 900;
  plan.max_chunk = plan.min_chunk = 50;
  plan.weights = {8, 1};  // shares of 800 and 100 items
  two.start(plan);
  auto slow = source->next(1);  // in flight to the end of the test
  ASSERT_TRUE(slow);
  ASSERT_EQ(slow->span.size(), 50u);
  for (int i = 0; i < 16; ++i) {  // the fast device's share; the last stays in flight
    auto t = source->next(0);
    ASSERT_TRUE(t);
    ASSERT_LT(t->victim, 0) << "chunk " << i;
    if (i < 15) source->completed(0, t->span, 50 / 80e3);  // 8x the slow one's rate
  }
  EXPECT_FALSE(source->next(1)) << "the slow device took its last chunk";
  auto stolen = source->next(0);
  ASSERT_TRUE(stolen);
  EXPECT_EQ(stolen->victim, 1);
  EXPECT_EQ(stolen->span.size(), 50u);
}

// A simulated run follows from the work and the policies alone: the same run
// on a fresh runtime steals the same spans and ends at the same instant,
// however the host schedules the workers' threads (before the clock's turns,
// the thief that reached a victim first, and so every figure, varied from
// run to run).
TEST(PoliciesSim, ARunIsTheSameEveryTime) {
  auto once = [] {
    auto rt = sim_rt("sim:8,8,4,4,2,2,1,1");
    Kernel k = fma_cost();
    const std::uint64_t n = 2'000'000;
    rt.calibrate(Range{n, 0}, k);
    sim::change_speed(*rt.devices()[0], rt.clock().now() + 0.002, 1.0);  // mid-run
    return rt.parallel_for(Range{n, 0}, k, Policy::ws());
  };
  const RunStats first = once();
  std::uint64_t steals = 0;
  for (const auto& d : first.devices) steals += d.steals;
  ASSERT_GT(steals, 0u) << "a run with no steals shows nothing of the order";
  for (int run = 1; run < 4; ++run) {
    const RunStats again = once();
    EXPECT_EQ(again.makespan_s, first.makespan_s) << "run " << run;
    for (std::size_t d = 0; d < first.devices.size(); ++d) {
      EXPECT_EQ(again.devices[d].items, first.devices[d].items) << "run " << run << " device " << d;
      EXPECT_EQ(again.devices[d].steals, first.devices[d].steals)
          << "run " << run << " device " << d;
    }
  }
}

// An H100 beside 15 cpu threads, items of 2^18 fma steps (the machine of
// bench/sim, from traces): a part of the GPU's wave is as cheap as its steps,
// a round of the CPU's threads 0.62 ms. ws's first split gives the CPU only
// rounds that end with the GPU; in proportion to the rates (weighted, and ws
// before) it took a round more, and on the H100 ws ran at 0.90x weighted.
TEST(PoliciesSim, WsGivesASlowDeviceOnlyRoundsThatEndWithTheFastOne) {
  auto rt = sim_rt("sim:" BATON_BENCH_SIM_DIR "/mix_h100_heavy_items.json");
  Kernel k = workloads::fma_rows_kernel(262144, 1);
  for (std::uint64_t n : {144881u, 265936u, 1237602u}) {
    rt.calibrate(Range{n, 0}, k);
    const double weighted = rt.parallel_for(Range{n, 0}, k, Policy::by_name("weighted")).makespan_s;
    const RunStats ws = rt.parallel_for(Range{n, 0}, k, Policy::by_name("ws"));
    EXPECT_LE(ws.makespan_s, 1.02 * weighted) << n << " items";
    EXPECT_GE(ws.efficiency, 0.97) << n << " items";
  }
}

// An H100 cut into 48+40+24+8 SMs, items of 2^18 fma steps (bench/sim, the
// same traces), a little over a wave each: a partition with a wave in flight
// weighed its last step as a chunk of a whole wave, left it queued for a
// device that would end it sooner, and a faster partition took it after its
// own step. On the H100 ws ran a row of 276 638 items at 0.955x weighted; in
// the sim at 0.62x to 0.98x over these sizes.
TEST(PoliciesSim, WsRunsItsLastStepWhereNoOneEndsItSooner) {
  auto rt = sim_rt("sim:" BATON_BENCH_SIM_DIR "/h100_48_40_24_8_heavy_items.json");
  Kernel k = workloads::fma_rows_kernel(262144, 1);
  for (std::uint64_t n : {250000u, 260000u, 276638u, 290000u, 560000u}) {
    rt.calibrate(Range{n, 0}, k);
    const double weighted = rt.parallel_for(Range{n, 0}, k, Policy::by_name("weighted")).makespan_s;
    const RunStats ws = rt.parallel_for(Range{n, 0}, k, Policy::by_name("ws"));
    EXPECT_LE(ws.makespan_s, 1.02 * weighted) << n << " items";
  }
}

// The oracle of a run a little over a wave a device: no split ends it in
// the time the summed rates give (weighted at 92 % of that), so the oracle
// is the least time the devices' waves allow, and a good split reaches it.
TEST(PoliciesSim, TheOracleIsNoSoonerThanTheWavesAllow) {
  auto rt = sim_rt("sim:" BATON_BENCH_SIM_DIR "/h100_48_40_24_8_heavy_items.json");
  Kernel k = workloads::fma_rows_kernel(262144, 1);
  const std::uint64_t n = 276638;
  const Calibration cal = rt.calibrate(Range{n, 0}, k);
  const RunStats weighted = rt.parallel_for(Range{n, 0}, k, Policy::by_name("weighted"));
  EXPECT_GT(weighted.waves_bound_s, 1.05 * double(n) / cal.oracle_rate());
  EXPECT_DOUBLE_EQ(weighted.oracle_s, weighted.waves_bound_s);
  EXPECT_GE(weighted.efficiency, 0.97);
  EXPECT_LE(weighted.efficiency, 1.01);  // calibrated rates carry a launch a chunk
}

// 16 items of 2^18 fma steps on partitions that run 2^17 and fewer at once
// (sim_waves.json): every split takes a wave, and no run is shorter than
// the least of the devices' least runs, which is the oracle. Timed on one
// item, the rates were a wave's time an item and the oracle 4x the
// makespan; timed on the 16 but drawn from rates alone, a quarter of it.
TEST(PoliciesSim, AFewHeavyItemsAreMeasuredAgainstTheLeastRun) {
  auto rt = sim_rt("sim:" BATON_TEST_DIR "/sim_waves.json");
  Kernel k = workloads::fma_rows_kernel(262144, 1);
  const std::uint64_t n = 16;
  rt.calibrate(Range{n, 0}, k);
  for (const char* policy : {"weighted", "ws"}) {
    const RunStats s = rt.parallel_for(Range{n, 0}, k, Policy::by_name(policy));
    EXPECT_GE(s.efficiency, 0.97) << policy;
    EXPECT_LE(s.efficiency, 1.01) << policy;
  }
}
