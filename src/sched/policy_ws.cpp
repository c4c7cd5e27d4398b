// ws and ws-topo. A spread task's first split is capability-weighted: device
// d's deque starts with one span, its share. An owner pops a span, runs a
// guided-size piece of its front and pushes the rest back as halving pieces,
// largest first, so the top of its deque always holds about half of what it
// has left: a thief that steals the top takes half of the victim's remainder
// in one CAS. At the tail, a thief steals only what it would finish before
// its victim would. ws picks victims at random, starting from the last one
// that had work (Taskflow's "sticky" victim); ws-topo tries the nearest
// devices first (NVLink before PCIe) and counts moving the data in what the
// steal costs. Whole tasks go to the device that holds their data, else to
// whichever device is free first; idle devices steal queued tasks, ws-topo
// from the nearest first.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "baton/device.hpp"
#include "common/chase_lev.hpp"
#include "sched/chunking.hpp"
#include "sched/first_split.hpp"
#include "sched/policy.hpp"

namespace baton::detail {

namespace {

// Victims of `d`, nearest first by the cost of moving 1 MiB.
std::vector<int> nearest_first(int d, int n, const std::vector<std::vector<PathCost>>& paths) {
  std::vector<int> order;
  for (int v = 0; v < n; ++v)
    if (v != d) order.push_back(v);
  if (paths.empty()) return order;
  auto cost = [&](int v) { return paths[d][v].seconds(1 << 20); };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return cost(a) < cost(b); });
  return order;
}

class WsSource final : public ChunkSource {
 public:
  WsSource(bool topo, const std::vector<std::vector<int>>* orders) : topo_(topo), orders_(orders) {}

  void start(const Plan& plan) override {
    reset_shared();
    plan_ = plan;
    const std::size_t n = plan.weights.size();
    // Spans are packed as two 32-bit numbers, in units of `quantum_` items.
    quantum_ = std::max<std::uint64_t>(1, (plan.items + (1ull << 31) - 1) >> 31);
    if (!devs_ || n_ != n) {
      devs_ = std::make_unique<PerDevice[]>(n);
      n_ = n;
    }
    if (rates_.size() != n) rates_ = std::vector<RateTracker>(n);
    for (auto& r : rates_) r.reset();
    units_ = (plan.items + quantum_ - 1) / quantum_;
    active_ = static_cast<int>(
        std::count_if(plan.weights.begin(), plan.weights.end(), [](double w) { return w > 0; }));
    const std::vector<Span> shares = first_split();
    for (std::size_t d = 0; d < n; ++d) {
      PerDevice& p = devs_[d];
      p.deque.reset();
      p.queued.store(0, std::memory_order_relaxed);
      p.started.store(0, std::memory_order_relaxed);
      p.done.store(0, std::memory_order_relaxed);
      p.head_s.store(0, std::memory_order_relaxed);
      p.sticky = static_cast<int>((d + 1) % n);
      p.planned = !shares[d].empty();
      if (p.planned) push(static_cast<int>(d), shares[d]);
    }
  }

  std::optional<Take> next(int dev) override {
    auto t = take(dev);
    if (t) t->launch = plan_.launch;
    return t;
  }

  void completed(int dev, Span span, double seconds) override {
    // A last part of a wave took as long as the items that keep the device
    // busy: it could have run that many in the time (its rate, not the span's).
    const double could = waves_of(dev, 1.0).costed(double(span.size()));
    if (seconds > 0) rates_[dev].add(could / seconds);
    auto& done = devs_[dev].done;
    done.store(done.load(std::memory_order_relaxed) + span.size(), std::memory_order_relaxed);
    devs_[dev].head_s.store(now(), std::memory_order_relaxed);  // the next one runs from now
  }

  void retire(int dev) override {
    while (auto s = pop(dev)) store_orphan(to_items(*s));
  }

  bool exhausted() const override { return aborted() || (unstarted() == 0 && !has_orphans()); }

  // Called by dev's own worker (the rates go into its scratch).
  bool stealable(int dev) const override {
    if (has_orphans()) return true;
    std::vector<double>& r = devs_[dev].rates;
    effective_rates(plan_.weights, rates_, r);
    for (std::size_t v = 0; v < n_; ++v) {
      if (int(v) == dev || devs_[v].queued.load(std::memory_order_relaxed) <= 0) continue;
      const auto top = devs_[v].deque.peek();
      if (top && pays(dev, int(v), decode(*top).size(), r)) return true;
    }
    return false;
  }

