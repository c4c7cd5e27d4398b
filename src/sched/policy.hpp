// Scheduling policies behind one interface. A policy hands each device's
// worker its next span (next), learns from completions (completed), and takes
// back work whose device failed (give_back, retire) so that it runs elsewhere.
// next() and completed() for device d are called only by d's worker, but
// workers call concurrently.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "baton/range.hpp"
#include "baton/topology.hpp"

namespace baton::detail {

struct Plan {
  std::uint64_t items = 0;
  std::uint64_t max_chunk = 0;  // largest span for a device of average speed (ws scales it)
  std::uint64_t min_chunk = 1;  // smallest (ws shrinks toward it at the end)
  double min_chunk_s = 0;       // ws: no chunk shorter than this on a measured device
  std::vector<double> weights;  // per device, relative capability; 0: cannot run the kernel
  // Transfer cost between device i and j (data resident on j moved to i); for ws-topo.
  std::vector<std::vector<PathCost>> paths;
  double bytes_per_item = 0;  // data a span carries per item, for ws-topo
  double tail_split = 4;      // ws: chunk = fair share of what is left / tail_split
};

struct Take {
  Span span;
  int victim = -1;  // >= 0: stolen from that device
};

class Policy {
 public:
  virtual ~Policy() = default;
  virtual std::string_view name() const = 0;
  virtual void start(const Plan& plan) = 0;
  // The next span for device `dev`, or nothing available now (retry later).
  virtual std::optional<Take> next(int dev) = 0;
  // `dev` finished `span` in `seconds` of its busy time.
  virtual void completed(int dev, Span span, double seconds) {
    (void)dev, (void)span, (void)seconds;
  }
  // `span` was not run (its device failed): hand it to someone else.
  void give_back(Span span);
  // `dev` is gone: everything queued for it goes to the others. Called by dev's worker.
  virtual void retire(int dev) = 0;

 protected:
  // Work given back, taken by any device before its own.
  std::optional<Span> take_orphan(std::uint64_t max_items);

 private:
  std::mutex orphans_mu_;
  std::vector<Span> orphans_;
  std::atomic<bool> has_orphans_{false};
};

struct PolicyInfo {
  std::string name;
  std::string description;
};

const std::vector<PolicyInfo>& policies();
// Throws Error(invalid_argument) naming the known policies.
std::unique_ptr<Policy> make_policy(const std::string& name);

// Split `items` into contiguous shares proportional to `weights` (zeros get none).
std::vector<Span> proportional_shares(std::uint64_t items, const std::vector<double>& weights);

}  // namespace baton::detail
