#include "collective/communicator.hpp"

#include <algorithm>

#include "baton/error.hpp"
#include "collective/ring.hpp"
#include "collective/two_level_ring.hpp"
#ifdef BATON_HAVE_CUDA
#include "collective/nccl.hpp"
#include "collective/nccl_processes.hpp"
#endif

namespace baton::collective {

std::vector<Piece> Communicator::reduce_scatter(const std::vector<Buffer<float>>& slots,
                                                Piece bucket, const std::vector<double>& weights,
                                                std::vector<Task>& tasks) {
  const std::size_t k = ranks().size();
  if (slots.size() != k || weights.size() != k)
    raise(Errc::invalid_argument, name(),
          "one slot and one weight per rank (" + std::to_string(k) + " ranks)");
  return reduce(slots, bucket, weights, tasks);
}

std::unique_ptr<Communicator> make_communicator(Runtime& rt, const std::vector<int>& devices,
                                                const std::string& kind, std::string* why) {
  if (kind != "auto" && kind != "ring" && kind != "nccl")
    raise(Errc::invalid_argument, "collective",
          "unknown collective '" + kind + "' (auto, ring, nccl, or in-place where it applies)");
  if (why) why->clear();
#ifdef BATON_HAVE_CUDA
  if (kind == "nccl") return std::make_unique<Nccl>(rt, devices);
  const bool gpus = devices.size() > 1 && std::all_of(devices.begin(), devices.end(), [&](int d) {
                      return rt.devices()[std::size_t(d)]->info().collective_library == "nccl";
                    });
  if (kind == "auto" && gpus) {
    const std::string unfit = nccl_unfit(rt, devices);
    if (unfit.empty()) return std::make_unique<Nccl>(rt, devices);
    if (why) *why = "the ring, not NCCL: " + unfit;
  }
#else
  if (kind == "nccl")
    raise(Errc::backend_unavailable, "nccl", "this build has no CUDA, so no NCCL");
#endif
  std::vector<std::vector<int>> nodes = network_nodes(rt, devices);
  const bool two_level = nodes.size() > 1 && nodes[0].size() > 1 &&
                         std::all_of(nodes.begin(), nodes.end(),
                                     [&](const auto& n) { return n.size() == nodes[0].size(); });
  if (two_level) return std::make_unique<TwoLevelRing>(rt, std::move(nodes));
  return std::make_unique<Ring>(rt, devices);
}

std::unique_ptr<DeviceSumAcrossProcesses> device_sum_across_processes(
    [[maybe_unused]] Runtime& rt, [[maybe_unused]] const std::vector<int>& devices,
    [[maybe_unused]] int leader, [[maybe_unused]] bool whole_on_leader, ProcessGroup& group) {
  if (group.size() < 2) return nullptr;
#ifdef BATON_HAVE_CUDA
  const double fits[] = {whole_on_leader && nccl_unfit(rt, devices).empty() ? 1.0 : 0.0};
  for (double f : group.gather(fits))
    if (f == 0) return nullptr;
  return std::make_unique<NcclProcesses>(rt, leader, group);
#else
  const double fits[] = {0.0};  // every process takes part in the agreement
  group.gather(fits);
  return nullptr;
#endif
}

}  // namespace baton::collective
