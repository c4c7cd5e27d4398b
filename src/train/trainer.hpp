// Data-parallel training over a Runtime. Each step's global batch is cut into
// micro-batches, the items of one task spread over the devices by the chosen
// policy; each device adds the gradients of the micro-batches it ran into an
// accumulator of its own (a per-device buffer). The gradient is then summed
// and AdamW updates the one coherent weight buffer, which every device then
// reads. Where the devices share one memory (the cpu devices, the partitions
// of one GPU) the update, split over the devices as the micro-batches were,
// reads the accumulators in place, with no copy. Elsewhere each device copies
// its accumulator into a slot of its own, a ring of the devices
// reduce-scatters the slots bucket by bucket (collective/ring.hpp), and each
// device updates the share of each bucket it holds the sum of: a
// reduce-scatter, a sharded optimizer step and an all-gather of the weights
// (by coherence, as the next step reads them), with each bucket's update
// running while the next bucket is reduced. With overlap, each device runs
// the last micro-batch it takes a layer at a time, from the last layer down,
// each layer's gradient written straight into its slot (a layer larger than
// a bucket in parts of its weights' rows): a bucket is reduced and updated
// while the rest of its layer and the layers below are still computed.
// Every device computes with the same weights at every step, whatever the
// split; the update writes them beside the ones the step read, so a step
// that a failed device leaves half updated is done again from where it began.
//
// A job of several processes (mpirun, collective/process_group.hpp) runs one
// Trainer in each, over its own devices: each step's global batch is cut
// between the processes by their measured rates (process_shares.hpp), each
// reduces its devices' gradients as above, the processes sum the reduced
// buckets, and every process takes the same AdamW step.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "baton/runtime.hpp"
#include "collective/communicator.hpp"
#include "train/adamw.hpp"
#include "train/checkpoint.hpp"
#include "train/mlp.hpp"
#include "train/process_shares.hpp"
#include "train/rate_window.hpp"
#include "train/step_kernels.hpp"
#include "train/teacher.hpp"

namespace baton::train {

struct TrainConfig {
  MlpShape shape;
  int batch = 1024;      // samples per step, over all devices
  int micro_batch = 32;  // samples per micro-batch: the unit a policy places
  std::string policy = "ws";
  // 0: a fresh batch each step, made on host threads while the step before
  // runs; N: N batches made once and handed over in turn (epochs of a small
  // dataset in pinned memory: each step still copies its batch in).
  int dataset = 0;
  AdamW optimizer;
  std::uint64_t seed = 1;
  // Indices into Runtime::devices(); empty: every device that can train.
  std::vector<int> devices;
  // How the gradient is summed: "in-place" (devices in one memory: the update
  // reads every accumulator where it is), "ring", "nccl" (collective/), or
  // "auto": in place where the devices share a memory, else NCCL between
  // whole CUDA GPUs, else the ring.
  std::string collective = "auto";
  // Through a communicator: each bucket's update runs while the next bucket
  // is reduced. false: the update starts once every bucket is reduced, and
  // the step says how long the reduction took alone.
  bool overlap = true;
  // Bytes of each gradient bucket after the first (DDP's bucket_cap_mb); 0:
  // by the number of devices (collective::bucket_bytes). A layer larger than
  // a bucket computes its gradient in parts of about a bucket's bytes.
  std::uint64_t bucket_bytes = 0;
  // The job's processes (not owned), each running a Trainer over its own
  // devices; nullptr or a group of one: this process alone.
  collective::ProcessGroup* processes = nullptr;
};

// Which devices a Trainer over `config` takes and what each holds, with the
// checks its constructor makes (the configuration, the devices' training
// code, the model's fit) and nothing allocated.
struct TrainPlan {
  std::vector<int> devices;  // indices into Runtime::devices()
  bool shared = false;       // in one memory, whose accumulators the update reads in place
  // Weights, accumulator, the ring's slots (its own and a neighbour's) and
  // share of the moments, a micro-batch's activations.
  std::uint64_t bytes_per_device = 0;
};
TrainPlan plan_training(const Runtime& rt, const TrainConfig& config);
// The same, for the model's layout and kernels already made (whose
// implementations say which backends can train).
TrainPlan plan_training(const Runtime& rt, const TrainConfig& config, const MlpLayout& layout,
                        const StepKernels& kernels);
// The model's layout, checked before anything is made for it (its kernels'
// gradient parts grow with it): a model no device here could hold is an
// out_of_memory error naming what it needs and the largest memory.
MlpLayout fitting_layout(const Runtime& rt, const TrainConfig& config);
// Bytes of a layer's gradient part under `config`.
std::uint64_t gradient_part_bytes(const TrainConfig& config);

struct StepResult {
  int step = 0;        // from 1
  double loss = 0;     // mean over the batch of 0.5 * |model(x) - target|^2
  double seconds = 0;  // on the runtime's clock, this step's share of the run
  RunStats grad;       // the micro-batches' run: items are micro-batches
  // The reduction and AdamW step: items are parameters. In place, the
  // update's run; through a communicator, its policy is the communicator's
  // name and its makespan from the grad's end to the last shard's update
  // (reduced behind the layers' backward: from the last layer's end, what
  // was not hidden).
  RunStats update;
  // Without overlap, the reduction's share of `update` (from its start to the
  // last bucket reduced); else 0.
  double reduce_seconds = 0;
  // Devices that failed during the step ("name: cause"): their work ran on
  // the others (where needed the step was accumulated again), which train on
  // without them.
  std::vector<std::string> failures;
  // A job of several processes: each one's micro-batches (rank order); else empty.
  std::vector<int> process_micro_batches;
};

class Trainer {
 public:
  // Throws Error(invalid_argument) for a bad configuration, naming the field,
  // and Error(out_of_memory) naming a device the model does not fit.
  Trainer(Runtime& rt, TrainConfig config);

