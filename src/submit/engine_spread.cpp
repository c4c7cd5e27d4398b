// Tasks spread over devices (parallel_for): each device that can run one
// takes part, pulling chunks from the task's chunk source until none are left
// for it; it counts what it completed into the task when it has nothing in
// flight, and the count reaching zero completes the task.
#include <algorithm>

#include "baton/error.hpp"
#include "submit/engine.hpp"
#include "submit/launch.hpp"
#include "submit/span_size.hpp"

namespace baton::detail {

void Engine::start_split(TaskRecord* t) {
  SchedulingPolicy& pol = policy(t);
  thread_local std::vector<double> transfer, w;
  w = weights_of(t);
  TaskShape shape_now = shape(t, w, transfer, false);
  if (t->pinned >= 0 && w[t->pinned] > 0)
    for (std::size_t d = 0; d < w.size(); ++d)
      if (int(d) != t->pinned) w[d] = 0;
  if (fail_if_no_device(t, w, nullptr)) return;
  pol.chunk_weights(shape_now, w);

  SplitRun* run = nullptr;
  {
    std::lock_guard lock(runs_mu_);
    for (auto& r : idle_runs_)
      if (r) {
        run = r.release();
        break;
      }
    std::erase_if(idle_runs_, [](const auto& r) { return !r; });
    auto& sources = policies_[t->policy].idle_sources;
    if (!run) run = new SplitRun;
    if (!sources.empty()) {
      run->source = std::move(sources.back());
      sources.pop_back();
    }
  }
  if (!run->source) run->source = pol.make_chunk_source();
  run->policy = t->policy;

  const Options& o = options_;
  Plan& plan = run->plan;
  plan.items = t->range.n;
  // Spans handed out are sized as without a chunk; a chunk the user gave is
  // the launch size within them, and the least span.
  plan.launch = t->range.chunk;
  const SpanSize spans = largest_span(machine_, *t, w, o.write_back);
  plan.max_chunk = spans.most;
  plan.min_chunk = std::max<std::uint64_t>(
      {1, t->range.chunk, std::uint64_t(double(plan.max_chunk) / std::max(1.0, o.min_chunk_div))});
  plan.min_chunk_s = o.min_chunk_us * 1e-6;
  // Measured rates count kernels, not copies: where data crosses a link,
  // the spans' copies bound them, and a chunk of 1 ms of kernels from host
  // memory (7 a device on sim:dgx1, not 28) made ws take 1.4x static's time:
  // the copies' pipeline was empty while the first chunks came in.
  plan.body_chunk_s = spans.copied ? 0 : o.body_chunk_us * 1e-6;
  plan.tail_split = std::max(1.0, o.tail_split);
  plan.weights.assign(w.begin(), w.end());
  plan.weights_are_rates = t->kernel->calibrated.load(std::memory_order_relaxed);
  plan.paths = &machine_.paths;
  plan.parallel_items = &t->kernel->parallel_items;
  plan.wave_step = &t->kernel->wave_step;
  plan.pass_items = &t->kernel->pass_items;
  plan.busy_items.resize(workers_.size());
  for (std::size_t d = 0; d < workers_.size(); ++d)
    plan.busy_items[d] = t->kernel->busy_items[d].load(std::memory_order_relaxed);
  plan.bytes_per_item = bytes_per_item(t->args);
  plan.clock = &clock_;
  run->source->start(plan);

  run->remaining.store(t->range.n, std::memory_order_relaxed);
  run->reruns.store(0, std::memory_order_relaxed);
  run->participating.assign(workers_.size(), 0);
  run->stats.resize(workers_.size());
  for (std::size_t d = 0; d < workers_.size(); ++d) {
    DeviceStats& st = run->stats[d];
    const std::string name = std::move(st.name);  // kept: a pooled run reuses its strings
    st = DeviceStats{};
    st.name = name.empty() ? machine_.names[d] : name;
  }
  run->start_s = clock_.now();
  run->end_s = run->start_s;
  t->split = run;
  std::lock_guard lock(runs_mu_);
  active_spreads_.push_back(t);
  std::lock_guard run_lock(run->mu);
  for (std::size_t d = 0; d < workers_.size(); ++d)
    if (run->plan.weights[d] > 0) announce(t, int(d));
}

void Engine::announce(TaskRecord* t, int device) {
  t->split->participating[device] = 1;
  t->refs.fetch_add(1, std::memory_order_relaxed);
  workers_[device]->announce(t);
}

// Chunks of a spread task: handed out, completed, given back and retired
// here, the chunk source and the policy told together.
std::optional<Take> Engine::next_chunk(TaskRecord* t, int d) {
  return t->split->source->next(d);
}

void Engine::chunk_done(TaskRecord* t, int d, Span span, double seconds) {
  t->split->source->completed(d, span, seconds);
  SchedulingPolicy& pol = policy(t);
  if (!pol.learns()) return;
  thread_local std::vector<double> transfer;
  TaskShape s = shape(t, weights_of(t), transfer, false);
  s.items = span.size();
  pol.finished(d, s, seconds);
}

void Engine::chunk_returned(TaskRecord* t, int d, Span span, bool rerun) {
  t->split->source->give_back(d, span);
  if (rerun) t->split->reruns.fetch_add(1, std::memory_order_relaxed);
}

void Engine::chunks_retired(TaskRecord* t, int d) {
  t->split->source->retire(d);
}

bool Engine::chunks_for(const TaskRecord* t, int d) const {
  const ChunkSource& s = *t->split->source;
  return s.stealable(d) || s.exhausted();
}

bool Engine::chunks_exhausted(const TaskRecord* t) const {
  return t->split->source->exhausted();
}

void Engine::spread_publish(TaskRecord* t, std::uint64_t items, Worker& w) {
  if (t->split->remaining.fetch_sub(items, std::memory_order_acq_rel) == items) finish_split(t, &w);
}

void Engine::finish_split(TaskRecord* t, Worker* by) {
  SplitRun& run = *t->split;
  run.end_s = clock_.now();
  std::vector<TaskRecord*> successors;
  {
    std::lock_guard lock(t->lock);
    t->state.store(TaskState::done, std::memory_order_release);
    successors.swap(t->successors);
  }
  {
    std::lock_guard lock(runs_mu_);
    std::erase(active_spreads_, t);
  }
  if (t->host_waits.load(std::memory_order_seq_cst)) notify_hosts();
  count_done(by);
  // Devices still holding it (asleep, with nothing left of it) let it go.
  {
    std::lock_guard lock(run.mu);
    for (std::size_t d = 0; d < run.participating.size(); ++d)
      if (run.participating[d] == 1) workers_[d]->wake();
  }
  release(successors, by);
  drop_ref(t, by);
}

void Engine::spread_leave(TaskRecord* t, Worker& w) {
  SplitRun& run = *t->split;
  bool last = false, stranded = false;
  {
    std::lock_guard lock(run.mu);
    if (run.participating[w.index()] == 1) run.participating[w.index()] = 0;
    last = std::none_of(run.participating.begin(), run.participating.end(),
                        [](char p) { return p == 1; });
    if (last && !t->finished()) {
      // Nobody left to finish it: a chunk failed, or no live device may run it.
      stranded = true;
      for (std::size_t d = 0; d < workers_.size(); ++d)
        if (run.participating[d] == 0 && can_run(t, int(d)) && !run.source->aborted())
          stranded = false;
    }
  }
  if (stranded) {
    std::exception_ptr error;
    {
      std::lock_guard lock(t->lock);
      error = t->error;
    }
    if (!error)
      error = std::make_exception_ptr(Error(Errc::device_failed, t->kernel->kernel.name(),
                                            "no live device can finish it" + causes()));
    fail(t, error, &w);
  }
  drop_ref(t, &w);
}

void Engine::spread_error(TaskRecord* t, std::exception_ptr e) {
  {
    std::lock_guard lock(t->lock);
    if (!t->error) t->error = e;
  }
  SplitRun& run = *t->split;
  run.source->abort();
  std::lock_guard lock(run.mu);
  for (std::size_t d = 0; d < run.participating.size(); ++d)
    if (run.participating[d] == 1) workers_[d]->wake();
}

void Engine::spread_exclude(TaskRecord* t, int d, const std::string& why) {
  SplitRun& run = *t->split;
  bool others = false;
  {
    std::lock_guard lock(run.mu);
    run.participating[d] = 2;  // left, and not to be asked again
    run.stats[d].out_of_memory = why;
    for (int i = 0; i < int(run.participating.size()); ++i) {
      if (run.participating[i] == 0 && can_run(t, i)) announce(t, i);  // a device left out
      others = others || run.participating[i] == 1;
    }
  }
  if (!others)
    spread_error(t, std::make_exception_ptr(Error(Errc::out_of_memory, machine_.names[d], why)));
}

RunStats Engine::spread_stats(Task task) {
  TaskRecord* t = pool_.at(task.index);
  if (!t || t->generation.load() != task.generation || !t->split)
    raise(Errc::internal, "runtime", "the stats of a task that was not kept");
  const SplitRun& run = *t->split;
  RunStats s;
  s.policy = policies_[t->policy].name;
  s.devices = run.stats;
  for (std::size_t d = 0; d < workers_.size(); ++d)
    if (!workers_[d]->alive()) {
      s.devices[d].failed = true;
      s.devices[d].failure = workers_[d]->failure();
    }
  s.tasks = 1;
  s.items = t->range.n;
  s.start_s = run.start_s;
  s.makespan_s = run.end_s - run.start_s;
  s.reruns = run.reruns.load();
  s.simulated = clock_.is_virtual();
  return s;
}

void Engine::release(Task task) {
  TaskRecord* t = pool_.at(task.index);
  if (t && t->generation.load() == task.generation) drop_ref(t, nullptr);
  let_go_when_idle();
}

}  // namespace baton::detail
