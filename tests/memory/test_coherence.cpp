// MSI coherence over devices with memories of their own (sim devices keep
// real replicas in host memory, so data really moves between them).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <numeric>
#include <thread>

#include "baton/devices.hpp"
#include "baton/runtime.hpp"
#include "device/sim/sim_device.hpp"
#include "memory/coherence.hpp"
#include "workloads/balance_kernels.hpp"

using namespace baton;
using baton::detail::BufferState;

TEST(Coherence, ReadersCopyFromTheLatestWriterAndWritersInvalidateOthers) {
  auto set = open_devices("sim:1,1");
  Device &a = *set.devices[0], &b = *set.devices[1];
  BufferState buf(64, nullptr);
  auto* host = static_cast<int*>(buf.host());
  std::iota(host, host + 16, 0);
  std::vector<EventPtr> waits;
  auto t = buf.acquire(a, a.queue(QueueRole::copy_in), 0, 64, waits);
  EXPECT_EQ(t.bytes_in, 64u);
  EXPECT_EQ(buf.holders(0, 64), (std::vector<MemoryNode>{kHostNode, a.info().memory_node}));
  // a writes the second half: it becomes its only holder (Modified).
  auto* ra = static_cast<int*>(buf.replica(a).ptr);
  for (int i = 8; i < 16; ++i) ra[i] = 100 + i;
  buf.written(a, 32, 64, nullptr);
  EXPECT_EQ(buf.holders(32, 64), (std::vector<MemoryNode>{a.info().memory_node}));
  EXPECT_EQ(buf.holders(0, 32).size(), 2u);  // first half still Shared with host
  // b reads everything: the first half from host, the second from a, staged
  // through host memory (sim devices without a direct link), which then holds it too.
  waits.clear();
  t = buf.acquire(b, b.queue(QueueRole::copy_in), 0, 64, waits);
  EXPECT_EQ(t.bytes_in, 64u);
  auto* rb = static_cast<int*>(buf.replica(b).ptr);
  for (int i = 0; i < 16; ++i) EXPECT_EQ(rb[i], i < 8 ? i : 100 + i) << i;
  // A second read moves nothing.
  EXPECT_EQ(buf.acquire(b, b.queue(QueueRole::copy_in), 0, 64, waits).bytes_in, 0u);
  EXPECT_EQ(buf.holders(32, 64).size(), 3u);
  // The host sees a's writes, with nothing more to copy.
  EXPECT_EQ(buf.acquire_host(0, 64, false).bytes_out, 0u);
  for (int i = 8; i < 16; ++i) EXPECT_EQ(host[i], 100 + i);
  // A host write invalidates every replica.
  buf.acquire_host(0, 64, true);
  EXPECT_EQ(buf.holders(0, 64), (std::vector<MemoryNode>{kHostNode}));
  // b writes; the host read copies b's piece back.
  waits.clear();
  buf.acquire(b, b.queue(QueueRole::copy_in), 0, 64, waits);
  rb[0] = 77;
  buf.written(b, 0, 4, nullptr);
  EXPECT_EQ(buf.acquire_host(0, 64, false).bytes_out, 4u);
  EXPECT_EQ(host[0], 77);
}

TEST(Coherence, DataStaysRightAcrossRunsOnDifferentDevices) {
  Options opt;
  opt.devices = "sim:4,1,2";
  Runtime rt(opt);
  const std::size_t n = 10000;
  auto x = rt.buffer<float>(n), y = rt.buffer<float>(n);
  {
    auto hx = x.host(), hy = y.host();
    for (std::size_t i = 0; i < n; ++i) hx[i] = float(i), hy[i] = 1.0f;
  }
  Kernel saxpy = workloads::saxpy_kernel();
  // Three runs under different policies: chunks land on different devices each time,
  // so y's pieces must follow their latest writer around.
  for (const char* p : {"ws", "static", "ws-topo"})
    rt.parallel_for({n, 128}, saxpy, 2.0f, in(x), inout(y), Policy::by_name(p));
  auto hy = y.read();
  for (std::size_t i = 0; i < n; ++i) ASSERT_FLOAT_EQ(hy[i], 1.0f + 6.0f * float(i)) << i;
  // The host edits y; the next run must see the edit.
  y.host()[5] = -1.0f;
  rt.parallel_for({n, 128}, saxpy, 1.0f, in(x), inout(y));
  EXPECT_FLOAT_EQ(y.read()[5], 4.0f);
}

