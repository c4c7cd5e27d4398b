// One cl_context per platform, shared by the devices baton opened on it: in
// one context, queues of different devices can wait on each other's events
// on the device side and copy between each other's buffers.
#pragma once

#include <string>
#include <vector>

#include "device/opencl/cl_api.hpp"
#include "device/opencl/program_cache.hpp"

namespace baton::detail::opencl {

class ClContext {
 public:
  // `where` labels errors of the context itself ("opencl0": the platform).
  ClContext(cl_platform_id platform, const std::vector<cl_device_id>& devices, std::string where);
  ~ClContext();
  ClContext(const ClContext&) = delete;
  ClContext& operator=(const ClContext&) = delete;

  cl_context handle() const { return context_; }
  ProgramCache& programs() { return programs_; }
  const ProgramCache& programs() const { return programs_; }

 private:
  cl_context context_ = nullptr;
  ProgramCache programs_;  // released before the context (declared after it)
};

}  // namespace baton::detail::opencl
