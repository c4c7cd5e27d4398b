#include "arguments.hpp"

#include "baton/error.hpp"

namespace py = pybind11;

namespace baton::python {

namespace {

[[noreturn]] void wrong_type(const char* name, const char* wanted, py::handle value) {
  throw py::type_error(std::string(name) + ": expected " + wanted + ", got " +
                       std::string(py::str(py::type::handle_of(value).attr("__name__"))));
}

}  // namespace

std::string string_arg(py::handle value, const char* name) {
  if (!py::isinstance<py::str>(value)) wrong_type(name, "a str", value);
  return value.cast<std::string>();
}

std::optional<std::string> optional_string_arg(py::handle value, const char* name) {
  if (value.is_none()) return std::nullopt;
  if (!py::isinstance<py::str>(value)) wrong_type(name, "a str or None", value);
  return value.cast<std::string>();
}

std::uint64_t count_arg(py::handle value, const char* name) {
  if (!py::isinstance<py::int_>(value) || py::isinstance<py::bool_>(value))
    wrong_type(name, "an int", value);
  const unsigned long long n = PyLong_AsUnsignedLongLong(value.ptr());
  if (PyErr_Occurred()) {
    PyErr_Clear();
    raise(Errc::invalid_argument, name, "must be from 0 to 2^64 - 1");
  }
  return n;
}

std::vector<double> floats_arg(py::handle value, const char* name) {
  if (!py::isinstance<py::sequence>(value) || py::isinstance<py::str>(value))
    wrong_type(name, "a sequence of numbers", value);
  std::vector<double> out;
  for (py::handle x : value) {
    if (!py::isinstance<py::float_>(x) && !py::isinstance<py::int_>(x))
      wrong_type(name, "a sequence of numbers", x);
    out.push_back(x.cast<double>());
  }
  return out;
}

}  // namespace baton::python
