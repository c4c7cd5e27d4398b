#include "workloads/balance_case.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>

#include "baton/error.hpp"
#include "device/host_memory.hpp"
#include "resource/link_probe.hpp"
#include "workloads/balance_kernels.hpp"
#include "workloads/host_blocks.hpp"

namespace baton::workloads {

double speedup_over(double base_s, const RunStats& r) {
  return base_s > 0 && r.makespan_s > 0 ? base_s / r.makespan_s : 0;
}

nlohmann::json run_json(const RunStats& r, double speedup_vs_static) {
  nlohmann::json per = nlohmann::json::array();
  for (const auto& d : r.devices)
    per.push_back({{"name", d.name},
                   {"items", d.items},
                   {"chunks", d.chunks},
                   {"steals", d.steals},
                   {"busy_s", d.busy_s},
                   {"bytes_in", d.bytes_in},
                   {"bytes_out", d.bytes_out},
                   {"failed", d.failed},
                   {"failure", d.failure},
                   {"out_of_memory", d.out_of_memory}});
  return {{"policy", r.policy},
          {"makespan_s", r.makespan_s},
          {"oracle_s", r.oracle_s},
          {"waves_bound_s", r.waves_bound_s},
          {"efficiency", r.efficiency},
          {"items_per_s", r.throughput()},
          {"speedup_vs_static", speedup_vs_static},
          {"simulated", r.simulated},
          {"managed_memory", r.managed_memory},
          {"reruns", r.reruns},
          {"devices", per}};
}

double waves_over_rates(const RunStats& r, const Calibration& cal, double items) {
  const double over = items > 0 ? r.waves_bound_s * cal.oracle_rate() / items : 0;
  return over > 1.001 ? over : 0;
}

nlohmann::json sharing_json(const Runtime& rt, const Calibration& cal) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& g : cal.groups) {
    nlohmann::json names = nlohmann::json::array();
    for (int d : g.devices) names.push_back(rt.devices()[std::size_t(d)]->name());
    out.push_back({{"devices", names},
                   {"resource", g.resource},
                   {"together_items_per_s", g.together},
                   {"best_alone_items_per_s", g.best_alone},
                   {"alone_wins", g.alone_wins}});
  }
  return out;
}

namespace {

constexpr float kMul = 0.999f, kAdd = 0.001f;

float reference(float x, int iters) {
  for (int r = 0; r < iters; ++r) x = x * kMul + kAdd;
  return x;
}

// Inputs in [-1, 1) from a hash of the index, so GPU-sized buffers fill fast.
// They take kInputs values: the check computes each value's result once (at
// 2^18 fma steps an item, 4096 sampled elements took seconds a case).
constexpr std::uint64_t kInputs = 2048;

std::uint64_t input_value_of(std::uint64_t e) {
  return (e * 2654435761u) % kInputs;
}

float input(std::uint64_t value) {
  return float(value) / 1024.0f - 1.0f;
}

// Item e's input value: item i of a kernel that reads nothing (width 0)
// starts from in[0] + (i % 1024) / 1024, in[0] being value 0's.
std::uint64_t start_value_of(std::uint64_t e, int width) {
  return width == 0 ? e % 1024 : input_value_of(e);
}

// The results after `iters` steps of the values that elements 0, stride,
// 2 stride ... below `elements` start from (the others' are left 0).
std::vector<float> references(std::uint64_t elements, std::uint64_t stride, int width, int iters) {
  std::vector<std::uint64_t> values;
  std::vector<bool> seen(kInputs);
  for (std::uint64_t e = 0; e < elements && values.size() < kInputs; e += stride) {
    const std::uint64_t v = start_value_of(e, width);
    if (!seen[v]) seen[v] = true, values.push_back(v);
  }
  std::vector<float> out(kInputs);
  for_blocks(values.size(), 16, [&](std::uint64_t begin, std::uint64_t end) {
    for (std::uint64_t i = begin; i < end; ++i) out[values[i]] = reference(input(values[i]), iters);
  });
  return out;
}

}  // namespace

int width_of(int bytes) {
  if (bytes == 4) return 0;
  if (bytes >= 8 && bytes <= 4096 && bytes % 8 == 0) return bytes / 8;
  raise(Errc::invalid_argument, "--bytes",
        std::to_string(bytes) +
            " bytes per item: give 4 (written only) or a multiple of 8 up to 4096 (one float "
            "read and one written per 8)");
}

