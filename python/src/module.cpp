// The extension module behind `import baton` (python/baton/__init__.py).
#include <pybind11/pybind11.h>

#include "commands.hpp"
#include "devices.hpp"
#include "errors.hpp"
#include "runtime.hpp"
#include "shares.hpp"

PYBIND11_MODULE(_baton, m) {
  m.doc() = "baton's runtime, devices and commands (see the package baton)";
  baton::python::bind_errors(m);
  baton::python::bind_devices(m);
  baton::python::bind_runtime(m);
  baton::python::bind_commands(m);
  baton::python::bind_shares(m);
}
