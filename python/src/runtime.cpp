#include "runtime.hpp"

#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <pybind11/stl.h>
#include <nlohmann/json.hpp>

#include "arguments.hpp"
#include "baton/error.hpp"
#include "baton/runtime.hpp"
#include "devices.hpp"
#include "report/recording.hpp"
#include "train/rate_window.hpp"

namespace py = pybind11;

namespace baton::python {

namespace {

// The Python function a host kernel runs, and the first exception it raised
// on a worker, kept to be raised again on the caller's thread as itself.
struct HostFunction {
  py::object fn;
  py::object error;  // the exception instance; None while there is none
};

// A kernel's rates learned run by run, as `baton train` learns a step's: the
// median of each device's last runs; first the devices' peak figures. The
// first run is not learned from on real devices: it pays one-time costs.
struct LearnedRates {
  std::vector<double> rates;
  std::vector<train::RateWindow> seen;
  int runs = 0;
};

py::dict stats_dict(const RunStats& s) {
  py::list devices;
  for (const DeviceStats& d : s.devices) {
    py::dict x;
    x["name"] = d.name;
    x["chunks"] = d.chunks;
    x["items"] = d.items;
    x["steals"] = d.steals;
    x["busy_s"] = d.busy_s;
    x["first_chunk_items"] = d.first_chunk_items;
    x["first_chunk_s"] = d.first_chunk_s;
    x["failed"] = d.failed;
    x["failure"] = d.failure;
    devices.append(x);
  }
  py::dict out;
  out["policy"] = s.policy;
  out["items"] = s.items;
  out["makespan_s"] = s.makespan_s;
  out["oracle_s"] = s.oracle_s;
  out["efficiency"] = s.efficiency;
  out["reruns"] = s.reruns;
  out["simulated"] = s.simulated;
  out["devices"] = devices;
  return out;
}

class PyRuntime {
 public:
  PyRuntime(py::object devices, py::object policy, py::object fault, py::object perf_model_file) {
    Options o = Options::from_env();
    o.devices = string_arg(devices, "devices");
    if (auto p = optional_string_arg(policy, "policy")) o.policy = *p;
    if (auto f = optional_string_arg(fault, "fault")) o.fault = *f;
    if (auto m = optional_string_arg(perf_model_file, "perf_model_file")) o.perf_model_file = *m;
    py::gil_scoped_release nogil;
    rt_ = std::make_unique<Runtime>(o);
  }
  ~PyRuntime() { close(); }

  void close() {
    if (!rt_) return;
    recording_.reset();
    // The workers may wait for the GIL to end a function's last chunk.
    py::gil_scoped_release nogil;
    rt_.reset();
  }

  Runtime& rt() {
    if (!rt_) raise(Errc::invalid_argument, "Runtime", "the runtime is closed");
    return *rt_;
  }

  // A device's index, checked.
  int device(int d) {
    const int count = int(rt().devices().size());
    if (d < 0 || d >= count)
      raise(Errc::invalid_argument, "device",
            std::to_string(d) + " is not a device (0 to " + std::to_string(count - 1) + ")");
    return d;
  }

  py::list devices() {
    py::list out;
    for (const auto& d : rt().devices()) {
      py::dict x = describe(*d, rt().topology());
      x["failed"] = rt().failed(int(&d - &rt().devices().front()));
      out.append(x);
    }
    return out;
  }

