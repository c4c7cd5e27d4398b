// The ring's one kernel, with code for every backend: over items x,
// to[x] += from[x] (arguments: inout(to), in(from)). Every call returns the
// same kernel (copies share it), so backends compile its code once.
#pragma once

#include "baton/kernel.hpp"

namespace baton::collective {

Kernel add_kernel();

}  // namespace baton::collective
