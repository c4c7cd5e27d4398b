// A kernel argument as the runtime carries it: a buffer access or a scalar's bytes.
#pragma once

#include "baton/buffer.hpp"
#include "baton/kernel.hpp"

namespace baton::detail {

struct RunArg {
  bool is_buffer = false;
  BufferArg buffer;  // is_buffer
  LaunchArg scalar;  // !is_buffer
};

}  // namespace baton::detail
