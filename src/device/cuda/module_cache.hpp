// Loaded kernel code of one context: a CUfunction per Kernel (by id), from
// the kernel's image (fatbin, cubin or PTX) or compiled from its source with
// NVRTC on first use. Modules are unloaded with the cache.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "baton/kernel.hpp"
#include "device/cuda/context.hpp"

namespace baton::cuda {

class ModuleCache {
 public:
  ModuleCache(std::shared_ptr<Context> ctx, std::string where);
  ~ModuleCache();
  ModuleCache(const ModuleCache&) = delete;
  ModuleCache& operator=(const ModuleCache&) = delete;

  // The kernel's entry point in this context; `code` is kernel.cuda_code().
  CUfunction function(const Kernel& kernel, const GpuCode& code);

 private:
  CUmodule load(const Kernel& kernel, const GpuCode& code);

  std::shared_ptr<Context> ctx_;
  std::string where_;
  std::mutex mu_;
  std::unordered_map<std::uint64_t, CUfunction> functions_;
  std::vector<CUmodule> modules_;
};

}  // namespace baton::cuda
