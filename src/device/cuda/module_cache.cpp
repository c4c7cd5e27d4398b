#include "device/cuda/module_cache.hpp"

#include <cstring>

#include "device/cuda/nvrtc.hpp"

namespace baton::cuda {
namespace {

// Fatbins and cubins are binary; anything else is taken for PTX text, which
// cuModuleLoadData needs NUL-terminated.
bool is_binary_image(const std::vector<unsigned char>& image) {
  static constexpr unsigned char kElf[] = {0x7f, 'E', 'L', 'F'};
  static constexpr unsigned char kFatbin[] = {0x50, 0xed, 0x55, 0xba};  // 0xba55ed50, little-endian
  return image.size() >= 4 &&
         (std::memcmp(image.data(), kElf, 4) == 0 || std::memcmp(image.data(), kFatbin, 4) == 0);
}

}  // namespace

ModuleCache::ModuleCache(std::shared_ptr<Context> ctx, std::string where)
    : ctx_(std::move(ctx)), where_(std::move(where)) {}

ModuleCache::~ModuleCache() {
  ContextGuard guard(ctx_->handle());
  for (CUmodule m : modules_) driver().cuModuleUnload(m);
}

CUfunction ModuleCache::function(const Kernel& kernel, const GpuCode& code) {
  std::lock_guard lock(mu_);
  if (auto it = functions_.find(kernel.id()); it != functions_.end()) return it->second;
  ContextGuard guard(ctx_->handle());
  CUmodule module = load(kernel, code);
  CUfunction fn = nullptr;
  const std::string call = "cuModuleGetFunction(" + code.entry + ")";
  check(driver().cuModuleGetFunction(&fn, module, code.entry.c_str()), call.c_str(), where_);
  functions_.emplace(kernel.id(), fn);
  return fn;
}

CUmodule ModuleCache::load(const Kernel& kernel, const GpuCode& code) {
  std::vector<char> bytes;
  if (!code.image.empty()) {
    bytes.assign(code.image.begin(), code.image.end());
    if (!is_binary_image(code.image) && bytes.back() != '\0') bytes.push_back('\0');
  } else {
    const GpuProperties& p = ctx_->gpu().props();
    bytes = nvrtc_compile(code.source, kernel.name(), p.cc_major, p.cc_minor);
  }
  CUmodule module = nullptr;
  BATON_CU(where_, cuModuleLoadData, &module, bytes.data());
  modules_.push_back(module);
  return module;
}

}  // namespace baton::cuda
