#include "resource/link_probe.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <utility>

#include "baton/error.hpp"

namespace baton::detail {
namespace {

// Host memory for the copies: from the set's allocator (pinned on a GPU
// host), else plain.
class HostBlock {
 public:
  HostBlock(DeviceSet& set, std::size_t bytes) : set_(set) {
    if (set.host_memory) {
      mem_ = set.host_memory->allocate("baton topo --probe", bytes);
      kind_ = mem_.pinned ? HostKind::pinned : HostKind::pageable;
      ptr_ = mem_.ptr;
    } else {
      plain_.resize(bytes);
      ptr_ = plain_.data();
    }
    std::memset(ptr_, 1, bytes);
  }
  ~HostBlock() {
    if (set_.host_memory) set_.host_memory->release(mem_);
  }
  HostBlock(const HostBlock&) = delete;
  HostBlock& operator=(const HostBlock&) = delete;
  void* ptr() const { return ptr_; }
  HostKind kind() const { return kind_; }

 private:
  DeviceSet& set_;
  DeviceMemory mem_{};
  std::vector<char> plain_;
  void* ptr_ = nullptr;
  HostKind kind_ = HostKind::pageable;
};

// Blocks of device memory, given back however the probe ends.
class DeviceBlocks {
 public:
  DeviceBlocks() = default;
  ~DeviceBlocks() {
    for (auto& [dev, mem] : held_) dev->release(mem);
  }
  DeviceBlocks(const DeviceBlocks&) = delete;
  DeviceBlocks& operator=(const DeviceBlocks&) = delete;
  DeviceMemory add(Device& d, std::size_t bytes) {
    held_.emplace_back(&d, d.allocate(bytes));
    return held_.back().second;
  }

 private:
  std::vector<std::pair<Device*, DeviceMemory>> held_;
};

// GB/s of the best of `reps` runs of `copy` (which enqueues on `q`), timed on
// `clock` until `q` finishes.
double best_gbps(Clock& clock, Queue& q, std::size_t bytes, int reps,
                 const std::function<void()>& copy) {
  double best = 0;
  for (int r = 0; r < reps; ++r) {
    q.finish();
    const double t0 = clock.now();
    copy();
    q.finish();
    const double s = clock.now() - t0;
    if (s > 0) best = std::max(best, double(bytes) / s / 1e9);
  }
  return best;
}

LinkMeasure measure(const Topology& t, const std::string& from_node, const std::string& to_node,
                    std::string from, std::string to, std::string route, double gbps) {
  LinkMeasure m{std::move(from), std::move(to), std::move(route), 0, "none", gbps, false};
  if (auto p = t.path(from_node, to_node)) {
    m.nominal_gbps = p->gbps;
    m.kind = std::string(to_string(p->worst));
    m.slow = gbps < 0.5 * p->gbps;
  }
  return m;
}

}  // namespace

std::vector<LinkMeasure> probe_links(DeviceSet& set, std::size_t bytes, int reps) {
  if (bytes == 0 || reps < 1)
    raise(Errc::invalid_argument, "--probe", "needs bytes and repetitions above 0");
  std::vector<LinkMeasure> out;
  HostBlock host(set, bytes);
  DeviceBlocks blocks;
  std::vector<DeviceMemory> mem;
  for (auto& d : set.devices) mem.push_back(blocks.add(*d, bytes));
  // Devices in host memory (the cpu device) have no link of their own to measure.
  auto remote = [&](std::size_t i) { return set.devices[i]->info().memory_node != kHostNode; };
  for (std::size_t i = 0; i < set.devices.size(); ++i) {
    if (!remote(i)) continue;
    Device& d = *set.devices[i];
    const std::string id = d.info().topology_id;
    Queue& in = d.queue(QueueRole::copy_in);
    Queue& back = d.queue(QueueRole::copy_out);
    const double w = best_gbps(d.clock(), in, bytes, reps,
                               [&] { in.write(mem[i], 0, host.ptr(), bytes, host.kind()); });
    out.push_back(measure(set.topology, "host", id, "host", d.name(), "direct", w));
    const double r = best_gbps(d.clock(), back, bytes, reps,
                               [&] { back.read(host.ptr(), mem[i], 0, bytes, host.kind()); });
    out.push_back(measure(set.topology, id, "host", d.name(), "host", "direct", r));
  }
  for (std::size_t i = 0; i < set.devices.size(); ++i)
    for (std::size_t j = 0; j < set.devices.size(); ++j) {
      Device &src = *set.devices[i], &dst = *set.devices[j];
      if (!remote(i) || !remote(j) || src.info().memory_node == dst.info().memory_node) continue;
      Queue& in = dst.queue(QueueRole::copy_in);
      bool peer = true;
      const double g = best_gbps(dst.clock(), in, bytes, reps, [&] {
        peer = dst.copy_from_peer(in, mem[j], 0, src, mem[i], 0, bytes);
        if (!peer) {  // through host memory, as the coherence stages it
          Queue& out_q = src.queue(QueueRole::copy_out);
          out_q.read(host.ptr(), mem[i], 0, bytes, host.kind());
          out_q.finish();
          in.write(mem[j], 0, host.ptr(), bytes, host.kind());
        }
      });
      out.push_back(measure(set.topology, src.info().topology_id, dst.info().topology_id,
                            src.name(), dst.name(), peer ? "peer" : "via host", g));
    }
  return out;
}

// The host link a device's copies cross, by name: one it shares with
// devices of other nodes, else its node's.
static std::string host_link_of(const DeviceInfo& info) {
  return info.host_link.empty() ? info.topology_id : info.host_link;
}

std::vector<LinkMeasure> probe_host_links_both_ways(DeviceSet& set, std::size_t bytes, int reps) {
  if (bytes == 0 || reps < 1)
    raise(Errc::invalid_argument, "--probe", "needs bytes and repetitions above 0");
  std::vector<LinkMeasure> out;
  HostBlock host(set, 2 * bytes);  // the first half goes in, the second comes home
  char* from = static_cast<char*>(host.ptr());
  std::vector<std::string> seen;  // host links measured
  for (auto& dev : set.devices) {
    Device& d = *dev;
    const std::string id = d.info().topology_id, link = host_link_of(d.info());
    if (d.info().memory_node == kHostNode ||
        std::find(seen.begin(), seen.end(), link) != seen.end())
      continue;
    seen.push_back(link);
    DeviceBlocks blocks;
    const DeviceMemory a = blocks.add(d, bytes), b = blocks.add(d, bytes);
    Queue& in = d.queue(QueueRole::copy_in);
    Queue& back = d.queue(QueueRole::copy_out);
    const double g = best_gbps(d.clock(), back, bytes, reps, [&] {
      in.write(a, 0, from, bytes, host.kind());
      back.read(from + bytes, b, 0, bytes, host.kind());
      in.finish();  // best_gbps waits for `back`
    });
    out.push_back(measure(set.topology, "host", id, "host", d.name(), "both ways", g));
  }
  return out;
}

}  // namespace baton::detail
