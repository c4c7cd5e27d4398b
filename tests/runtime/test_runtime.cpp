#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "baton/error.hpp"
#include "baton/runtime.hpp"
#include "device/cpu/cpu_device.hpp"
#include "workloads/balance_kernels.hpp"

using namespace baton;

static Runtime make(const std::string& devices, const std::string& policy = "ws") {
  Options o;
  o.devices = devices;
  o.policy = policy;
  return Runtime(o);
}

static Errc error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.code();
  }
  return Errc::internal;
}

TEST(Runtime, SaxpyOnCpuDevicesIsRightAndStatsAddUp) {
  auto rt = make("cpu:2x1");
  const std::size_t n = 100000;
  auto x = rt.buffer<float>(n), y = rt.buffer<float>(n);
  for (std::size_t i = 0; i < n; ++i) x.host()[i] = float(i % 97), y.host()[i] = 0.5f;
  RunStats s = rt.parallel_for({n, 1000}, workloads::saxpy_kernel(), 3.0f, in(x), inout(y));
  auto hy = y.read();
  for (std::size_t i = 0; i < n; ++i) ASSERT_FLOAT_EQ(hy[i], 3.0f * float(i % 97) + 0.5f);
  EXPECT_EQ(s.policy, "ws");
  EXPECT_EQ(s.items, n);
  ASSERT_EQ(s.devices.size(), 2u);
  EXPECT_EQ(s.devices[0].items + s.devices[1].items, n);
  EXPECT_GT(s.devices[0].chunks + s.devices[1].chunks, n / 1000 / 2);
  EXPECT_GT(s.makespan_s, 0);
  EXPECT_GT(s.efficiency, 0);
  EXPECT_FALSE(s.simulated);
}

// A buffer that one backend's code never reads (Kernel::unused) is not
// copied to that backend's devices: the launch gets no memory for it, the
// run moves none of its bytes, and the arguments it does use work as ever.
TEST(Runtime, AnArgumentABackendDoesNotTouchIsNotMovedThere) {
  auto rt = make("sim:1,1");
  const std::size_t n = 4096;
  auto unread = rt.buffer<float>(std::size_t(1) << 20), out_buf = rt.buffer<float>(n);
  std::atomic<int> runs{0}, without{0};
  Kernel k("reads_one");
  k.cpu([&](Span s, const KernelArgs& a) {
    runs.fetch_add(1);
    if (a[0].memory.ptr == nullptr) without.fetch_add(1);
    float* o = a.ptr<float>(1);
    for (std::uint64_t i = s.begin; i < s.end; ++i) o[i] = 2.0f;
  });
  k.unused(BackendKind::sim, {0});
  RunStats s = rt.parallel_for(Range{n}, k, in(unread, whole), out(out_buf));
  EXPECT_GT(runs.load(), 0);
  EXPECT_EQ(without.load(), runs.load());
  for (const DeviceStats& d : s.devices) EXPECT_EQ(d.bytes_in, 0u) << d.name;
  auto o = out_buf.read();
  EXPECT_TRUE(std::all_of(o.begin(), o.end(), [](float v) { return v == 2.0f; }));
  EXPECT_EQ(error_of([] { Kernel("k").unused(BackendKind::cpu, {64}); }), Errc::invalid_argument);
}

