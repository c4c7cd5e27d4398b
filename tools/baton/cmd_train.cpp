// baton train: the training benchmark. Trains the MLP of src/train/ with data
// parallelism over the 1, 2, 4, ... fastest of the devices that can train,
// under each policy, and prints the source document's table: devices, batch,
// samples/s, speed-up over the fastest device alone, efficiency against the
// sum of the devices' alone rates and against a perfect split, each policy
// against static, and where a step's time goes.
#include <algorithm>
#include <array>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "baton/error.hpp"
#include "baton/runtime.hpp"
#include "baton/sim.hpp"
#include "collective/process_group.hpp"
#include "commands.hpp"
#include "json_output.hpp"
#include "policy_list.hpp"
#include "report/recording.hpp"
#include "sim_bytes.hpp"
#include "table.hpp"
#include "train/trainer.hpp"
#include "train_args.hpp"
#ifdef BATON_TRAIN_CUDA
#include "train/cuda/gemm_counts.hpp"
#endif

namespace baton::cli {

namespace {

struct Run {
  std::vector<int> devices;
  int batch = 0;
  std::string policy;
  std::string collective;  // how its gradients were summed
  double samples_per_s = 0;
  std::vector<double> losses;
  // Per step: all of it, its micro-batches' run, and the update's run.
  std::vector<double> step_s, grad_s, update_s;
  std::vector<double> reduce_s;              // the reduction alone, where it was not overlapped
  std::vector<std::string> failures;         // devices that failed ("step: name: cause")
  std::vector<std::uint64_t> micro_batches;  // per device of the runtime, last step
  // Per device of the runtime, over the measured steps: micro-batches run and
  // the time spent on them (their rate, side by side with the run's others).
  std::vector<double> items, busy_s;
  // Peak bytes the run's buffers held, per memory it used, named by the
  // devices in it ("cuda0.p0+cuda0.p1"); the host's for cpu devices.
  std::vector<std::pair<std::string, std::uint64_t>> memory_peaks;
  // Sim devices: bytes their copies moved per step over each kind of link,
  // over the measured steps (sim::bytes_moved).
  std::map<std::string, double> bytes_per_step;
};

std::string names_of(const Runtime& rt, const std::vector<int>& devices) {
  std::string s;
  for (int d : devices) s += (s.empty() ? "" : "+") + rt.devices()[d]->name();
  return s;
}

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

// Device counts to run: "1,2,4" as given, else 1, 2, 4, ... and all of them.
std::vector<int> device_counts(const std::string& list, int available) {
  std::vector<int> counts;
  if (list.empty()) {
    for (int k = 1; k < available; k *= 2) counts.push_back(k);
    counts.push_back(available);
    return counts;
  }
  for (const std::string& s : split(list, ',')) {
    char* end = nullptr;
    const long k = std::strtol(s.c_str(), &end, 10);
    if (*end || k < 1 || k > available)
      raise(Errc::invalid_argument, "--counts",
            "'" + s + "' is not a device count from 1 to " + std::to_string(available));
    counts.push_back(int(k));
  }
  return counts;
}

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

// `r`, the alone run of device `from`, as the run of its twin `to` (a sim
// device that would have run it the same: Device::twin_of).
Run as_twin(const Runtime& rt, Run r, int from, int to) {
  r.devices = {to};
  for (auto* per_device : {&r.items, &r.busy_s}) std::swap((*per_device)[from], (*per_device)[to]);
  std::swap(r.micro_batches[std::size_t(from)], r.micro_batches[std::size_t(to)]);
  for (auto& [where, peak] : r.memory_peaks)
    if (where == rt.devices()[std::size_t(from)]->name())
      where = rt.devices()[std::size_t(to)]->name();
  return r;
}

void run_train(const TrainArgs& a) {
  if (a.steps < 1) raise(Errc::invalid_argument, "--steps", "must be at least 1");
  // Under a launcher, or with a checkpoint: one job, not the comparison.
  if (!a.checkpoint.empty() || a.resume || collective::launched_processes() > 1)
    return run_train_job(a);
  if (a.warmup < 0) raise(Errc::invalid_argument, "--warmup", "must be 0 or more");
  if (a.scaling != "weak" && a.scaling != "strong")
    raise(Errc::invalid_argument, "--scaling", "'" + a.scaling + "': expected weak or strong");
  std::vector<std::string> policies = policy_list(a.policies);
  // static first: the others are compared with it.
  std::stable_partition(policies.begin(), policies.end(),
                        [](const std::string& p) { return p == "static"; });
  Options opt = env_options();
  opt.devices = a.devices;
  Recording recording(a.trace, a.report);
  Runtime rt(opt);
  recording.start(rt);

  // Who can train, with the configuration and the model's fit checked
  // before anything runs.
  train::TrainConfig probe;
  probe.shape = a.shape;
  probe.batch = a.batch;
  probe.micro_batch = a.micro_batch;
  probe.optimizer.lr = a.lr;
  probe.dataset = a.dataset;
  probe.collective = a.collective;
  const train::TrainPlan plan = train::plan_training(rt, probe);
  const std::vector<int>& able = plan.devices;
  const std::uint64_t model_bytes = plan.bytes_per_device;
  const train::MlpLayout layout(a.shape);
  const double flops = train::flops_per_sample(layout);
  const std::vector<int> counts = device_counts(a.counts, int(able.size()));
  // Sim devices that keep time only (BATON_SIM_EXECUTE=0, or "execute": false
  // in their file) compute nothing: no losses. They stand for another backend.
  const bool time_only = std::any_of(able.begin(), able.end(), [&](int d) {
    return rt.devices()[std::size_t(d)]->info().stands_for.has_value();
  });
  auto batch_for = [&](int k) { return a.scaling == "weak" ? a.batch * k : a.batch; };

  nlohmann::json j;
  j["model"] = {{"inputs", a.shape.inputs},      {"width", a.shape.width},
                {"depth", a.shape.depth},        {"outputs", a.shape.outputs},
                {"parameters", layout.params()}, {"flops_per_sample", flops}};
  j["scaling"] = a.scaling;
  j["micro_batch"] = a.micro_batch;
  j["steps"] = a.steps;
  j["warmup"] = a.warmup;
  j["dataset"] = a.dataset;
  j["host_memory"] = rt.host_memory();
  j["model_bytes_per_device"] = model_bytes;
  j["sim_time_only"] = time_only;

  // Each device alone, for the speed-up and the oracle.
  std::vector<double> alone(rt.devices().size(), 0.0);
  std::vector<Run> runs;
  // Devices that share a resource (the cpu device and an OpenCL CPU device
  // on the host's cores; partitions of one GPU) may train less side by side
  // than the fastest of them alone: each such group trains side by side once
  // (under ws where it is compared, the policy most likely to gain from them),
  // and where that is slower, the runs of several devices leave out all but
  // the fastest of the group.
  const std::vector<SharingGroup> groups = sharing_groups(rt.devices(), able);
  const std::string together_policy =
      std::find(policies.begin(), policies.end(), "ws") != policies.end() ? "ws" : policies.back();
  const int runs_total =
      int(able.size()) + int(groups.size()) +
      int(std::count_if(counts.begin(), counts.end(), [](int k) { return k > 1; })) *
          int(policies.size());
  int run_no = 0;
  auto label = [&](const std::string& what) {
    return "[" + std::to_string(++run_no) + "/" + std::to_string(runs_total) + "] " + what;
  };
  // A device that fails on its own is named and left out of the rest.
  std::vector<int> working;
  nlohmann::json failed_alone = nlohmann::json::array();
  for (int d : able) {
    const std::string& name = rt.devices()[d]->name();
    auto twin = std::find_if(working.begin(), working.end(),
                             [&](int w) { return rt.devices()[d]->twin_of(*rt.devices()[w]); });
    if (twin != working.end()) {
      const Run* seen = nullptr;
      for (const Run& r : runs)
        if (r.devices == std::vector<int>{*twin}) seen = &r;
      ++run_no;
      alone[d] = seen->samples_per_s;
      progress_result(name + " alone: " + si(alone[d]) + " samples/s (as its twin " +
                      rt.devices()[*twin]->name() + ": not run again)");
      runs.push_back(as_twin(rt, *seen, *twin, d));
      working.push_back(d);
      continue;
    }
    try {
      Run r = run_training(rt, a, {d}, batch_for(1), "static", label(name));
      alone[d] = r.samples_per_s;
      progress_result(name + " alone: " + si(r.samples_per_s) + " samples/s");
      runs.push_back(std::move(r));
      working.push_back(d);
    } catch (const Error& e) {
      // Its work may have spilled onto devices outside the run before the error.
      if (!rt.failed(d)) throw;
      progress_result("note: " + name + " failed when it ran alone (" + e.message() +
                      "); the runs of several devices leave it out");
      failed_alone.push_back({{"device", name}, {"failure", e.message()}});
    }
  }
  j["failed_alone"] = failed_alone;
  if (working.empty()) raise(Errc::device_failed, "train", "every device failed");
  std::vector<int> left_out;
  std::vector<std::string> notes;  // for after the table
  nlohmann::json sharing = nlohmann::json::array();
  for (const SharingGroup& g : groups) {
    std::vector<int> members;
    for (int d : g.devices)
      if (std::find(working.begin(), working.end(), d) != working.end()) members.push_back(d);
    if (members.size() < 2) continue;
    const int best = *std::max_element(members.begin(), members.end(),
                                       [&](int x, int y) { return alone[x] < alone[y]; });
    const std::string names = names_of(rt, members);
    Run r = run_training(rt, a, members, batch_for(int(members.size())), together_policy,
                         label(names + " side by side, " + together_policy));
    const bool alone_wins = r.samples_per_s < alone[best];
    sharing.push_back({{"devices", names},
                       {"resource", g.resource},
                       {"policy", together_policy},
                       {"together_samples_per_s", r.samples_per_s},
                       {"best_alone", rt.devices()[best]->name()},
                       {"best_alone_samples_per_s", alone[best]},
                       {"alone_wins", alone_wins}});
    std::string note = names + " share " + g.resource + ": side by side " + si(r.samples_per_s) +
                       " samples/s, " + rt.devices()[best]->name() + " alone " + si(alone[best]);
    if (alone_wins) {
      std::vector<int> others;
      for (int d : members)
        if (d != best) others.push_back(d);
      left_out.insert(left_out.end(), others.begin(), others.end());
      note += ": the runs of several devices leave out " + names_of(rt, others);
    } else {
      runs.push_back(std::move(r));
    }
    progress_result(note);
    if (alone_wins) notes.push_back(note);
  }
  j["sharing"] = sharing;
  // k devices are the k fastest alone, as one adds GPUs to a job.
  std::vector<int> fastest;
  for (int d : working)
    if (std::find(left_out.begin(), left_out.end(), d) == left_out.end()) fastest.push_back(d);
  std::stable_sort(fastest.begin(), fastest.end(),
                   [&](int x, int y) { return alone[x] > alone[y]; });
  for (int k : counts) {
    if (k == 1 || k > int(fastest.size())) continue;  // the fastest alone is k = 1's row
    std::vector<int> use(fastest.begin(), fastest.begin() + k);
    std::sort(use.begin(), use.end());
    for (const auto& p : policies) {
      const bool ran = std::any_of(runs.begin(), runs.end(), [&](const Run& r) {
        return r.devices == use && r.policy == p && r.batch == batch_for(k);
      });
      if (ran) {  // side by side as a group above
        ++run_no;
        continue;
      }
      Run r =
          run_training(rt, a, use, batch_for(k), p, label(std::to_string(k) + " devices, " + p));
      progress_result(std::to_string(k) + " devices, " + p + ": " + si(r.samples_per_s) +
                      " samples/s");
      runs.push_back(std::move(r));
    }
  }
  progress_done();
  recording.stop();

  j["devices"] = nlohmann::json::array();
  for (int d : able)
    j["devices"].push_back({{"name", rt.devices()[d]->name()},
                            {"description", rt.devices()[d]->info().description},
                            {"alone_samples_per_s", alone[d]}});
  std::vector<const Run*> alone_run(rt.devices().size(), nullptr);
  for (const Run& r : runs)
    if (r.devices.size() == 1) alone_run[std::size_t(r.devices.front())] = &r;
  Table t({"devices", "batch", "policy", "samples/s", "TFLOP/s", "speed-up", "vs oracle",
           "vs ideal", "vs static", "step ms = fwd+bwd + update + rest", "loss first -> last",
           "peak memory held", "micro-batches per device (last step)"});
  j["runs"] = nlohmann::json::array();
  const double base = alone[fastest.front()];
  auto ms = [](double s) { return fixed(1e3 * s, 1); };
  for (const Run& r : runs) {
    const bool single = r.devices.size() == 1;
    double rate_sum = 0;
    for (int d : r.devices) rate_sum += alone[d];
    const Run* stat = same_devices(runs, r, "static");
    // The rates side by side: weighted's, where it ran, keeps every device
    // busy until its share is done; static's fast devices end early and its
    // slow ones finish alone, faster than beside the others.
    const Run* weighted = same_devices(runs, r, "weighted");
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
      flops * 1e-6, bytes(model_bytes).c_str(), a.micro_batch, a.steps, a.warmup,
      a.scaling.c_str());
  for (std::size_t d = 0; d < rt.devices().size(); ++d) {
    const bool trains = std::find(able.begin(), able.end(), int(d)) != able.end();
    std::printf("  %-10s %s%s\n", rt.devices()[d]->name().c_str(),
                rt.devices()[d]->info().description.c_str(),
                trains ? "" : "  (left out: no training code for it in this build)");
  }
  std::printf(
      "  speed-up: over %s alone (the fastest); vs oracle: over the sum of the devices' alone "
      "rates;\n  vs ideal: over a perfect split (forward and backward at each device's rate "
      "side by side\n  with the others, as in the weighted run (else static), all finishing "
      "together; then\n  the rest of the step as short as the shortest alone); step: medians\n",
      rt.devices()[fastest.front()]->name().c_str());
  std::fputs(t.str().c_str(), stdout);
  std::vector<std::string> sums;  // how the runs of several devices summed their gradients
  for (const Run& r : runs)
    if (r.devices.size() > 1 && std::find(sums.begin(), sums.end(), r.collective) == sums.end()) {
      sums.push_back(r.collective);
      std::printf("gradients of %s summed: %s\n", names_of(rt, r.devices).c_str(),
                  r.collective.c_str());
    }
  for (const std::string& n : notes) std::printf("note: %s\n", n.c_str());
  for (const Run& r : runs)
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

}  // namespace

void add_train_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "train", "Data-parallel training of an MLP over the devices, each policy beside static");
  cmd->footer(
      "Several processes: under mpirun -np N (or srun) the N processes run one job, each over "
      "its own devices (-d), as with --checkpoint: each step's batch (-b, in all) is cut "
      "between the processes by their measured rates, their gradients are summed over MPI "
      "and every process takes the same step; the first process prints and writes the "
      "checkpoint. One process per node: -d as alone; one per GPU: -d 'cuda:{local_rank}'.");
  auto a = std::make_shared<TrainArgs>();
  cmd->add_option("-d,--devices", a->devices,
                  "device spec (see baton devices --help); under mpirun, {local_rank} is the "
                  "process's rank on its node (cuda:{local_rank}: one process per GPU)")
      ->capture_default_str();
  cmd->add_option("-p,--policies", a->policies,
                  policy_help("policies to compare, comma-separated (static always runs first):"))
      ->capture_default_str();
  cmd->add_option("--inputs", a->shape.inputs, "model inputs")->capture_default_str();
  cmd->add_option("-w,--width", a->shape.width, "width of each hidden layer")
      ->capture_default_str();
  cmd->add_option("--depth", a->shape.depth, "hidden layers")->capture_default_str();
  cmd->add_option("--outputs", a->shape.outputs, "model outputs")->capture_default_str();
  cmd->add_option("-b,--batch", a->batch,
                  "samples per step: per device (weak scaling) or in all (strong)")
      ->capture_default_str();
  cmd->add_option("-m,--micro-batch", a->micro_batch,
                  "samples per micro-batch: the unit the policies place")
      ->capture_default_str();
  cmd->add_option("-s,--steps", a->steps, "steps measured per run")->capture_default_str();
  cmd->add_option("--warmup", a->warmup, "steps run before measuring")->capture_default_str();
  cmd->add_option("--scaling", a->scaling,
                  "weak: the batch grows with the devices (as the source document measures); "
                  "strong: it stays")
      ->capture_default_str();
  cmd->add_option("--collective", a->collective,
                  "how gradients are summed: auto (in place where the devices share a memory, "
                  "else NCCL between whole CUDA GPUs, else the ring), in-place, ring, nccl")
      ->capture_default_str();
  cmd->add_flag("--no-overlap", a->no_overlap,
                "through the ring or NCCL, reduce once backward is done and update once every "
                "bucket is reduced, and report the reduction's own time (by default each "
                "device's last micro-batch runs a layer at a time where its code allows, and "
                "each bucket is reduced and updated while the layers below it run)");
  cmd->add_option("--counts", a->counts,
                  "device counts to run, comma-separated (default 1, 2, 4, ... and all); devices "
                  "that share a resource (the host's cores, one GPU) train side by side once "
                  "first, and where that is slower than the fastest of them alone, the others "
                  "are left out of these runs");
  cmd->add_option("--dataset", a->dataset,
                  "0: a fresh batch each step, made on host threads while the step before runs; "
                  "N: N batches made once and handed over in turn (each step still copies its "
                  "batch in)")
      ->capture_default_str();
  cmd->add_option("--lr", a->lr, "AdamW learning rate")->capture_default_str();
  cmd->add_option("--seed", a->seed, "seed of the weights and the data")->capture_default_str();
  cmd->add_flag("--json", a->json, "print the results as JSON instead of a table");
  cmd->add_option("--trace", a->trace,
                  "write a trace of every run to this file (Chrome/Perfetto trace-event JSON: a "
                  "track per device with a span per chunk, a host track with a span per step, "
                  "counter tracks of each device's utilisation, memory, power and clock)");
  cmd->add_option("--report", a->report,
                  "write an HTML report of the runs into this folder (index.html: the table, each "
                  "device's share, a timeline per device, utilisation over time, loss and "
                  "throughput by step; trace.json beside it)");
  cmd->add_option("--json-out", a->json_out, "also write the results as JSON to this file");
  cmd->add_option("--checkpoint", a->checkpoint,
                  "one training job instead of the comparison: every device, the first policy, "
                  "--steps steps, a line per step; its state (weights, optimizer, step, rates) "
                  "written to this file every --checkpoint-every steps and at the end");
  cmd->add_option("--checkpoint-every", a->checkpoint_every, "steps between checkpoints")
      ->capture_default_str();
  cmd->add_flag("--resume", a->resume,
                "go on from the --checkpoint file's step up to --steps, with the losses an "
                "uninterrupted job would have had");
  cmd->callback([a] { run_train(*a); });
}

}  // namespace baton::cli