TEST(Coherence, BuffersOutliveTheirRuntimeWithTheirData) {
  Buffer<float> y;
  {
    Options opt;
    opt.devices = "sim:2,1";
    opt.write_back = false;  // results stay on the devices until someone asks
    Runtime rt(opt);
    const std::size_t n = 4096;
    auto x = rt.buffer<float>(n);
    y = rt.buffer<float>(n);
    for (std::size_t i = 0; i < n; ++i) x.host()[i] = float(i), y.host()[i] = 0.0f;
    rt.parallel_for({n, 256}, workloads::saxpy_kernel(), 1.0f, in(x), inout(y));
  }  // the devices are gone; y's replicas must not be
  ASSERT_EQ(y.size(), 4096u);
  auto hy = y.read();
  for (std::size_t i = 0; i < hy.size(); ++i) ASSERT_FLOAT_EQ(hy[i], float(i));
}

namespace {

// An event completed by hand, and a device whose host transfers behave as a
// GPU's do on pageable memory: write() reads the host bytes at once, read()
// lands them only when its event completes.
struct HandEvent final : Event {
  std::atomic<bool> done{false};
  std::function<void()> on_done;
  void complete() {
    if (on_done) on_done();
    done.store(true, std::memory_order_release);
  }
  void wait() override {
    while (!ready()) std::this_thread::yield();
  }
  bool ready() override { return done.load(std::memory_order_acquire); }
};

class HandDevice final : public Device {
 public:
  explicit HandDevice(MemoryNode node) : Device(info_for(node)), queue_(*this) {}
  DeviceMemory allocate(std::size_t bytes) override {
    memory_.push_back(std::vector<char>(bytes));
    return DeviceMemory{memory_.back().data(), 0, bytes};
  }
  void release(DeviceMemory) override {}
  Queue& queue(QueueRole) override { return queue_; }
  std::shared_ptr<HandEvent> next_event = std::make_shared<HandEvent>();

 private:
  static DeviceInfo info_for(MemoryNode node) {
    DeviceInfo i;
    i.name = "hand" + std::to_string(node);
    i.memory_node = node;
    return i;
  }
  struct HandQueue final : Queue {
    explicit HandQueue(HandDevice& d) : dev(d) {}
    void write(DeviceMemory dst, std::size_t off, const void* host, std::size_t bytes,
               HostKind) override {
      std::memcpy(static_cast<char*>(dst.ptr) + off, host, bytes);
    }
    void read(void* host, DeviceMemory src, std::size_t off, std::size_t bytes, HostKind) override {
      const char* from = static_cast<const char*>(src.ptr) + off;
      dev.next_event->on_done = [host, from, bytes] { std::memcpy(host, from, bytes); };
    }
    void copy(DeviceMemory, std::size_t, DeviceMemory, std::size_t, std::size_t) override {}
    void launch(const Kernel&, Span, const KernelArgs&) override {}
    EventPtr record() override { return dev.next_event; }
    void wait(const EventPtr&) override {}
    void finish() override {}
    HandDevice& dev;
  };
  std::vector<std::vector<char>> memory_;
  HandQueue queue_;
};

}  // namespace

