#include "device/cuda/nvrtc.hpp"

#include <nvrtc.h>

#include "baton/error.hpp"
#include "vendor/cuda/library.hpp"

namespace baton::cuda {
namespace {

#define BATON_NVRTC_FUNCTIONS(X) \
  X(nvrtcGetErrorString)         \
  X(nvrtcCreateProgram)          \
  X(nvrtcDestroyProgram)         \
  X(nvrtcCompileProgram)         \
  X(nvrtcGetProgramLogSize)      \
  X(nvrtcGetProgramLog)          \
  X(nvrtcGetCUBINSize)           \
  X(nvrtcGetCUBIN)

struct Nvrtc {
#define BATON_NVRTC_DECLARE(name) decltype(&::name) name = nullptr;
  BATON_NVRTC_FUNCTIONS(BATON_NVRTC_DECLARE)
#undef BATON_NVRTC_DECLARE
  std::string error;  // why it could not be loaded; empty when loaded
};

Nvrtc load() {
  Nvrtc api;
  Library lib = open_library({"libnvrtc.so.13", "libnvrtc.so"});
  if (!lib.handle) {
    api.error = "NVRTC not found (" + lib.error + ")";
    return api;
  }
#define BATON_NVRTC_RESOLVE(name) resolve(lib, api.name, #name, "NVRTC", api.error);
  BATON_NVRTC_FUNCTIONS(BATON_NVRTC_RESOLVE)
#undef BATON_NVRTC_RESOLVE
  return api;
}

const Nvrtc& nvrtc() {
  static const Nvrtc api = load();
  return api;
}

}  // namespace

std::vector<char> nvrtc_compile(const std::string& source, const std::string& kernel, int cc_major,
                                int cc_minor) {
  const Nvrtc& n = nvrtc();
  if (!n.error.empty())
    raise(Errc::compile_failed, kernel, "cannot compile CUDA source: " + n.error);
  nvrtcProgram prog = nullptr;
  const std::string file = kernel + ".cu";
  nvrtcResult r = n.nvrtcCreateProgram(&prog, source.c_str(), file.c_str(), 0, nullptr, nullptr);
  if (r != NVRTC_SUCCESS)
    raise(Errc::compile_failed, kernel,
          std::string("nvrtcCreateProgram: ") + n.nvrtcGetErrorString(r));
  struct Destroy {
    const Nvrtc& n;
    nvrtcProgram& p;
    ~Destroy() { n.nvrtcDestroyProgram(&p); }
  } destroy{n, prog};

  const std::string arch = "--gpu-architecture=sm_" + std::to_string(cc_major * 10 + cc_minor);
  const char* options[] = {arch.c_str(), "--std=c++17"};
  r = n.nvrtcCompileProgram(prog, 2, options);
  if (r != NVRTC_SUCCESS) {
    std::size_t size = 0;
    std::string log;
    if (n.nvrtcGetProgramLogSize(prog, &size) == NVRTC_SUCCESS && size > 1) {
      log.resize(size);
      n.nvrtcGetProgramLog(prog, log.data());
      log.resize(size - 1);  // the terminating NUL
    }
    raise(Errc::compile_failed, kernel,
          std::string(n.nvrtcGetErrorString(r)) + " (" + arch + ")\n" + log);
  }
  std::size_t size = 0;
  r = n.nvrtcGetCUBINSize(prog, &size);
  std::vector<char> cubin(size);
  if (r == NVRTC_SUCCESS) r = n.nvrtcGetCUBIN(prog, cubin.data());
  if (r != NVRTC_SUCCESS)
    raise(Errc::compile_failed, kernel, std::string("nvrtcGetCUBIN: ") + n.nvrtcGetErrorString(r));
  return cubin;
}

}  // namespace baton::cuda
