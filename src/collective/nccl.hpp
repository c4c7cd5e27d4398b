// NCCL between distinct CUDA GPUs of this process (libnccl.so.2, opened at
// run time): a communicator per GPU from ncclCommInitAll, each driven by its
// GPU's worker thread. A bucket is all-reduced in place in every rank's slot
// (NCCL lays its rings and trees over NVLink and PCIe itself), so any share of
// it holds the sum. The partitions of one GPU cannot be ranks (NCCL takes
// one rank a GPU): they share a memory, where gradients are read in place.
#pragma once

#include "collective/communicator.hpp"

namespace baton::collective {

class Nccl : public Communicator {
 public:
  // Throws Error(backend_unavailable) where NCCL does not load, and
  // Error(invalid_argument) naming a device that is not a whole CUDA GPU of
  // its own.
  Nccl(Runtime& rt, std::vector<int> devices);
  ~Nccl() override;
  Nccl(const Nccl&) = delete;
  Nccl& operator=(const Nccl&) = delete;

  std::string name() const override;
  const std::vector<int>& ranks() const override { return ranks_; }

 private:
  // An all-reduce of the bucket in every rank's slot: any share holds the sum.
  std::vector<Piece> reduce(const std::vector<Buffer<float>>& slots, Piece bucket,
                            const std::vector<double>& weights, std::vector<Task>& tasks) override;
  Runtime& rt_;
  std::vector<int> ranks_;
  std::vector<void*> comms_;     // an ncclComm_t per rank
  std::vector<Kernel> kernels_;  // an all-reduce on each rank's communicator
  // An element per rank that each of its NCCL calls writes: they run in the
  // order they were submitted, the same on every rank, as NCCL requires.
  Buffer<int> order_;
};

// Why NCCL cannot serve `devices` (empty: it can): not loaded, or a device
// that is not a whole CUDA GPU of its own.
std::string nccl_unfit(const Runtime& rt, const std::vector<int>& devices);

}  // namespace baton::collective
