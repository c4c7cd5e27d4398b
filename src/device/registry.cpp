// The list of compiled-in backends and the opening of a device spec.
#include <algorithm>

#include "baton/devices.hpp"
#include "baton/error.hpp"
#include "device/backend.hpp"

namespace baton {

static const std::vector<detail::Backend>& backends() {
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

std::vector<std::string> compiled_backends() {
  std::vector<std::string> names;
  for (const auto& b : backends()) names.push_back(b.name);
  return names;
}

static const detail::Backend& find_backend(const std::string& name) {
  for (const auto& b : backends())
    if (b.name == name) return b;
  std::string known;
  for (const auto& b : backends()) known += (known.empty() ? "" : ", ") + b.name;
  raise(Errc::bad_device_spec, "--devices",
        "unknown backend '" + name + "' (this build has: auto, " + known + ")");
}

static void append(DeviceSet& set, detail::DeviceList devices) {
  for (auto& d : devices) {
    bool clash = std::any_of(set.devices.begin(), set.devices.end(),
                             [&](const auto& e) { return e->name() == d->name(); });
    if (clash) raise(Errc::bad_device_spec, d->name(), "device named twice in the spec");
    set.devices.push_back(std::move(d));
  }
}

// Under "auto", hardware that two backends offer is driven once: NVIDIA's
// OpenCL platform exposes the GPUs the cuda backend already has.
static detail::DeviceList without_duplicates(DeviceSet& set, detail::DeviceList found) {
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

DeviceSet open_devices(const std::string& spec) {
  std::vector<SpecItem> items = parse_device_spec(spec);
  DeviceSet set;
  set.topology.add_node({"host", "host"});
  detail::BackendContext ctx(set.topology);
  for (const SpecItem& item : items) {
    if (item.backend == "auto") {
      if (!item.args.empty())
        raise(Errc::bad_device_spec, "--devices", "'auto' takes no arguments");
      for (const auto& b : backends()) {
        if (!b.in_default_set) continue;
        try {
          append(set, without_duplicates(set, b.create("", ctx)));
        } catch (const Error& e) {
          if (e.code() != Errc::backend_unavailable) throw;
          set.notes.push_back(b.name + ": " + e.what());
        }
      }
    } else {
      append(set, find_backend(item.backend).create(item.args, ctx));
    }
  }
  if (set.devices.empty())
    raise(Errc::backend_unavailable, "--devices", "no device found for '" + spec + "'");
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
