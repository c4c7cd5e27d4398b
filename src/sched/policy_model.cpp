// model: each whole task goes where it is expected to finish first, as HEFT
// and StarPU's dmda place tasks: expected finish = the device's queue (the
// predicted times of what it holds) + the task's predicted run time (history
// model, common/perf_model.hpp) + the time to bring the data it lacks there.
// A device with no history for the task's shape gets a few, so that it
// learns (the least loaded such device first). Spread tasks are split in proportion
// to the predicted rates where every device has a history, else by weight.
#include <cmath>
#include <limits>
#include <map>

#include "common/perf_model.hpp"
#include "sched/policy.hpp"

namespace baton::detail {

namespace {

class ModelPolicy final : public SchedulingPolicy {
 public:
  explicit ModelPolicy(const MachineView& m)
      : identity_(m.identity),
        file_(m.options.perf_model_file),
        queued_s_(m.devices, 0.0),
        queued_(m.devices, 0) {
    if (!file_.empty()) model_.load(file_);
  }
  ~ModelPolicy() override {
    if (!file_.empty() && model_.dirty()) model_.save(file_);
  }

  int place(const TaskShape& task) override {
    std::lock_guard lock(mu_);
    const std::size_t n = task.weights.size();
    // Each device's expected run time: the model's; for a device without
    // history, a few tasks go there to be measured (the least loaded first),
    // and beyond those it is estimated from a measured device's time scaled
    // by capability (or from capability alone, while none is measured).
    std::vector<double>& run = run_scratch_;
    run.assign(n, std::nan(""));
    int to_calibrate = kAnyDevice, measured = -1;
    for (std::size_t d = 0; d < n; ++d) {
      if (!(task.weights[d] > 0)) continue;
      run[d] = model_.predict(*task.kernel_name, identity_[d], task.items);
      if (!std::isnan(run[d])) {
        if (measured < 0) measured = int(d);
        continue;
      }
      int& sent = calibrating_[*task.kernel_name + '\t' + identity_[d]];
      if (sent < kCalibrationRuns && (to_calibrate < 0 || queued_[d] < queued_[to_calibrate]))
        to_calibrate = int(d);
    }
    if (to_calibrate >= 0) {
      ++calibrating_[*task.kernel_name + '\t' + identity_[to_calibrate]];
      ++queued_[to_calibrate];
      return to_calibrate;
    }
    int best = kAnyDevice;
    double best_finish = std::numeric_limits<double>::infinity(), best_run = 0;
    for (std::size_t d = 0; d < n; ++d) {
      if (!(task.weights[d] > 0)) continue;
      double r = run[d];
      if (std::isnan(r))
        r = measured >= 0 ? run[measured] * task.weights[measured] / task.weights[d]
                          : double(task.items) / task.weights[d];
      const double move = task.transfer_s.empty() ? 0 : task.transfer_s[d];
      const double finish = queued_s_[d] + r + move;
      if (finish < best_finish) best = int(d), best_finish = finish, best_run = r;
    }
    if (best >= 0) {
      queued_s_[best] += best_run;
      ++queued_[best];
    }
    return best;
  }

  void unplaced(int dev, const TaskShape& task) override {
    std::lock_guard lock(mu_);
    if (queued_[dev] > 0) --queued_[dev];
    const double run = model_.predict(*task.kernel_name, identity_[dev], task.items);
    // Predictions move as the model learns: an empty queue is empty.
    queued_s_[dev] = queued_[dev] == 0 || std::isnan(run) ? 0 : std::max(0.0, queued_s_[dev] - run);
  }

  bool wants_transfer_costs() const override { return true; }
  bool learns() const override { return true; }

  void finished(int dev, const TaskShape& task, double seconds) override {
    model_.record(*task.kernel_name, identity_[dev], task.items, seconds);
  }

  void chunk_weights(const TaskShape& task, std::vector<double>& weights) override {
    std::uint64_t able = 0;
    for (double w : weights) able += w > 0;
    if (able == 0) return;
    const std::uint64_t share = std::max<std::uint64_t>(1, task.items / able);
    std::vector<double> rates(weights.size(), 0.0);
    for (std::size_t d = 0; d < weights.size(); ++d) {
      if (!(weights[d] > 0)) continue;
      const double s = model_.predict(*task.kernel_name, identity_[d], share);
      if (std::isnan(s) || !(s > 0)) return;  // one device unknown: keep the weights
      rates[d] = double(share) / s;
    }
    weights = rates;
  }

  std::unique_ptr<ChunkSource> make_chunk_source() override { return make_share_source(true); }

 private:
  std::vector<std::string> identity_;
  std::string file_;
  PerfModel model_;
  std::mutex mu_;
  std::vector<double> queued_s_;       // per device: predicted seconds of what it holds
  std::vector<std::uint64_t> queued_;  // per device: tasks it holds
  // Tasks sent to be measured, per kernel and device: one more than the
  // model drops (the first) and needs (three).
  static constexpr int kCalibrationRuns = 4;
  std::map<std::string, int> calibrating_;
  std::vector<double> run_scratch_;
};

}  // namespace

std::unique_ptr<SchedulingPolicy> make_model_policy(const MachineView& machine) {
  return std::make_unique<ModelPolicy>(machine);
}

}  // namespace baton::detail