// parallel_for_async returns while its chunks still run (here they wait for
// the caller to say go), and wait() returns the run's own figures.
TEST(Runtime, AnAsyncSpreadReturnsAtOnceAndWaitGivesItsFigures) {
  auto rt = make("cpu:2x1");
  std::atomic<bool> go{false};
  Kernel held("held");
  held.cpu([&](Span s, const KernelArgs& a) {
    for (int i = 0; i < 5000 && !go.load(); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    int* c = a.ptr<int>(0);
    for (std::uint64_t i = s.begin; i < s.end; ++i) c[i] += 1;
  });
  const std::size_t n = 4096;
  auto counts = rt.buffer<int>(n);
  std::fill(counts.host().begin(), counts.host().end(), 0);
  const auto start = std::chrono::steady_clock::now();
  Runtime::PendingRun run = rt.parallel_for_async(Range{n}, held, inout(counts));
  // Had it waited for its chunks, each would have held out for 5 s first.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4));
  go = true;
  const RunStats s = rt.wait(std::move(run));
  EXPECT_EQ(s.items, n);
  EXPECT_EQ(s.devices[0].items + s.devices[1].items, n);
  auto c = counts.read();
  EXPECT_EQ(std::count(c.begin(), c.end(), 1), std::ptrdiff_t(n));
}

TEST(Runtime, FmaMatchesAPlainLoopUnderEveryPolicy) {
  auto rt = make("cpu:2x1");
  const std::size_t n = 20000;
  auto a = rt.buffer<float>(n), b = rt.buffer<float>(n);
  for (std::size_t i = 0; i < n; ++i) a.host()[i] = float(i) / n;
  Kernel k = workloads::fma_kernel(16);
  for (const char* p : {"static", "weighted", "ws", "ws-topo"}) {
    std::fill(b.host().begin(), b.host().end(), -1.0f);
    rt.parallel_for({n, 0}, k, in(a), out(b), 0.9f, 0.1f, 16, Policy::by_name(p));
    auto hb = b.read();
    for (std::size_t i = 0; i < n; i += 7) {
      float x = float(i) / n;
      for (int r = 0; r < 16; ++r) x = x * 0.9f + 0.1f;
      ASSERT_FLOAT_EQ(hb[i], x) << p << " item " << i;
    }
  }
}

TEST(Runtime, BadRunsAreClearErrors) {
  auto rt = make("cpu");
  auto small = rt.buffer<float>(10), big = rt.buffer<float>(100);
  Kernel saxpy = workloads::saxpy_kernel();
  EXPECT_EQ(error_of([&] {
              rt.parallel_for({100, 10}, saxpy, 1.0f, in(small), inout(big));
            }),
            Errc::invalid_argument);
  EXPECT_EQ(error_of([&] {
              rt.parallel_for({100, 10}, saxpy, 1.0f, in(big), inout(big, whole));
            }),
            Errc::invalid_argument);
  EXPECT_EQ(error_of([&] {
              rt.parallel_for({0, 10}, saxpy, 1.0f, in(big), inout(big));
            }),
            Errc::invalid_argument);
  EXPECT_EQ(error_of([&] {
              rt.parallel_for({100, 10}, saxpy, 1.0f, in(big), inout(big), Policy::by_name("fifo"));
            }),
            Errc::invalid_argument);
  Kernel gpu_only("gpu_only");
  gpu_only.opencl("__kernel void f(ulong b, ulong e) {}", "f");
  EXPECT_EQ(error_of([&] { rt.parallel_for({100, 10}, gpu_only); }), Errc::no_implementation);
  EXPECT_EQ(error_of([&] {
              make("cpu,sim:1").parallel_for({100, 10}, workloads::empty_kernel());
            }),
            Errc::invalid_argument);  // virtual and real time do not mix
}

TEST(Runtime, OptionsFromEnvironment) {
  setenv("BATON_DEVICES", "sim:2,1", 1);
  setenv("BATON_POLICY", "weighted", 1);
  Options o = Options::from_env();
  EXPECT_EQ(o.devices, "sim:2,1");
  EXPECT_EQ(o.policy, "weighted");
  setenv("BATON_POLICY", "nonsense", 1);
  try {
    Runtime rt(Options::from_env());
    ADD_FAILURE() << "a runtime with policy 'nonsense'";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("known: static, weighted, ws, ws-topo, model"),
              std::string::npos)
        << e.what();
  }
  unsetenv("BATON_DEVICES");
  unsetenv("BATON_POLICY");
  EXPECT_EQ(Options::from_env().devices, "auto");
  // Values that do not parse name their variable.
  for (auto [var, value] : {std::pair{"BATON_TAIL_SPLIT", "four"},
                            {"BATON_CPU_THREADS", "-2"},
                            {"BATON_WRITE_BACK", "maybe"},
                            {"BATON_MIN_CHUNK_US", "1e999"}}) {
    setenv(var, value, 1);
    try {
      Options::from_env();
      ADD_FAILURE() << var << "=" << value << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::invalid_argument);
      EXPECT_EQ(e.where(), var);
      EXPECT_NE(std::string(e.what()).find(value), std::string::npos) << e.what();
    }
    unsetenv(var);
  }
}

