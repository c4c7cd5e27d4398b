// The device registry: the list of compiled-in backends, and the opening of a
// device spec into devices, the topology that joins them (what the backends
// describe, NVLink from NVML) and the CPUs each device's worker should use.
#include <algorithm>
#include <string>
#include <string_view>

#include "baton/devices.hpp"
#include "baton/error.hpp"
#include "device/backend.hpp"
#include "resource/nvml.hpp"
#include "topology/discover.hpp"

namespace baton {

namespace {

const std::vector<detail::Backend>& backends() {
  static const std::vector<detail::Backend> list = [] {
    std::vector<detail::Backend> v{detail::cpu_backend(), detail::sim_backend()};
#ifdef BATON_HAVE_CUDA
    v.push_back(detail::cuda_backend());
#endif
#ifdef BATON_HAVE_OPENCL
    v.push_back(detail::opencl_backend());
#endif
    return v;
  }();
  return list;
}

// By a view: a name bound to a reference made GCC 13 warn that the result
// might dangle (-Wdangling-reference), which it cannot.
const detail::Backend& find_backend(std::string_view name) {
  for (const auto& b : backends())
    if (b.name == name) return b;
  std::string known;
  for (const auto& b : backends()) known += (known.empty() ? "" : ", ") + b.name;
  raise(Errc::bad_device_spec, "--devices",
        "unknown backend '" + std::string(name) + "' (this build has: auto, " + known + ")");
}

void insert(DeviceSet& set, std::size_t at, detail::DeviceList devices) {
  for (auto& d : devices) {
    bool clash = std::any_of(set.devices.begin(), set.devices.end(),
                             [&](const auto& e) { return e->name() == d->name(); });
    if (clash) raise(Errc::bad_device_spec, d->name(), "device named twice in the spec");
    set.devices.insert(set.devices.begin() + std::ptrdiff_t(at++), std::move(d));
  }
}

void append(DeviceSet& set, detail::DeviceList devices) {
  insert(set, set.devices.size(), std::move(devices));
}

// A cpu item of the spec, opened once the other devices are: its place in
// the set and what followed "cpu:".
struct CpuItem {
  std::size_t at;
  std::string args;
};

// The cpu devices leave a thread to each worker that drives another device,
// as StarPU leaves a core to each GPU: a group that computed on all of them
// would wait on the thread that shares its core with a GPU's worker.
void open_cpu_devices(DeviceSet& set, const std::vector<CpuItem>& items,
                      detail::BackendContext& ctx) {
  const auto drivers = std::count_if(set.devices.begin(), set.devices.end(),
                                     [](const auto& d) { return d->info().needs_driver_thread; });
  ctx.set_driver_threads(int(drivers));
  if (items.empty()) return;
  const detail::Backend& cpu = find_backend("cpu");
  std::vector<detail::DeviceList> opened;
  for (const CpuItem& item : items) opened.push_back(cpu.create(item.args, ctx));
  // From the last place back, so that the places before stay where they were.
  for (std::size_t k = items.size(); k-- > 0;) insert(set, items[k].at, std::move(opened[k]));
}

// Under "auto", hardware that two backends offer is driven once: NVIDIA's
// OpenCL platform exposes the GPUs the cuda backend already has.
detail::DeviceList without_duplicates(DeviceSet& set, detail::DeviceList found) {
  const bool have_cuda = std::any_of(set.devices.begin(), set.devices.end(), [](const auto& d) {
    return d->info().backend == BackendKind::cuda;
  });
  if (!have_cuda) return found;
  detail::DeviceList kept;
  for (auto& d : found) {
    if (d->info().backend == BackendKind::opencl &&
        d->info().description.find("NVIDIA") != std::string::npos) {
      set.notes.push_back(d->name() + ": left out, the cuda backend drives this GPU");
      continue;
    }
    kept.push_back(std::move(d));
  }
  return kept;
}

// The GPUs of the set that NVML knows, once each however many partitions
// run on them: topology id, NVML index.
std::vector<std::pair<std::string, int>> nvml_gpus(const DeviceSet& set, const Nvml& nvml) {
  std::vector<std::pair<std::string, int>> gpus;
  for (const auto& d : set.devices) {
    const DeviceInfo& i = d->info();
    const int index = nvml.index_of(i);
    bool seen = std::any_of(gpus.begin(), gpus.end(),
                            [&](const auto& g) { return g.first == i.topology_id; });
    if (index >= 0 && !seen) gpus.push_back({i.topology_id, index});
  }
  return gpus;
}

// NVLink between every two GPUs that NVML says are joined, at 25 GB/s per
// direction per active link (NVLink 3 and 4).
void add_nvlinks(DeviceSet& set, const Nvml& nvml) {
  constexpr double kGbpsPerLink = 25.0, kLatencyUs = 1.0;
  const auto gpus = nvml_gpus(set, nvml);
  for (std::size_t a = 0; a < gpus.size(); ++a)
    for (std::size_t b = a + 1; b < gpus.size(); ++b) {
      const unsigned ia = unsigned(gpus[a].second), ib = unsigned(gpus[b].second);
      if (!nvml.nvlink_between(ia, ib)) continue;
      set.topology.add_link({gpus[a].first, gpus[b].first, LinkKind::nvlink,
                             kGbpsPerLink * nvml.active_nvlinks(ia), kLatencyUs});
    }
}

// Each GPU's link to host at its PCIe generation and width (NVML), where the
// backend could only assume one.
void add_pcie_rates(DeviceSet& set, const Nvml& nvml) {
  for (const auto& [id, index] : nvml_gpus(set, nvml)) {
    auto pcie = nvml.pcie_link(unsigned(index));
    auto link = set.topology.link(id, "host");
    if (!pcie || !link) continue;
    link->gbps = pcie_gbps(*pcie);
    set.topology.add_link(*link);
  }
}

}  // namespace

std::vector<std::string> compiled_backends() {
  std::vector<std::string> names;
  for (const auto& b : backends()) names.push_back(b.name);
  return names;
}

DeviceSet open_devices(const std::string& spec, const Options& options) {
  std::vector<SpecItem> items = parse_device_spec(spec);
  const detail::HostInfo& host = detail::host_info();
  detail::BackendContext ctx(options, {host.threads, host.cpu_model, host.memory_bytes});
  DeviceSet set;
  std::vector<CpuItem> cpu_items;
  for (const SpecItem& item : items) {
    if (item.backend == "auto") {
      if (!item.args.empty())
        raise(Errc::bad_device_spec, "--devices", "'auto' takes no arguments");
      for (const auto& b : backends()) {
        if (!b.in_default_set) continue;
        if (b.name == "cpu") {
          cpu_items.push_back({set.devices.size(), ""});
          continue;
        }
        try {
          append(set, without_duplicates(set, b.create("", ctx)));
        } catch (const Error& e) {
          if (e.code() != Errc::backend_unavailable) throw;
          set.notes.push_back(b.name + ": " + e.what());
        }
      }
    } else if (item.backend == "cpu") {
      cpu_items.push_back({set.devices.size(), item.args});
    } else {
      append(set, find_backend(item.backend).create(item.args, ctx));
    }
  }
  open_cpu_devices(set, cpu_items, ctx);
  if (set.devices.empty())
    raise(Errc::backend_unavailable, "--devices", "no device found for '" + spec + "'");
  set.topology.add_node({"host", "host"});
  for (const auto& n : ctx.nodes()) set.topology.add_node(n);
  for (const auto& l : ctx.links()) set.topology.add_link(l);
  if (const Nvml& nvml = Nvml::get(); nvml.available()) {
    add_nvlinks(set, nvml);
    add_pcie_rates(set, nvml);
  }
  set.host_memory = ctx.host_memory();  // null: the Runtime takes pageable memory
  for (const auto& d : set.devices)
    set.affinity.push_back(detail::cpus_near_pci(d->info().pci_bus_id));
  return set;
}

std::string device_spec_help() {
  std::string s = "  auto                  every device of every backend below that is present\n";
  // One indented line per accepted form, however the backend wrote its text.
  for (const auto& b : backends()) {
    std::size_t at = 0;
    while (at < b.spec_help.size()) {
      std::size_t nl = b.spec_help.find('\n', at);
      std::string line =
          b.spec_help.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
      at = nl == std::string::npos ? b.spec_help.size() : nl + 1;
      std::size_t text = line.find_first_not_of(' ');
      if (text != std::string::npos) s += (text == 0 ? "  " : "") + line + "\n";
    }
  }
  s += "  Items are separated by commas, e.g. cpu,sim:4,2 or cpu:2,opencl.\n";
  return s;
}

}  // namespace baton
