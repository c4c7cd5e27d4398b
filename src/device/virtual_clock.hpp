// Devices whose time is virtual (sim). The sim executor moves each one's clock
// to the moment its worker takes the next chunk; its queues advance it.
#pragma once

namespace baton::detail {

class VirtualClock {
 public:
  virtual ~VirtualClock() = default;
  virtual double now() const = 0;
  virtual void set_now(double t) = 0;
};

}  // namespace baton::detail
