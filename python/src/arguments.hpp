// Arguments from Python checked by hand: a wrong type is a TypeError of one
// line naming the argument, where pybind11's own lists every overload.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

namespace baton::python {

std::string string_arg(pybind11::handle value, const char* name);
// None stays empty.
std::optional<std::string> optional_string_arg(pybind11::handle value, const char* name);
// A whole number from 0 to 2^64 - 1.
std::uint64_t count_arg(pybind11::handle value, const char* name);
std::vector<double> floats_arg(pybind11::handle value, const char* name);

}  // namespace baton::python
