#include "shares.hpp"

#include <pybind11/stl.h>

#include "arguments.hpp"
#include "baton/error.hpp"
#include "train/process_shares.hpp"
#include "train/rate_window.hpp"

namespace py = pybind11;

namespace baton::python {

void bind_shares(py::module_& m) {
  m.def(
      "split_by_rates",
      [](py::object total, py::object rates) {
        const std::uint64_t n = count_arg(total, "total");
        if (n > std::uint64_t(std::numeric_limits<int>::max()))
          raise(Errc::invalid_argument, "total", "at most 2^31 - 1 parts");
        const std::vector<double> r = floats_arg(rates, "rates");
        for (double x : r)
          if (!(x >= 0) || x == std::numeric_limits<double>::infinity())
            raise(Errc::invalid_argument, "rates", "rates are finite and not negative");
        return train::split_micro_batches(int(n), r);
      },
      py::arg("total"), py::arg("rates"),
      "`total` parts cut by `rates` (one per member) by largest remainders, each member at "
      "least one, ties to the lower index: how baton train cuts a batch between processes.");
  py::class_<train::RateWindow>(m, "RateWindow",
                                "A rate learned across steps: the median of the last five.")
      .def(py::init<>())
      .def("add", &train::RateWindow::add, py::arg("rate"),
           "Adds a measurement; returns the median of those kept.")
      .def("clear", &train::RateWindow::clear);
}

}  // namespace baton::python