// A write-back still landing in pageable host memory is waited for before
// another device copies those bytes from there.
TEST(Coherence, APageableCopyWaitsForBytesStillLandingAtHome) {
  HandDevice a(1), b(2);
  BufferState buf(64, nullptr);
  std::memset(buf.host(), 0, 64);
  std::vector<EventPtr> waits;
  buf.acquire(a, a.queue(QueueRole::copy_in), 0, 64, waits);
  std::memset(buf.replica(a).ptr, 7, 64);  // a computed: 7s
  buf.written(a, 0, 64, nullptr);
  buf.write_back(a, a.queue(QueueRole::copy_out), 0, 64, nullptr);  // lands on complete()
  std::thread later([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    a.next_event->complete();
  });
  waits.clear();
  buf.acquire(b, b.queue(QueueRole::copy_in), 0, 64, waits);
  later.join();
  b.next_event->complete();  // b's copy in (done already: its write copies at once)
  const auto* rb = static_cast<const unsigned char*>(buf.replica(b).ptr);
  for (int i = 0; i < 64; ++i) ASSERT_EQ(rb[i], 7) << "byte " << i << " was read before it landed";
}

// Devices reading what one device wrote copy it from that writer, not from
// another reader whose copy is still landing: an all-gather of weights would
// otherwise chain its copies device after device.
TEST(Coherence, ReadersCopyFromAHolderWhoseDataHasLanded) {
  const char* path = "test_coherence_peers.json";
  std::ofstream(path) << R"({"launch_us": 0,
    "devices": [{"id": "g0", "speed": 1}, {"id": "g1", "speed": 1}, {"id": "g2", "speed": 1}],
    "switches": ["sw"],
    "links": [{"a": "g0", "b": "sw", "kind": "nvlink", "gbps": 100, "latency_us": 0},
              {"a": "g1", "b": "sw", "kind": "nvlink", "gbps": 100, "latency_us": 0},
              {"a": "g2", "b": "sw", "kind": "nvlink", "gbps": 100, "latency_us": 0}]})";
  auto set = open_devices(std::string("sim:") + path);
  std::remove(path);
  Device &first = *set.devices[0], &second = *set.devices[1], &writer = *set.devices[2];
  const std::size_t bytes = 1'000'000;  // 10 us over one 100 GB/s link
  BufferState buf(bytes, nullptr);
  std::vector<EventPtr> waits;
  buf.acquire(writer, writer.queue(QueueRole::copy_in), 0, bytes, waits);
  buf.written(writer, 0, bytes, nullptr);  // the writer holds it alone, landed
  // When the copies the reader waits for land (peer copies go down the
  // queue of their link, Device::copy_in_from).
  auto lands_at = [&](Device& d) {
    waits.clear();
    buf.acquire(d, d.queue(QueueRole::copy_in), 0, bytes, waits);
    double t = -1;
    for (const EventPtr& e : waits)
      t = std::max(t, static_cast<detail::SimEvent&>(*e->recorded()).time());
    return t;
  };
  const double start = set.devices[0]->clock().now();  // virtual time stands still here
  EXPECT_NEAR(lands_at(first) - start, 10e-6, 1e-9);
  // `first` holds it too now, still landing, and comes before the writer in
  // node order: `second` must copy from the writer all the same.
  EXPECT_NEAR(lands_at(second) - start, 10e-6, 1e-9) << "copied from a copy still landing";
}