 private:
  // The next span for dev, before its launch size is set.
  std::optional<Take> take(int dev) {
    if (aborted()) return std::nullopt;
    if (plan_.weights[dev] <= 0) {  // joined after a failure: it takes what was given back
      if (auto orphan = take_orphan(plan_.max_chunk)) return Take{*orphan};
      return std::nullopt;
    }
    std::vector<double>& r = devs_[dev].rates;
    effective_rates(plan_.weights, rates_, r);
    const std::uint64_t grain = chunk_for(dev, r);
    if (auto orphan = take_orphan(grain * quantum_)) {  // orphans are in items
      note_started(dev, orphan->size());
      return Take{*orphan};
    }
    if (leaves_to_a_busy_device(dev, grain, r)) return std::nullopt;
    if (auto s = pop(dev)) return run(Take{*s}, grain, dev);
    return steal(dev, grain, r);
  }

  // At the tail a device with work in flight leaves its next chunk in its
  // deque where another busy device, after what it has in flight and queued,
  // would end it sooner: a slow device that popped its last chunks three
  // deep (a GPU's pipeline) ran them while faster ones idled, 150 to 185 us
  // at the end of a 1.6 ms run on H100 partitions (sim of their models).
  // Both have work in flight, so both ask again when a chunk completes: no
  // thief has to be woken, and the chunk is run, by one or the other.
  // The chunk is weighed at what is queued where that is less than a grain:
  // on H100 partitions of 48+40+24+8 SMs, the 24-SM one, a wave in flight,
  // weighed its last step of 6144 items as a wave of 49152 and left it,
  // to be taken by a partition that then ended 0.7 ms after the rest.
  // `r`: the devices' effective rates.
  bool leaves_to_a_busy_device(int dev, std::uint64_t grain, const std::vector<double>& r) const {
    const std::int64_t queued_units = devs_[dev].queued.load(std::memory_order_relaxed);
    if (in_flight(dev) == 0 || queued_units <= 0) return false;
    if (!(r[dev] > 0)) return false;
    const double chunk = double(std::min(grain, std::uint64_t(queued_units)) * quantum_);
    const double mine = in_flight_s(dev, r[dev]) + waves_s(dev, chunk, r);
    for (std::size_t v = 0; v < n_; ++v) {
      if (int(v) == dev || !(plan_.weights[v] > 0) || !(r[v] > 0) || in_flight(int(v)) == 0)
        continue;
      const double queued =
          double(std::max<std::int64_t>(0, devs_[v].queued.load(std::memory_order_relaxed))) *
          double(quantum_);
      double move = 0;
      if (topo_ && plan_.paths && !plan_.paths->empty())
        move = (*plan_.paths)[v][dev].seconds(chunk * plan_.bytes_per_item);
      const double theirs =
          move + in_flight_s(int(v), r[v]) + waves_s(int(v), queued, r) + waves_s(int(v), chunk, r);
      if (theirs < mine * (1 - 1e-9)) return true;
    }
    return false;
  }

  struct PerDevice {
    ChaseLevDeque deque;
    std::atomic<std::int64_t> queued{0};  // units in the deque (approximate under races)
    int sticky = 0;                       // ws: the victim to try first
    bool planned = false;                 // the first split gave it a share
    std::uint64_t rng = 0x9e3779b97f4a7c15ull;
    mutable std::vector<double> rates;  // scratch for effective_rates, owner only
    // Items this device has started; written by its owner only, so a plain
    // store suffices and no cache line is fought over per chunk.
    alignas(64) std::atomic<std::uint64_t> started{0};
    std::atomic<std::uint64_t> done{0};  // of those, completed; owner-written too
    // When the oldest of those in flight began to run: the last completion,
    // or the start of a chunk on an idle device. Owner-written.
    std::atomic<double> head_s{0};
  };

