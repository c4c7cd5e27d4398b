// A reduce-scatter along a ring of devices, made of tasks of a Runtime.
// Rank p's gradient sits in slots[p], a coherent buffer of its own; the ranks
// follow the topology's fastest links. Each step of the ring is a task on the
// receiving rank that adds a piece of its neighbour's slot into its own: the
// runtime's coherence moves the piece (a peer copy where the two devices have
// one, else through host memory, nothing where they share a memory) and its
// task graph lets the steps of different pieces and buckets run at once. As
// in NCCL's ring, each rank receives (k - 1) / k of a bucket and sends as
// much, over the link to its neighbour only.
#pragma once

#include <vector>

#include "baton/runtime.hpp"
#include "collective/communicator.hpp"

namespace baton::collective {

class Ring : public Communicator {
 public:
  // `devices`: indices into rt.devices(), at least one.
  Ring(Runtime& rt, std::vector<int> devices);

  std::string name() const override { return "ring"; }
  // The devices in ring order: rank p sends to rank p + 1 (mod k).
  const std::vector<int>& ranks() const override { return ranks_; }

 private:
  // Slots are left with partial sums outside each rank's piece. Sums run in
  // ring order, the same every step.
  std::vector<Piece> reduce(const std::vector<Buffer<float>>& slots, Piece bucket,
                            const std::vector<double>& weights, std::vector<Task>& tasks) override;
  Runtime& rt_;
  std::vector<int> ranks_;
  Kernel add_;
};

// The order in which a ring over `devices` runs: from the first, each next
// device the unvisited one with the widest path from the last (devices that
// share a memory come together), so the ring's slowest link is as fast as
// this greedy walk finds.
std::vector<int> ring_order(const Runtime& rt, std::vector<int> devices);

// The steps of one ring's reduce-scatter: `members` (indices into `slots` and
// `devices`, in ring order) leave member m holding the sum over the members of
// `pieces[m]`. Step t: member p adds its partial sum of the piece of member
// p - t - 1 into member p + 1's, a task on p + 1's device, so each piece
// starts one past its owner and ends there. Empty pieces cost nothing.
void ring_steps(Runtime& rt, const Kernel& add, const std::vector<Buffer<float>>& slots,
                const std::vector<int>& devices, const std::vector<std::size_t>& members,
                const std::vector<Piece>& pieces, std::vector<Task>& tasks);

}  // namespace baton::collective
