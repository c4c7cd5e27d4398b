// Running one span of a parallel_for on one device: make its inputs valid
// there, launch, and (on completion) record what it wrote and copy that back to
// host memory behind the next chunks' compute.
#pragma once

#include <vector>

#include "baton/args.hpp"
#include "baton/device.hpp"
#include "baton/stats.hpp"

namespace baton::detail {

struct InFlight {
  Span span;
  EventPtr done;
  double started = 0;
};

class Dispatch {
 public:
  // Throws Error(invalid_argument) for arguments parallel_for cannot split
  // (a whole-buffer write, a partitioned buffer too small for the range).
  Dispatch(const Kernel& kernel, std::vector<RunArg> args, std::uint64_t items, bool write_back);

  InFlight start(Device& dev, DeviceStats& stats, Span span, double now);
  // After `f.done` completed: dev's node becomes the holder of what the span
  // wrote; the copy back to host is enqueued and its event kept in `pending`.
  void finish(Device& dev, DeviceStats& stats, const InFlight& f, std::vector<EventPtr>& pending);

  // Bytes a span moves per item (partitioned buffers it reads), for ws-topo.
  double bytes_per_item() const;
  const Kernel& kernel() const { return kernel_; }

 private:
  Span region(const BufferArg& b, Span span) const;  // bytes of b that span touches

  Kernel kernel_;
  std::vector<RunArg> args_;
  bool write_back_;
};

}  // namespace baton::detail
