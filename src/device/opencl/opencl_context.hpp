// One cl_context per platform, shared by the devices baton opened on it: in
// one context, queues of different devices can wait on each other's events
// on the device side and copy between each other's buffers.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "device/opencl/program_cache.hpp"
#include "vendor/opencl/cl_api.hpp"

namespace baton::detail::opencl {

class ClContext {
 public:
  // `where` labels errors of the context itself ("opencl0": the platform).
  ClContext(cl_platform_id platform, const std::vector<cl_device_id>& devices, std::string where);

  cl_context handle() const { return context_.get(); }
  ProgramCache& programs() { return programs_; }
  const ProgramCache& programs() const { return programs_; }

 private:
  struct Release {
    void operator()(cl_context c) const { clReleaseContext(c); }
  };
  std::unique_ptr<_cl_context, Release> context_;
  ProgramCache programs_;  // its programs are released before the context (declared after it)
};

}  // namespace baton::detail::opencl
