// NCCL between the processes of a job (mpirun, one or more nodes): one GPU
// of each process, its leader, is a rank. The first process makes an
// ncclUniqueId, the ProcessGroup hands it to the others, and each leader's
// worker joins the communicator (ncclCommInitRank). Each process first
// reduces its own GPUs' gradients (NCCL within the process leaves the sum in
// every slot, so in the leader's); the leaders then all-reduce it bucket by
// bucket across the processes, on the leader's stream, and the process's
// GPUs update from the leader's slot: within the node, across nodes, back.
#pragma once

#include <string>

#include "collective/communicator.hpp"

namespace baton::collective {

class NcclProcesses : public DeviceSumAcrossProcesses {
 public:
  // A collective over `group`: every process constructs it at once.
  // Error(backend_unavailable) where NCCL does not load; Error(invalid_argument)
  // where `leader` is not a whole CUDA GPU of its own.
  NcclProcesses(Runtime& rt, int leader, ProcessGroup& group);
  ~NcclProcesses() override;
  NcclProcesses(const NcclProcesses&) = delete;
  NcclProcesses& operator=(const NcclProcesses&) = delete;

  Task all_reduce(const Buffer<float>& slot, Piece piece) override;
  std::string name() const override;
  int leader() const override { return leader_; }

 private:
  Runtime& rt_;
  int leader_;
  void* comm_ = nullptr;  // ncclComm_t
  Kernel all_reduce_;
  // Written by each of the communicator's calls: they run in the order they
  // were submitted, the same in every process, as NCCL requires.
  Buffer<int> order_;
};

}  // namespace baton::collective
