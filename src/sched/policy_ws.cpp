// ws and ws-topo. The first split is capability-weighted: device d's deque
// starts with one span, its share. An owner pops a span, runs a guided-size
// piece of its front and pushes the rest back as halving pieces, largest first,
// so the top of its deque always holds about half of what it has left: a thief
// that steals the top takes half of the victim's remainder in one CAS.
// ws picks victims at random, starting from the last one that had work
// (Taskflow's "sticky" victim); ws-topo tries the nearest devices first (NVLink
// before PCIe) and skips a victim when moving the data would cost more than the
// steal saves.
#include <algorithm>
#include <numeric>

#include "sched/chase_lev.hpp"
#include "sched/chunking.hpp"
#include "sched/policy.hpp"

namespace baton::detail {

namespace {

class WorkStealing final : public Policy {
 public:
  explicit WorkStealing(bool topo) : topo_(topo) {}
  std::string_view name() const override { return topo_ ? "ws-topo" : "ws"; }

  void start(const Plan& plan) override {
    plan_ = plan;
    const std::size_t n = plan.weights.size();
    // Spans are packed as two 32-bit numbers, in units of `quantum_` items.
    quantum_ = std::max<std::uint64_t>(1, (plan.items + (1ull << 31) - 1) >> 31);
    devs_ = std::vector<PerDevice>(n);
    rates_ = std::vector<RateTracker>(n);
    units_ = (plan.items + quantum_ - 1) / quantum_;
    active_ = static_cast<int>(
        std::count_if(plan.weights.begin(), plan.weights.end(), [](double w) { return w > 0; }));
    std::vector<Span> shares = proportional_shares(units_, plan.weights);
    for (std::size_t d = 0; d < n; ++d) {
      devs_[d].sticky = static_cast<int>((d + 1) % n);
      if (!shares[d].empty()) push(static_cast<int>(d), shares[d]);
      if (topo_) devs_[d].order = nearest_first(static_cast<int>(d));
    }
  }

  std::optional<Take> next(int dev) override {
    if (plan_.weights[dev] <= 0) return std::nullopt;  // cannot run this kernel: never steals
    const std::uint64_t grain = chunk_for(dev);
    if (auto orphan = take_orphan(grain * quantum_)) {  // orphans are in items
      note_started(dev, orphan->size());
      return Take{*orphan};
    }
    if (auto s = pop(dev)) return run(Take{*s}, grain, dev);
    return steal(dev, grain);
  }

  void completed(int dev, Span span, double seconds) override {
    if (seconds > 0) rates_[dev].add(double(span.size()) / seconds);
  }

  void retire(int dev) override {
    while (auto s = pop(dev)) give_back(to_items(*s));
  }

 private:
  struct PerDevice {
    ChaseLevDeque deque;
    std::atomic<std::int64_t> queued{0};  // units in the deque (approximate under races)
    int sticky = 0;                       // ws: the victim to try first
    std::vector<int> order;               // ws-topo: victims, nearest first
    std::uint64_t rng = 0x9e3779b97f4a7c15ull;
    std::vector<double> rates;  // scratch for effective_rates, owner only
    // Items this device has started; written by its owner only, so a plain
    // store suffices and no cache line is fought over per chunk.
    alignas(64) std::atomic<std::uint64_t> started{0};
  };

  void note_started(int dev, std::uint64_t items) {
    auto& c = devs_[dev].started;
    c.store(c.load(std::memory_order_relaxed) + items, std::memory_order_relaxed);
  }
  std::uint64_t unstarted() const {
    std::uint64_t started = 0;
    for (const auto& d : devs_) started += d.started.load(std::memory_order_relaxed);
    return started >= plan_.items ? 0 : plan_.items - started;
  }

  // Inside the policy spans count units of `quantum_` items (1 unless there are
  // more than 2^31 items); deque words pack a unit span's two ends.
  static std::uint64_t encode(Span u) { return u.begin << 32 | u.end; }
  static Span decode(std::uint64_t w) { return {w >> 32, w & 0xffffffffu}; }
  Span to_items(Span u) const {
    return {std::min(plan_.items, u.begin * quantum_), std::min(plan_.items, u.end * quantum_)};
  }

  void push(int dev, Span s) {
    devs_[dev].deque.push(encode(s));
    devs_[dev].queued.fetch_add(static_cast<std::int64_t>(s.size()), std::memory_order_relaxed);
  }
  std::optional<Span> pop(int dev) {
    auto w = devs_[dev].deque.pop();
    if (!w) return std::nullopt;
    Span s = decode(*w);
    devs_[dev].queued.fetch_sub(static_cast<std::int64_t>(s.size()), std::memory_order_relaxed);
    return s;
  }

