#include "sched/dispatch.hpp"

#include "baton/error.hpp"
#include "memory/coherence.hpp"

namespace baton::detail {

static bool reads(Access a) {
  return a != Access::out;
}
static bool writes(Access a) {
  return a != Access::in;
}

Dispatch::Dispatch(const Kernel& kernel, std::vector<RunArg> args, std::uint64_t items,
                   bool write_back)
    : kernel_(kernel), args_(std::move(args)), write_back_(write_back) {
  for (std::size_t i = 0; i < args_.size(); ++i) {
    if (!args_[i].is_buffer) continue;
    const BufferArg& b = args_[i].buffer;
    const std::string where =
        "argument " + std::to_string(i) + " of kernel '" + kernel.name() + "'";
    if (!b.state) raise(Errc::invalid_argument, where, "empty buffer");
    if (b.per_item == 0 && writes(b.mode))
      raise(Errc::invalid_argument, where,
            "a whole-buffer write cannot be split over devices: use a partitioned out()/inout()");
    if (b.per_item > 0 && items * b.per_item * b.element_size > b.state->bytes())
      raise(Errc::invalid_argument, where,
            "buffer of " + std::to_string(b.state->bytes() / b.element_size) +
                " elements is too small for " + std::to_string(items) + " items x " +
                std::to_string(b.per_item));
  }
}

Span Dispatch::region(const BufferArg& b, Span span) const {
  if (b.per_item == 0) return {0, b.state->bytes()};
  const std::uint64_t per = b.per_item * b.element_size;
  return {span.begin * per, span.end * per};
}

double Dispatch::bytes_per_item() const {
  double bytes = 0;
  for (const RunArg& a : args_)
    if (a.is_buffer && a.buffer.per_item > 0)
      bytes += double(a.buffer.per_item * a.buffer.element_size);
  return bytes;
}

InFlight Dispatch::start(Device& dev, DeviceStats& stats, Span span, double now) {
  Queue& compute = dev.queue(QueueRole::compute);
  Queue& copy_in = dev.queue(QueueRole::copy_in);
  std::vector<LaunchArg> launch(args_.size());
  std::vector<EventPtr> waits;
  for (std::size_t i = 0; i < args_.size(); ++i) {
    const RunArg& a = args_[i];
    if (!a.is_buffer) {
      launch[i] = a.scalar;
      continue;
    }
    BufferState& s = *a.buffer.state;
    Span r = region(a.buffer, span);
    launch[i].kind = LaunchArg::Kind::buffer;
    launch[i].element_size = a.buffer.element_size;
    if (reads(a.buffer.mode))
      stats.bytes_in += s.acquire(dev, copy_in, r.begin, r.end, waits).bytes_in;
    launch[i].memory = s.replica(dev);
  }
  for (const EventPtr& w : waits) compute.wait(w);
  compute.launch(kernel_, span, KernelArgs(launch));
  return InFlight{span, compute.record(), now};
}

void Dispatch::finish(Device& dev, DeviceStats& stats, const InFlight& f,
                      std::vector<EventPtr>& pending) {
  const bool remote = dev.info().memory_node != kHostNode;
  for (const RunArg& a : args_) {
    if (!a.is_buffer || !writes(a.buffer.mode)) continue;
    BufferState& s = *a.buffer.state;
    Span r = region(a.buffer, f.span);
    s.written(dev, r.begin, r.end, nullptr);
    if (remote && write_back_) {
      pending.push_back(s.write_back(dev, dev.queue(QueueRole::copy_out), r.begin, r.end, nullptr));
      stats.bytes_out += r.size();
    }
  }
}

}  // namespace baton::detail
