#include "resource/nvml.hpp"

#include <dlfcn.h>

#include <chrono>
#include <type_traits>

namespace baton {
namespace {

// The few NVML declarations baton uses, as in nvml.h.
using nvmlReturn_t = int;
constexpr nvmlReturn_t NVML_SUCCESS = 0;
using nvmlDevice_t = struct nvmlDevice_st*;
struct nvmlUtilization_t {
  unsigned int gpu, memory;
};
struct nvmlMemory_t {
  unsigned long long total, free, used;
};
constexpr unsigned NVML_CLOCK_SM = 1;
constexpr unsigned NVML_TEMPERATURE_GPU = 0;
constexpr unsigned NVML_P2P_CAPS_INDEX_NVLINK = 2;
constexpr unsigned NVML_P2P_STATUS_OK = 0;
constexpr unsigned NVML_FEATURE_ENABLED = 1;
constexpr unsigned NVML_NVLINK_MAX_LINKS = 18;

double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace

struct Nvml::Api {
  nvmlReturn_t (*init)();  // nvmlInit_v2
  nvmlReturn_t (*shutdown)();
  const char* (*error_string)(nvmlReturn_t);
  nvmlReturn_t (*count)(unsigned*);                                      // nvmlDeviceGetCount_v2
  nvmlReturn_t (*by_index)(unsigned, nvmlDevice_t*);                     // ..HandleByIndex_v2
  nvmlReturn_t (*by_pci)(const char*, nvmlDevice_t*);                    // ..HandleByPciBusId_v2
  nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t*);         // ..UtilizationRates
  nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t*);                   // ..MemoryInfo
  nvmlReturn_t (*power)(nvmlDevice_t, unsigned*);                        // ..PowerUsage, mW
  nvmlReturn_t (*clock)(nvmlDevice_t, unsigned, unsigned*);              // ..ClockInfo, MHz
  nvmlReturn_t (*temperature)(nvmlDevice_t, unsigned, unsigned*);        // ..Temperature
  nvmlReturn_t (*p2p)(nvmlDevice_t, nvmlDevice_t, unsigned, unsigned*);  // ..P2PStatus
  nvmlReturn_t (*nvlink_state)(nvmlDevice_t, unsigned, unsigned*);       // ..NvLinkState
  nvmlReturn_t (*pcie_generation)(nvmlDevice_t, unsigned*);              // ..MaxPcieLinkGeneration
  nvmlReturn_t (*pcie_width)(nvmlDevice_t, unsigned*);                   // ..MaxPcieLinkWidth
  nvmlDevice_t handle(unsigned index) const {
    nvmlDevice_t d = nullptr;
    return by_index(index, &d) == NVML_SUCCESS ? d : nullptr;
  }
};

const Nvml& Nvml::get() {
  static const Nvml nvml;
  return nvml;
}

Nvml::Nvml() {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    error_ = std::string("libnvidia-ml.so.1 not found: ") + dlerror();
    return;
  }
  auto api = new Api{};
  bool missing = false;
  auto bind = [&](auto& fn, const char* name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
    if (!fn) {
      missing = true;
      error_ = std::string("NVML lacks ") + name;
    }
  };
  bind(api->init, "nvmlInit_v2");
  bind(api->shutdown, "nvmlShutdown");
  bind(api->error_string, "nvmlErrorString");
  bind(api->count, "nvmlDeviceGetCount_v2");
  bind(api->by_index, "nvmlDeviceGetHandleByIndex_v2");
  bind(api->by_pci, "nvmlDeviceGetHandleByPciBusId_v2");
  bind(api->utilization, "nvmlDeviceGetUtilizationRates");
  bind(api->memory, "nvmlDeviceGetMemoryInfo");
  bind(api->power, "nvmlDeviceGetPowerUsage");
  bind(api->clock, "nvmlDeviceGetClockInfo");
  bind(api->temperature, "nvmlDeviceGetTemperature");
  bind(api->p2p, "nvmlDeviceGetP2PStatus");
  bind(api->nvlink_state, "nvmlDeviceGetNvLinkState");
  bind(api->pcie_generation, "nvmlDeviceGetMaxPcieLinkGeneration");
  bind(api->pcie_width, "nvmlDeviceGetMaxPcieLinkWidth");
  if (missing) {
    delete api;
    return;
  }
  if (nvmlReturn_t r = api->init(); r != NVML_SUCCESS) {
    error_ = std::string("nvmlInit: ") + api->error_string(r);
    delete api;
    return;
  }
  api->count(&count_);
  api_ = api;
}

