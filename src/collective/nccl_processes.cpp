#include "collective/nccl_processes.hpp"

#include <cstring>

#include "baton/error.hpp"
#include "collective/nccl.hpp"
#include "collective/nccl_api.hpp"

namespace baton::collective {

NcclProcesses::NcclProcesses(Runtime& rt, int leader, ProcessGroup& group)
    : rt_(rt), leader_(leader), all_reduce_("collective.nccl_all_reduce_processes") {
  if (const std::string why = nccl_unfit(rt, {leader}); !why.empty())
    raise(nccl_api().error.empty() ? Errc::invalid_argument : Errc::backend_unavailable, "nccl",
          why);
  // The first process's id, to every process (as bytes: it may hold zeros).
  NcclUniqueId id{};
  if (group.rank() == 0) nccl_check(nccl_api().get_unique_id(&id), "ncclGetUniqueId", "nccl");
  const std::string first = group.gather(std::string(id.internal, sizeof id.internal)).front();
  std::memcpy(id.internal, first.data(), sizeof id.internal);
  // Joined on the leader's worker, whose thread holds its GPU's context (NCCL
  // takes the current device from it).
  Kernel join("collective.nccl_join");
  const int ranks = group.size(), rank = group.rank();
  join.native(BackendKind::cuda, [this, id, ranks, rank](void*, Span, const KernelArgs&) {
    nccl_check(nccl_api().comm_init_rank(&comm_, ranks, id, rank), "ncclCommInitRank",
               rt_.devices()[std::size_t(leader_)]->name());
  });
  rt_.wait(rt_.submit(Range{1}, join, on(leader_)));
  all_reduce_.native(BackendKind::cuda, [this](void* stream, Span s, const KernelArgs& a) {
    float* slot = reinterpret_cast<float*>(a.ptr<char>(0)) + s.begin;
    nccl_check(nccl_api().all_reduce(slot, slot, s.size(), kNcclFloat32, kNcclSum, comm_, stream),
               "ncclAllReduce", rt_.devices()[std::size_t(leader_)]->name());
  });
  order_ = rt_.buffer<int>(1);
}

NcclProcesses::~NcclProcesses() {
  try {  // every call on the communicator is done before it goes
    rt_.wait_all();
  } catch (const Error&) {
  }
  if (comm_) nccl_api().comm_destroy(comm_);
}

Task NcclProcesses::all_reduce(const Buffer<float>& slot, Piece piece) {
  return rt_.submit(Range{piece.size(), 0, piece.begin}, all_reduce_,
                    inout(slot, elements(piece.begin, piece.end)), inout(order_, whole),
                    on(leader_));
}

std::string NcclProcesses::name() const {
  return nccl_name() + " across processes";
}

}  // namespace baton::collective
