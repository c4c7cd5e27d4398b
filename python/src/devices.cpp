#include "devices.hpp"

#include <chrono>
#include <thread>
#include <vector>

#include <pybind11/stl.h>

#include "arguments.hpp"
#include "baton/link.hpp"
#include "resource/telemetry.hpp"

namespace py = pybind11;

namespace baton::python {

namespace {

py::list links_of(const std::string& node, const Topology& topology) {
  py::list out;
  for (const TopoLink& l : topology.links()) {
    if (l.a != node && l.b != node) continue;
    py::dict d;
    d["to"] = l.a == node ? l.b : l.a;
    d["kind"] = std::string(to_string(l.kind));
    d["gbps"] = l.gbps;
    d["latency_us"] = l.latency_us;
    out.append(d);
  }
  return out;
}

py::object reading_dict(const Telemetry& t, std::size_t i) {
  const auto r = t.latest(i);
  if (!r) return py::none();
  py::dict d;
  d["source"] = t.source(i);
  // Unknown figures are None, not -1.
  d["util_pct"] = r->util_pct >= 0 ? py::object(py::float_(r->util_pct)) : py::none();
  d["memory_used"] = r->memory_total ? py::object(py::int_(r->memory_used)) : py::none();
  d["memory_total"] = r->memory_total ? py::object(py::int_(r->memory_total)) : py::none();
  d["power_w"] = r->power_w >= 0 ? py::object(py::float_(r->power_w)) : py::none();
  d["clock_mhz"] = r->clock_mhz ? py::object(py::int_(r->clock_mhz)) : py::none();
  d["temperature_c"] = r->temperature_c >= 0 ? py::object(py::int_(r->temperature_c)) : py::none();
  return d;
}

// Two rounds of readings: a utilisation is the busy share between two.
void read_telemetry(const DeviceSet& set, py::list& out) {
  std::vector<const Device*> devices;
  for (const auto& d : set.devices) devices.push_back(d.get());
  Telemetry t(devices, std::chrono::milliseconds(100));
  {
    py::gil_scoped_release nogil;
    t.start();
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    while (t.rounds() < 2 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    t.stop();
  }
  for (std::size_t i = 0; i < devices.size(); ++i)
    out[i].cast<py::dict>()["telemetry"] = reading_dict(t, i);
}

}  // namespace

py::dict describe(const Device& device, const Topology& topology) {
  const DeviceInfo& i = device.info();
  py::dict d;
  d["name"] = i.name;
  d["backend"] = std::string(to_string(i.backend));
  d["description"] = i.description;
  d["compute_units"] = i.compute_units;
  d["peak_gflops"] = i.peak_gflops;
  d["memory_bytes"] = i.memory_bytes;
  d["memory_node"] = i.memory_node;
  d["pci_bus_id"] = i.pci_bus_id;
  d["shares"] = i.shares;
  d["topology_id"] = i.topology_id;
  d["links"] = links_of(i.topology_id, topology);
  return d;
}

void bind_devices(py::module_& m) {
  m.def(
      "devices",
      [](py::object spec_arg, py::object telemetry) {
        const std::string spec = string_arg(spec_arg, "spec");
        DeviceSet set;
        {
          py::gil_scoped_release nogil;
          set = open_devices(spec);
        }
        py::list out;
        for (const auto& d : set.devices) out.append(describe(*d, set.topology));
        if (PyObject_IsTrue(telemetry.ptr()) == 1) read_telemetry(set, out);
        return out;
      },
      py::arg("spec") = "auto", py::arg("telemetry") = py::bool_(true),
      R"(The devices a spec opens, one dict each.

spec: "auto" (every device found), "cpu", "cpu:2", "sim:8,4,2,1", "cuda:0",
"cuda:0/64+32+16+8" (SM partitions of GPU 0), "opencl:0.0"; items joined by
commas. A bad spec raises baton.UsageError (a ValueError).

Each dict has name, backend, description, compute_units (SMs, cores),
peak_gflops, memory_bytes, memory_node (devices with the same node share a
memory), pci_bus_id, shares (resources shared with other devices), links (to,
kind, gbps, latency_us) and, with telemetry=True, one reading of
utilisation, memory, power, clock and temperature where the device reports
them (NVML for CUDA GPUs, /proc for the host's cores; None where unknown).)");
  m.def("device_spec_help", &device_spec_help, "The forms a device spec takes, one per line.");
}

}  // namespace baton::python
