// dlopen of the CUDA toolkit's run-time libraries (NVRTC, cuBLAS): by soname
// first, so LD_LIBRARY_PATH and the system's paths win, then from the
// toolkit baton was built against.
#pragma once

#include <initializer_list>
#include <string>

namespace baton::cuda {

struct Library {
  void* handle = nullptr;  // null when none could be opened
  std::string error;       // why, when null: every name tried and dlerror's text
};

Library open_library(std::initializer_list<const char*> sonames);

}  // namespace baton::cuda
