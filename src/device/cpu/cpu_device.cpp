#include "device/cpu/cpu_device.hpp"

#include <algorithm>
#include <cstring>

#include "baton/error.hpp"
#include "device/backend.hpp"
#include "device/copy_range.hpp"
#include "device/host_memory.hpp"

namespace baton::detail {

namespace {
// A cpu queue runs each command as it is enqueued: its events are complete when recorded.
class DoneEvent final : public Event {
 public:
  void wait() override {}
  bool ready() override { return true; }
  bool wait_for(double) override { return true; }
};
}  // namespace

class CpuDevice::CpuQueue final : public Queue {
 public:
  explicit CpuQueue(CpuDevice& dev) : dev_(dev), done_(std::make_shared<DoneEvent>()) {}
  void write(DeviceMemory dst, std::size_t off, const void* host, std::size_t bytes,
             HostKind) override {
    check_copy_range(dst, off, bytes, dev_.name(), "write");
    if (bytes == 0) return;
    std::memcpy(static_cast<char*>(dst.ptr) + off, host, bytes);
  }
  void read(void* host, DeviceMemory src, std::size_t off, std::size_t bytes, HostKind) override {
    check_copy_range(src, off, bytes, dev_.name(), "read");
    if (bytes == 0) return;
    std::memcpy(host, static_cast<const char*>(src.ptr) + off, bytes);
  }
  void copy(DeviceMemory dst, std::size_t doff, DeviceMemory src, std::size_t soff,
            std::size_t bytes) override {
    check_copy_range(dst, doff, bytes, dev_.name(), "copy");
    check_copy_range(src, soff, bytes, dev_.name(), "copy");
    if (bytes == 0) return;
    std::memmove(static_cast<char*>(dst.ptr) + doff, static_cast<const char*>(src.ptr) + soff,
                 bytes);
  }
  void launch(const Kernel& k, Span span, const KernelArgs& args) override {
    if (const NativeFn* native = k.native_fn(BackendKind::cpu)) {
      (*native)(nullptr, span, args);
      return;
    }
    const CpuFn* fn = k.cpu_fn();
    if (!fn)
      raise(Errc::no_implementation, dev_.name(), "kernel '" + k.name() + "' has no cpu code");
    dev_.group_.run(span, [&](Span piece) { (*fn)(piece, args); });
  }
  // Commands are complete when enqueued: one event of this queue's own serves
  // every record, with no allocation and no reference count shared between workers.
  EventPtr record() override { return done_; }
  void wait(const EventPtr& e) override { e->wait(); }
  void finish() override {}

 private:
  CpuDevice& dev_;
  EventPtr done_;
};

CpuDevice::CpuDevice(DeviceInfo info, int threads, std::chrono::nanoseconds spin)
    : Device(std::move(info)), group_(threads, spin), queue_(std::make_unique<CpuQueue>(*this)) {}

DeviceMemory CpuDevice::allocate(std::size_t bytes) {
  return allocate_host(name(), bytes);
}

void CpuDevice::release(DeviceMemory memory) {
  release_host(memory);
}

Queue& CpuDevice::queue(QueueRole) {
  return *queue_;
}

bool CpuDevice::copy_from_peer(Queue& q, DeviceMemory dst, std::size_t doff, Device& peer,
                               DeviceMemory src, std::size_t soff, std::size_t bytes) {
  // Another host-memory device: its memory is ours to read.
  if (peer.info().memory_node != kHostNode) return false;
  q.copy(dst, doff, src, soff, bytes);
  return true;
}

// "" -> one device of all threads; "N" -> N devices sharing the threads; "NxT" -> N of T.
static std::pair<int, int> parse_cpu_args(const std::string& args, int host_threads) {
  const std::string where = "cpu:" + args;
  if (args.empty()) return {1, host_threads};
  std::size_t x = args.find('x');
  auto number = [&](const std::string& s) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 4)
      raise(Errc::bad_device_spec, where,
            "expected cpu, cpu:N or cpu:NxT with N devices of T threads");
    int v = std::stoi(s);
    if (v < 1) raise(Errc::bad_device_spec, where, "counts must be at least 1");
    return v;
  };
  int devices = number(args.substr(0, x));
  if (x != std::string::npos) return {devices, number(args.substr(x + 1))};
  return {devices, std::max(1, host_threads / devices)};
}

Backend cpu_backend() {
  Backend b;
  b.name = "cpu";
  b.spec_help =
      "  cpu                   the host CPU as one device of all its threads but one for\n"
      "                        each GPU's worker (it polls the GPU's queues)\n"
      "  cpu:N                 N devices sharing those threads evenly\n"
      "  cpu:NxT               N devices of T threads each\n";
  b.create = [](const std::string& args, BackendContext& ctx) {
    const int configured = ctx.options().cpu_threads;
    const auto spin = std::chrono::nanoseconds(std::int64_t(ctx.options().idle_spin_us * 1e3));
    const int free_threads = std::max(1, ctx.host().threads - ctx.driver_threads());
    auto [count, threads] = parse_cpu_args(args, configured > 0 ? configured : free_threads);
    ctx.add_node({"cpu", "cpu"});
    ctx.add_link({"cpu", "host", LinkKind::sys, 20.0, 0.1});
    DeviceList list;
    for (int i = 0; i < count; ++i) {
      DeviceInfo info;
      info.name = "cpu" + std::to_string(i);
      info.description = ctx.host().cpu_model + ", " + std::to_string(threads) + " thread(s)";
      info.memory_bytes = ctx.host().memory_bytes;
      info.backend = BackendKind::cpu;
      info.topology_id = "cpu";
      info.memory_node = kHostNode;
      info.compute_units = threads;
      info.parallel_items = std::uint64_t(threads);
      // 8-wide fp32 FMA at ~2.5 GHz per thread: a rough figure, calibration refines it.
      info.peak_gflops = threads * 2.5 * 16;
      info.pipeline_depth = 1;
      info.shares = {"host-cores"};
      list.push_back(std::make_unique<CpuDevice>(std::move(info), threads, spin));
    }
    return list;
  };
  return b;
}

}  // namespace baton::detail
