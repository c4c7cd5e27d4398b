#include "resource/telemetry.hpp"

#include <map>

#include "device/host_memory.hpp"
#include "resource/host_load.hpp"
#include "resource/nvml.hpp"
#include "topology/discover.hpp"

namespace baton {

namespace {

double now_s() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

bool on_host_cpu(const DeviceInfo& i) {
  return i.backend == BackendKind::cpu ||
         (i.backend == BackendKind::opencl && i.memory_node == kHostNode);
}

}  // namespace

Telemetry::Telemetry(std::vector<const Device*> devices, std::chrono::milliseconds period,
                     std::size_t capacity)
    : devices_(std::move(devices)), period_(period), capacity_(std::max<std::size_t>(capacity, 1)) {
  const Nvml& nvml = Nvml::get();
  for (const Device* d : devices_) {
    const DeviceInfo& i = d->info();
    const int index = nvml.index_of(i);
    nvml_index_.push_back(index);
    sources_.push_back(index >= 0 ? "nvml" : on_host_cpu(i) ? "host" : "none");
  }
  rings_.resize(devices_.size());
  next_.assign(devices_.size(), 0);
}

Telemetry::~Telemetry() {
  stop();
}

void Telemetry::start() {
  if (running()) return;
  stop_ = false;
  thread_ = std::thread([this] { run(); });
}

void Telemetry::stop() {
  if (!running()) return;
  stop_ = true;
  thread_.join();
}

std::vector<DeviceReading> Telemetry::history(std::size_t device) const {
  std::lock_guard lock(mu_);
  const auto& ring = rings_.at(device);
  std::vector<DeviceReading> out;
  for (std::size_t k = 0; k < ring.size(); ++k)
    out.push_back(ring[(next_[device] + k) % ring.size()]);
  return out;
}

std::optional<DeviceReading> Telemetry::latest(std::size_t device) const {
  std::lock_guard lock(mu_);
  const auto& ring = rings_.at(device);
  if (ring.empty()) return std::nullopt;
  return ring[(next_[device] + ring.size() - 1) % ring.size()];
}

double Telemetry::seconds_per_round() const {
  std::lock_guard lock(mu_);
  const std::uint64_t n = rounds_.load();
  return n ? spent_s_ / double(n) : 0;
}

void Telemetry::run() {
  while (!stop_) {
    const auto next = std::chrono::steady_clock::now() + period_;
    sample_round();
    // Short sleeps, so that stop() returns promptly at long periods.
    while (!stop_ && std::chrono::steady_clock::now() < next)
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
          next - std::chrono::steady_clock::now(), std::chrono::milliseconds(10)));
  }
}

void Telemetry::sample_round() {
  const double start = now_s();
  const Nvml& nvml = Nvml::get();
  // The host's figures once a round, for every device on its CPUs.
  std::vector<detail::CpuTimes> cpu = detail::read_cpu_times();
  const double host_util =
      !cpu.empty() && !last_cpu_.empty() ? 100.0 * detail::busy_share(last_cpu_[0], cpu[0]) : -1;
  last_cpu_ = std::move(cpu);
  const std::uint64_t host_total = detail::host_info().memory_bytes;
  const std::uint64_t host_free = detail::host_available_bytes();
  std::vector<DeviceReading> round(devices_.size());
  std::map<int, std::optional<GpuSample>> gpus;  // one NVML reading a GPU, for all its partitions
  for (std::size_t d = 0; d < devices_.size(); ++d) {
    DeviceReading& r = round[d];
    r.time_s = now_s();
    if (nvml_index_[d] >= 0) {
      auto [it, fresh] = gpus.try_emplace(nvml_index_[d]);
      if (fresh) it->second = nvml.sample(unsigned(nvml_index_[d]));
      if (const auto& s = it->second) {
        r.util_pct = s->util_gpu_pct;
        r.memory_used = s->memory_used;
        r.memory_total = s->memory_total;
        r.power_w = s->power_w;
        r.clock_mhz = s->sm_clock_mhz;
        r.temperature_c = int(s->temperature_c);
      }
    } else if (sources_[d] == "host") {
      r.util_pct = host_util;
      r.memory_total = host_total;
      r.memory_used = host_total > host_free ? host_total - host_free : 0;
    }
  }
  std::lock_guard lock(mu_);
  for (std::size_t d = 0; d < devices_.size(); ++d) {
    auto& ring = rings_[d];
    if (ring.size() < capacity_)
      ring.push_back(round[d]), next_[d] = 0;
    else
      ring[next_[d]] = round[d], next_[d] = (next_[d] + 1) % capacity_;
  }
  spent_s_ += now_s() - start;
  ++rounds_;
}

}  // namespace baton
