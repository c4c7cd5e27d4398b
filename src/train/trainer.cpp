#include "train/trainer.hpp"

#include <cblas.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <thread>

#include "baton/error.hpp"

namespace baton::train {

namespace {

// A tag no other accumulation of the process has used (see kernel_args.hpp).
std::uint32_t fresh_tag() {
  static std::atomic<std::uint32_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace

Trainer::Trainer(Runtime& rt, TrainConfig config)
    : rt_(rt),
      config_(std::move(config)),
      layout_(fitting_layout(rt_, config_)),
      teacher_(config_.shape, config_.seed),
      kernels_(make_step_kernels(layout_, config_.micro_batch, gradient_part_bytes(config_))) {
  const TrainPlan chosen = plan_training(rt_, config_, layout_, kernels_);
  devices_ = chosen.devices;
  shared_ = chosen.shared;
  const auto& devs = rt_.devices();
  time_only_ = std::all_of(devices_.begin(), devices_.end(), [&](int d) {
    return devs[std::size_t(d)]->info().stands_for.has_value();
  });
  // A cpu device's threads are the parallelism: each runs its own GEMMs.
  openblas_set_num_threads(1);
  const std::size_t n = layout_.params();
  for (Weights& w : weights_) {
    w.fp32 = rt_.buffer<float>(n);
    w.bf16 = rt_.buffer<std::uint16_t>(n);
  }
  m_ = rt_.buffer<float>(n);
  v_ = rt_.buffer<float>(n);
  // Devices that keep time only read none of it: written, the model's
  // gigabytes took most of a planning run's wall time.
  if (!time_only_) {
    Weights& w = weights_after(0);
    init_params(layout_, config_.seed, w.fp32.host());
    auto p = w.fp32.read();
    auto low = w.bf16.host();
    for (std::size_t i = 0; i < n; ++i) low[i] = bf16_bits(p[i]);
    std::fill(m_.host().begin(), m_.host().end(), 0.0f);
    std::fill(v_.host().begin(), v_.host().end(), 0.0f);
  }
  accumulator_ = rt_.per_device<float>(n + 2);
  if (!shared_) {
    const std::uint64_t bucket =
        config_.bucket_bytes ? config_.bucket_bytes : collective::bucket_bytes(devices_.size());
    buckets_ = collective::buckets(n, sizeof(float),
                                   std::min(collective::kFirstBucketBytes, bucket), bucket);
    connect();
  }
  losses_ = rt_.buffer<float>(devs.size());
  const std::size_t b = std::size_t(config_.batch);
  batches_.resize(std::size_t(std::max(2, config_.dataset)));
  for (Batch& batch : batches_) {
    batch.x = rt_.buffer<float>(b * std::size_t(config_.shape.inputs));
    batch.y = rt_.buffer<float>(b * std::size_t(config_.shape.outputs));
  }

  // Micro-batches go to the devices taking part, first by peak figures.
  rates_.assign(devs.size(), 0.0);
  for (int d : devices_) rates_[d] = std::max(devs[d]->info().peak_gflops, 1e-3);
  follow_rates();
  if (config_.processes && config_.processes->size() > 1) {
    double peak = 0;
    for (int d : devices_) peak += rates_[std::size_t(d)];
    shares_ = std::make_unique<ProcessShares>(*config_.processes,
                                              config_.batch / config_.micro_batch, peak);
    // NCCL between the processes wants the whole sum in one slot: NCCL
    // within the process leaves it in every slot, as does a process of one GPU.
    const int leader = comm_->ranks().front();
    const bool whole = devices_.size() == 1 || comm_->name().rfind("nccl", 0) == 0;
    across_ =
        collective::device_sum_across_processes(rt_, devices_, leader, whole, *config_.processes);
    if (!across_) summed_ = rt_.buffer<float>(n);
  }
}

ProcessShares::Share Trainer::share(int step) {
  if (shares_) return shares_->of(step);
  return {0, config_.batch / config_.micro_batch};
}

void Trainer::connect() {
  comm_.reset();  // NCCL's calls under way end before a new communicator starts
  comm_ = collective::make_communicator(
      rt_, devices_, config_.collective == "in-place" ? "auto" : config_.collective, &comm_note_);
  slots_.clear();
  for (std::size_t p = 0; p < devices_.size(); ++p)
    slots_.push_back(rt_.buffer<float>(layout_.params()));
}

// The update's parameters are split as the micro-batches are, until each
// device's rate over the update read in place is learned: at the micro-batches'
// shares, the 8-SM partition of an H200 ended its update 0.7 ms before the
// 64-SM one.
void Trainer::follow_rates() {
  rt_.set_standalone_rates(kernels_.grad, rates_);
  const bool learned =
      shared_ && std::all_of(devices_.begin(), devices_.end(), [&](int d) {
        return std::size_t(d) < update_rates_.size() && update_rates_[std::size_t(d)] > 0;
      });
  std::vector<double> update = rates_;
  if (learned)
    for (int d : devices_) update[std::size_t(d)] = update_rates_[std::size_t(d)];
  rt_.set_standalone_rates(shared_ ? kernels_.adamw_shared : kernels_.adamw_slots, update);
}

Trainer::Batch& Trainer::load(int step) {
  // A fresh batch each step (its number is the step's), or one of `dataset`
  // batches in turn.
  const int cycle = config_.dataset;
  Batch& b = batches_[std::size_t(cycle > 0 ? (step - 1) % cycle : step % 2)];
  const int data = cycle > 0 ? (step - 1) % cycle + 1 : step;
  if (b.step == step) return b;
  b.step = step;
  float* x = b.x.host().data();  // host(): the devices' copies are stale from here
  float* y = b.y.host().data();
  // This process's rows of the global batch (all of them, alone).
  const ProcessShares::Share mine = share(step);
  const int rows = mine.micro_batches * config_.micro_batch;
  const int offset = mine.first * config_.micro_batch;
  // Handed over again, as a loader hands an epoch's batch.
  if (b.data == data && b.first == offset && b.rows == rows) return b;
  b.data = data;
  b.first = offset;
  b.rows = rows;
  if (time_only_) return b;  // read by no device
  // Rows in pieces on a few host threads, as a data loader's workers make them.
  const int threads = std::clamp(int(std::thread::hardware_concurrency()) / 2, 1, 8);
  const int per = (rows + threads - 1) / threads;
  std::vector<std::thread> workers;
  for (int first = per; first < rows; first += per)
    workers.emplace_back([&, first] {
      const int n = std::min(per, rows - first);
      teacher_.batch(std::uint64_t(data), std::uint64_t(offset + first), n,
                     x + std::size_t(first) * config_.shape.inputs,
                     y + std::size_t(first) * config_.shape.outputs);
    });
  teacher_.batch(std::uint64_t(data), std::uint64_t(offset), std::min(per, rows), x, y);
  for (auto& w : workers) w.join();
  return b;
}

Trainer::Grad Trainer::accumulate(int step, const Weights& w, bool layered) {
  Batch& b = load(step);
  tag_ = fresh_tag();
  const std::uint64_t micro_batches = std::uint64_t(share(step).micro_batches);
  const std::uint64_t by_layers = layered ? devices_.size() : 0;  // the last, one a rank
  const std::uint64_t mb = std::uint64_t(config_.micro_batch);
  Grad grad{{}, rt_.clock().now()};
  if (micro_batches > by_layers)
    grad.run = rt_.parallel_for_async(
        Range{micro_batches - by_layers}, kernels_.grad, in(w.fp32, whole), in(w.bf16, whole),
        in(b.x, Part{mb * std::uint64_t(config_.shape.inputs)}),
        in(b.y, Part{mb * std::uint64_t(config_.shape.outputs)}), local(accumulator_),
        std::uint32_t(mb), tag_, Policy::by_name(config_.policy));
  if (shared_) return grad;
  published_.clear();
  if (layered) {
    submit_layers(b, w, micro_batches - by_layers);
    return grad;
  }
  const std::uint64_t n = layout_.params();
  const std::vector<int>& ranks = comm_->ranks();
  for (std::size_t p = 0; p < ranks.size(); ++p)
    published_.push_back(rt_.submit(Range{n}, kernels_.publish, local(accumulator_), out(slots_[p]),
                                    out(losses_, elements(p, p + 1)),
                                    PublishArgs{0, std::uint32_t(p), tag_}, std::uint64_t(n),
                                    on(ranks[p])));
  return grad;
}

bool Trainer::layered(int step) {
  if (shared_ || shares_ || !config_.overlap) return false;
  const auto& devs = rt_.devices();
  const bool code = std::all_of(devices_.begin(), devices_.end(), [&](int d) {
    return kernels_.forward.front().runs_on(devs[std::size_t(d)]->info().backend);
  });
  return code && share(step).micro_batches >= int(devices_.size());
}

void Trainer::submit_layers(const Batch& b, const Weights& w, std::uint64_t first) {
  const std::uint64_t mb = std::uint64_t(config_.micro_batch);
  if (saved_.size() == 0) saved_ = rt_.per_device<float>(layout_.workspace(config_.micro_batch));
  const Part xs{mb * std::uint64_t(config_.shape.inputs)};
  const Part ys{mb * std::uint64_t(config_.shape.outputs)};
  const std::vector<int>& ranks = comm_->ranks();
  auto args = [&](std::size_t p) {
    return LayerArgs{std::uint32_t(mb), tag_, std::uint32_t(p), 0};
  };
  const auto& layers = layout_.layers();
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const auto weights = elements(layers[i].weight, layers[i].end());
    for (std::size_t p = 0; p < ranks.size(); ++p)
      published_.push_back(rt_.submit(Range{1, 0, first + p}, kernels_.forward[i],
                                      in(w.fp32, weights), in(w.bf16, weights), in(b.x, xs),
                                      local(saved_), args(p), on(ranks[p])));
  }
  // Layer by layer over the ranks: a layer's gradient is whole (and its
  // buckets' reduction may start) once every rank has made it.
  for (std::size_t i = layers.size(); i-- > 0;) {
    const std::vector<OutRows>& parts = kernels_.parts[i];
    // The last rows first: the buckets are cut from the end.
    for (std::size_t j = parts.size(); j-- > 0;) {
      const auto [begin, end] = part_elements(layers[i], parts[j]);
      const Kernel& part = kernels_.backward[i][j];
      for (std::size_t p = 0; p < ranks.size(); ++p) {
        const Range item{1, 0, first + p};
        const BufferArg slot = out(slots_[p], elements(begin, end));
        if (i + 1 == layers.size() && j + 1 == parts.size())
          published_.push_back(rt_.submit(item, part, in(w.fp32, whole), in(w.bf16, whole),
                                          in(b.x, xs), in(b.y, ys), local(saved_),
                                          local(accumulator_), slot, args(p),
                                          out(losses_, elements(p, p + 1)), on(ranks[p])));
        else
          published_.push_back(rt_.submit(item, part, in(w.fp32, whole), in(w.bf16, whole),
                                          in(b.x, xs), in(b.y, ys), local(saved_),
                                          local(accumulator_), slot, args(p), on(ranks[p])));
      }
    }
    if (i > 0)
      for (std::size_t p = 0; p < ranks.size(); ++p)
        published_.push_back(rt_.submit(Range{1, 0, first + p}, kernels_.below[i - 1],
                                        in(w.fp32, whole), in(w.bf16, whole), local(saved_),
                                        args(p), on(ranks[p])));
  }
}

// Where every device sits in one memory other than the host's, the next
// batch is copied there now, behind the step that runs; elsewhere each
// device copies the micro-batches it takes.
void Trainer::stage(Batch& next) {
  const int first = devices_.front();
  if (!shared_ || rt_.devices()[first]->info().memory_node == kHostNode) return;
  rt_.submit(Range{1}, kernels_.stage, in(next.x, whole), in(next.y, whole), on(first));
}

void Trainer::settle_published() {
  for (Task p : published_) settle(p);
}

bool Trainer::drop_failed(const RunStats& grad, std::vector<std::string>& failures) {
  // A device may also fail after its micro-batches, while publishing them:
  // its publish then failed with it (a task pinned to its accumulator).
  const auto failed = [&](int d) { return grad.devices[std::size_t(d)].failed || rt_.failed(d); };
  if (std::none_of(devices_.begin(), devices_.end(), failed)) return false;
  for (int d : devices_)
    if (failed(d)) {
      const DeviceStats& s = grad.devices[std::size_t(d)];
      failures.push_back(rt_.devices()[std::size_t(d)]->name() + ": " +
                         (s.failed ? s.failure : rt_.failure(d)));
      rates_[std::size_t(d)] = 0;
    }
  std::erase_if(devices_, failed);
  // The processes' NCCL communicator has its ranks fixed: a job that lost a
  // GPU ends (and resumes from its checkpoint).
  if (across_)
    raise(Errc::device_failed, "train",
          failures.back() + "; a job summing over NCCL across processes cannot go on without it");
  if (devices_.empty())
    raise(Errc::device_failed, "train", "every device failed (last: " + failures.back() + ")");
  if (!shared_) connect();
  follow_rates();
  return true;
}

// A device's rate is the median of the last few steps'. One step's figure
// swings with what ran beside the device (partitions of a GPU share its
// memory; a device that finishes last ran partly alone, faster): split by it
// alone, the next step's split swung back and forth for ten steps on the
// H200. The first step is not learned from on real devices: it pays one-time
// costs (cuBLASLt's plans, first allocations), and the second step's split
// by the peak figures is the better guess; on virtual time it is exact.
void Trainer::learn(const RunStats& grad) {
  if (step_ == 1 && !rt_.clock().is_virtual()) return;
  seen_.resize(rates_.size());
  for (int d : devices_) {
    if (double r = run_rate(grad.devices[std::size_t(d)]); r > 0)
      rates_[std::size_t(d)] = seen_[std::size_t(d)].add(r);
  }
  follow_rates();
}

void Trainer::learn_update(const RunStats& update) {
  if (step_ == 1 && !rt_.clock().is_virtual()) return;
  update_rates_.resize(rates_.size(), 0.0);
  update_seen_.resize(rates_.size());
  for (int d : devices_) {
    const DeviceStats& s = update.devices[std::size_t(d)];
    if (s.items > 0 && s.busy_s > 0)
      update_rates_[std::size_t(d)] = update_seen_[std::size_t(d)].add(double(s.items) / s.busy_s);
  }
}

RunStats Trainer::wait(Grad grad) {
  if (grad.run) return rt_.wait(std::move(*grad.run));
  RunStats s;  // every micro-batch went by layers
  s.policy = config_.policy;
  s.devices.resize(rt_.devices().size());
  s.start_s = grad.start_s;
  s.simulated = rt_.clock().is_virtual();
  return s;
}

void Trainer::count_layers(RunStats& grad, double done_s) {
  // Each device ran its layers from the end of the policy's run (or the
  // step's start) to done_s, the last of them to end: its busy time is
  // counted so, a little more than it was for those that ended earlier.
  const double layers_s = done_s - (grad.start_s + grad.makespan_s);
  for (int d : devices_) {
    DeviceStats& s = grad.devices[std::size_t(d)];
    ++s.items;
    ++s.chunks;
    s.busy_s += std::max(0.0, layers_s);
  }
  grad.items += devices_.size();
  grad.makespan_s = done_s - grad.start_s;
}

StepResult Trainer::step() {
  const double start = rt_.clock().now();
  StepResult r;
  r.step = ++step_;
  const Weights& from = weights_after(step_ - 1);
  bool by_layers = layered(step_);
  Grad grad = accumulate(step_, from, by_layers);
  // Read in place, the accumulators of a device that fails stay where its
  // memory answers (and a table over a lost one fails the update, and so this
  // step): the update follows the micro-batches at once, with no turn of the
  // host between. By layers, the reduction and update follow each layer.
  Update updated;
  if (shared_ || by_layers) updated = update({}, by_layers);
  stage(load(step_ + 1));  // on the host while the step runs
  r.grad = wait(std::move(grad));
  double layers_done = 0;
  if (shared_) {
    drop_failed(r.grad, r.failures);
  } else {
    // A slot's publish (or a layer's backward) is pinned to its device and
    // reads that device's accumulator: where one failed, so did its publish,
    // and the survivors accumulate and publish the step again, then update
    // what the tasks before the failure did not.
    settle_published();
    layers_done = rt_.clock().now();
    std::vector<collective::Piece> done;
    if (by_layers) settle_update(updated, done);
    bool again = false;
    while (drop_failed(r.grad, r.failures)) {
      again = true;
      by_layers = false;
      r.grad = wait(accumulate(step_, from, false));
      settle_published();
    }
    if (again || !by_layers) updated = update(done);
  }
  const double reduced = updated.reduced;
  r.update = finish(std::move(updated));
  if (reduced > 0) r.reduce_seconds = reduced - r.update.start_s;
  if (by_layers) {  // submitted with the layers: what the step waited for after them
    r.update.makespan_s = std::max(0.0, r.update.start_s + r.update.makespan_s - layers_done);
    r.update.start_s = layers_done;
  }
  double loss = 0;  // per device (shared), or per slot of the devices taking part
  const auto losses = losses_.read();
  for (std::size_t i = 0; i < (shared_ ? losses.size() : devices_.size()); ++i)
    loss += double(losses[i]);
  if (shares_) {
    // The processes' losses and rates, gathered in one collective.
    const bool learned = step_ > 1 || rt_.clock().is_virtual();
    const double rate =
        learned && r.grad.makespan_s > 0 ? share(step_).micro_batches / r.grad.makespan_s : 0.0;
    r.process_micro_batches = shares_->split(step_);
    loss = shares_->learn(loss, rate);
  }
  r.loss = loss / double(config_.batch);
  if (shared_) learn_update(r.update);
  learn(r.grad);  // and the policies follow both
  // Rates come from the micro-batches the policy placed; the figures count all.
  if (by_layers) count_layers(r.grad, layers_done);
  r.seconds = rt_.clock().now() - start;
  return r;
}

std::vector<float> Trainer::gradient(int step) {
  wait(accumulate(step, weights_after(step_), false));
  settle_published();
  const std::size_t n = layout_.params();
  std::vector<float> sum(n, 0.0f);
  if (shared_) {  // each device's accumulator that holds this accumulation, in device order
    for (int d : devices_) {
      const std::vector<float> acc = rt_.read(accumulator_, d);
      if (std::bit_cast<std::uint32_t>(acc[tag_at(n)]) != tag_) continue;
      for (std::size_t i = 0; i < n; ++i) sum[i] += acc[i];
    }
    return sum;  // alone: a job of processes never reads in place
  }
  std::vector<Task> tasks;
  const auto owned = reduce_scatter(tasks);
  if (across_) {  // the whole sum, in the leader's slot
    for (const collective::Piece& b : buckets_) tasks.push_back(across_->all_reduce(slots_[0], b));
    for (Task t : tasks) rt_.wait(t);
    const auto whole = slots_[0].read();
    return {whole.begin(), whole.end()};
  }
  for (Task t : tasks) rt_.wait(t);
  gather_owned(owned, sum);
  if (shares_) config_.processes->sum(sum);
  return sum;
}

std::string Trainer::collective() const {
  if (shared_) return "in place";
  std::string across;
  if (shares_) across = ", then " + (across_ ? across_->name() : config_.processes->name());
  return comm_->name() + (comm_note_.empty() ? "" : " (" + comm_note_ + ")") + across;
}

std::vector<float> Trainer::params() {
  auto p = weights_after(step_).fp32.read();
  return {p.begin(), p.end()};
}

Checkpoint Trainer::checkpoint() {
  Checkpoint c;
  c.shape = config_.shape;
  c.seed = config_.seed;
  c.batch = config_.batch;
  c.micro_batch = config_.micro_batch;
  c.step = step_;
  for (int d : devices_) c.rates[rt_.devices()[std::size_t(d)]->name()] = rates_[std::size_t(d)];
  if (shares_) c.process_rates = shares_->rates();
  c.params = params();
  const auto m = m_.read(), v = v_.read();
  c.m.assign(m.begin(), m.end());
  c.v.assign(v.begin(), v.end());
  return c;
}

void Trainer::restore(const Checkpoint& c) {
  auto differs = [](const char* field, long long mine, long long theirs) {
    if (mine != theirs)
      raise(Errc::invalid_argument, "checkpoint",
            std::string(field) + " is " + std::to_string(theirs) + " in the checkpoint, " +
                std::to_string(mine) + " here");
  };
  differs("inputs", config_.shape.inputs, c.shape.inputs);
  differs("width", config_.shape.width, c.shape.width);
  differs("depth", config_.shape.depth, c.shape.depth);
  differs("outputs", config_.shape.outputs, c.shape.outputs);
  differs("seed", (long long)config_.seed, (long long)c.seed);
  differs("batch", config_.batch, c.batch);
  differs("micro_batch", config_.micro_batch, c.micro_batch);
  const std::size_t n = layout_.params();
  if (c.params.size() != n || c.m.size() != n || c.v.size() != n)
    raise(Errc::invalid_argument, "checkpoint", "its arrays are not of this model's size");
  rt_.wait_all();
  step_ = c.step;
  auto p = weights_after(step_).fp32.host();
  auto low = weights_after(step_).bf16.host();
  auto m = m_.host(), v = v_.host();
  for (std::size_t i = 0; i < n; ++i) {
    p[i] = c.params[i];
    low[i] = bf16_bits(c.params[i]);
    m[i] = c.m[i];
    v[i] = c.v[i];
  }
  // Devices the checkpoint knew keep their rates; others start from their peak figures.
  for (int d : devices_)
    if (auto it = c.rates.find(rt_.devices()[std::size_t(d)]->name()); it != c.rates.end())
      rates_[std::size_t(d)] = it->second;
  seen_.clear();
  follow_rates();
  if (shares_) shares_->restore(c.process_rates);
}

}  // namespace baton::train