  std::uint64_t chunk_for(int dev) {
    if (plan_.max_chunk <= plan_.min_chunk) return (plan_.min_chunk + quantum_ - 1) / quantum_;
    std::vector<double>& r = devs_[dev].rates;
    effective_rates(plan_.weights, rates_, r);
    double total = std::accumulate(r.begin(), r.end(), 0.0);
    double share = total > 0 ? r[dev] / total : 1.0;
    ChunkBounds b = device_bounds(plan_.min_chunk, plan_.max_chunk, share, active_,
                                  rates_[dev].rate(), plan_.min_chunk_s);
    std::uint64_t c = guided_chunk(unstarted(), share, plan_.tail_split, b.lo, b.hi);
    return (c + quantum_ - 1) / quantum_;  // in units
  }

  // Keeps the first `grain` units of t.span to run now; the rest goes back to
  // dev's deque in halving pieces, largest first, so the largest sits on top.
  Take run(Take t, std::uint64_t grain, int dev) {
    Span& s = t.span;
    if (s.size() > grain) {
      Span rest{s.begin + grain, s.end};
      s.end = rest.begin;
      while (rest.size() > grain) {  // upper halves, largest first
        std::uint64_t mid = rest.begin + rest.size() / 2;
        push(dev, {mid, rest.end});
        rest.end = mid;
      }
      if (!rest.empty()) push(dev, rest);
    }
    s = to_items(s);
    note_started(dev, s.size());
    return t;
  }

  std::optional<Take> steal(int thief, std::uint64_t grain) {
    const int n = static_cast<int>(devs_.size());
    auto try_victim = [&](int v) -> std::optional<Take> {
      if (v == thief || devs_[v].queued.load(std::memory_order_relaxed) <= 0) return std::nullopt;
      if (topo_ && !pays(thief, v)) return std::nullopt;
      auto w = devs_[v].deque.steal();
      if (!w) return std::nullopt;
      Span s = decode(*w);
      devs_[v].queued.fetch_sub(static_cast<std::int64_t>(s.size()), std::memory_order_relaxed);
      devs_[thief].sticky = v;
      return run(Take{s, v}, grain, thief);
    };
    if (topo_) {
      for (int v : devs_[thief].order)
        if (auto t = try_victim(v)) return t;
      return std::nullopt;
    }
    if (auto t = try_victim(devs_[thief].sticky)) return t;
    // xorshift: a cheap random start so thieves spread over victims.
    std::uint64_t& x = devs_[thief].rng;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    const int start = static_cast<int>(x % static_cast<std::uint64_t>(n));
    for (int i = 0; i < n; ++i)
      if (auto t = try_victim((start + i) % n)) return t;
    return std::nullopt;
  }

  // Stealing about half of v's queue pays when the thief, data transfer
  // included, finishes it before v would reach it.
  bool pays(int thief, int v) {
    const double queued =
        double(devs_[v].queued.load(std::memory_order_relaxed)) * double(quantum_);
    std::vector<double>& r = devs_[thief].rates;
    effective_rates(plan_.weights, rates_, r);
    if (!(r[thief] > 0) || !(r[v] > 0)) return true;
    const double half = queued / 2;  // items
    double move = 0;
    if (!plan_.paths.empty()) move = plan_.paths[thief][v].seconds(half * plan_.bytes_per_item);
    return move + half / r[thief] < queued / r[v];
  }

  std::vector<int> nearest_first(int d) const {
    std::vector<int> order;
    for (int v = 0; v < static_cast<int>(plan_.weights.size()); ++v)
      if (v != d) order.push_back(v);
    if (plan_.paths.empty()) return order;
    auto cost = [&](int v) { return plan_.paths[d][v].seconds(1 << 20); };
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return cost(a) < cost(b); });
    return order;
  }

  bool topo_;
  Plan plan_;
  std::uint64_t quantum_ = 1, units_ = 0;
  int active_ = 1;  // devices that can run the kernel
  std::vector<PerDevice> devs_;
  std::vector<RateTracker> rates_;
};

}  // namespace

std::unique_ptr<Policy> make_ws_policy(bool topology_aware) {
  return std::make_unique<WorkStealing>(topology_aware);
}

}  // namespace baton::detail
