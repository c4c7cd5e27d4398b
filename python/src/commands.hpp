// The CLI's commands as functions: baton.bench() and baton.train() run
// `baton bench balance` and `baton train` in this process (the Python side
// reads their --json-out file back as a dict).
#pragma once

#include <pybind11/pybind11.h>

namespace baton::python {

void bind_commands(pybind11::module_& m);

}  // namespace baton::python