  // One step: forward and backward of every micro-batch, the reduction and
  // the update. The next step's batch is made on the host while the update
  // runs.
  StepResult step();
  // The gradient of step `step`'s batch at the current weights, summed over
  // its samples, as the devices compute and reduce it; the weights stay.
  std::vector<float> gradient(int step);
  // The weights, on the host, once every update so far is done.
  std::vector<float> params();
  // What a job resumed later needs, once every update so far is done.
  Checkpoint checkpoint();
  // Goes on from `c`: its weights, moments, step and rates. Throws
  // Error(invalid_argument, "checkpoint") naming a field that differs from
  // this trainer's configuration (the model's shape, seed, batch).
  void restore(const Checkpoint& c);
  int steps_done() const { return step_; }

  const MlpLayout& layout() const { return layout_; }
  const TrainConfig& config() const { return config_; }
  const std::vector<int>& devices() const { return devices_; }
  // How the gradient is summed: "in place" or the communicator's name, and
  // why where "auto" chose less than the best.
  std::string collective() const;
  // Per device of the Runtime: micro-batches/s, the median of the last steps'
  // (at first its peak figure), 0 for a device that takes no part.
  const std::vector<double>& rates() const { return rates_; }

 private:
  // The weights: fp32 masters and the bf16 copy GPUs compute with.
  struct Weights {
    Buffer<float> fp32;
    Buffer<std::uint16_t> bf16;
  };
  // The weights once `step` steps are done (two sets in turn: step s reads
  // set (s - 1) % 2 and writes set s % 2).
  Weights& weights_after(int step) { return weights_[std::size_t(step & 1)]; }
  struct Batch {
    Buffer<float> x, y;
    int data = 0;             // which batch of data it holds; 0: none yet
    int step = 0;             // the step it was last handed to
    int first = 0, rows = 0;  // the rows of the global batch it holds
  };
  Batch& load(int step);
  // This process's micro-batches of step `step`: all of them, or its share.
  ProcessShares::Share share(int step);
  // grad (then publish, where the accumulators are not shared) for the batch
  // of `step` at weights `w`, under a fresh tag. `layered`: each device's
  // last micro-batch runs a layer at a time into its slot (submit_layers)
  // instead of being published.
  struct Grad {
    std::optional<Runtime::PendingRun> run;  // none where every micro-batch goes by layers
    double start_s = 0;
  };
  Grad accumulate(int step, const Weights& w, bool layered);
  RunStats wait(Grad grad);
  // Adds the micro-batches run by layers, one a device, ended by `done_s`,
  // to `grad`'s figures.
  void count_layers(RunStats& grad, double done_s);
  // Through a communicator with overlap, where every device has code for the
  // layers and gets a micro-batch of its own.
  bool layered(int step);
  // Micro-batches first, first + 1, ... (one per rank) of `b`, forward then
  // backward a layer at a time, each rank's into its slot; into published_.
  void submit_layers(const Batch& b, const Weights& w, std::uint64_t first);
  // The reduction and AdamW step on the accumulation just made, and the
  // losses: one run in place, or the ring's and the shards' tasks.
  struct Update {
    Runtime::PendingRun run;
    std::vector<Task> tasks;
    // Through a communicator: the AdamW tasks and the pieces each updates.
    std::vector<std::pair<Task, collective::Piece>> updates;
    double start = 0;    // when the tasks were submitted
    double reduced = 0;  // without overlap: when the reduction ended
  };
  // `done`: pieces updated already this step (by tasks that ran before a
  // device failed), left as they are. `behind`: submitted behind the layers'
  // backward.
  Update update(const std::vector<collective::Piece>& done = {}, bool behind = false);
  // Waits for `t`; false where it failed with its device (raised for nothing else).
  bool settle(Task t);
  // Waits for every task of `u`, raising nothing for those that failed with
  // their device; the pieces whose update is done are added to `done`.
  void settle_update(Update& u, std::vector<collective::Piece>& done);
  RunStats finish(Update u);
  // Through the communicator: submits the reduction of every bucket; each
  // rank's pieces (its sum over them in its slot), a piece a bucket.
  std::vector<std::vector<collective::Piece>> reduce_scatter(std::vector<Task>& tasks);
  // The communicator over the devices taking part, and a slot for each.
  void connect();
  void stage(Batch& next);
  // Each rank's reduced pieces (`owned`: per bucket, per rank) copied side by
  // side into `sum`: the whole gradient this process's devices summed.
  void gather_owned(const std::vector<std::vector<collective::Piece>>& owned, std::span<float> sum);
  // The reads the communicator asks for once `owned` pieces of a bucket are
  // updated (its gather_reads), of the weights each device's forward reads.
  void gather_early(const std::vector<collective::Piece>& owned, bool behind,
                    std::vector<Task>& tasks);
  // Sums each bucket's pieces (reduced within this process) over the
  // processes, on the leader GPU or on the host, and submits each bucket's
  // update as soon as its sum is known.
  void update_across_processes(const std::vector<std::vector<collective::Piece>>& owned, Update& u);
  // Waits for the publishes; one that failed with its device raises nothing
  // (drop_failed notes the device, and the step is accumulated again).
  void settle_published();
  // Leaves out the devices that failed in `grad`, noting them; true if any did.
  bool drop_failed(const RunStats& grad, std::vector<std::string>& failures);
  void learn(const RunStats& grad);
  // The update read in place (shared_): each device's rate over it, learned
  // as the micro-batches' are (learn then hands both to the policies).
  void learn_update(const RunStats& update);
  void follow_rates();