  // Spreads items [0, n) over the devices: each chunk [begin, end) runs
  // fn(device, begin, end, stream) on the worker of the device the policy
  // gave it, `stream` being the device's CUstream (0 on the host's cores).
  py::dict run(py::object items, py::object fn, py::object kernel_arg, py::object policy_arg,
               py::object learn_rates) {
    const std::uint64_t n = count_arg(items, "items");
    const std::string kernel_name = string_arg(kernel_arg, "kernel");
    const std::optional<std::string> policy = optional_string_arg(policy_arg, "policy");
    if (n == 0) raise(Errc::invalid_argument, "items", "a run needs at least one item");
    if (this_device() >= 0)
      raise(Errc::invalid_argument, "run", "a run's function cannot start another run");
    if (!PyCallable_Check(fn.ptr()))
      raise(Errc::invalid_argument, "fn", "the function to run must be callable");
    auto& [kernel, host, learned] = kernel_for(kernel_name);
    if (!host->fn.is_none())
      raise(Errc::invalid_argument, kernel_name,
            "a run of this kernel is under way on another thread (give each its own name)");
    host->fn = std::move(fn);
    host->error = py::none();
    RunStats stats;
    std::optional<Error> failed;
    {
      py::gil_scoped_release nogil;
      try {
        stats = policy ? rt().parallel_for(Range{n}, kernel, Policy::by_name(*policy))
                       : rt().parallel_for(Range{n}, kernel);
      } catch (const Error& e) {
        failed = e;
      }
    }
    host->fn = py::none();
    if (!host->error.is_none()) {
      py::object error = host->error;
      host->error = py::none();
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(error.ptr())), error.ptr());
      throw py::error_already_set();
    }
    if (failed) throw *failed;
    if (PyObject_IsTrue(learn_rates.ptr()) == 1) learn(kernel, learned, stats);
    return stats_dict(stats);
  }

  void set_rates(py::object kernel_arg, py::object rates_arg) {
    const std::string kernel_name = string_arg(kernel_arg, "kernel");
    std::vector<double> rates = floats_arg(rates_arg, "rates");
    if (rates.size() != rt().devices().size())
      raise(Errc::invalid_argument, "rates",
            "one rate per device: got " + std::to_string(rates.size()) + " for " +
                std::to_string(rt().devices().size()) + " devices");
    for (double r : rates)
      if (!(r >= 0) || r == std::numeric_limits<double>::infinity())
        raise(Errc::invalid_argument, "rates", "rates are finite and not negative");
    rt().set_standalone_rates(std::get<0>(kernel_for(kernel_name)), std::move(rates));
  }

  void start_recording(const std::string& trace, const std::string& report,
                       const std::string& command) {
    if (recording_) raise(Errc::invalid_argument, "trace", "a recording is under way already");
    const char* argv[] = {command.c_str()};
    cli::set_command_line(1, argv);
    recording_ = std::make_unique<cli::Recording>(trace, report);
    recording_->start(rt());
  }

  // Writes the trace and, where a report was asked for, the HTML page drawn
  // from it and `results` (JSON text in the form `baton train --json` has).
  void finish_recording(const std::string& results) {
    if (!recording_) raise(Errc::invalid_argument, "trace", "no recording is under way");
    std::unique_ptr<cli::Recording> r = std::move(recording_);
    nlohmann::json j = nlohmann::json::parse(results, nullptr, false);
    if (j.is_discarded()) raise(Errc::invalid_argument, "results", "not JSON");
    py::gil_scoped_release nogil;
    r->stop();
    r->report(j);
  }

  void trace_span(const std::string& name, double begin_s, double end_s) {
    rt().trace_span(name, begin_s, end_s);
  }

 private:
  using Entry = std::tuple<Kernel, std::shared_ptr<HostFunction>, LearnedRates>;

  void learn(const Kernel& kernel, LearnedRates& l, const RunStats& stats) {
    if (l.rates.empty()) {
      for (const auto& d : rt().devices()) l.rates.push_back(std::max(d->info().peak_gflops, 1e-3));
      l.seen.resize(l.rates.size());
    }
    if (++l.runs == 1 && !rt().clock().is_virtual()) return;
    for (std::size_t d = 0; d < l.rates.size(); ++d)
      if (double r = train::run_rate(stats.devices[d]); r > 0) l.rates[d] = l.seen[d].add(r);
    rt().set_standalone_rates(kernel, l.rates);
  }

