// Built OpenCL programs of one context, keyed by their source text: every
// Kernel whose OpenCL C is the same text (the built-in kernels share one
// source) costs one clBuildProgram per context, which is about a second on
// PoCL. Queues then make their own cl_kernel objects from the program.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "vendor/opencl/cl_api.hpp"

namespace baton::detail::opencl {

class ProgramCache {
 public:
  explicit ProgramCache(cl_context context) : context_(context) {}
  ~ProgramCache();
  ProgramCache(const ProgramCache&) = delete;
  ProgramCache& operator=(const ProgramCache&) = delete;

  // The program built from `source` for every device of the context; built on
  // first use. A failed build is remembered: it throws Error(compile_failed),
  // with the build log, on every call. Thread-safe; different sources build
  // concurrently. `kernel` and `where` only label errors.
  cl_program get(const std::string& source, const std::string& kernel, const std::string& where);

  // clBuildProgram calls made so far (for tests of the caching).
  std::size_t builds() const;

 private:
  struct Entry {
    std::mutex mutex;  // held while the program builds
    bool done = false;
    cl_program program = nullptr;
    std::string error;  // the build failure, when there was one
  };
  void build(Entry& entry, const std::string& source, const std::string& where);

  cl_context context_;
  mutable std::mutex mutex_;  // guards entries_ and builds_
  std::unordered_map<std::string, std::unique_ptr<Entry>> entries_;
  std::size_t builds_ = 0;
};

}  // namespace baton::detail::opencl
