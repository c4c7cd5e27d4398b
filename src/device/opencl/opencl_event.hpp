// A point in an OpenCL queue: a marker's cl_event. Queues of the same context
// wait on it on the device side; anything else waits on the host.
#pragma once

#include <string>

#include "baton/device.hpp"
#include "vendor/opencl/cl_api.hpp"

namespace baton::detail::opencl {

class ClEvent final : public Event {
 public:
  // Takes over the reference `event` carries (as returned by clEnqueue*).
  ClEvent(cl_event event, cl_context context, std::string where)
      : event_(event), context_(context), where_(std::move(where)) {}
  ~ClEvent() override { clReleaseEvent(event_); }
  ClEvent(const ClEvent&) = delete;
  ClEvent& operator=(const ClEvent&) = delete;

  // Both throw Error(device_failed) when a command before the marker failed.
  void wait() override;
  bool ready() override;

  cl_event handle() const { return event_; }
  cl_context context() const { return context_; }

 private:
  cl_event event_;
  cl_context context_;
  std::string where_;  // the device whose queue recorded the event
};

}  // namespace baton::detail::opencl