// A failed device's data goes home only where no other node holds it: a copy
// over a range the host holds would land on whatever the host's copy became
// meanwhile (a cpu device updates host memory in place). Found by training
// with an OpenCL device that failed: a stale piece came home over fresh moments.
TEST(Coherence, AFailedNodeSavesHomeOnlyWhatNoOtherNodeHolds) {
  auto set = open_devices("sim:1");
  Device& a = *set.devices[0];
  BufferState buf(64, nullptr);
  auto* host = static_cast<int*>(buf.host());
  std::iota(host, host + 16, 0);
  std::vector<EventPtr> waits;
  buf.acquire(a, a.queue(QueueRole::copy_in), 0, 64, waits);
  auto* ra = static_cast<int*>(buf.replica(a).ptr);
  for (int i = 0; i < 16; ++i) ra[i] = 100 + i;
  buf.written(a, 0, 64, nullptr);                             // a alone holds it, as one piece
  EXPECT_EQ(buf.acquire_host(32, 64, false).bytes_out, 32u);  // the host holds the second half
  for (int i = 8; i < 16; ++i) host[i] = -1;  // in place, as a cpu device's write under way
  buf.drop_node(a.info().memory_node, "a failed");
  for (int i = 0; i < 8; ++i) EXPECT_EQ(host[i], 100 + i) << i;  // saved home
  for (int i = 8; i < 16; ++i) EXPECT_EQ(host[i], -1) << i;      // not copied over
  EXPECT_EQ(buf.holders(0, 64), (std::vector<MemoryNode>{kHostNode}));
}

// A cpu device writes host memory in place, so it claims its bytes before it
// runs: a failed device's data saved home after the claim does not come over
// what it writes. (Recorded after the write, a saved copy landed between the
// two and a chain lost two steps, 1 run in 40 under load.)
TEST(Coherence, AHostWriterClaimsItsBytesBeforeItWrites) {
  auto set = open_devices("sim:1");
  Device& a = *set.devices[0];
  BufferState buf(64, nullptr);
  auto* host = static_cast<int*>(buf.host());
  std::vector<EventPtr> waits;
  buf.acquire(a, a.queue(QueueRole::copy_in), 0, 64, waits);
  auto* ra = static_cast<int*>(buf.replica(a).ptr);
  for (int i = 0; i < 16; ++i) ra[i] = 100 + i;
  buf.written(a, 0, 64, nullptr);  // a alone holds it
  std::vector<EventPtr> landing;
  buf.claim_host(0, 64, landing);
  EXPECT_TRUE(landing.empty());
  for (int i = 0; i < 16; ++i) host[i] = -i;  // the write, in place
  buf.drop_node(a.info().memory_node, "a failed");
  for (int i = 0; i < 16; ++i) EXPECT_EQ(host[i], -i) << i;
  EXPECT_EQ(buf.holders(0, 64), (std::vector<MemoryNode>{kHostNode}));
}

// A host writer's claim hands it the copies home still landing in its bytes,
// those still counted valid at home and those a device's later write made
// stale (a copy queued on another device can land after anything queued
// since): it waits for them, and so does the next copy home.
TEST(Coherence, AHostWriterWaitsForEveryCopyHomeStillLanding) {
  auto set = open_devices("sim:1,1");
  Device &a = *set.devices[0], &b = *set.devices[1];
  BufferState buf(64, nullptr);
  std::vector<EventPtr> waits;
  buf.acquire(a, a.queue(QueueRole::copy_in), 0, 64, waits);
  buf.written(a, 0, 64, nullptr);
  const EventPtr home = buf.write_back(a, a.queue(QueueRole::copy_out), 0, 64, nullptr);
  ASSERT_FALSE(home->ready());  // virtual time stands still: no thread waits
  buf.replica(b);
  buf.written(b, 32, 64, nullptr);  // the host's copy of [32, 64) is stale, still landing
  std::vector<EventPtr> landing;
  buf.claim_host(0, 16, landing);  // valid at home once it lands
  EXPECT_EQ(landing, std::vector<EventPtr>{home});
  landing.clear();
  buf.claim_host(40, 48, landing);  // stale
  EXPECT_EQ(landing, std::vector<EventPtr>{home});
  landing.clear();
  buf.claim_host(40, 48, landing);  // the first claim waits: nothing more
  EXPECT_TRUE(landing.empty());
  EXPECT_EQ(buf.holders(40, 48), (std::vector<MemoryNode>{kHostNode}));
  EXPECT_EQ(buf.holders(48, 64), (std::vector<MemoryNode>{b.info().memory_node}));
}
