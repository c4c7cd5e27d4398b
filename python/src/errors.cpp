#include "errors.hpp"

#include <string>

#include "baton/error.hpp"

namespace py = pybind11;

namespace baton::python {

namespace {

// The classes live as long as the interpreter: the module keeps them.
struct Classes {
  PyObject* error = nullptr;
  PyObject* usage = nullptr;
  PyObject* device = nullptr;
  PyObject* memory = nullptr;
  PyObject* backend = nullptr;
};
Classes classes;

PyObject* make_class(py::module_& m, const char* name, py::tuple bases, const char* doc) {
  const std::string qualified = std::string("baton.") + name;
  PyObject* cls = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
  if (!cls) throw py::error_already_set();
  m.add_object(name, py::handle(cls));
  return cls;
}

PyObject* class_for(Errc code) {
  switch (code) {
    case Errc::invalid_argument:
    case Errc::bad_device_spec:
    case Errc::bad_topology:
    case Errc::compile_failed:
    case Errc::no_implementation:
      return classes.usage;
    case Errc::device_failed:
      return classes.device;
    case Errc::out_of_memory:
      return classes.memory;
    case Errc::backend_unavailable:
      return classes.backend;
    case Errc::internal:
      break;
  }
  return classes.error;
}

void raise_as_python(const Error& e) {
  PyObject* cls = class_for(e.code());
  py::object value = py::reinterpret_borrow<py::object>(cls)(e.what());
  value.attr("code") = std::string(to_string(e.code()));
  value.attr("where") = e.where();
  PyErr_SetObject(cls, value.ptr());
}

}  // namespace

void bind_errors(py::module_& m) {
  py::handle runtime_error(PyExc_RuntimeError), value_error(PyExc_ValueError),
      memory_error(PyExc_MemoryError);
  classes.error = make_class(m, "Error", py::make_tuple(runtime_error),
                             "An error baton raised: .code names its kind, .where what it names "
                             "(a device, a backend, an argument).");
  py::handle error(classes.error);
  classes.usage = make_class(m, "UsageError", py::make_tuple(error, value_error),
                             "A bad device spec, argument, topology file or kernel: the caller's "
                             "to fix. Never a reason to retire a device.");
  classes.device = make_class(m, "DeviceError", py::make_tuple(error),
                              "A device failed (a vendor call, a lost GPU, an injected fault).");
  classes.memory = make_class(m, "OutOfMemoryError", py::make_tuple(error, memory_error),
                              "No memory could hold what was asked for.");
  classes.backend = make_class(m, "BackendUnavailableError", py::make_tuple(error),
                               "A backend whose driver or library is missing on this machine.");
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const Error& e) {
      raise_as_python(e);
    }
  });
}

}  // namespace baton::python
