// baton's errors as Python exceptions, one class per kind of cause, each
// carrying the message the CLI prints, the error's code and what it names:
//   baton.Error                      every error baton raises (a RuntimeError)
//   baton.UsageError(ValueError)     bad spec, argument, topology or kernel code
//   baton.DeviceError                a device failed (a vendor call, a lost GPU)
//   baton.OutOfMemoryError(MemoryError)
//   baton.BackendUnavailableError    a backend whose driver or library is missing
#pragma once

#include <pybind11/pybind11.h>

namespace baton::python {

void bind_errors(pybind11::module_& m);

}  // namespace baton::python
