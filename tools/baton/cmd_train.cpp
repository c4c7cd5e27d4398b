// baton train: the training benchmark. Trains the MLP of src/train/ with data
// parallelism over the 1, 2, 4, ... fastest of the devices that can train,
// under each policy, and prints the source document's table: devices, batch,
// samples/s, speed-up over the fastest device alone, efficiency against the
// sum of the devices' alone rates and against a perfect split, each policy
// against static, and where a step's time goes.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "baton/error.hpp"
#include "baton/runtime.hpp"
#include "collective/process_group.hpp"
#include "commands.hpp"
#include "output_file.hpp"
#include "policy_list.hpp"
#include "report/recording.hpp"
#include "table.hpp"
#include "train/trainer.hpp"
#include "train_args.hpp"
#include "train_run.hpp"
#include "train_table.hpp"

namespace baton::cli {

namespace {

// Device counts to run: "1,2,4" as given, else 1, 2, 4, ... and all of them.
std::vector<int> device_counts(const std::string& list, int available) {
  std::vector<int> counts;
  if (list.empty()) {
    for (int k = 1; k < available; k *= 2) counts.push_back(k);
    counts.push_back(available);
    return counts;
  }
  for (const std::string& s : list_items(list, "--counts")) {
    char* end = nullptr;
    const long k = std::strtol(s.c_str(), &end, 10);
    if (*end || k < 1 || k > available)
      raise(Errc::invalid_argument, "--counts",
            "'" + s + "' is not a device count from 1 to " + std::to_string(available));
    counts.push_back(int(k));
  }
  return counts;
}

void run_train(const TrainArgs& a) {
  if (a.steps < 1) raise(Errc::invalid_argument, "--steps", "must be at least 1");
  check_writable(a.json_out, "--json-out");
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
  j["sim_time_only"] = keeps_time_only(rt, able);

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

  Comparison c{
      able, model_bytes, std::move(alone), fastest.front(), std::move(runs), std::move(notes)};
  report_training(rt, a, c, recording, j);
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