Nvml::~Nvml() {
  if (!api_) return;
  api_->shutdown();
  delete api_;
}

int Nvml::index_of_pci_bus_id(const std::string& bus_id) const {
  if (!api_) return -1;
  nvmlDevice_t want = nullptr;
  if (api_->by_pci(bus_id.c_str(), &want) != NVML_SUCCESS) return -1;
  for (unsigned i = 0; i < count_; ++i)
    if (api_->handle(i) == want) return int(i);
  return -1;
}

int Nvml::index_of(const DeviceInfo& device) const {
  if (device.backend != BackendKind::cuda || device.pci_bus_id.empty()) return -1;
  return index_of_pci_bus_id(device.pci_bus_id);
}

std::optional<GpuSample> Nvml::sample(unsigned index) const {
  nvmlDevice_t d = api_ && index < count_ ? api_->handle(index) : nullptr;
  if (!d) return std::nullopt;
  GpuSample s;
  s.time_s = now_s();
  nvmlUtilization_t u{};
  if (api_->utilization(d, &u) == NVML_SUCCESS)
    s.util_gpu_pct = u.gpu, s.util_memory_pct = u.memory;
  nvmlMemory_t m{};
  if (api_->memory(d, &m) != NVML_SUCCESS) return std::nullopt;
  s.memory_total = m.total, s.memory_free = m.free, s.memory_used = m.used;
  unsigned v = 0;
  if (api_->power(d, &v) == NVML_SUCCESS) s.power_w = v * 1e-3;
  if (api_->clock(d, NVML_CLOCK_SM, &v) == NVML_SUCCESS) s.sm_clock_mhz = v;
  if (api_->temperature(d, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS) s.temperature_c = v;
  return s;
}

bool Nvml::nvlink_between(unsigned a, unsigned b) const {
  nvmlDevice_t da = api_ ? api_->handle(a) : nullptr, db = api_ ? api_->handle(b) : nullptr;
  unsigned status = 0;
  return da && db && a != b &&
         api_->p2p(da, db, NVML_P2P_CAPS_INDEX_NVLINK, &status) == NVML_SUCCESS &&
         status == NVML_P2P_STATUS_OK;
}

unsigned Nvml::active_nvlinks(unsigned index) const {
  nvmlDevice_t d = api_ ? api_->handle(index) : nullptr;
  if (!d) return 0;
  unsigned active = 0;
  for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
    unsigned state = 0;
    if (api_->nvlink_state(d, link, &state) == NVML_SUCCESS && state == NVML_FEATURE_ENABLED)
      ++active;
  }
  return active;
}

std::optional<PcieLink> Nvml::pcie_link(unsigned index) const {
  nvmlDevice_t d = api_ ? api_->handle(index) : nullptr;
  PcieLink link;
  if (!d || api_->pcie_generation(d, &link.generation) != NVML_SUCCESS ||
      api_->pcie_width(d, &link.width) != NVML_SUCCESS || pcie_gbps(link) <= 0)
    return std::nullopt;
  return link;
}

double pcie_gbps(const PcieLink& link) {
  static constexpr double kGtPerLane[] = {0, 2.5, 5, 8, 16, 32, 64};
  if (link.generation < 1 || link.generation > 6) return 0;
  const double encoding = link.generation <= 2   ? 8.0 / 10
                          : link.generation <= 5 ? 128.0 / 130
                                                 : 242.0 / 256;
  return kGtPerLane[link.generation] * encoding / 8 * link.width;
}

}  // namespace baton