  void started_again(int dev, std::uint64_t items) override {
    auto& c = devs_[dev].started;
    const std::uint64_t now = c.load(std::memory_order_relaxed);
    c.store(now >= items ? now - items : 0, std::memory_order_relaxed);
  }
  void note_started(int dev, std::uint64_t items) {
    if (in_flight(dev) == 0) devs_[dev].head_s.store(now(), std::memory_order_relaxed);
    auto& c = devs_[dev].started;
    c.store(c.load(std::memory_order_relaxed) + items, std::memory_order_relaxed);
  }
  // What dev runs at once, as far as this task goes: a rate measured on a
  // task of fewer items (the calibration's, a chunk's) is that many per wave.
  std::uint64_t lanes(int dev) const {
    return std::clamp<std::uint64_t>(plan_.least_span(dev), 1,
                                     std::max<std::uint64_t>(1, plan_.items));
  }
  std::uint64_t in_flight(int dev) const {
    const std::uint64_t started = devs_[dev].started.load(std::memory_order_relaxed);
    const std::uint64_t done = devs_[dev].done.load(std::memory_order_relaxed);
    return started > done ? started - done : 0;
  }
  double now() const { return plan_.clock ? plan_.clock->now() : 0.0; }
  // What is left of dev's work in flight, in seconds at `rate`: its
  // time less what has run since the oldest began. Counted in full, a
  // 48-SM partition's wave of 2^18-fma items, 2.9 ms into its 4.6, looked
  // to an 8-SM thief as if it had not begun, and the thief took 0.75 of its
  // own wave from behind it and ended 1 ms after the rest.
  double in_flight_s(int dev, double rate) const {
    const std::uint64_t items = in_flight(dev);
    if (items == 0) return 0;
    const double ran = now() - devs_[dev].head_s.load(std::memory_order_relaxed);
    return std::max(0.0, waves_of(dev, rate).seconds(double(items)) - std::max(0.0, ran));
  }
  std::uint64_t unstarted() const {
    std::uint64_t started = 0;
    for (std::size_t d = 0; d < n_; ++d)
      started += devs_[d].started.load(std::memory_order_relaxed);
    return started >= plan_.items ? 0 : plan_.items - started;
  }

  // Inside the source spans count units of `quantum_` items (1 unless there
  // are more than 2^31 items); deque words pack a unit span's two ends.
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

  // `r`: the devices' effective rates.
  std::uint64_t chunk_for(int dev, const std::vector<double>& r) const {
    if (plan_.max_chunk <= plan_.min_chunk) return (plan_.min_chunk + quantum_ - 1) / quantum_;
    double total = std::accumulate(r.begin(), r.end(), 0.0);
    double share = total > 0 ? r[dev] / total : 1.0;
    // Until a chunk of this task is measured, the calibrated rate bounds a
    // chunk's time: 16 micro-batches of a small model on sim:4,2, each task
    // a step, ran in chunks of 2 that paid a launch each (ws 0.80x weighted).
    const double rate = rates_[dev].rate() > 0    ? rates_[dev].rate()
                        : plan_.weights_are_rates ? plan_.weights[dev]
                                                  : 0.0;
    ChunkBounds b = device_bounds(plan_.min_chunk, plan_.max_chunk, share, active_, rate,
                                  plan_.min_chunk_s, plan_.body_chunk_s);
    // A native launcher's pass (cuBLAS over many micro-batches) pays for
    // reading every weight whatever its size: chunks of whole passes, and
    // no chunk below one where dev's share of the task holds one (on H200
    // partitions, micro-batches of 64 rows cut finer took 2x as long).
    const std::uint64_t pass = plan_.pass(dev);
    const auto whole_share = static_cast<std::uint64_t>(std::ceil(double(plan_.items) * share));
    b.lo = std::max({b.lo, plan_.least_span(dev), std::min(pass, whole_share)});
    b.hi = std::max(b.hi, b.lo);
    std::uint64_t c = guided_chunk(unstarted(), share, plan_.tail_split, b.lo, b.hi);
    const std::uint64_t wave = whole(dev);
    if (c > wave) c -= c % wave;           // whole waves or passes (run())
    return (c + quantum_ - 1) / quantum_;  // in units
  }

  // d at `rate`, in waves of what it runs at once, a last part of one as
  // long as its whole steps and at least the items that keep it busy (the
  // calibration's; a whole wave where not known): a GPU takes as long for a
  // few heavy items as for many.
  Waves waves_of(int d, double rate) const {
    return waves_for(plan_.least_span(d), plan_.step(d),
                     plan_.busy_items.empty() ? 0.0 : plan_.busy_items[d], plan_.items, rate);
  }
  // How long d takes for `items` at rate r[d].
  double waves_s(int d, double items, const std::vector<double>& r) const {
    return waves_of(d, r[d]).seconds(items);
  }

  // Each device's first share, in units: shares that end together in its
  // waves, by the plan's rates. Beside an H100 running 2^18-fma items, a
  // CPU's share in proportion to its rate took a round of its 15 threads
  // more than the GPU took, and ws ran at 0.90x weighted. Where no device
  // runs in waves (cpu devices of one thread, native launchers), that is
  // the split in proportion, and a task's start need not search for it.
  std::vector<Span> first_split() const {
    bool waves = false;
    for (std::size_t d = 0; d < n_; ++d) waves = waves || lanes(int(d)) > 1;
    if (!waves) return proportional_shares(units_, plan_.weights);
    std::vector<Waves> w(n_);
    for (std::size_t d = 0; d < n_; ++d)
      w[d] = waves_of(int(d), plan_.weights[d] > 0 ? plan_.weights[d] : 0.0);
    const std::vector<std::uint64_t> items = shares_ending_together(plan_.items, w);
    std::size_t last = 0;  // the last device with a share: it ends at the last unit
    for (std::size_t d = 0; d < n_; ++d)
      if (items[d] > 0) last = d;
    std::vector<Span> shares(n_);
    std::uint64_t end = 0, unit = 0;
    for (std::size_t d = 0; d < n_; ++d) {
      end += items[d];
      const std::uint64_t next =
          d >= last ? units_ : std::min(units_, (end + quantum_ / 2) / quantum_);
      shares[d] = {unit, next};
      unit = next;
    }
    return shares;
  }

