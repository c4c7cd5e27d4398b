// The processes of one job, for a group of devices that spans processes and
// nodes: `mpirun -np N baton train ...` (or srun) starts N processes, each
// driving the devices of its own Runtime, and they sum their gradients and
// agree on how to split a batch through a ProcessGroup. One process alone
// (no launcher) is a group of one whose calls do nothing.
//
// MPI is not linked into libbaton: under a launcher, join_processes() opens
// the plugin libbaton_mpi.so (collective/mpi/), which is linked with the MPI
// it was built against, as NCCL is opened at run time. A machine without MPI
// runs everything else.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

namespace baton::collective {

class ProcessGroup {
 public:
  virtual ~ProcessGroup() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual const std::string& host() const = 0;  // this process's node
  virtual std::string name() const = 0;         // "one process", "MPI (Open MPI v4.1.4)"
  // Element-wise sums over every process, in place. Each element is summed
  // once and the result sent to all, so every process holds the same bits
  // (every process then takes the same optimizer step).
  virtual void sum(std::span<float> data) = 0;
  // Every process's `mine` (the same length everywhere), in rank order.
  virtual std::vector<double> gather(std::span<const double> mine) = 0;
  // Every process's `mine`, in rank order.
  virtual std::vector<std::string> gather(const std::string& mine) = 0;
  // Ends every process of the job at once, with `status` (after an error
  // this process cannot recover from: the others would wait for it forever).
  [[noreturn]] virtual void abort(int status) = 0;
};

// The group this process was launched in: MPI's world where an MPI launcher
// (mpirun, srun) started it, else a group of one. Error(backend_unavailable)
// where a launcher started several processes and this build has no MPI
// plugin, or it does not load.
std::unique_ptr<ProcessGroup> join_processes();

// A group of one process: sums and gathers return what they are given.
std::unique_ptr<ProcessGroup> single_process();

// How many processes a launcher said it started (its environment:
// OMPI_COMM_WORLD_SIZE, PMI_SIZE, PMIX_SIZE... SLURM_NTASKS); 1 without one.
int launched_processes();
// This process's place among those the launcher started on its node
// (OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID); 0 without one.
// With one process per GPU, the GPU a process drives.
int launched_local_rank();

}  // namespace baton::collective
