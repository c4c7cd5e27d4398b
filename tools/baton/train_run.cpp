#include "train_run.hpp"

#include <algorithm>

#include "table.hpp"
#include "train/trainer.hpp"
#include "workloads/sim_bytes.hpp"

namespace baton::cli {

using namespace workloads;  // the balance harness

namespace {

// Per memory the devices use, the most the run's buffers held in it beyond
// what was held when it started (`start`, per device): the sum over its
// devices (each is charged what it allocated).
std::vector<std::pair<std::string, std::uint64_t>> memory_peaks(
    const Runtime& rt, const std::vector<int>& devices, const std::vector<std::uint64_t>& start) {
  std::map<MemoryNode, std::vector<int>> nodes;
  for (int d : devices) nodes[rt.devices()[std::size_t(d)]->info().memory_node].push_back(d);
  std::vector<std::pair<std::string, std::uint64_t>> out;
  for (const auto& [node, in_node] : nodes) {
    std::uint64_t peak = 0;
    for (int d : in_node) {
      const std::uint64_t p = rt.devices()[std::size_t(d)]->peak_held_bytes();
      peak += p - std::min(p, start[std::size_t(d)]);
    }
    out.push_back({node == kHostNode ? "host" : names_of(rt, in_node), peak});
  }
  return out;
}

}  // namespace

std::string names_of(const Runtime& rt, const std::vector<int>& devices) {
  std::string s;
  for (int d : devices) s += (s.empty() ? "" : "+") + rt.devices()[d]->name();
  return s;
}

bool keeps_time_only(const Runtime& rt, const std::vector<int>& devices) {
  return std::any_of(devices.begin(), devices.end(), [&](int d) {
    return rt.devices()[std::size_t(d)]->info().stands_for.has_value();
  });
}

Run run_training(Runtime& rt, const TrainArgs& a, std::vector<int> devices, int batch,
                 const std::string& policy, const std::string& label) {
  train::TrainConfig c = train_config(a, batch, policy);
  c.devices = devices;
  // The runtime lets go of a finished task's buffers lazily (at a wait, or
  // as its records are reused): what the run before still holds is left out.
  rt.wait_all();
  std::vector<std::uint64_t> held_before;
  for (const auto& dev : rt.devices()) {
    dev->reset_peak_held();
    held_before.push_back(dev->held_bytes());
  }
  train::Trainer t(rt, c);
  Run r;
  r.devices = t.devices();
  r.batch = batch;
  r.policy = policy;
  r.collective = t.collective();
  double start = rt.clock().now();
  auto moved_before = sim_bytes_moved(rt, r.devices);
  const int total = a.warmup + a.steps;
  for (int s = 1; s <= total; ++s) {
    const double step_start = rt.clock().now();
    const train::StepResult step = t.step();
    rt.trace_span(label + " step " + std::to_string(s), step_start, rt.clock().now());
    r.losses.push_back(step.loss);
    r.step_s.push_back(step.seconds);
    r.grad_s.push_back(step.grad.makespan_s);
    r.update_s.push_back(step.update.makespan_s);
    r.reduce_s.push_back(step.reduce_seconds);
    for (const std::string& f : step.failures)
      r.failures.push_back("step " + std::to_string(s) + ": " + f);
    r.micro_batches.clear();
    for (const auto& d : step.grad.devices) r.micro_batches.push_back(d.items);
    r.items.resize(step.grad.devices.size(), 0.0);
    r.busy_s.resize(step.grad.devices.size(), 0.0);
    if (s > a.warmup)
      for (std::size_t d = 0; d < step.grad.devices.size(); ++d) {
        r.items[d] += double(step.grad.devices[d].items);
        r.busy_s[d] += step.grad.devices[d].busy_s;
      }
    progress(label + " step " + std::to_string(s) + "/" + std::to_string(total) + " loss " +
             fixed(step.loss, 5));
    if (s == a.warmup) {
      rt.wait_all();
      start = rt.clock().now();
      moved_before = sim_bytes_moved(rt, r.devices);
    }
  }
  rt.wait_all();
  const LinkBytes moved = bytes_between(moved_before, sim_bytes_moved(rt, r.devices));
  for (std::size_t k = 0; k < kLinkKinds; ++k)
    if (moved[k] > 0)
      r.bytes_per_step[std::string(to_string(LinkKind(k)))] = double(moved[k]) / double(a.steps);
  const double elapsed = rt.clock().now() - start;
  r.samples_per_s = elapsed > 0 ? double(a.steps) * double(batch) / elapsed : 0;
  r.memory_peaks = memory_peaks(rt, r.devices, held_before);
  return r;
}

Run as_twin(const Runtime& rt, Run r, int from, int to) {
  r.devices = {to};
  for (auto* per_device : {&r.items, &r.busy_s}) std::swap((*per_device)[from], (*per_device)[to]);
  std::swap(r.micro_batches[std::size_t(from)], r.micro_batches[std::size_t(to)]);
  for (auto& [where, peak] : r.memory_peaks)
    if (where == rt.devices()[std::size_t(from)]->name())
      where = rt.devices()[std::size_t(to)]->name();
  return r;
}

}  // namespace baton::cli
