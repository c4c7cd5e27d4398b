// How a batch is cut by rates, as baton train cuts it between processes:
// baton.split_by_rates and baton.RateWindow, for the samplers of
// baton.torch.distributed.
#pragma once

#include <pybind11/pybind11.h>

namespace baton::python {

void bind_shares(pybind11::module_& m);

}  // namespace baton::python
