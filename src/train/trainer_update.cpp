// The step's update after the backward: the gradient reduced over the
// devices (or summed in place where they share one memory), AdamW over each
// rank's pieces, the new weights read early by the devices that need them,
// and the sum across processes where the run spans several.
#include <algorithm>

#include "baton/error.hpp"
#include "train/trainer.hpp"

namespace baton::train {

std::vector<std::vector<collective::Piece>> Trainer::reduce_scatter(std::vector<Task>& tasks) {
  std::vector<double> weights;
  for (int d : comm_->ranks()) weights.push_back(rates_[std::size_t(d)]);
  std::vector<std::vector<collective::Piece>> owned;
  for (const collective::Piece& bucket : buckets_)
    owned.push_back(comm_->reduce_scatter(slots_, bucket, weights, tasks));
  return owned;
}

Trainer::Update Trainer::update(const std::vector<collective::Piece>& done, bool behind) {
  const std::uint64_t n = layout_.params();
  const AdamWRates rates = rates_of(config_.optimizer);
  const AdamWStep step = step_of(config_.optimizer, step_, 1.0f / float(config_.batch));
  const Weights &from = weights_after(step_ - 1), &to = weights_after(step_);
  Update u;
  u.start = rt_.clock().now();
  if (!shared_) {
    // Each rank updates the pieces it holds the sum of. Tasks follow only
    // the bytes they touch: a bucket's updates run while the next bucket is
    // reduced, unless the reduction is waited for first.
    const std::vector<int>& ranks = comm_->ranks();
    const auto owned = reduce_scatter(u.tasks);
    if (shares_) {
      update_across_processes(owned, u);
      return u;
    }
    if (!config_.overlap) {
      for (Task t : u.tasks) rt_.wait(t);
      u.reduced = rt_.clock().now();
    }
    for (const auto& pieces : owned) {
      for (std::size_t p = 0; p < ranks.size(); ++p)
        for (const collective::Piece c : collective::uncovered(pieces[p], done))
          u.updates.emplace_back(rt_.submit(Range{c.size(), 0, c.begin}, kernels_.adamw_slots,
                                            in(slots_[p], elements(c.begin, c.end)), in(from.fp32),
                                            out(to.fp32), inout(m_), inout(v_), out(to.bf16), rates,
                                            step, SlotArgs{n, 1, 0}, on(ranks[p])),
                                 c);
      gather_early(pieces, behind, u.tasks);
    }
    return u;
  }
  const InstanceArgs acc{n, std::uint32_t(rt_.devices().size()), tag_};
  u.run = rt_.parallel_for_async(Range{n}, kernels_.adamw_shared, instances(accumulator_),
                                 in(from.fp32), out(to.fp32), inout(m_), inout(v_), out(to.bf16),
                                 rates, step, acc, Policy::weighted());
  rt_.submit(Range{1}, kernels_.losses_shared, instances(accumulator_), out(losses_, whole), acc,
             on(devices_[0]));
  return u;
}

void Trainer::gather_early(const std::vector<collective::Piece>& owned, bool behind,
                           std::vector<Task>& tasks) {
  auto reads = comm_->gather_reads(owned);
  // Behind the layers, each rank reads each updated bucket at once, while
  // later buckets are reduced; after the whole backward, the next forward
  // pulls what it misses (sim:nvswitch8, 8 GPUs: reading early took 0.5 ms
  // from a step behind the layers and added 0.5 ms to one after them).
  if (reads.empty() && behind && owned.size() > 1)
    for (std::size_t r = 0; r < owned.size(); ++r)
      reads.push_back({r, collective::Piece{owned.front().begin, owned.back().end}});
  for (const auto& [rank, c] : reads) {
    const int d = comm_->ranks()[rank];
    // The weights the device's forward reads: fp32, or the bf16 copy (argument 1 of train.grad).
    const std::uint64_t unused =
        kernels_.grad.unused_args(rt_.devices()[std::size_t(d)]->info().code_backend());
    const Weights& next = weights_after(step_);
    if (unused & 1)
      tasks.push_back(
          rt_.submit(Range{1}, kernels_.stage, in(next.bf16, elements(c.begin, c.end)), on(d)));
    else
      tasks.push_back(
          rt_.submit(Range{1}, kernels_.stage, in(next.fp32, elements(c.begin, c.end)), on(d)));
  }
}

void Trainer::update_across_processes(const std::vector<std::vector<collective::Piece>>& owned,
                                      Update& u) {
  const std::uint64_t n = layout_.params();
  const AdamWRates rates = rates_of(config_.optimizer);
  const AdamWStep step = step_of(config_.optimizer, step_, 1.0f / float(config_.batch));
  const Weights &before = weights_after(step_ - 1), &after = weights_after(step_);
  const std::vector<int>& ranks = comm_->ranks();
  // A task per piece of bucket b, over the processes' sum in `from`.
  auto submit_update = [&](std::size_t b, const Buffer<float>& from) {
    for (std::size_t p = 0; p < ranks.size(); ++p) {
      const collective::Piece c = owned[b][p];
      if (c.size() == 0) continue;
      u.tasks.push_back(rt_.submit(Range{c.size(), 0, c.begin}, kernels_.adamw_slots,
                                   in(from, elements(c.begin, c.end)), in(before.fp32),
                                   out(after.fp32), inout(m_), inout(v_), out(after.bf16), rates,
                                   step, SlotArgs{n, 1, 0}, on(ranks[p])));
    }
  };
  const bool on_leader = bool(across_);
  if (on_leader) {
    // On the leader GPU, each bucket behind this process's own reduction of
    // it: the host waits for nothing.
    for (const collective::Piece& b : buckets_)
      u.tasks.push_back(across_->all_reduce(slots_[0], b));
  } else {
    for (Task t : u.tasks) rt_.wait(t);
    const std::span<float> sum = summed_.host();
    gather_owned(owned, sum);
    // The host sums the next bucket while the devices update this one: their
    // tasks read only the bucket they update, which the host no longer writes.
    for (std::size_t b = 0; b < buckets_.size(); ++b) {
      config_.processes->sum(sum.subspan(buckets_[b].begin, buckets_[b].size()));
      if (config_.overlap) submit_update(b, summed_);
    }
  }
  const Buffer<float>& from = on_leader ? slots_[0] : summed_;
  if (config_.overlap) {
    if (on_leader)
      for (std::size_t b = 0; b < buckets_.size(); ++b) submit_update(b, from);
    return;
  }
  for (Task t : u.tasks) rt_.wait(t);
  u.reduced = rt_.clock().now();
  for (std::size_t b = 0; b < buckets_.size(); ++b) submit_update(b, from);
}

bool Trainer::settle(Task t) {
  try {
    rt_.wait(t);
    return true;
  } catch (const Error& e) {
    if (e.code() != Errc::device_failed) throw;
    return false;
  }
}

void Trainer::settle_update(Update& u, std::vector<collective::Piece>& done) {
  for (Task t : u.tasks) settle(t);
  for (const auto& [t, piece] : u.updates)
    if (settle(t)) done.push_back(piece);
}

RunStats Trainer::finish(Update u) {
  if (shared_) return rt_.wait(std::move(u.run));
  for (Task t : u.tasks) rt_.wait(t);
  for (const auto& [t, piece] : u.updates) rt_.wait(t);
  RunStats s;
  s.policy = comm_->name();
  s.tasks = u.tasks.size() + u.updates.size();
  s.items = layout_.params();
  s.start_s = u.start;
  s.makespan_s = rt_.clock().now() - u.start;
  s.simulated = rt_.clock().is_virtual();
  return s;
}

void Trainer::gather_owned(const std::vector<std::vector<collective::Piece>>& owned,
                           std::span<float> sum) {
  for (std::size_t p = 0; p < slots_.size(); ++p) {
    const auto slot = slots_[p].read();
    for (const auto& pieces : owned)
      std::copy(slot.begin() + std::ptrdiff_t(pieces[p].begin),
                slot.begin() + std::ptrdiff_t(pieces[p].end),
                sum.begin() + std::ptrdiff_t(pieces[p].begin));
  }
}

}  // namespace baton::train
