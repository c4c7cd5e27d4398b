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

// The address of `name` in `lib`; null where it has none.
void* symbol(const Library& lib, const char* name);

// Sets `fn` to `lib`'s function `name`; where the library lacks it, `fn` is
// null and `error` says so ("<what> lacks <name>").
template <class Fn>
void resolve(const Library& lib, Fn& fn, const char* name, const char* what, std::string& error) {
  fn = reinterpret_cast<Fn>(symbol(lib, name));
  if (!fn) error = std::string(what) + " lacks " + name;
}

}  // namespace baton::cuda
