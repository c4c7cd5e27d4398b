#include "device/opencl/program_cache.hpp"

#include <vector>

#include "baton/error.hpp"
#include "device/opencl/cl_error.hpp"
#include "device/opencl/opencl_platforms.hpp"

namespace baton::detail::opencl {

namespace {

std::vector<cl_device_id> program_devices(cl_program program, const std::string& where) {
  cl_uint count = 0;
  check(clGetProgramInfo(program, CL_PROGRAM_NUM_DEVICES, sizeof count, &count, nullptr),
        "clGetProgramInfo", where);
  std::vector<cl_device_id> devices(count);
  check(clGetProgramInfo(program, CL_PROGRAM_DEVICES, count * sizeof(cl_device_id), devices.data(),
                         nullptr),
        "clGetProgramInfo", where);
  return devices;
}

// The compiler's messages for every device that produced any, each headed by
// the device's name when the context has several.
std::string build_log(cl_program program, const std::string& where) {
  const std::vector<cl_device_id> devices = program_devices(program, where);
  std::string log;
  for (cl_device_id device : devices) {
    std::size_t size = 0;
    check(clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size),
          "clGetProgramBuildInfo", where);
    std::string text(size, '\0');
    check(clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, text.data(), nullptr),
          "clGetProgramBuildInfo", where);
    while (!text.empty() && (text.back() == '\0' || text.back() == '\n')) text.pop_back();
    if (text.empty()) continue;
    // Appended piece by piece: GCC 12 at -O3 warns falsely (-Wrestrict) on a + b + c here.
    if (devices.size() > 1)
      log.append("[").append(device_string(device, CL_DEVICE_NAME)).append("]\n");
    log.append(text).append("\n");
  }
  return log.empty() ? "(the compiler left no build log)\n" : log;
}

}  // namespace

ProgramCache::~ProgramCache() {
  for (auto& [source, entry] : entries_)
    if (entry->program) clReleaseProgram(entry->program);
}

cl_program ProgramCache::get(const std::string& source, const std::string& kernel,
                             const std::string& where) {
  Entry* entry;
  {
    std::lock_guard lock(mutex_);
    std::unique_ptr<Entry>& slot = entries_[source];
    if (!slot) slot = std::make_unique<Entry>();
    entry = slot.get();
  }
  std::lock_guard lock(entry->mutex);
  if (!entry->done) build(*entry, source, where);
  if (!entry->program)
    raise(Errc::compile_failed, where, "kernel '" + kernel + "': " + entry->error);
  return entry->program;
}

std::size_t ProgramCache::builds() const {
  std::lock_guard lock(mutex_);
  return builds_;
}

void ProgramCache::build(Entry& entry, const std::string& source, const std::string& where) {
  const char* text = source.c_str();
  const std::size_t length = source.size();
  cl_int status = CL_SUCCESS;
  cl_program program = clCreateProgramWithSource(context_, 1, &text, &length, &status);
  check(status, "clCreateProgramWithSource", where);
  {
    std::lock_guard lock(mutex_);
    ++builds_;
  }
  status = clBuildProgram(program, 0, nullptr, "", nullptr, nullptr);
  if (status == CL_SUCCESS) {
    entry.program = program;
    entry.done = true;
    return;
  }
  if (status != CL_BUILD_PROGRAM_FAILURE && status != CL_COMPILER_NOT_AVAILABLE) {
    clReleaseProgram(program);
    fail(status, "clBuildProgram", where);  // not a verdict on the source: retried next time
  }
  std::string log;
  try {
    log = build_log(program, where);
  } catch (...) {
    clReleaseProgram(program);
    throw;
  }
  clReleaseProgram(program);
  entry.error = cl_failure("clBuildProgram", status) + "; build log:\n" + log;
  entry.done = true;
}

}  // namespace baton::detail::opencl