double gbps_in(const RunStats& r) {
  std::uint64_t bytes = 0;
  for (const auto& d : r.devices) bytes += d.bytes_in;
  return r.makespan_s > 0 ? double(bytes) / r.makespan_s * 1e-9 : 0;
}

double gbps_out(const RunStats& r) {
  std::uint64_t bytes = 0;
  for (const auto& d : r.devices) bytes += d.bytes_out;
  return r.makespan_s > 0 ? double(bytes) / r.makespan_s * 1e-9 : 0;
}

HostLinks measure_host_links(DeviceSet& set) {
  HostLinks links;
  for (const detail::LinkMeasure& m :
       detail::probe_host_links_both_ways(set, detail::kProbeBytes, 5)) {
    links.one_way_gbps += m.nominal_gbps;
    links.both_ways_gbps += m.measured_gbps;
  }
  return links;
}

RunStats joined_runs(const std::vector<RunStats>& runs) {
  RunStats all = runs.front();
  const RunStats& last = runs.back();
  all.makespan_s = last.start_s + last.makespan_s - all.start_s;
  for (std::size_t i = 1; i < runs.size(); ++i) {
    const RunStats& r = runs[i];
    all.tasks += r.tasks;
    all.items += r.items;
    all.oracle_s += r.oracle_s;
    all.waves_bound_s += r.waves_bound_s;
    all.reruns += r.reruns;
    all.managed_memory = all.managed_memory || r.managed_memory;
    for (std::size_t d = 0; d < all.devices.size() && d < r.devices.size(); ++d) {
      DeviceStats& a = all.devices[d];
      const DeviceStats& b = r.devices[d];
      a.tasks += b.tasks, a.chunks += b.chunks, a.items += b.items, a.steals += b.steals;
      a.bytes_in += b.bytes_in, a.bytes_out += b.bytes_out, a.busy_s += b.busy_s;
      if (b.failed && !a.failed) a.failed = true, a.failure = b.failure;
      if (a.out_of_memory.empty()) a.out_of_memory = b.out_of_memory;
    }
  }
  all.efficiency = all.makespan_s > 0 ? all.oracle_s / all.makespan_s : 0;
  return all;
}

BalanceCase::BalanceCase(Runtime& rt, const Shape& shape, double link_gbps)
    : rt_(rt),
      shape_(shape),
      width_(width_of(shape.bytes)),
      sim_(rt.clock().is_virtual()),
      // On virtual time only the cost matters; real devices compute and are checked.
      kernel_(workloads::fma_rows_kernel(shape.iters, width_, !sim_)),
      in_part_(width_ == 0 ? elements(0, 1) : Part{std::uint64_t(width_)}),
      out_part_{std::uint64_t(std::max(1, width_))} {
  if (shape.items == 0) raise(Errc::invalid_argument, "--items", "must be at least 1");
  if (shape.iters < 1) raise(Errc::invalid_argument, "--iters", "must be at least 1");
  if (shape.passes < 1) raise(Errc::invalid_argument, "--passes", "must be at least 1");
  if (shape.passes > 1 && width_ == 0)
    raise(Errc::invalid_argument, "--passes",
          "passes read what the pass before wrote: give --bytes 8 or more (4 writes only)");
  const std::uint64_t per_item = std::max(1, width_);
  const std::uint64_t free = detail::host_available_bytes();
  const std::uint64_t buffers = shape.passes > 1 ? 3 : 2;
  if (shape.items > free / (buffers * per_item * sizeof(float)))
    raise(Errc::invalid_argument, "--items",
          std::to_string(shape.items) + " items of " + std::to_string(shape.bytes) +
              " bytes need more than the " + std::to_string(free >> 20) +
              " MiB of host memory available");
  const std::uint64_t elements = shape.items * per_item;
  in_ = rt.buffer<float>(width_ == 0 ? 1 : elements);
  out_ = rt.buffer<float>(elements);
  if (shape.passes > 1) mid_ = rt.buffer<float>(elements);
  auto host = in_.host();
  for_blocks(host.size(), 1 << 20, [&](std::uint64_t begin, std::uint64_t end) {
    for (std::uint64_t e = begin; e < end; ++e) host[e] = input(input_value_of(e));
  });
  if (shape.from_host) link_gbps_ = link_gbps;
  if (sim_) return;
  stride_ = std::max<std::size_t>(1, elements / 4096);
  expect_ = references(elements, stride_, width_, shape.iters * shape.passes);
}