  // One kernel per name, so that rates and performance models are kept per
  // function (a model's step at one micro-batch size, say).
  Entry& kernel_for(const std::string& name) {
    auto it = kernels_.find(name);
    if (it != kernels_.end()) return it->second;
    auto host = std::make_shared<HostFunction>();
    host->fn = py::none();
    host->error = py::none();
    Kernel k(name);
    NativeFn call = [host, name](void* stream, Span s, const KernelArgs&) {
      py::gil_scoped_acquire gil;
      try {
        host->fn(this_device(), s.begin, s.end, reinterpret_cast<std::uintptr_t>(stream));
      } catch (py::error_already_set& e) {
        // The task fails as a usage error (no device is retired for it);
        // run() raises the exception itself.
        if (host->error.is_none()) {
          e.restore();
          PyObject *type, *value, *trace;
          PyErr_Fetch(&type, &value, &trace);
          PyErr_NormalizeException(&type, &value, &trace);
          if (trace) PyException_SetTraceback(value, trace);
          host->error = py::reinterpret_steal<py::object>(value);
          Py_XDECREF(type);
          Py_XDECREF(trace);
        }
        raise(Errc::invalid_argument, name, "the Python function raised");
      }
    };
    k.native(BackendKind::cpu, call).native(BackendKind::cuda, call);
    return kernels_.emplace(name, Entry{k, host, LearnedRates{}}).first->second;
  }

  std::unique_ptr<Runtime> rt_;
  std::map<std::string, Entry> kernels_;
  std::unique_ptr<cli::Recording> recording_;
};

}  // namespace

void bind_runtime(py::module_& m) {
  py::class_<PyRuntime>(m, "Runtime", R"(Devices opened from a spec, one worker thread per device
for the runtime's life, and the scheduler that spreads work over them.

Runtime(devices="auto", policy="ws", fault=None, perf_model_file=None):
devices is a spec (see baton.devices), policy one of static, weighted, ws,
ws-topo, model. fault injects device faults ("cpu1:after=3"); perf_model_file
is where the model policy keeps its history (None: BATON_PERF_MODEL_FILE).)")
      .def(py::init<py::object, py::object, py::object, py::object>(),
           py::arg("devices") = py::str("auto"), py::arg("policy") = py::none(),
           py::arg("fault") = py::none(), py::arg("perf_model_file") = py::none())
      .def_property_readonly("devices", &PyRuntime::devices,
                             "The devices, in order, as baton.devices() describes them, "
                             "with 'failed' (retired after a fault).")
      .def("run", &PyRuntime::run, py::arg("items"), py::arg("fn"), py::arg("kernel") = "python",
           py::arg("policy") = py::none(), py::arg("learn_rates") = false,
           R"(Spreads items [0, items) over the devices and waits.

The policy cuts the range into chunks and places them; each chunk runs
fn(device, begin, end, stream) on the worker thread of its device: device is
its index in .devices, stream the device's CUDA stream as an int (0 on the
host's cores). fn enqueues its work on that stream and returns; the chunk ends
when the stream reaches that point. kernel names the function: rates and
performance models are kept per name; learn_rates=True splits the next run by
each device's median rate over its last runs, as `baton train` does a step's.
Returns the run's figures (per device: chunks, items, steals, busy_s). An
exception in fn is raised here.)")
      .def("set_rates", &PyRuntime::set_rates, py::arg("kernel"), py::arg("rates"),
           "Each device's items/s for a kernel name: the weighted policies split by them.")
      .def(
          "failed", [](PyRuntime& r, int d) { return r.rt().failed(r.device(d)); },
          py::arg("device"), "Device d was retired after a fault: it runs nothing more.")
      .def(
          "failure", [](PyRuntime& r, int d) { return r.rt().failure(r.device(d)); },
          py::arg("device"), "Why device d was retired ('' while it was not).")
      .def(
          "now", [](PyRuntime& r) { return r.rt().clock().now(); },
          "The devices' clock, in seconds (trace_span's times).")
      .def("start_recording", &PyRuntime::start_recording, py::arg("trace") = "",
           py::arg("report") = "", py::arg("command") = "python",
           "Traces the runs from here on (with telemetry); trace: a Chrome/Perfetto JSON "
           "file, report: a folder for the HTML page and its trace.")
      .def("trace_span", &PyRuntime::trace_span, py::arg("name"), py::arg("begin_s"),
           py::arg("end_s"), "A span on the host's track of the trace (times from now()).")
      .def("finish_recording", &PyRuntime::finish_recording, py::arg("results"),
           "Writes the trace, and the report drawn from it and results (JSON text).")
      .def("close", &PyRuntime::close, "Stops the workers; the runtime runs nothing more.")
      .def("__enter__", [](PyRuntime& r) -> PyRuntime& { return r; })
      .def("__exit__", [](PyRuntime& r, py::args) { r.close(); });
}

}  // namespace baton::python
