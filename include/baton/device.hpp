// The device abstraction layer: what every backend (cpu, sim, cuda, opencl)
// implements. A device owns memory on one memory node, in-order queues and
// events; the scheduler drives each device from one host worker thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "baton/kernel.hpp"

namespace baton {

std::string_view to_string(BackendKind b);

// Memory nodes number the distinct memories of the machine; host memory is 0.
// Devices that compute straight on host memory (cpu) live on node 0.
using MemoryNode = int;
inline constexpr MemoryNode kHostNode = 0;

struct DeviceInfo {
  std::string name;         // unique, short: "cpu0", "sim2", "cuda0", "cuda0.p1", "opencl0.0"
  std::string description;  // human text: model, partition, driver
  BackendKind backend = BackendKind::cpu;
  std::string topology_id;  // node of this device in the Topology ("gpu0", "cpu", "sim2")
  MemoryNode memory_node = kHostNode;
  int compute_units = 0;           // cores, SMs, compute units
  double peak_gflops = 0;          // fp32 peak, from the hardware's figures
  std::uint64_t memory_bytes = 0;  // memory usable by this device
  int pipeline_depth = 1;          // chunks its worker keeps in flight (GPUs overlap copies)
  // Items it runs at once (a GPU: SMs x resident threads per SM; a cpu
  // device: its threads). A chunk of fewer takes about as long as one of
  // this many, so chunks of it in a row waste what a single one would not.
  std::uint64_t parallel_items = 1;
  // Of those, what a wave fills at a time: a GPU places a block of threads
  // on every SM in turn, so a part of a wave takes as long as whole such
  // steps (on an H100, 0.58 of a wave of 2^18-fma items took as long as 5
  // steps of 132 blocks of 256). 1: a part of a wave as long as its items.
  std::uint64_t wave_step = 1;
  std::string pci_bus_id;  // "0000:19:00.0" for a PCI device, else empty
  // Resources it shares with other devices, by name: "host-cores" (the cpu
  // backend, OpenCL CPU devices), "gpu:0000:19:00.0" (the partitions of one
  // GPU share its PCIe link and memory). Devices with one in common are
  // calibrated together: what they do side by side is less than the sum of
  // what each does alone.
  std::vector<std::string> shares;
  // The link to host its copies cross, where other devices' cross it too
  // under another topology node (sim devices behind one switch); empty: its
  // node's own link (the partitions of a GPU are one node).
  std::string host_link;
  // The backend a device stands for where it runs no code of its own: a sim
  // device that keeps time only stands for a GPU, so it reads what the CUDA
  // code reads (Kernel::unused: a model's bf16 weights, not the fp32 ones).
  std::optional<BackendKind> stands_for;
  BackendKind code_backend() const { return stands_for.value_or(backend); }
  // Its worker keeps a host thread busy driving it (a GPU's polls its
  // queues): not the cpu's own, not a sim device's (it parks on the virtual
  // clock), not one that computes on the host's cores (PoCL). The cpu
  // devices leave a thread to each such worker. Set by the backend.
  bool needs_driver_thread = false;
  // Its kernels read and write buffers' host memory in place (zero-copy),
  // so its own memory does not bound what it can run.
  bool maps_host_memory = false;
  // The collective library that can sum between such devices ("nccl"), ""
  // where none: the communicator asks this, not the backend.
  std::string collective_library;
};

// A point in a queue's stream of work. Events of any backend may be waited on
// by a queue of any other backend.
class Event {
 public:
  virtual ~Event() = default;
  virtual void wait() = 0;   // block the calling host thread until complete
  virtual bool ready() = 0;  // complete now?
  // Blocks until complete or about `seconds` have passed; true when complete.
  // The default polls ready(), first spinning, then sleeping in short steps.
  virtual bool wait_for(double seconds);
  // The clock's time at which it completes, where that is known when it is
  // recorded (a simulated device's); < 0 elsewhere.
  virtual double due_s() const { return -1; }
  // What a queue waits for on the device: the event itself, or for one that
  // stands for an event recorded later (several commands' completion in one
  // record), the recorded event once there is one, else null.
  virtual Event* recorded() { return this; }
  // The device's time from `start` to this event, both recorded by
  // Queue::record_timed on one queue and both complete: what the commands
  // between them took on the device, without the host's delay in seeing
  // them end. < 0 where that is not known.
  virtual double seconds_since(Event& start) {
    (void)start;
    return -1;
  }
};
using EventPtr = std::shared_ptr<Event>;

// Puts a thread to sleep until another wakes it. unpark() before park()
// makes the next park() return at once; park() may also return spuriously.
class Parker {
 public:
  virtual ~Parker() = default;
  virtual void park() = 0;
  virtual void unpark() = 0;
  // As park(), and returns once the clock reaches `t` too: for a virtual
  // clock's parkers, whose events say when they complete (Event::due_s).
  virtual void park_until(double t) {
    (void)t;
    park();
  }
};

// Time as a set of devices sees it: the host's steady clock for hardware,
// a virtual clock for simulated devices. Devices of one Runtime share one.
class Clock {
 public:
  virtual ~Clock() = default;
  virtual double now() const = 0;  // seconds
  virtual bool is_virtual() const { return false; }
  // A parker for a device's worker thread (worker) or for a host thread
  // that waits for tasks to finish.
  virtual std::unique_ptr<Parker> make_parker(bool worker) = 0;
  // Called before a device's worker thread is started, on the thread that
  // starts it, with the worker's parker: from then on it counts as running
  // (virtual time must not pass the work it is about to take up while it is
  // still starting).
  virtual void worker_starting(Parker& worker) { (void)worker; }
  // Called on a device's worker thread when it starts and before it ends.
  virtual void attach_worker(Parker& worker) { (void)worker; }
  virtual void detach_worker() {}
  // Called on a host thread that is done with the devices, before it joins
  // their workers (a virtual clock's host threads take turns with them).
  virtual void host_leaving() {}
};
// The host's steady clock, with futex-based parkers.
Clock& host_clock();

// A device's queues. `side` is a second compute queue: short kernels that
// must not wait behind the long ones on `compute` (a collective's sums while
// backward runs) go there, as NCCL's kernels go on a stream of their own.
// A backend with one compute queue may return it for `side`.
enum class QueueRole : std::uint8_t { compute, copy_in, copy_out, side };
inline constexpr int kQueueRoles = 4;

// Host memory at one end of a transfer: pageable, or pinned (allocated or
// registered by the HostAllocator in use), which a GPU's copy engines reach
// directly.
enum class HostKind : std::uint8_t { pageable, pinned };

// An in-order queue of commands on one device.
class Queue {
 public:
  virtual ~Queue() = default;
  // Host <-> device transfers; `host` stays valid until the queue passes this
  // point. The caller says whether the host memory is pinned: a pointer alone
  // cannot tell (a registration may cover the first bytes and not the rest).
  virtual void write(DeviceMemory dst, std::size_t dst_offset, const void* host, std::size_t bytes,
                     HostKind kind) = 0;
  virtual void read(void* host, DeviceMemory src, std::size_t src_offset, std::size_t bytes,
                    HostKind kind) = 0;
  // Copy within this device's memory.
  virtual void copy(DeviceMemory dst, std::size_t dst_offset, DeviceMemory src,
                    std::size_t src_offset, std::size_t bytes) = 0;
  virtual void launch(const Kernel& kernel, Span span, const KernelArgs& args) = 0;
  virtual EventPtr record() = 0;
  // An event that Event::seconds_since can time against another of this
  // queue (CUDA's timing events, dearer than record()'s); null where the
  // queue cannot time its commands.
  virtual EventPtr record_timed() { return nullptr; }
  // Later commands of this queue start after `event` completes.
  virtual void wait(const EventPtr& event) = 0;
  // True when wait(event) orders later commands without blocking the calling
  // thread (a device-side wait), or the event is complete already.
  virtual bool can_wait(const EventPtr& event) { return event->ready(); }
  virtual void finish() = 0;  // block until everything enqueued so far is done
};

// Where buffers' host copies live. The default is pageable memory; a GPU
// backend offers pinned memory, which the copy engines read and write at
// link speed with no staging copy through the CPU.
class HostAllocator {
 public:
  virtual ~HostAllocator() = default;
  // Throws Error(out_of_memory) naming `who`.
  virtual DeviceMemory allocate(const std::string& who, std::size_t bytes) = 0;
  virtual void release(DeviceMemory memory) = 0;
  // Makes memory the caller allocated ready for the copy engines, in place,
  // where the backend can (pinning it); false where it stays pageable.
  virtual bool register_memory(void* p, std::size_t bytes) {
    (void)p, (void)bytes;
    return false;
  }
  virtual void unregister_memory(void* p) { (void)p; }
  // What it hands out: "pageable", "pinned (cuMemHostAlloc) up to 64 GiB, then pageable".
  virtual std::string describe() const = 0;
};

class Device {
 public:
  virtual ~Device() = default;
  const DeviceInfo& info() const { return info_; }
  const std::string& name() const { return info_.name; }

