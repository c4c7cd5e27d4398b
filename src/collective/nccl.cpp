#include "collective/nccl.hpp"

#include <algorithm>
#include <cstring>

#include "baton/error.hpp"
#include "collective/nccl_api.hpp"
#include "vendor/cuda/driver_api.hpp"

namespace baton::collective {

namespace {

// The CUDA device ordinal of the GPU at `bus` (NCCL counts GPUs as CUDA does).
int ordinal_of(const std::string& bus, const std::string& where) {
  int count = 0;
  BATON_CU(where, cuDeviceGetCount, &count);
  for (int i = 0; i < count; ++i) {
    CUdevice dev = 0;
    char id[32] = {};
    BATON_CU(where, cuDeviceGet, &dev, i);
    BATON_CU(where, cuDeviceGetPCIBusId, id, int(sizeof id), dev);
    if (strcasecmp(id, bus.c_str()) == 0) return i;
  }
  raise(Errc::internal, where, "no CUDA device at PCI " + bus);
}

}  // namespace

std::string nccl_unfit(const Runtime& rt, const std::vector<int>& devices) {
  if (!nccl_api().error.empty()) return nccl_api().error;
  const auto& devs = rt.devices();
  for (int d : devices) {
    const DeviceInfo& info = devs[std::size_t(d)]->info();
    if (info.collective_library != "nccl" || info.pci_bus_id.empty())
      return info.name + " is not a device NCCL sums on (a CUDA GPU)";
    const auto same_gpu = std::count_if(devs.begin(), devs.end(), [&](const auto& o) {
      return o->info().pci_bus_id == info.pci_bus_id;
    });
    if (same_gpu > 1) return info.name + " is a partition of a GPU: NCCL takes one rank a GPU";
  }
  return "";
}

Nccl::Nccl(Runtime& rt, std::vector<int> devices) : rt_(rt), ranks_(std::move(devices)) {
  if (ranks_.empty()) raise(Errc::invalid_argument, "nccl", "no devices");
  if (const std::string why = nccl_unfit(rt, ranks_); !why.empty())
    raise(nccl_api().error.empty() ? Errc::invalid_argument : Errc::backend_unavailable, "nccl",
          why);
  std::vector<int> ordinals;
  for (int d : ranks_)
    ordinals.push_back(ordinal_of(rt.devices()[std::size_t(d)]->info().pci_bus_id, "nccl"));
  comms_.assign(ranks_.size(), nullptr);
  nccl_check(nccl_api().comm_init_all(comms_.data(), int(ranks_.size()), ordinals.data()),
             "ncclCommInitAll", "nccl");
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    Kernel k("collective.nccl_all_reduce");
    const std::string where = rt.devices()[std::size_t(ranks_[r])]->name();
    k.native(BackendKind::cuda, [comm = comms_[r], where](void* stream, Span s,
                                                          const KernelArgs& a) {
      float* slot = reinterpret_cast<float*>(a.ptr<char>(0)) + s.begin;
      nccl_check(nccl_api().all_reduce(slot, slot, s.size(), kNcclFloat32, kNcclSum, comm, stream),
                 "ncclAllReduce", where);
    });
    kernels_.push_back(std::move(k));
  }
  order_ = rt.buffer<int>(ranks_.size());
}

Nccl::~Nccl() {
  // Every call on the communicators is done before they go; a task's error
  // is its waiter's to see, not this destructor's.
  try {
    rt_.wait_all();
  } catch (const Error&) {
  }
  for (void* c : comms_)
    if (c) nccl_api().comm_destroy(c);
}

std::string Nccl::name() const {
  return nccl_name();
}

std::vector<Piece> Nccl::reduce(const std::vector<Buffer<float>>& slots, Piece bucket,
                                const std::vector<double>& weights, std::vector<Task>& tasks) {
  for (std::size_t r = 0; r < ranks_.size(); ++r)
    tasks.push_back(rt_.submit(Range{bucket.size(), 0, bucket.begin}, kernels_[r],
                               inout(slots[r], elements(bucket.begin, bucket.end)),
                               inout(order_, elements(r, r + 1)), on(ranks_[r])));
  return shares(bucket, weights, 4);
}

}  // namespace baton::collective