double BalanceCase::link_bound_s() const {
  const double link = link_gbps_ * 1e9;
  if (!(link > 0)) return 0;
  // Inputs in and results out, each direction at the links' rate.
  const double out_bytes = double(shape_.items) * double(std::max(1, width_)) * sizeof(float);
  return out_bytes / link;  // inputs are as many bytes, or none (4 bytes: written only)
}

Calibration BalanceCase::calibrate() {
  Calibration c = rt_.calibrate(Range{shape_.items, shape_.chunk}, kernel_, in(in_, in_part_),
                                out(out_, out_part_), kMul, kAdd, shape_.iters, width_);
  // Its runs' copies home, queued behind them, land before the first run.
  if (shape_.from_host) (void)out_.read();
  return c;
}

RunStats BalanceCase::run(const std::string& policy) {
  const bool first =
      std::find(checked_in_full_.begin(), checked_in_full_.end(), policy) == checked_in_full_.end();
  if (!sim_) {
    // What the check reads is poisoned first: every element before a full
    // check, else the sampled ones (a fill of the whole took about a second
    // a run at the sweep's 6 GiB outputs).
    auto o = result().host();
    if (first)
      for_blocks(o.size(), 1 << 20, [&](std::uint64_t begin, std::uint64_t end) {
        std::fill(o.begin() + std::ptrdiff_t(begin), o.begin() + std::ptrdiff_t(end),
                  std::nanf(""));
      });
    else
      for (std::size_t e = 0; e < o.size(); e += stride_) o[e] = std::nanf("");
  }
  if (shape_.from_host) in_.host();  // new inputs: the devices' copies are stale
  std::vector<RunStats> passes;
  for (int p = 0; p < shape_.passes; ++p) {
    Buffer<float>& from = p == 0 ? in_ : p % 2 ? out_ : mid_;
    Buffer<float>& to = p % 2 ? mid_ : out_;
    passes.push_back(rt_.parallel_for(Range{shape_.items, shape_.chunk}, kernel_,
                                      in(from, p == 0 ? in_part_ : out_part_), out(to, out_part_),
                                      kMul, kAdd, shape_.iters, width_, Policy::by_name(policy)));
  }
  RunStats s = joined_runs(passes);
  if (shape_.from_host) {
    (void)result().read();  // waits for the results' copies home
    s.makespan_s = rt_.clock().now() - s.start_s;
    s.oracle_s = std::max(s.oracle_s, link_bound_s());
    s.efficiency = s.makespan_s > 0 ? s.oracle_s / s.makespan_s : 0;
  }
  if (!sim_) {
    check(policy, first);
    if (first) checked_in_full_.push_back(policy);
  }
  return s;
}

void BalanceCase::check(const std::string& policy, bool every_element) {
  auto got = result().read();
  auto wrong = [&](std::size_t e, const std::string& why) {
    raise(Errc::internal, policy,
          "wrong result at element " + std::to_string(e) + ": " + std::to_string(got[e]) + why);
  };
  for (std::size_t e = 0; e < got.size(); e += stride_) {
    const float want = expect_[start_value_of(e, width_)];
    if (!(std::fabs(got[e] - want) <= 1e-4f * (1 + std::fabs(want))))
      wrong(e, " instead of " + std::to_string(want));
  }
  if (!every_element) return;
  // NaNs counted a block at a time without a branch, which the compiler
  // vectorizes (a scan of 6 GiB took seconds element by element); a block
  // that has one is searched for it. Each thread keeps its range's first.
  constexpr std::size_t kBlock = std::size_t(1) << 16;
  std::atomic<std::uint64_t> first_nan{got.size()};
  for_blocks(got.size(), kBlock, [&](std::uint64_t begin, std::uint64_t end) {
    for (std::uint64_t b = begin; b < end; b += kBlock) {
      const std::uint64_t stop = std::min(end, b + kBlock);
      std::size_t nans = 0;
      for (std::uint64_t e = b; e < stop; ++e) nans += std::isnan(got[e]);
      if (nans == 0) continue;
      std::uint64_t e = b;
      while (!std::isnan(got[e])) ++e;
      std::uint64_t seen = first_nan.load();
      while (e < seen && !first_nan.compare_exchange_weak(seen, e)) {
      }
      return;
    }
  });
  if (first_nan < got.size()) wrong(first_nan, " (never written)");
}

}  // namespace baton::workloads