  // What dev runs at once: a wave of its threads, or a pass of its native
  // launcher; chunks are cut in these.
  std::uint64_t whole(int dev) const { return std::max(lanes(dev), plan_.pass(dev)); }
  std::uint64_t wave_units(int dev) const {
    return std::max<std::uint64_t>(1, whole(dev) / quantum_);
  }

  // Cuts t.span into even chunks of at most `grain` units and keeps the first
  // to run now; the rest goes back to dev's deque in halving pieces of whole
  // chunks, largest first, so the largest sits on top. Chunks of `grain` and
  // a sliver of what is left would pay a chunk's fixed costs (its copies'
  // start-up, a launch) for little work: on sim:dgx1 from host memory, shares
  // that static ran in 38 chunks took ws 44 to 69 so. Chunks are whole waves
  // of what dev runs at once: on a GPU a span of part of a wave takes most of
  // a whole one's time (two half waves of 2^18-fma items took 1.27x one whole
  // wave on an H200 partition), so what is left over of a wave goes on top,
  // to run last or be stolen.
  Take run(Take t, std::uint64_t grain, int dev) {
    Span& s = t.span;
    // A span that one pass of a native launcher holds runs whole: a piece
    // left of it would cost whoever runs it another pass.
    if (plan_.pass(dev) > 1 && s.size() <= plan_.pass(dev) / quantum_) grain = s.size();
    if (s.size() > grain) {
      const std::uint64_t pieces = (s.size() + grain - 1) / grain;
      std::uint64_t chunk = (s.size() + pieces - 1) / pieces;
      const std::uint64_t wave = wave_units(dev);
      chunk = std::min(s.size(), (chunk + wave - 1) / wave * wave);
      Span rest{s.begin + chunk, s.end};
      s.end = rest.begin;
      while (rest.size() > chunk) {  // upper halves, largest first
        const std::uint64_t lower = (rest.size() + chunk - 1) / chunk / 2 * chunk;
        push(dev, {rest.begin + lower, rest.end});
        rest.end = rest.begin + lower;
      }
      if (!rest.empty()) {
        push(dev, rest);
        t.left_work = true;
      }
    }
    s = to_items(s);
    note_started(dev, s.size());
    return t;
  }

