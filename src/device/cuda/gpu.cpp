#include "device/cuda/gpu.hpp"

#include "baton/error.hpp"

namespace baton::cuda {

int fp32_lanes_per_sm(int cc_major, int cc_minor) {
  switch (cc_major) {
    case 5:
      return 128;
    case 6:
      return cc_minor == 0 ? 64 : 128;
    case 7:
      return 64;
    case 8:
      return cc_minor == 0 ? 64 : 128;  // A100: 64; GA10x, AD10x: 128
    default:
      return cc_major >= 9 ? 128 : 64;  // Hopper, Blackwell: 128
  }
}

std::shared_ptr<Gpu> Gpu::open(int ordinal, MemoryNode node) {
  int count = 0;
  BATON_CU("cuda", cuDeviceGetCount, &count);
  if (ordinal < 0 || ordinal >= count)
    raise(Errc::bad_device_spec, "cuda:" + std::to_string(ordinal),
          "no CUDA device " + std::to_string(ordinal) + ": this machine has " +
              std::to_string(count) + " (cuda:0 to cuda:" + std::to_string(count - 1) + ")");
  return std::shared_ptr<Gpu>(new Gpu(ordinal, node));
}

Gpu::Gpu(int ordinal, MemoryNode node)
    : node_(node),
      topology_id_("gpu" + std::to_string(ordinal)),
      name_("cuda" + std::to_string(ordinal)) {
  props_.ordinal = ordinal;
  BATON_CU(name_, cuDeviceGet, &device_, ordinal);
  char text[256] = {};
  BATON_CU(name_, cuDeviceGetName, text, int(sizeof text), device_);
  props_.model = text;
  BATON_CU(name_, cuDeviceGetPCIBusId, text, int(sizeof text), device_);
  props_.pci_bus_id = text;
  auto attribute = [&](CUdevice_attribute a) {
    int v = 0;
    BATON_CU(name_, cuDeviceGetAttribute, &v, a, device_);
    return v;
  };
  props_.sm_count = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  props_.threads_per_sm = attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  props_.cc_major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  props_.cc_minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  props_.clock_khz = attribute(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
  props_.can_map_host = attribute(CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY) != 0;
  std::size_t total = 0;
  BATON_CU(name_, cuDeviceTotalMem, &total, device_);
  props_.memory_bytes = total;
  BATON_CU(name_, cuDevicePrimaryCtxRetain, &primary_, device_);
  allocator_ = std::make_unique<CachingAllocator>(primary_, name_);
  staging_ = std::make_unique<StagingPool>(primary_, name_);
}

Gpu::~Gpu() {
  // Cached blocks and staging buffers go back before the context they live in.
  allocator_.reset();
  staging_.reset();
  driver().cuDevicePrimaryCtxRelease(device_);
}

double Gpu::peak_gflops(int sms) const {
  return double(sms) * fp32_lanes_per_sm(props_.cc_major, props_.cc_minor) * 2.0 *
         props_.clock_khz * 1e-6;
}

}  // namespace baton::cuda

namespace baton::cuda {

bool Gpu::enable_peer_access(const Gpu& peer) {
  std::lock_guard lock(peer_mu_);
  if (peers_.count(peer.device_)) return true;
  int can = 0;
  BATON_CU(name_, cuDeviceCanAccessPeer, &can, device_, peer.device_);
  if (!can) return false;
  ContextGuard guard(primary_);
  CUresult r = driver().cuCtxEnablePeerAccess(peer.primary_, 0);
  if (r != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) check(r, "cuCtxEnablePeerAccess", name_);
  peers_.insert(peer.device_);
  return true;
}

}  // namespace baton::cuda
