#include "submit/launch.hpp"

#include <algorithm>
#include <limits>

#include "baton/error.hpp"
#include "memory/coherence.hpp"

namespace baton::detail {

namespace {

bool reads(Access a) {
  return a != Access::out;
}
bool writes(Access a) {
  return a != Access::in;
}

}  // namespace

Span byte_region(const BufferArg& b, Span span) {
  const std::uint64_t es = b.element_size;
  if (b.part.per_item > 0)
    return {span.begin * b.part.per_item * es, span.end * b.part.per_item * es};
  const std::uint64_t elements = b.state->bytes() / es;
  return {std::min(b.part.begin, elements) * es, std::min(b.part.end, elements) * es};
}

void check_args(const Kernel& kernel, const std::vector<RunArg>& args, Range range, bool spread,
                const void* owner) {
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  if (range.n == 0) raise(Errc::invalid_argument, kernel.name(), "the range is empty");
  if (range.first > kMax - range.n)
    raise(Errc::invalid_argument, kernel.name(), "the range's items overflow 64 bits");
  if (args.empty()) return;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (!args[i].is_buffer) continue;
    const BufferArg& b = args[i].buffer;
    // Named only when something is wrong: this runs for every submission.
    auto where = [&] {
      return "argument " + std::to_string(i) + " of kernel '" + kernel.name() + "'";
    };
    if (!b.state) raise(Errc::invalid_argument, where(), "empty buffer");
    if (b.state->owner() != owner)
      raise(Errc::invalid_argument, where(), "a buffer made by another Runtime was passed");
    if (b.state->instances()) continue;  // local(), instances(): whole instances, no part to check
    const std::uint64_t elements = b.state->bytes() / b.element_size;
    if (b.part.per_item == 0) {
      const bool whole = b.part.begin == 0 && b.part.end == kMax;
      if (!whole && (b.part.begin >= b.part.end || b.part.end > elements))
        raise(Errc::invalid_argument, where(),
              "elements [" + std::to_string(b.part.begin) + ", " + std::to_string(b.part.end) +
                  ") are not a part of a buffer of " + std::to_string(elements) + " elements");
      if (spread && writes(b.mode))
        raise(Errc::invalid_argument, where(),
              "a whole-buffer or fixed-part write cannot be split over devices: give it a "
              "per-item part, or run the task on one device");
      continue;
    }
    const std::uint64_t end = range.first + range.n;
    if (end > elements / b.part.per_item)
      raise(Errc::invalid_argument, where(),
            "buffer of " + std::to_string(elements) + " elements is too small for items up to " +
                std::to_string(end) + " x " + std::to_string(b.part.per_item) + " per item");
  }
}

void accesses_of(const std::vector<RunArg>& args, Span items, int pinned, int devices,
                 std::vector<ByteAccess>& out) {
  out.clear();
  for (const RunArg& a : args) {
    if (!a.is_buffer) continue;
    if (a.buffer.state->instances()) {
      const std::uint64_t n = a.buffer.state->bytes();
      const bool own = a.buffer.mode != Access::in && pinned >= 0;
      const std::uint64_t first = own ? std::uint64_t(pinned) : 0;
      const std::uint64_t count = own ? 1 : std::uint64_t(devices);
      out.push_back({a.buffer.state.get(), first * n, (first + count) * n, writes(a.buffer.mode)});
      continue;
    }
    const Span r = byte_region(a.buffer, items);
    out.push_back({a.buffer.state.get(), r.begin, r.end, writes(a.buffer.mode)});
  }
}

double bytes_per_item(const std::vector<RunArg>& args) {
  double bytes = 0;
  for (const RunArg& a : args)
    if (a.is_buffer && a.buffer.part.per_item > 0 && reads(a.buffer.mode))
      bytes += double(a.buffer.part.per_item * a.buffer.element_size);
  return bytes;
}

void prepare(Device& dev, int index, int devices, const std::vector<RunArg>& args, Span items,
             std::uint64_t unused, Prepared& p) {
  p.launch.resize(args.size());
  p.waits.clear();
  p.bytes_in = 0;
  Queue& copy_in = dev.queue(QueueRole::copy_in);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const RunArg& a = args[i];
    if (!a.is_buffer) {
      p.launch[i] = a.scalar;
      continue;
    }
    BufferState& s = *a.buffer.state;
    LaunchArg& l = p.launch[i];
    l.kind = LaunchArg::Kind::buffer;
    l.element_size = a.buffer.element_size;
    if (unused >> i & 1) {
      l.memory = DeviceMemory{};
    } else if (DeviceInstances* local = s.instances()) {
      // baton::local(): its own instance; baton::instances(): the table of all.
      l.memory = a.buffer.mode == Access::in ? local->table(dev, devices, copy_in, p.waits)
                                             : local->acquire(dev, index, copy_in, p.waits);
    } else if (reads(a.buffer.mode)) {
      const Span r = byte_region(a.buffer, items);
      const Transfer t = s.acquire(dev, copy_in, r.begin, r.end, p.waits);
      p.bytes_in += t.bytes_in;
      l.memory = t.memory;
    } else {
      l.memory = s.replica(dev);
    }
    if (writes(a.buffer.mode) && !s.instances() && !(unused >> i & 1) &&
        dev.info().memory_node == kHostNode) {
      const Span r = byte_region(a.buffer, items);
      s.claim_host(r.begin, r.end, p.waits);
    }
  }
}

std::uint64_t record_writes(Device& dev, const std::vector<RunArg>& args, Span items,
                            std::uint64_t unused, const EventPtr& done, bool write_back) {
  // Writes to host memory were claimed before the launch (prepare).
  if (dev.info().memory_node == kHostNode) return 0;
  std::uint64_t out = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const RunArg& a = args[i];
    if (!a.is_buffer || !writes(a.buffer.mode) || a.buffer.state->instances() || unused >> i & 1)
      continue;
    BufferState& s = *a.buffer.state;
    const Span r = byte_region(a.buffer, items);
    s.written(dev, r.begin, r.end, done);
    if (write_back) {
      s.write_back(dev, dev.queue(QueueRole::copy_out), r.begin, r.end, done);
      out += r.size();
    }
  }
  return out;
}

}  // namespace baton::detail
