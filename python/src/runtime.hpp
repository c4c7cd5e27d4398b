// baton.Runtime: devices opened from a spec, a worker per device, and the
// scheduler's policies spreading a Python function's work over them. The
// function is a kernel whose implementation on every device is host code that
// enqueues work on that device's stream, as StarPU's CUDA codelets are: the
// C++ scheduler places each chunk of items; Python only runs them.
#pragma once

#include <pybind11/pybind11.h>

namespace baton::python {

void bind_runtime(pybind11::module_& m);

}  // namespace baton::python