  Runtime& rt_;
  TrainConfig config_;
  MlpLayout layout_;
  Teacher teacher_;
  StepKernels kernels_;
  std::vector<int> devices_;
  std::vector<double> rates_;
  std::vector<RateWindow> seen_;  // per device
  // Per device, its rate over the update where it is read in place (0: not
  // yet learned). Memory-bound, it is not the micro-batches' rate: a
  // partition of few SMs has more of the GPU's bandwidth per SM.
  std::vector<double> update_rates_;
  std::vector<RateWindow> update_seen_;
  Weights weights_[2];
  Buffer<float> m_, v_;
  PerDevice<float> accumulator_;
  PerDevice<float> saved_;  // a layered micro-batch's activations, made on first use
  // Where the accumulators are not read in place: a slot per rank.
  std::unique_ptr<collective::Communicator> comm_;
  std::string comm_note_;
  std::vector<Buffer<float>> slots_;
  // The latest accumulation's copies into the slots (or its layers' backward).
  std::vector<Task> published_;
  std::vector<collective::Piece> buckets_;
  Buffer<float> losses_;  // per device (shared) or per slot
  std::vector<Batch> batches_;
  // A job of several processes: who runs what, and the gradient summed over
  // them on the host, or on the leader GPU (NCCL between the processes).
  std::unique_ptr<ProcessShares> shares_;
  Buffer<float> summed_;
  std::unique_ptr<collective::DeviceSumAcrossProcesses> across_;
  int step_ = 0;
  bool shared_ = false;  // every device taking part sits in one memory
  // Every device keeps time only (a sim device standing for another
  // backend): none reads a batch, and none is made.
  bool time_only_ = false;
  std::uint32_t tag_ = 0;  // of the latest accumulation
};

}  // namespace baton::train