// A CPU device that fails at its third launch: the fault a real device cannot be made to show.
class FailingCpu final : public Device {
 public:
  explicit FailingCpu(std::unique_ptr<Device> inner)
      : Device(inner->info()), inner_(std::move(inner)), q_(*this) {
    info_.name = "failing";
  }
  DeviceMemory allocate(std::size_t b) override { return inner_->allocate(b); }
  void release(DeviceMemory m) override { inner_->release(m); }
  Queue& queue(QueueRole) override { return q_; }

 private:
  struct Q final : Queue {
    explicit Q(FailingCpu& d) : d(d) {}
    void write(DeviceMemory m, std::size_t o, const void* h, std::size_t b, HostKind k) override {
      in().write(m, o, h, b, k);
    }
    void read(void* h, DeviceMemory m, std::size_t o, std::size_t b, HostKind k) override {
      in().read(h, m, o, b, k);
    }
    void copy(DeviceMemory a, std::size_t ao, DeviceMemory b, std::size_t bo,
              std::size_t n) override {
      in().copy(a, ao, b, bo, n);
    }
    void launch(const Kernel& k, Span s, const KernelArgs& a) override {
      if (++launches >= 3) raise(Errc::device_failed, "failing", "injected fault");
      in().launch(k, s, a);
    }
    EventPtr record() override { return in().record(); }
    void wait(const EventPtr& e) override { in().wait(e); }
    void finish() override {}
    Queue& in() { return d.inner_->queue(QueueRole::compute); }
    FailingCpu& d;
    int launches = 0;
  };
  std::unique_ptr<Device> inner_;
  Q q_;
};

TEST(Runtime, WorkOfAFailedDeviceRunsElsewhere) {
  DeviceSet set = open_devices("cpu:2x1");
  set.devices[1] = std::make_unique<FailingCpu>(std::move(set.devices[1]));
  Options o;
  o.policy = "ws";
  Runtime rt(std::move(set), o);
  const std::size_t n = 50000;
  auto x = rt.buffer<float>(n), y = rt.buffer<float>(n);
  for (std::size_t i = 0; i < n; ++i) x.host()[i] = float(i % 13), y.host()[i] = -1.0f;
  // Enough work per chunk that both workers are running before it is over.
  RunStats s =
      rt.parallel_for({n, 100}, workloads::fma_kernel(1000), in(x), out(y), 0.5f, 1.0f, 1000);
  EXPECT_TRUE(s.devices[1].failed);
  EXPECT_NE(s.devices[1].failure.find("injected fault"), std::string::npos);
  EXPECT_EQ(s.devices[0].items + s.devices[1].items, n);
  auto hy = y.read();
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_FLOAT_EQ(hy[i], 2.0f) << i;  // the fixed point of x*0.5+1
}

// A spread task that only some devices can take (the others' rates are 0)
// is cut as finely as on a machine of just those devices: its spans follow
// the devices taking part, not the runtime's count (a job on 1 of 16
// devices once ran its update in 16 times as many chunks, each paying a
// launch).
TEST(Runtime, SpansFollowTheDevicesTakingPartNotAllOfThem) {
  auto chunks_on_first = [](int devices) {
    Options o;
    o.devices = "sim:4";
    for (int d = 1; d < devices; ++d) o.devices.append(",4");
    o.perf_model_file = "";
    Runtime rt(o);
    Kernel k("counted");
    k.cpu([](Span, const KernelArgs&) {});
    k.cost([](Span s) { return 1e3 * double(s.size()); });
    std::vector<double> rates(std::size_t(devices), 0.0);
    rates[0] = 1;
    rt.set_standalone_rates(k, rates);
    auto x = rt.buffer<float>(1 << 16);
    const RunStats s = rt.parallel_for(Range{1 << 16}, k, inout(x), Policy::weighted());
    EXPECT_EQ(s.devices[0].items, std::uint64_t(1) << 16) << devices << " devices";
    return s.devices[0].chunks;
  };
  const std::uint64_t alone = chunks_on_first(1);
  EXPECT_GT(alone, 0u);
  EXPECT_EQ(chunks_on_first(16), alone);
}
