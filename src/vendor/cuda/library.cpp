#include "vendor/cuda/library.hpp"

#include <dlfcn.h>

namespace baton::cuda {

Library open_library(std::initializer_list<const char*> sonames) {
  Library lib;
  for (const char* name : sonames) {
    for (const std::string& path :
         {std::string(name), std::string(BATON_CUDA_LIB_DIR) + "/" + name}) {
      if ((lib.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))) return lib;
      lib.error += (lib.error.empty() ? "" : "; ") + std::string(dlerror());
    }
  }
  return lib;
}

void* symbol(const Library& lib, const char* name) {
  return dlsym(lib.handle, name);
}

}  // namespace baton::cuda
