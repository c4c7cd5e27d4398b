// How the devices of a data-parallel job sum a gradient: a communicator over
// ranks (devices of a Runtime), each holding its gradient in a slot (a
// coherent buffer of its own). Bucket by bucket, a reduction leaves every
// rank with the sum of every slot over a share of the bucket, sized by the
// rank's weight: what a sharded optimizer step needs. The tasks it submits
// are ordinary tasks of the Runtime, so a bucket's reduction overlaps with
// whatever else is ready (the previous bucket's update).
//
// Kinds: "ring" (ring.hpp: any devices, the runtime's own copies along the
// topology's fastest links; two_level_ring.hpp where they sit in several
// nodes joined by a network) and "nccl" (nccl.hpp: distinct CUDA GPUs, NCCL's
// all-reduce). A group spanning processes plugs in as another kind.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "baton/runtime.hpp"
#include "collective/pieces.hpp"
#include "collective/process_group.hpp"

namespace baton::collective {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual std::string name() const = 0;  // "ring", "nccl 2.27.7"
  // The devices (indices into Runtime::devices()), in rank order.
  virtual const std::vector<int>& ranks() const = 0;
  // Submits the reduction of `bucket` of `slots` (one per rank): once the
  // tasks appended to `tasks` are done, slots[p] holds the sum of every slot
  // over the piece returned for rank p. The pieces are `bucket` cut by
  // `weights` (per rank), on 16-byte boundaries. Error(invalid_argument)
  // unless there is one slot and one weight per rank.
  std::vector<Piece> reduce_scatter(const std::vector<Buffer<float>>& slots, Piece bucket,
                                    const std::vector<double>& weights, std::vector<Task>& tasks);
  // After each rank has updated its piece of a bucket (`owned`, as
  // reduce_scatter returned), the reads (rank, piece) to submit at once so
  // that the ranks' next reads of the whole find the pieces near. None by
  // default: each rank copies what it misses from the owners when it reads.
  virtual std::vector<std::pair<std::size_t, Piece>> gather_reads(
      const std::vector<Piece>& owned) const {
    (void)owned;
    return {};
  }

 private:
  // reduce_scatter, its arguments checked.
  virtual std::vector<Piece> reduce(const std::vector<Buffer<float>>& slots, Piece bucket,
                                    const std::vector<double>& weights,
                                    std::vector<Task>& tasks) = 0;
};

// "auto": NCCL where every device is a whole CUDA GPU of its own and NCCL
// loads, else the ring (in two levels where the devices sit in several
// nodes of one size); "ring"; "nccl" (Error backend_unavailable without
// NCCL, invalid_argument for devices it cannot serve). `why` says what "auto"
// chose and why, where it is not obvious.
std::unique_ptr<Communicator> make_communicator(Runtime& rt, const std::vector<int>& devices,
                                                const std::string& kind,
                                                std::string* why = nullptr);

// A job of several processes whose GPUs sum on the device (NCCL between the
// processes' leaders: nccl_processes.hpp), rather than on the host.
class DeviceSumAcrossProcesses {
 public:
  virtual ~DeviceSumAcrossProcesses() = default;
  virtual std::string name() const = 0;
  virtual int leader() const = 0;  // the device (of this process's Runtime) that sums
  // Submits the sum over the processes of `piece` of `slot`, in place on the
  // leader. Every process submits the same pieces in the same order.
  virtual Task all_reduce(const Buffer<float>& slot, Piece piece) = 0;
};

// NCCL between the processes where every process of `group` (of several)
// runs whole CUDA GPUs only, NCCL loads, and `whole_on_leader` (its own
// reduction leaves the whole sum in `leader`'s slot); else nullptr: the
// processes sum on the host through the group. A collective: all agree.
std::unique_ptr<DeviceSumAcrossProcesses> device_sum_across_processes(
    Runtime& rt, const std::vector<int>& devices, int leader, bool whole_on_leader,
    ProcessGroup& group);

}  // namespace baton::collective