  virtual DeviceMemory allocate(std::size_t bytes) = 0;  // throws Errc::out_of_memory
  // Only once no enqueued work uses `memory` any more: a caching allocator
  // may hand the block out again at once.
  virtual void release(DeviceMemory memory) = 0;
  virtual Queue& queue(QueueRole role) = 0;
  // The clock this device's work is timed by.
  virtual Clock& clock() { return host_clock(); }

  // Bytes of this device's memory that the runtime's buffers hold (replicas,
  // per-device instances, tables), now and at the most so far. The memory
  // layer counts what it allocates and releases through the device; memory a
  // kernel takes for itself (a GEMM's workspace) is not in it.
  void count_held(std::int64_t delta) {
    const std::uint64_t now = held_.fetch_add(std::uint64_t(delta)) + std::uint64_t(delta);
    std::uint64_t peak = peak_held_.load();
    while (now > peak && !peak_held_.compare_exchange_weak(peak, now)) {
    }
  }
  std::uint64_t held_bytes() const { return held_.load(); }
  std::uint64_t peak_held_bytes() const { return peak_held_.load(); }
  void reset_peak_held() { peak_held_.store(held_.load()); }

  // Called once on the host worker thread that drives this device, before any
  // other call from it (a CUDA backend makes its context current here).
  virtual void bind_thread() {}
  // The queue that copies from `peer` into this device go down: the copy-in
  // queue, unless the path from `peer` works side by side with the host's
  // (a node's NVLink and a network adapter do), and then one of its own, so
  // that copies over one link do not wait for those over another.
  virtual Queue& copy_in_from(const Device& peer) {
    (void)peer;
    return queue(QueueRole::copy_in);
  }
  // Enqueue on `q` (one of this device's queues) a copy from a peer device's
  // memory into ours. False when there is no direct path: the caller then
  // stages through host memory.
  virtual bool copy_from_peer(Queue& q, DeviceMemory dst, std::size_t dst_offset, Device& peer,
                              DeviceMemory src, std::size_t src_offset, std::size_t bytes) {
    (void)q, (void)dst, (void)dst_offset, (void)peer, (void)src, (void)src_offset, (void)bytes;
    return false;
  }
  // True where this device runs any work alone exactly as `other` would: a
  // simulated twin (same speeds, memory and links to host, no changes over
  // time), whose alone run a benchmark need not repeat. Real devices never.
  virtual bool twin_of(const Device& other) const {
    (void)other;
    return false;
  }
  // GB/s of copy_from_peer's path from `peer` into this device, 0 where it
  // has none or does not say: the coherence reads from the nearest holder.
  virtual double peer_gbps(const Device& peer) const {
    (void)peer;
    return 0;
  }

 protected:
  explicit Device(DeviceInfo info) : info_(std::move(info)) {}
  DeviceInfo info_;

 private:
  std::atomic<std::uint64_t> held_{0}, peak_held_{0};
};

}  // namespace baton
