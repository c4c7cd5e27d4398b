#include "train_table.hpp"

#include <algorithm>
#include <cstdio>

#include "json_output.hpp"
#include "table.hpp"
#include "train/trainer.hpp"
#ifdef BATON_TRAIN_CUDA
#include "train/cuda/gemm_counts.hpp"
#endif

namespace baton::cli {

namespace {

// The median over the measured steps (those after the warm-up) of f(step).
template <class F>
double median_step(const Run& r, int warmup, F f) {
  std::vector<double> v;
  for (std::size_t s = std::size_t(warmup); s < r.step_s.size(); ++s) v.push_back(f(s));
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// A step's parts, medians in seconds: forward and backward of the
// micro-batches, the reduction and update, and the rest (the host's turn,
// the loss gathered, what waits for what).
struct StepParts {
  double step = 0, grad = 0, update = 0, rest = 0;
};
StepParts step_parts(const Run& r, int warmup) {
  StepParts p;
  p.step = median_step(r, warmup, [&](std::size_t s) { return r.step_s[s]; });
  p.grad = median_step(r, warmup, [&](std::size_t s) { return r.grad_s[s]; });
  p.update = median_step(r, warmup, [&](std::size_t s) { return r.update_s[s]; });
  p.rest = median_step(r, warmup, [&](std::size_t s) {
    return std::max(0.0, r.step_s[s] - r.grad_s[s] - r.update_s[s]);
  });
  return p;
}

// What a perfect split of a run's batch would reach, in samples/s: forward
// and backward on each device at its rate side by side with the others (as
// measured in `beside`; devices sharing cores, or one GPU's power and memory,
// are slower together than alone), all finishing together; then the rest of
// the step (update, host) as short as the shortest of theirs alone.
double ideal_rate(const Run& r, const Run& beside, int micro_batch,
                  const std::vector<const Run*>& alone, int warmup) {
  double compute_rate = 0, rest = 1e300;
  for (int d : r.devices) {
    const Run* a = alone[std::size_t(d)];
    const std::size_t i = std::size_t(d);
    if (!a || beside.busy_s[i] <= 0) return 0;
    compute_rate += beside.items[i] * micro_batch / beside.busy_s[i];
    const StepParts p = step_parts(*a, warmup);
    rest = std::min(rest, p.step - p.grad);
  }
  const double step = double(r.batch) / compute_rate + std::max(0.0, rest);
  return double(r.batch) / step;
}

// The run of `r`'s devices and batch under `policy`, if there was one.
const Run* same_devices(const std::vector<Run>& runs, const Run& r, const std::string& policy) {
  for (const Run& o : runs)
    if (o.devices == r.devices && o.batch == r.batch && o.policy == policy) return &o;
  return nullptr;
}

}  // namespace

void report_training(const Runtime& rt, const TrainArgs& a, const Comparison& c,
                     Recording& recording, nlohmann::json& j) {
  const train::MlpLayout layout(a.shape);
  const double flops = train::flops_per_sample(layout);
  const bool time_only = keeps_time_only(rt, c.able);
  j["devices"] = nlohmann::json::array();
  for (int d : c.able)
    j["devices"].push_back({{"name", rt.devices()[d]->name()},
                            {"description", rt.devices()[d]->info().description},
                            {"alone_samples_per_s", c.alone[d]}});
  std::vector<const Run*> alone_run(rt.devices().size(), nullptr);
  for (const Run& r : c.runs)
    if (r.devices.size() == 1) alone_run[std::size_t(r.devices.front())] = &r;
  Table t({"devices", "batch", "policy", "samples/s", "TFLOP/s", "speed-up", "vs oracle",
           "vs ideal", "vs static", "step ms = fwd+bwd + update + rest", "loss first -> last",
           "peak memory held", "micro-batches per device (last step)"});
  j["runs"] = nlohmann::json::array();
  const double base = c.alone[std::size_t(c.fastest)];
  auto ms = [](double s) { return fixed(1e3 * s, 1); };
  for (const Run& r : c.runs) {
    const bool single = r.devices.size() == 1;
    double rate_sum = 0;
    for (int d : r.devices) rate_sum += c.alone[d];
    const Run* stat = same_devices(c.runs, r, "static");
    // The rates side by side: weighted's, where it ran, keeps every device
    // busy until its share is done; static's fast devices end early and its
    // slow ones finish alone, faster than beside the others.
    const Run* weighted = same_devices(c.runs, r, "weighted");
    const Run& beside = weighted ? *weighted : stat ? *stat : r;
    std::string split_text;
    nlohmann::json split = nlohmann::json::object();
    for (int d : r.devices) {
      split_text += rt.devices()[d]->name() + " " + std::to_string(r.micro_batches[d]) + "  ";
      split[rt.devices()[d]->name()] = r.micro_batches[d];
    }
    const double speedup = base > 0 ? r.samples_per_s / base : 0;
    const double efficiency = rate_sum > 0 ? r.samples_per_s / rate_sum : 0;
    const double ideal = ideal_rate(r, beside, a.micro_batch, alone_run, a.warmup);
    const double vs_ideal = ideal > 0 ? r.samples_per_s / ideal : 0;
    const double vs_static =
        stat && stat->samples_per_s > 0 ? r.samples_per_s / stat->samples_per_s : 0;
    const StepParts parts = step_parts(r, a.warmup);
    std::string held_text;
    nlohmann::json held = nlohmann::json::object();
    for (const auto& [where, peak] : r.memory_peaks) {
      held_text += (held_text.empty() ? "" : ", ") +
                   (r.memory_peaks.size() > 1 ? where + " " : "") + bytes(peak);
      held[where] = peak;
    }
    t.add({single ? rt.devices()[r.devices.front()]->name() : std::to_string(r.devices.size()),
           std::to_string(r.batch), single ? "alone" : r.policy, si(r.samples_per_s),
           fixed(r.samples_per_s * flops * 1e-12, 2), fixed(speedup, 2) + "x",
           percent(efficiency, 1), percent(vs_ideal, 1),
           single || !stat ? "-" : fixed(vs_static, 2) + "x",
           ms(parts.step) + " = " + ms(parts.grad) + " + " + ms(parts.update) + " + " +
               ms(parts.rest),
           time_only ? "- (time only)"
                     : fixed(r.losses.front(), 4) + " -> " + fixed(r.losses.back(), 4),
           held_text, split_text});
    j["runs"].push_back(
        {{"devices", names_of(rt, r.devices)},
         {"device_count", r.devices.size()},
         {"batch", r.batch},
         {"policy", single ? "alone" : r.policy},
         {"collective", r.collective},
         {"samples_per_s", r.samples_per_s},
         {"tflops", r.samples_per_s * flops * 1e-12},
         {"speedup", speedup},
         {"efficiency_vs_oracle", efficiency},
         {"ideal_samples_per_s", ideal},
         {"efficiency_vs_ideal", vs_ideal},
         {"ideal_rates_from", single ? "alone" : beside.policy},
         {"vs_static", !single && stat ? nlohmann::json(vs_static) : nlohmann::json(nullptr)},
         // Nothing was computed where time was all that was kept.
         {"losses", time_only ? nlohmann::json(nullptr) : nlohmann::json(r.losses)},
         {"median_step_seconds",
          {{"step", parts.step},
           {"grad", parts.grad},
           {"update", parts.update},
           {"reduce", median_step(r, a.warmup, [&](std::size_t s) { return r.reduce_s[s]; })},
           {"rest", parts.rest}}},
         {"peak_memory_held_bytes", held},
         {"sim_bytes_moved_per_step", r.bytes_per_step},
         {"failures", r.failures},
         {"micro_batches", split},  // per device, in the last step
         {"step_seconds", r.step_s},
         {"grad_seconds", r.grad_s},
         {"update_seconds", r.update_s}});
  }
#ifdef BATON_TRAIN_CUDA
  const train::GemmCounts gemms = train::cuda_gemm_counts();
  j["cuda_gemms_fused"] = gemms.fused;
  j["cuda_gemms_unfused"] = gemms.unfused;
  j["cuda_gemm_algorithm_searches"] = gemms.searches;
  j["cuda_gemm_algorithm_checks"] = gemms.checks;
  j["cuda_gemm_algorithm_host_seconds"] = gemms.host_seconds;
#endif
  recording.report(j);
  if (emit_json(j, a.json, a.json_out)) return;
  std::printf(
      "train: MLP %d -> %d x %d -> %d, %.2f M parameters, %.1f MFLOP per sample, about %s per "
      "device; micro-batch %d, %d steps after %d warm-up, %s scaling\n",
      a.shape.inputs, a.shape.width, a.shape.depth, a.shape.outputs, double(layout.params()) * 1e-6,
      flops * 1e-6, bytes(c.model_bytes).c_str(), a.micro_batch, a.steps, a.warmup,
      a.scaling.c_str());
  for (std::size_t d = 0; d < rt.devices().size(); ++d) {
    const bool trains = std::find(c.able.begin(), c.able.end(), int(d)) != c.able.end();
    std::printf("  %-10s %s%s\n", rt.devices()[d]->name().c_str(),
                rt.devices()[d]->info().description.c_str(),
                trains ? "" : "  (left out: no training code for it in this build)");
  }
  std::printf(
      "  speed-up: over %s alone (the fastest); vs oracle: over the sum of the devices' alone "
      "rates;\n  vs ideal: over a perfect split (forward and backward at each device's rate "
      "side by side\n  with the others, as in the weighted run (else static), all finishing "
      "together; then\n  the rest of the step as short as the shortest alone); step: medians\n",
      rt.devices()[std::size_t(c.fastest)]->name().c_str());
  std::fputs(t.str().c_str(), stdout);
  std::vector<std::string> sums;  // how the runs of several devices summed their gradients
  for (const Run& r : c.runs)
    if (r.devices.size() > 1 && std::find(sums.begin(), sums.end(), r.collective) == sums.end()) {
      sums.push_back(r.collective);
      std::printf("gradients of %s summed: %s\n", names_of(rt, r.devices).c_str(),
                  r.collective.c_str());
    }
  for (const std::string& n : c.notes) std::printf("note: %s\n", n.c_str());
  for (const Run& r : c.runs)
    for (const std::string& f : r.failures)
      std::printf("note: %s on %s: %s; the step ran again on the others, which trained on\n",
                  r.policy.c_str(), names_of(rt, r.devices).c_str(), f.c_str());
#ifdef BATON_TRAIN_CUDA
  if (gemms.fused + gemms.unfused > 0)
    std::printf("cuBLASLt: %llu GEMMs with the bias/GELU epilogue fused, %llu without\n",
                static_cast<unsigned long long>(gemms.fused),
                static_cast<unsigned long long>(gemms.unfused));
#endif
}

}  // namespace baton::cli
