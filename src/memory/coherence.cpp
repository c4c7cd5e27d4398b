#include "memory/coherence.hpp"

#include <algorithm>

#include "baton/error.hpp"
#include "device/host_memory.hpp"
#include "memory/held_memory.hpp"

namespace baton::detail {

BufferState::BufferState(std::size_t bytes, const void* owner, HostAccessGuard* guard,
                         std::shared_ptr<HostAllocator> host_memory)
    : bytes_(bytes),
      owner_(owner),
      guard_(guard),
      host_memory_(host_memory ? std::move(host_memory) : pageable_host_memory()) {
  replicas_.resize(1);
  replicas_[0].memory = host_memory_->allocate("buffer", bytes);
  host_ = replicas_[0].memory.ptr;
  replicas_[0].valid.assign(0, bytes, nullptr);
}

BufferState::BufferState(void* user, std::size_t bytes, const void* owner, HostAccessGuard* guard,
                         std::shared_ptr<HostAllocator> host_memory)
    : bytes_(bytes),
      owner_(owner),
      guard_(guard),
      host_memory_(host_memory ? std::move(host_memory) : pageable_host_memory()),
      user_memory_(true) {
  replicas_.resize(1);
  replicas_[0].memory = DeviceMemory{user, 0, bytes};
  replicas_[0].memory.pinned = bytes > 0 && host_memory_->register_memory(user, bytes);
  host_ = user;
  replicas_[0].valid.assign(0, bytes, nullptr);
}

BufferState::BufferState(PerDeviceTag, std::size_t bytes, const void* owner, HostAccessGuard* guard)
    : bytes_(bytes),
      owner_(owner),
      guard_(guard),
      user_memory_(true),  // no host copy to free
      host_(nullptr),
      instances_(std::make_unique<DeviceInstances>(bytes)) {
  replicas_.resize(1);
}

BufferState::~BufferState() {
  // Copies queued for coherence (home, or behind a task) may still read or
  // write this memory: they land before it goes.
  auto land = [](Span, const EventPtr& e) {
    if (!e) return;
    try {
      e->wait();
    } catch (const Error&) {  // a failed device's copy: its memory is moot
    }
  };
  for (auto& r : replicas_) r.valid.for_each(0, bytes_, land);
  home_landing_.for_each(0, bytes_, land);
  for (std::size_t n = 1; n < replicas_.size(); ++n)
    if (replicas_[n].device) release_held(*replicas_[n].device, replicas_[n].memory, bytes_);
  if (!user_memory_)
    host_memory_->release(replicas_[0].memory);
  else if (replicas_[0].memory.pinned)
    host_memory_->unregister_memory(host_);
}

BufferState::Replica& BufferState::at(MemoryNode node) {
  if (node >= static_cast<MemoryNode>(replicas_.size())) replicas_.resize(node + 1);
  return replicas_[node];
}

BufferState::Replica& BufferState::ensure(Device& dev) {
  const MemoryNode node = dev.info().memory_node;
  Replica& r = at(node);
  if (node != kHostNode && !r.device) {
    r.memory = allocate_held(dev, bytes_);
    r.device = &dev;
  }
  return r;
}

MemoryNode BufferState::holder(std::uint64_t at_byte, MemoryNode except, const Device* reader,
                               Span& piece, EventPtr& ready, const std::string& who) const {
  // Host memory first, landed or not: pieces without a direct path are
  // staged there, and a stager that passed over a copy still landing at home
  // would stage it again, and again. Among devices, the nearest (a device of
  // the reader's node before one across a network: waiting for its copy to
  // land costs less than the slower link), and among the nearest one whose
  // copy is there already rather than one still fetching it: reading from
  // that one would wait for its copy too (in an all-gather, copies would
  // chain device after device).
  auto landed = [](const EventPtr& e) {
    try {
      return !e || e->ready();
    } catch (const Error&) {  // a failed device's copy: any other holder first
      return false;
    }
  };
  bool found = false, found_landed = false;
  double found_gbps = 0;
  MemoryNode found_node = kHostNode;
  Span found_piece;
  EventPtr found_ready;
  for (MemoryNode n = 0; n < static_cast<MemoryNode>(replicas_.size()); ++n) {
    if (n == except || !replicas_[n].valid.find(at_byte, piece, ready)) continue;
    if (n == kHostNode) return n;
    const Device* from = replicas_[n].device;
    const double gbps = reader && from ? reader->peer_gbps(*from) : 0.0;
    const bool is_landed = landed(ready);
    if (found && (gbps < found_gbps || (gbps == found_gbps && (found_landed || !is_landed))))
      continue;
    found = true, found_landed = is_landed, found_gbps = gbps;
    found_node = n, found_piece = piece, found_ready = ready;
  }
  if (found) {
    piece = found_piece;
    ready = std::move(found_ready);
    return found_node;
  }
  if (lost_.find(at_byte, piece, ready))
    raise(Errc::device_failed, who,
          "bytes " + std::to_string(piece.begin) + ".." + std::to_string(piece.end) +
              " of a buffer were lost: " + lost_why_);
  raise(Errc::internal, who, "no valid copy of a buffer range");
}

DeviceMemory BufferState::replica(Device& dev) {
  std::lock_guard lock(mu_);
  return ensure(dev).memory;
}

namespace {

// A copy that may still land; one of a failed device lands nothing.
bool in_flight(const EventPtr& e) {
  try {
    return e && !e->ready();
  } catch (const Error&) {
    return false;
  }
}

void add_in_flight(const EventPtr& e, std::vector<EventPtr>& pending) {
  if (in_flight(e) && std::find(pending.begin(), pending.end(), e) == pending.end())
    pending.push_back(e);
}

}  // namespace

void BufferState::take_landing(std::uint64_t b, std::uint64_t e, std::vector<EventPtr>& pending) {
  home_landing_.for_each(b, e,
                         [&](Span, const EventPtr& landing) { add_in_flight(landing, pending); });
  home_landing_.erase(b, e);
}

void BufferState::after_landing(Queue& q, std::uint64_t b, std::uint64_t e) {
  std::vector<EventPtr> older;
  take_landing(b, e, older);
  for (const EventPtr& ev : older) q.wait(ev);
}

EventPtr BufferState::to_host(Replica& src, Span piece, const EventPtr& src_ready) {
  Queue& out = src.device->queue(QueueRole::copy_out);
  if (src_ready) out.wait(src_ready);
  after_landing(out, piece.begin, piece.end);
  out.read(static_cast<char*>(host_) + piece.begin, src.memory, piece.begin, piece.size(),
           host_kind());
  EventPtr landed = out.record();
  replicas_[kHostNode].valid.assign(piece.begin, piece.end, landed);
  return landed;
}

Transfer BufferState::acquire(Device& dev, Queue& q, std::uint64_t b, std::uint64_t e,
                              std::vector<EventPtr>& waits) {
  const MemoryNode node = dev.info().memory_node;
  Transfer t;
  for (;;) {
    // Pieces with no direct path go home first, and pageable pieces still
    // landing at home must land; the wait for them happens without the lock
    // (on virtual time, a worker waiting on a mutex would keep the clock
    // from moving), then the gaps are looked at again.
    std::vector<EventPtr> staging;
    {
      std::lock_guard lock(mu_);
      Replica& dst = ensure(dev);
      // The common case, a task reading what the one before it wrote there:
      // one valid piece covers it all.
      Span whole;
      EventPtr ready;
      if (dst.valid.find(b, whole, ready) && whole.end >= e) {
        if (ready && std::find(waits.begin(), waits.end(), ready) == waits.end())
          waits.push_back(std::move(ready));
        t.memory = dst.memory;
        return t;
      }
      std::vector<std::pair<Queue*, Span>> copied;  // on the queue each went down
      char* host = static_cast<char*>(host_);
      for (Span gap : dst.valid.gaps(b, e)) {
        // Cover the gap piece by piece from valid holders, host memory first.
        for (std::uint64_t at_byte = gap.begin; at_byte < gap.end;) {
          Span piece;
          EventPtr ready;
          const MemoryNode from = holder(at_byte, node, &dev, piece, ready, dev.name());
          Span take{at_byte, std::min(gap.end, piece.end)};
          Replica& src = replicas_[from];
          Queue& via = from == kHostNode ? q : dev.copy_in_from(*src.device);
          // Pieces that follow on from the same device over a direct path go
          // in one copy (an all-gather's pieces landed there one by one):
          // each copy pays its path's start-up.
          if (from != kHostNode && dev.peer_gbps(*src.device) > 0)
            for (Span next; take.end < gap.end;) {
              EventPtr next_ready;
              if (holder(take.end, node, &dev, next, next_ready, dev.name()) != from) break;
              if (next_ready) via.wait(next_ready);
              take.end = std::min(gap.end, next.end);
            }
          at_byte = take.end;
          if (from == kHostNode && ready && host_kind() == HostKind::pageable && !ready->ready()) {
            // A copy from pageable memory reads it on the CPU at once, not
            // in queue order: bytes still landing there are waited for first.
            staging.push_back(ready);
            continue;
          }
          if (ready) via.wait(ready);
          if (from == kHostNode) {
            q.write(dst.memory, take.begin, host + take.begin, take.size(), host_kind());
          } else if (!dev.copy_from_peer(via, dst.memory, take.begin, *src.device, src.memory,
                                         take.begin, take.size())) {
            staging.push_back(to_host(src, take, ready));
            continue;
          }
          t.bytes_in += take.size();
          copied.emplace_back(&via, take);
        }
      }
      // One event per queue the copies went down, after its last of them.
      for (std::size_t i = 0; i < copied.size(); ++i) {
        Queue* via = copied[i].first;
        if (std::any_of(copied.begin() + std::ptrdiff_t(i) + 1, copied.end(),
                        [&](const auto& c) { return c.first == via; }))
          continue;
        EventPtr done = node == kHostNode ? nullptr : via->record();
        for (const auto& [on, s] : copied)
          if (on == via) dst.valid.assign(s.begin, s.end, done);
      }
      if (staging.empty()) {
        dst.valid.for_each(b, e, [&](Span, const EventPtr& ready) {
          if (ready && std::find(waits.begin(), waits.end(), ready) == waits.end())
            waits.push_back(ready);
        });
        t.memory = dst.memory;
        return t;
      }
    }
    for (const EventPtr& landed : staging) landed->wait();
  }
}

void BufferState::written(Device& dev, std::uint64_t b, std::uint64_t e, EventPtr ready) {
  std::lock_guard lock(mu_);
  const MemoryNode node = dev.info().memory_node;
  if (node != kHostNode)
    replicas_[kHostNode].valid.for_each(b, e, [&](Span s, const EventPtr& landing) {
      if (in_flight(landing)) home_landing_.assign(s.begin, s.end, landing);
    });
  for (MemoryNode n = 0; n < static_cast<MemoryNode>(replicas_.size()); ++n)
    if (n != node) replicas_[n].valid.erase(b, e);
  at(node).valid.assign(b, e, std::move(ready));
}

void BufferState::claim_host(std::uint64_t b, std::uint64_t e, std::vector<EventPtr>& landing) {
  std::lock_guard lock(mu_);
  Replica& host = replicas_[kHostNode];
  host.valid.for_each(b, e, [&](Span, const EventPtr& ready) { add_in_flight(ready, landing); });
  take_landing(b, e, landing);
  for (std::size_t n = 1; n < replicas_.size(); ++n) replicas_[n].valid.erase(b, e);
  host.valid.assign(b, e, nullptr);
}

EventPtr BufferState::write_back(Device& dev, Queue& q, std::uint64_t b, std::uint64_t e,
                                 const EventPtr& after) {
  std::lock_guard lock(mu_);
  Replica& src = at(dev.info().memory_node);
  if (after) q.wait(after);
  after_landing(q, b, e);
  q.read(static_cast<char*>(host_) + b, src.memory, b, e - b, host_kind());
  EventPtr done = q.record();
  replicas_[kHostNode].valid.assign(b, e, done);
  return done;
}

Transfer BufferState::acquire_host(std::uint64_t b, std::uint64_t e, bool for_write) {
  Transfer t;
  std::vector<EventPtr> pending;
  {
    std::lock_guard lock(mu_);
    Replica& host = replicas_[kHostNode];
    for (Span gap : host.valid.gaps(b, e)) {
      for (std::uint64_t at_byte = gap.begin; at_byte < gap.end;) {
        Span piece;
        EventPtr ready;
        const MemoryNode from = holder(at_byte, kHostNode, nullptr, piece, ready, "host");
        const Span take{at_byte, std::min(gap.end, piece.end)};
        to_host(replicas_[from], take, ready);
        t.bytes_out += take.size();
        at_byte = take.end;
      }
    }
    host.valid.for_each(b, e, [&](Span, const EventPtr& ready) {
      if (ready) pending.push_back(ready);
    });
    if (for_write) take_landing(b, e, pending);
  }
  // Waited for without the lock, as in acquire().
  for (auto& ev : pending) ev->wait();
  if (for_write) {
    std::lock_guard lock(mu_);
    for (std::size_t n = 1; n < replicas_.size(); ++n) replicas_[n].valid.erase(b, e);
    replicas_[kHostNode].valid.assign(b, e, nullptr);
  }
  return t;
}

void BufferState::settle() {
  std::lock_guard lock(mu_);
  for (auto& r : replicas_) r.valid.settle();
  home_landing_.erase_complete();
}

void BufferState::read_instance(Device& dev, int index, void* out) {
  const std::uint64_t b = std::uint64_t(index) * bytes_;
  if (guard_) guard_->before_host_access(*this, b, b + bytes_, false);
  instances_->read(dev, out);
}

void* BufferState::host_access(bool for_write) {
  if (instances_)
    raise(Errc::invalid_argument, "buffer",
          "a per-device buffer has no host copy: read one device's instance");
  if (guard_) guard_->before_host_access(*this, 0, bytes_, for_write);
  acquire_host(0, bytes_, for_write);
  return host_;
}

void BufferState::detach_devices() {
  guard_ = nullptr;
  if (instances_) {
    instances_->release_all();
    return;
  }
  // Bytes lost with a failed device stay as they are in host memory.
  {
    std::lock_guard lock(mu_);
    lost_.for_each(0, bytes_, [&](Span s, const EventPtr&) {
      replicas_[kHostNode].valid.assign(s.begin, s.end, nullptr);
    });
  }
  acquire_host(0, bytes_, true);
  std::lock_guard lock(mu_);
  for (std::size_t n = 1; n < replicas_.size(); ++n)
    if (replicas_[n].device) release_held(*replicas_[n].device, replicas_[n].memory, bytes_);
  replicas_.resize(1);
}

void BufferState::drop_node(MemoryNode node, const std::string& why) {
  std::vector<std::pair<Span, EventPtr>> rescued;  // pieces copied home, and when they land
  Device* device = nullptr;
  DeviceMemory memory;
  {
    std::lock_guard lock(mu_);
    if (node == kHostNode || node >= static_cast<MemoryNode>(replicas_.size())) return;
    Replica& dying = replicas_[node];
    std::vector<std::pair<Span, EventPtr>> pieces;
    dying.valid.for_each(0, bytes_, [&](Span s, const EventPtr& e) { pieces.push_back({s, e}); });
    for (const auto& held_piece : pieces) {
      const Span piece = held_piece.first;
      const EventPtr& ready = held_piece.second;
      // Only what no other node holds needs saving: the gaps other nodes
      // leave in the piece (a copy home over a range another node holds
      // would also overwrite the host's own copy of it).
      std::vector<Span> held;
      for (MemoryNode n = 0; n < static_cast<MemoryNode>(replicas_.size()); ++n)
        if (n != node)
          replicas_[n].valid.for_each(piece.begin, piece.end,
                                      [&](Span s, const EventPtr&) { held.push_back(s); });
      std::sort(held.begin(), held.end(), [](Span a, Span b) { return a.begin < b.begin; });
      std::uint64_t at = piece.begin;
      auto save = [&](std::uint64_t b, std::uint64_t e) {
        if (b >= e) return;
        try {
          rescued.push_back({Span{b, e}, to_host(dying, Span{b, e}, ready)});
        } catch (const Error&) {
          lost_.assign(b, e, nullptr);
          lost_why_ = why;
        }
      };
      for (Span h : held) {
        save(at, std::min(h.begin, piece.end));
        at = std::max(at, h.end);
      }
      save(at, piece.end);
    }
    dying.valid.erase(0, bytes_);
    device = dying.device;
    memory = dying.memory;
    dying = Replica{};
  }
  // The copies home read the device's memory: it is given back only once they
  // landed (given back sooner, it was reused under them, and a piece came home
  // stale). Waited for without the lock, as acquire() waits.
  std::vector<Span> failed;
  for (auto& [piece, landed] : rescued) {
    try {
      landed->wait();
    } catch (const Error&) {
      failed.push_back(piece);
    }
  }
  if (!failed.empty()) {
    std::lock_guard lock(mu_);
    for (Span piece : failed) {
      replicas_[kHostNode].valid.erase(piece.begin, piece.end);
      lost_.assign(piece.begin, piece.end, nullptr);
    }
    lost_why_ = why;
  }
  if (device) {
    try {
      release_held(*device, memory, bytes_);
    } catch (const Error&) {  // a lost device's memory is gone with it
    }
  }
}

void BufferState::rehome(MemoryNode node, Device& dev) {
  std::lock_guard lock(mu_);
  if (node < static_cast<MemoryNode>(replicas_.size()) && replicas_[node].device)
    replicas_[node].device = &dev;
}

std::uint64_t BufferState::valid_bytes(MemoryNode node, std::uint64_t b, std::uint64_t e) {
  std::lock_guard lock(mu_);
  if (node >= static_cast<MemoryNode>(replicas_.size())) return 0;
  std::uint64_t n = 0;
  replicas_[node].valid.for_each(b, e, [&](Span s, const EventPtr&) { n += s.size(); });
  return n;
}

bool BufferState::any_managed() {
  std::lock_guard lock(mu_);
  return std::any_of(replicas_.begin(), replicas_.end(),
                     [](const Replica& r) { return r.memory.managed; });
}

std::vector<MemoryNode> BufferState::holders(std::uint64_t b, std::uint64_t e) {
  std::lock_guard lock(mu_);
  std::vector<MemoryNode> out;
  for (MemoryNode n = 0; n < static_cast<MemoryNode>(replicas_.size()); ++n)
    if (replicas_[n].valid.covers(b, e)) out.push_back(n);
  return out;
}

}  // namespace baton::detail