  // `r`: the devices' effective rates.
  std::optional<Take> steal(int thief, std::uint64_t grain, const std::vector<double>& r) {
    const int n = static_cast<int>(n_);
    auto try_victim = [&](int v) -> std::optional<Take> {
      if (v == thief || devs_[v].queued.load(std::memory_order_relaxed) <= 0) return std::nullopt;
      auto w = devs_[v].deque.steal_if(
          [&](std::uint64_t top) { return pays(thief, v, decode(top).size(), r); });
      if (!w) return std::nullopt;
      Span s = decode(*w);
      devs_[v].queued.fetch_sub(static_cast<std::int64_t>(s.size()), std::memory_order_relaxed);
      devs_[thief].sticky = v;
      return run(Take{s, v}, grain, thief);
    };
    if (topo_) {
      for (int v : (*orders_)[thief])
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

  // Stealing the top of v's deque, `top` units (about half of its queue,
  // run()), pays when the thief, after what it has left in flight, finishes
  // it before v would have finished the lot, in whole waves of what each
  // runs at once (a GPU takes as long for a span of a few heavy items as for
  // one of all its threads), the data's transfer included (ws-topo). ws
  // asks at the tail, where a slow device taking the last heavy items of a
  // fast one would end last, and before v has started its share, which is
  // then still the first split's (a worker that starts a little late is not
  // a slow device). In between, v's rates may be stale (a device that just
  // slowed down still looks fast), so v's last chunk counts and so does
  // what v has in flight: stealing is what adapts to a slowdown.
  // `r`: the devices' effective rates.
  bool pays(int thief, int v, std::uint64_t top, const std::vector<double>& r) const {
    const std::int64_t units = devs_[v].queued.load(std::memory_order_relaxed);
    const double queued = double(units) * double(quantum_);
    const bool untouched = devs_[v].started.load(std::memory_order_relaxed) == 0;
    const bool between = queued > double(plan_.max_chunk) && !untouched;
    // Not for a native launcher's passes, which are weighed as at the tail:
    // the half would cost the thief a pass of its own (on H100 partitions,
    // 64+32+16+8 SMs, the fastest stole 10 micro-batches beside its 64, and
    // ws ran at 0.82x weighted). Nor for a thief the first split gave
    // nothing (none of its waves would end with the others'), until a chunk
    // it ran says the plan's rates are stale: a CPU beside an H100 took half
    // of its last 31 k items of 2^18 fma steps, which the GPU then took back
    // a part of a wave at a time (sim, 1.46x the time).
    const bool eager =
        between && plan_.pass(thief) == 1 && (devs_[thief].planned || rates_[thief].rate() > 0);
    if (!(r[thief] > 0) || !(r[v] > 0)) return true;
    const double taken = double(top) * double(quantum_);  // items
    double move = 0;
    if (topo_ && plan_.paths && !plan_.paths->empty())
      move = (*plan_.paths)[thief][v].seconds(taken * plan_.bytes_per_item);
    const double thief_s = move + in_flight_s(thief, r[thief]) + waves_s(thief, taken, r);
    const double victim_s = waves_s(v, queued, r);
    // In between, the thief ends the top before v would have ended all it
    // has, what is left in flight and queued, at the rate of v's last chunk
    // where that is slower (a device that just slowed down still looks fast
    // by the median): on H100 partitions of 88+24+8 SMs the 8-SM one, idle
    // from 3.3 ms of 6, took half of the 88-SM one's queue, 8 of its own
    // waves where v had 4.5 left, and ended last (sim: ws 6.19 ms against
    // weighted's 6.05). Moving the top must end before v would have run its
    // queue (ws-topo): weighed against v's run of the top alone, a thief
    // left v's data where it lay and ws-topo ended up to 5.6 % after ws on
    // the DGX-1 preset.
    if (eager) {
      const double last = rates_[v].latest(), rate = last > 0 && last < r[v] ? last : r[v];
      const double v_s = in_flight_s(v, rate) + waves_of(v, rate).seconds(queued);
      return move < victim_s && thief_s < v_s;
    }
    // A tie does not pay: devices whose waves take as long (the partitions
    // of one GPU) would trade spans back and forth on rounding alone.
    return thief_s < victim_s * (1 - 1e-9);
  }

  bool topo_;
  const std::vector<std::vector<int>>* orders_;  // ws-topo: the policy's victim orders
  Plan plan_;
  std::uint64_t quantum_ = 1, units_ = 0;
  int active_ = 1;  // devices that can run the kernel
  std::unique_ptr<PerDevice[]> devs_;
  std::size_t n_ = 0;
  std::vector<RateTracker> rates_;
};

class WsPolicy final : public SchedulingPolicy {
 public:
  WsPolicy(bool topo, const MachineView& m) : topo_(topo) {
    for (int d = 0; d < m.devices; ++d) orders_.push_back(nearest_first(d, m.devices, m.paths));
  }

  // The device that already holds the task's inputs, when moving them
  // anywhere else costs more than a queue hop; else whoever is free first.
  int place(const TaskShape& task) override {
    if (task.transfer_s.empty()) return kAnyDevice;
    int best = kAnyDevice;
    double best_s = 0, second_s = 0;
    for (std::size_t d = 0; d < task.transfer_s.size(); ++d) {
      if (!(task.weights[d] > 0)) continue;
      const double s = task.transfer_s[d];
      if (best < 0 || s < best_s) {
        second_s = best < 0 ? s : best_s;
        best = int(d), best_s = s;
      } else if (s < second_s) {
        second_s = s;
      }
    }
    constexpr double kQueueHopS = 10e-6;
    return best >= 0 && second_s - best_s > kQueueHopS ? best : kAnyDevice;
  }
  bool steals() const override { return true; }
  bool wants_transfer_costs() const override { return true; }
  const std::vector<int>* victim_order(int thief) const override {
    return topo_ ? &orders_[thief] : nullptr;
  }
  std::unique_ptr<ChunkSource> make_chunk_source() override {
    return std::make_unique<WsSource>(topo_, &orders_);
  }

 private:
  bool topo_;
  std::vector<std::vector<int>> orders_;  // per device, its victims nearest first
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_ws_policy(bool topology_aware, const MachineView& machine) {
  return std::make_unique<WsPolicy>(topology_aware, machine);
}

}  // namespace baton::detail
