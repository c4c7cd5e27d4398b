// The event of a queue that runs its commands as they are enqueued (cpu, sim):
// complete when recorded. A sim event also carries its virtual completion time.
#pragma once

#include "baton/device.hpp"

namespace baton::detail {

class CompletedEvent final : public Event {
 public:
  explicit CompletedEvent(double sim_time = 0.0) : sim_time_(sim_time) {}
  void wait() override {}
  bool ready() override { return true; }
  double sim_time() const override { return sim_time_; }

 private:
  double sim_time_;
};

}  // namespace baton::detail
