// Building KernelArgs by hand, as the runtime does, for the OpenCL tests.
#pragma once

#include <cstring>
#include <vector>

#include "baton/kernel.hpp"

namespace baton::test {

inline LaunchArg buffer_arg(DeviceMemory memory, std::size_t element_size) {
  LaunchArg a;
  a.kind = LaunchArg::Kind::buffer;
  a.memory = memory;
  a.element_size = element_size;
  return a;
}

template <class T>
LaunchArg scalar_arg(T value) {
  static_assert(sizeof(T) <= sizeof(LaunchArg::value));
  LaunchArg a;
  std::memcpy(a.value, &value, sizeof value);
  a.value_size = sizeof value;
  return a;
}

}  // namespace baton::test
