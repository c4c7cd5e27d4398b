#include "device/opencl/opencl_event.hpp"

#include "device/opencl/cl_error.hpp"

namespace baton::detail::opencl {

void ClEvent::wait() {
  check(clWaitForEvents(1, &event_), "clWaitForEvents", where_);
}

bool ClEvent::ready() {
  cl_int status = CL_QUEUED;
  check(clGetEventInfo(event_, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr),
        "clGetEventInfo", where_);
  // A negative execution status is the error code of the command that failed.
  if (status < 0) fail(status, "command before the event", where_);
  return status == CL_COMPLETE;
}

}  // namespace baton::detail::opencl
