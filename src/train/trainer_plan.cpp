// A training run's plan, before anything is allocated: the configuration
// checked, the devices that train and whether they share one memory, and
// what each must hold.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "baton/error.hpp"
#include "common/human_bytes.hpp"
#include "device/host_memory.hpp"
#include "train/trainer.hpp"

namespace baton::train {

namespace {

void check_config(const TrainConfig& c, std::size_t devices) {
  auto fail = [](const char* field, const std::string& why) {
    raise(Errc::invalid_argument, field, why);
  };
  if (c.micro_batch < 1) fail("micro-batch", "must be at least 1");
  if (c.batch < 1) fail("batch", "must be at least 1");
  if (c.batch % c.micro_batch)
    fail("batch", "the batch (" + std::to_string(c.batch) +
                      ") must be a multiple of the micro-batch (" + std::to_string(c.micro_batch) +
                      ")");
  if (!(c.optimizer.lr > 0) || !std::isfinite(c.optimizer.lr))
    fail("lr", "must be a positive finite number");
  if (c.dataset < 0 || c.dataset > 64) fail("dataset", "must be 0 (fresh batches) to 64");
  if (c.collective != "auto" && c.collective != "in-place" && c.collective != "ring" &&
      c.collective != "nccl")
    fail("collective", "'" + c.collective + "' is none of auto, in-place, ring, nccl");
  if (c.processes && c.processes->size() > 1 && c.collective == "in-place")
    fail("collective",
         "in-place sums within one process; a job of several processes sums through the ring "
         "or NCCL, then across the processes");
  for (int d : c.devices)
    if (d < 0 || std::size_t(d) >= devices)
      fail("devices",
           "no device " + std::to_string(d) + " (there are " + std::to_string(devices) + ")");
}

// Weights (and their bf16 copy) twice (the step's and the next), the
// accumulator, the slots the gradient is summed in (its own and the ring's
// neighbour's; none where the accumulators are read in place), a share of
// the moments among `devices`, a micro-batch's inputs and activations.
// In floating point: a micro-batch's activations can pass 2^64 bytes.
double bytes_per_device(const MlpLayout& layout, const TrainConfig& c, bool shared,
                        std::size_t devices) {
  const double n = double(layout.params()), mb = c.micro_batch;
  const double io = mb * (double(c.shape.inputs) + c.shape.outputs);
  const double per_row = double(layout.workspace(1));
  return 4 * (3 * n + (n + 2) + (shared ? 0 : 2 * n) +
              2 * n / double(std::max<std::size_t>(1, devices)) + io + mb * per_row);
}

std::string bytes_text(double bytes) {
  if (bytes < 0x1p63) return detail::human_bytes(std::uint64_t(bytes));
  char text[32];
  std::snprintf(text, sizeof text, "%.3g GiB", bytes / 0x1p30);
  return text;
}

}  // namespace

TrainPlan plan_training(const Runtime& rt, const TrainConfig& c, const MlpLayout& layout,
                        const StepKernels& kernels) {
  const auto& devs = rt.devices();
  check_config(c, devs.size());
  TrainPlan p;
  p.devices = c.devices;
  if (p.devices.empty())
    for (std::size_t d = 0; d < devs.size(); ++d)
      if (kernels.grad.runs_on(devs[d]->info().backend)) p.devices.push_back(int(d));
  std::sort(p.devices.begin(), p.devices.end());
  p.devices.erase(std::unique(p.devices.begin(), p.devices.end()), p.devices.end());
  if (p.devices.empty()) raise(Errc::no_implementation, "train", "no device here can train");
  for (int d : p.devices)
    if (!kernels.grad.runs_on(devs[d]->info().backend))
      raise(Errc::no_implementation, devs[d]->name(), "this build has no training code for it");
  // In place where every device shares one memory that can hold a table of
  // addresses (the shared update has code for its backend); else by slots.
  const MemoryNode first = devs[p.devices[0]]->info().memory_node;
  const bool one_memory = std::all_of(p.devices.begin(), p.devices.end(), [&](int d) {
    return devs[d]->info().memory_node == first &&
           kernels.adamw_shared.runs_on(devs[d]->info().backend);
  });
  if (c.collective == "in-place" && !one_memory)
    raise(Errc::invalid_argument, "collective",
          "in-place needs every device in one memory (the cpu devices, the partitions of one GPU)");
  const bool alone = !c.processes || c.processes->size() == 1;
  p.shared = alone && one_memory && (c.collective == "auto" || c.collective == "in-place");
  const double bytes = bytes_per_device(layout, c, p.shared, p.devices.size());
  for (int d : p.devices) {
    const std::uint64_t has = devs[d]->info().memory_bytes;  // 0: not known
    if (has > 0 && bytes > double(has))
      raise(Errc::out_of_memory, devs[d]->name(),
            "the model needs about " + bytes_text(bytes) + " on each device; " + devs[d]->name() +
                " has " + detail::human_bytes(has));
  }
  p.bytes_per_device = bytes < 0x1p63 ? std::uint64_t(bytes) : std::uint64_t(1) << 63;
  return p;
}

MlpLayout fitting_layout(const Runtime& rt, const TrainConfig& c) {
  MlpLayout layout(c.shape);
  // The least any device holds: in one memory, over every device here.
  const double least = bytes_per_device(layout, c, true, rt.devices().size());
  std::uint64_t most = 0;
  for (const auto& d : rt.devices()) {
    const DeviceInfo& info = d->info();
    if (info.memory_bytes == 0 && info.stands_for) return layout;  // keeps time only: no bound
    // A sim device of no stated size keeps its memory on the host.
    most = std::max(most, info.memory_bytes ? info.memory_bytes : detail::host_available_bytes());
  }
  if (least > double(most))
    raise(Errc::out_of_memory, "model",
          std::to_string(layout.params()) + " parameters need at least " + bytes_text(least) +
              " on each device; the largest memory here is " + detail::human_bytes(most));
  return layout;
}

// No more than DDP's bucket, however large the ring's buckets
// (collective::bucket_bytes, at least that), so that each part's reduction
// starts as soon as it is made; smaller with smaller buckets.
std::uint64_t gradient_part_bytes(const TrainConfig& config) {
  return config.bucket_bytes ? std::min(config.bucket_bytes, collective::kBucketBytes)
                             : collective::kBucketBytes;
}

TrainPlan plan_training(const Runtime& rt, const TrainConfig& config) {
  const MlpLayout layout = fitting_layout(rt, config);
  return plan_training(rt, config, layout,
                       make_step_kernels(layout, config.micro_batch, gradient_part_bytes(config)));
}

}  // namespace baton::train
