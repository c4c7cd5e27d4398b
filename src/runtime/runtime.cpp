#include "baton/runtime.hpp"

#include <algorithm>
#include <array>
#include <cstring>

#include "baton/error.hpp"
#include "baton/sim.hpp"
#include "common/tunables.hpp"
#include "memory/coherence.hpp"
#include "sched/executor.hpp"
#include "submit/task_graph.hpp"

namespace baton {

namespace detail {

std::shared_ptr<BufferState> make_buffer_state(std::size_t bytes, const void* owner) {
  return std::make_shared<BufferState>(bytes, owner);
}

void* buffer_host(BufferState& s, bool for_write) {
  s.acquire_host(0, s.bytes(), for_write);
  return s.host();
}

std::size_t buffer_bytes(const BufferState& s) {
  return s.bytes();
}

}  // namespace detail

Runtime::Runtime(Options options) : Runtime(open_devices(options.devices), options) {}

Runtime::Runtime(DeviceSet devices, Options options)
    : options_(std::move(options)),
      set_(std::move(devices)),
      graph_(std::make_unique<detail::TaskGraph>()) {
  if (set_.devices.empty()) raise(Errc::invalid_argument, "runtime", "no devices");
  detail::make_policy(options_.policy);
  if (!options_.topology_file.empty()) {
    Topology file = Topology::load(options_.topology_file);
    for (const auto& n : file.nodes()) set_.topology.add_node(n);
    for (const auto& l : file.links()) set_.topology.add_link(l);
  }
}

Runtime::~Runtime() {
  for (auto& weak : buffers_)
    if (auto b = weak.lock()) b->detach_devices();
}

void Runtime::pack_buffer(std::vector<detail::RunArg>& out, BufferArg b) {
  detail::RunArg a;
  a.is_buffer = true;
  a.buffer = std::move(b);
  out.push_back(std::move(a));
}

void Runtime::pack_scalar(std::vector<detail::RunArg>& out, const void* p, std::size_t n) {
  detail::RunArg a;
  a.scalar = scalar_bytes(p, n);
  out.push_back(std::move(a));
}

void Runtime::set_standalone_rates(const Kernel& kernel, std::vector<double> rates) {
  if (rates.size() != set_.devices.size())
    raise(Errc::invalid_argument, kernel.name(), "need one rate per device");
  rates_[kernel.id()] = std::move(rates);
}

static bool all_sim(const std::vector<Device*>& devs) {
  return std::all_of(devs.begin(), devs.end(), [](Device* d) { return sim::is_sim(*d); });
}

// Virtual time at which devices of these capacities finish `work` units together.
static double sim_oracle(const std::vector<Device*>& devs, const std::vector<double>& weights,
                         double work) {
  auto capacity = [&](double t) {
    double c = 0;
    for (std::size_t i = 0; i < devs.size(); ++i)
      if (weights[i] > 0) c += sim::capacity(*devs[i], 0, t);
    return c;
  };
  double hi = 1e-6;
  while (capacity(hi) < work && hi < 1e9) hi *= 2;
  double lo = 0;
  for (int i = 0; i < 100; ++i) {
    double mid = (lo + hi) / 2;
    (capacity(mid) < work ? lo : hi) = mid;
  }
  return hi;
}

static RunStats execute(const std::vector<Device*>& devs, const Topology& topo, Range range,
                        const Kernel& kernel, std::vector<detail::RunArg> args,
                        const std::string& policy_name, std::vector<double> weights,
                        bool write_back) {
  const bool sim = all_sim(devs);
  if (!sim && std::any_of(devs.begin(), devs.end(), [](Device* d) { return sim::is_sim(*d); }))
    raise(Errc::invalid_argument, "--devices",
          "sim devices run on virtual time: do not mix them with real ones");
  std::vector<std::shared_ptr<detail::BufferState>> buffers;
  for (const auto& a : args)
    if (a.is_buffer) buffers.push_back(a.buffer.state);
  detail::Dispatch dispatch(kernel, std::move(args), range.n, write_back);
  auto policy = detail::make_policy(policy_name);

  detail::Plan plan;
  plan.items = range.n;
  const std::uint64_t ndev = devs.size();
  plan.max_chunk = range.chunk ? range.chunk : std::max<std::uint64_t>(1, range.n / (ndev * 16));
  plan.min_chunk = std::max<std::uint64_t>(
      1, plan.max_chunk / std::max(1.0, detail::tunable_number("BATON_MIN_CHUNK_DIV")));
  plan.tail_split = detail::tunable_number("BATON_TAIL_SPLIT");
  plan.min_chunk_s = detail::tunable_number("BATON_MIN_CHUNK_US") * 1e-6;
  plan.weights = std::move(weights);
  plan.bytes_per_item = dispatch.bytes_per_item();
  plan.paths.assign(ndev, std::vector<PathCost>(ndev));
  for (std::size_t i = 0; i < ndev; ++i)
    for (std::size_t j = 0; j < ndev; ++j) {
      const DeviceInfo &a = devs[i]->info(), &b = devs[j]->info();
      if (a.memory_node == b.memory_node) continue;  // same memory: nothing moves
      if (auto p = topo.path(a.topology_id, b.topology_id)) plan.paths[i][j] = *p;
    }
  policy->start(plan);

  detail::Execution ex{devs, policy.get(), &dispatch, plan};
  RunStats stats = sim ? detail::run_on_sim(ex) : detail::run_on_threads(ex);
  for (auto& b : buffers) {
    b->settle();
    stats.managed_memory = stats.managed_memory || b->any_managed();
  }
  stats.policy = policy_name;
  stats.simulated = sim;
  if (sim) stats.oracle_s = sim_oracle(devs, plan.weights, kernel.cost_of({0, range.n}));
  return stats;
}

RunStats Runtime::run(Range range, const Kernel& kernel, std::vector<detail::RunArg> args,
                      const std::string& policy) {
  if (range.n == 0) raise(Errc::invalid_argument, kernel.name(), "the range is empty");
  for (const auto& a : args)
    if (a.is_buffer && a.buffer.state && a.buffer.state->owner() != this)
      raise(Errc::invalid_argument, kernel.name(), "a buffer made by another Runtime was passed");
  std::vector<Device*> devs;
  std::vector<double> weights;
  auto known = rates_.find(kernel.id());
  for (std::size_t d = 0; d < set_.devices.size(); ++d) {
    Device& dev = *set_.devices[d];
    devs.push_back(&dev);
    double w = known != rates_.end() ? known->second[d] : dev.info().peak_gflops;
    weights.push_back(kernel.runs_on(dev.info().backend) ? std::max(w, 1e-9) : 0.0);
  }
  if (std::none_of(weights.begin(), weights.end(), [](double w) { return w > 0; }))
    raise(Errc::no_implementation, kernel.name(), "no device in the set can run this kernel");
  RunStats stats = execute(devs, set_.topology, range, kernel, std::move(args), policy, weights,
                           options_.write_back);
  if (!stats.simulated) {
    // The oracle: items over the sum of the devices' standalone rates, or the
    // rates each showed in this run where none were measured alone.
    double total_rate = 0;
    for (std::size_t d = 0; d < devs.size(); ++d) {
      if (weights[d] <= 0) continue;
      const DeviceStats& s = stats.devices[d];
      if (known != rates_.end())
        total_rate += known->second[d];
      else if (s.busy_s > 0)
        total_rate += double(s.items) / s.busy_s;
    }
    stats.oracle_s = total_rate > 0 ? double(range.n) / total_rate : 0;
  }
  stats.efficiency = stats.makespan_s > 0 ? stats.oracle_s / stats.makespan_s : 0;
  return stats;
}

std::size_t Runtime::submit_packed(Range range, const Kernel& kernel,
                                   std::vector<detail::RunArg> args, const std::string& policy) {
  detail::make_policy(policy);
  if (range.n == 0) raise(Errc::invalid_argument, kernel.name(), "the range is empty");
  return graph_->add(range, kernel, std::move(args), policy);
}

std::vector<std::vector<std::size_t>> Runtime::dependencies() const {
  std::vector<std::vector<std::size_t>> out;
  for (const auto& t : graph_->tasks()) out.push_back(t.deps);
  return out;
}

// Wave by wave: a wave's tasks depend only on earlier waves.
std::vector<RunStats> Runtime::wait_all() {
  std::vector<RunStats> stats(graph_->tasks().size());
  for (const auto& wave : graph_->waves())
    for (std::size_t id : wave) {
      const detail::Task& t = graph_->tasks()[id];
      stats[id] = run(t.range, t.kernel, t.args, t.policy);
    }
  graph_->clear();
  return stats;
}

std::vector<double> Runtime::calibrate_packed(Range range, const Kernel& kernel,
                                              std::vector<detail::RunArg> args) {
  if (range.n == 0) raise(Errc::invalid_argument, kernel.name(), "the range is empty");
  std::vector<double> rates(set_.devices.size(), 0.0);
  for (std::size_t d = 0; d < set_.devices.size(); ++d) {
    Device* dev = set_.devices[d].get();
    if (!kernel.runs_on(dev->info().backend)) continue;
    // A short untimed run first: module loads and run-time compilation stay out of the rate.
    Range warm{std::max<std::uint64_t>(1, range.n / 16), range.chunk};
    execute({dev}, set_.topology, warm, kernel, args, "static", {1.0}, options_.write_back);
    // The median of three timed runs: one slow run (another process, a page
    // fault storm) must not skew the split or the oracle.
    std::array<double, 3> t{};
    for (double& x : t)
      x = execute({dev}, set_.topology, range, kernel, args, "static", {1.0}, options_.write_back)
              .makespan_s;
    std::sort(t.begin(), t.end());
    rates[d] = t[1] > 0 ? double(range.n) / t[1] : 0;
  }
  rates_[kernel.id()] = rates;
  return rates;
}

}  // namespace baton
