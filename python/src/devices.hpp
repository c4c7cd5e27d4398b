// baton.devices(spec): what a device spec opens, as dicts.
#pragma once

#include <pybind11/pybind11.h>

#include "baton/devices.hpp"

namespace baton::python {

// One device's facts: name, backend, SMs or cores, memory, what it shares,
// and its links in `topology`.
pybind11::dict describe(const Device& device, const Topology& topology);

void bind_devices(pybind11::module_& m);

}  // namespace baton::python
