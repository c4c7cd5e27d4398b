// The collectives' kernels, with code for every backend. Every call returns
// the same kernel (copies share it), so backends compile its code once.
#pragma once

#include "baton/kernel.hpp"

namespace baton::collective {

// Over items x, to[x] += from[x] (arguments: inout(to), in(from)). On the
// device's side queue (QueueRole::side), beside the compute queue's kernels.
Kernel add_kernel();

// Does nothing (arguments: any, in(...) parts): a task of it on a device
// brings the parts there, an early read of what is needed next.
Kernel touch_kernel();

}  // namespace baton::collective
