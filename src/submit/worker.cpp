#include "submit/worker.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>

#include <algorithm>

#include "baton/error.hpp"
#include "submit/engine.hpp"

namespace baton::detail {

namespace {

// How long a worker with work in flight, and nothing else to do, blocks on
// its oldest event before it looks at its queues again.
constexpr double kPollS = 100e-6;
// Whole tasks issued back to back that share one completion event (a Mark).
constexpr int kMarkRun = 8;

}  // namespace

Worker::Worker(Engine& engine, int index, Device& device, std::vector<unsigned> cpus,
               long long fault_after)
    : engine_(engine),
      index_(index),
      device_(device),
      clock_(device.clock()),
      compute_(device.queue(QueueRole::compute)),
      main_{compute_, {}, 0, LaneId::compute},
      side_{device.queue(QueueRole::side), {}, 0, LaneId::side},
      fetch_{device.queue(QueueRole::copy_in), {}, 0, LaneId::fetch},
      cpus_(std::move(cpus)),
      fault_after_(fault_after),
      depth_(std::size_t(std::max(1, device.info().pipeline_depth))),
      // Spinning cannot make virtual time pass: there a worker sleeps at once.
      idle_spin_s_(device.clock().is_virtual() ? 0 : engine.machine().options.idle_spin_us * 1e-6),
      long_chunk_s_(engine.machine().options.long_chunk_us * 1e-6),
      parker_(device.clock().make_parker(true)),
      rng_(0x9e3779b97f4a7c15ull ^ std::uint64_t(index + 1) * 0xbf58476d1ce4e5b9ull) {}

Worker::~Worker() {
  stop();
}

void Worker::start() {
  clock_.worker_starting(*parker_);
  thread_ = std::thread([this] { run(); });
}

void Worker::stop() {
  stop_.store(true, std::memory_order_seq_cst);
  parker_->unpark();
  if (thread_.joinable()) thread_.join();
}

void Worker::bind() {
  if (!cpus_.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (unsigned c : cpus_)
      if (c < CPU_SETSIZE) CPU_SET(c, &set);
    // Not fatal: a container may forbid it; the worker then runs anywhere.
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  }
  // A worker notices a device's completions by polling with short sleeps
  // (Event::wait_for); Linux stretches each sleep by the thread's timer
  // slack, 50 us by default, which would end every run that much late.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);  // 1 us
  device_.bind_thread();
}

void Worker::run() {
  clock_.attach_worker(*parker_);
  try {
    bind();
  } catch (const Error& e) {
    device_lost(e.message());
  }
  while (!stop_.load(std::memory_order_acquire))
    if (!step()) idle();
  // Stopped once every task is over: spread tasks this worker was woken to
  // leave (or never saw) are let go here, else their records are never freed.
  take_announcements();
  for (auto& p : parts_) engine_.spread_leave(p->task, *this);
  parts_.clear();
  publish();
  clock_.detach_worker();
}

// ---- queues ----

void Worker::post(TaskRecord* t) {
  if (engine_.stealable(t)) inbox_stealable_.fetch_add(1, std::memory_order_relaxed);
  inbox_.push(t);
  if (sleeping_.load(std::memory_order_seq_cst)) parker_->unpark();
}

void Worker::announce(TaskRecord* task) {
  {
    std::lock_guard lock(announce_mu_);
    announced_.push_back(task);
  }
  has_announced_.store(true, std::memory_order_seq_cst);
  wake();
}

void Worker::wake() {
  // The caller published the work with a seq_cst operation; the worker
  // stores that it sleeps, then looks at its queues, both seq_cst: either
  // it sees the work, or we see it asleep.
  if (sleeping_.load(std::memory_order_seq_cst)) parker_->unpark();
}

TaskRecord* Worker::steal(Worker& thief) {
  if (local_.size() > 0)
    if (auto x = local_.steal()) return reinterpret_cast<TaskRecord*>(*x);
  if (inbox_stealable_.load(std::memory_order_relaxed) <= 0) return nullptr;
  // Its inbox waits for it to finish what it runs: the thief takes the lot,
  // keeps what may move and sends the rest back.
  std::vector<TaskRecord*> taken;
  inbox_stealable_.store(0, std::memory_order_relaxed);
  inbox_.take_all(taken);
  TaskRecord* first = nullptr;
  for (TaskRecord* t : taken) {
    if (!engine_.stealable(t) || !engine_.can_run(t, thief.index())) {
      // Back, and not counted as stealable: a thief that may not run it
      // (out of memory there) would take it again and again, and on a
      // virtual clock time would never move on.
      inbox_.push(t);
      wake();
    } else if (!first)
      first = t;
    else
      thief.push_local(t, true);
  }
  return first;
}

void Worker::push_local(TaskRecord* t, bool stealable) {
  if (!stealable) {
    fixed_.push_back(t);
    return;
  }
  local_.push(reinterpret_cast<std::uintptr_t>(t));
  if (engine_.any_idle()) engine_.wake_one(index_);
}

void Worker::take_inbox() {
  inbox_scratch_.clear();
  inbox_stealable_.store(0, std::memory_order_relaxed);
  inbox_.take_all(inbox_scratch_);
  for (TaskRecord* t : inbox_scratch_) push_local(t, engine_.stealable(t));
}

void Worker::take_announcements() {
  announced_scratch_.clear();
  {
    std::lock_guard lock(announce_mu_);
    announced_scratch_.swap(announced_);
    has_announced_.store(false, std::memory_order_relaxed);
  }
  for (TaskRecord* t : announced_scratch_) {
    std::unique_ptr<Participation> p;
    if (spare_parts_.empty()) {
      p = std::make_unique<Participation>();
    } else {
      p = std::move(spare_parts_.back());
      spare_parts_.pop_back();
      *p = Participation{};
    }
    p->task = t;
    p->run = t->split;
    parts_.push_back(std::move(p));
  }
}

void Worker::count_finished(std::uint64_t n) {
  unpublished_ += n;
  if (unpublished_ >= 64) publish();
}

void Worker::publish() {
  counters_.last_done_s.store(now(), std::memory_order_relaxed);
  engine_.published(unpublished_);
  unpublished_ = 0;
}

// ---- the loop ----

bool Worker::step() {
  if (!alive()) {
    // A failed device takes no work; whatever still reaches it goes elsewhere.
    std::vector<TaskRecord*> requeue;
    inbox_.take_all(requeue);
    if (has_announced_.load(std::memory_order_acquire)) {
      std::lock_guard lock(announce_mu_);
      for (TaskRecord* t : announced_) engine_.spread_leave(t, *this);
      announced_.clear();
      has_announced_.store(false, std::memory_order_relaxed);
    }
    engine_.requeue(requeue);
    return false;
  }
  // Work in flight is committed to this device and cannot be stolen: when
  // chunks are long, one queued behind the running one hides the launch
  // gap, and more would only lengthen the tail. Whole tasks may queue deeper
  // (a GPU runs a stream of small kernels back to back; stopping to see each
  // finish would leave it idle), and their completion is looked at once
  // that room is full or nothing else is left to issue (each look is a
  // driver call).
  const std::size_t chunk_room =
      last_chunk_s_ > long_chunk_s_ ? std::min<std::size_t>(depth_, 2) : depth_;
  const std::size_t task_room = this->task_room();
  bool progressed = chunks_in_flight_ > 0 || main_.flight.size() >= task_room ||
                            !side_.flight.empty() || !fetch_.flight.empty()
                        ? reap()
                        : false;
  while (main_.flight.size() < task_room && alive()) {
    auto w = find_work(chunks_in_flight_ < chunk_room);
    if (!w) {
      // Nothing more to issue now: let the last tasks' completion be seen.
      try {
        record_open_mark();
      } catch (const Error& e) {
        device_lost(e.message());
      }
      break;
    }
    issue(*w);
    progressed = true;
  }
  if (!deferred_.empty() && retry_deferred()) progressed = true;
  if (progressed || !alive()) return true;
  if (main_.flight.empty() && side_.flight.empty() && fetch_.flight.empty() && deferred_.empty())
    return false;
  wait_for_progress();
  reap();
  return true;
}

void Worker::wait_for_progress() {
  // What it waits for: its oldest work on each queue, and what holds each
  // task it deferred. A device's event is polled for a while; simulated
  // ones say when they complete, and the worker parks until the first of
  // them (virtual time has no poll period), or until it is given work.
  Event* poll = nullptr;
  double due = -1;
  auto consider = [&](Event& e) {
    const double d = e.due_s();
    if (d < 0) {
      if (!poll) poll = &e;
    } else if (due < 0 || d < due) {
      due = d;
    }
  };
  // A device's event is polled in this order: what holds a deferred task
  // first (a ring's next step waits for it; the queues have work enough).
  for (const TaskRecord* t : deferred_)
    if (const EventPtr* e = holding(t, lane_of(t))) consider(**e);
  for (const Lane* lane : {&main_, &side_, &fetch_})
    if (!lane->flight.empty()) consider(*lane->flight.front().done);
  try {
    if (poll) {
      poll->wait_for(kPollS);
    } else if (due >= 0) {
      // As idle(): asleep first, then a look, so that work posted meanwhile
      // is seen here or unparks it. Work it has no room for keeps it asleep.
      sleeping_.store(true, std::memory_order_seq_cst);
      const bool news = !inbox_.empty() || has_announced_.load(std::memory_order_seq_cst);
      if (!(news && main_.flight.size() < task_room()) && !stop_.load(std::memory_order_seq_cst))
        parker_->park_until(due);
      sleeping_.store(false, std::memory_order_relaxed);
    }
  } catch (const Error&) {  // a failed device: reap() hears of it
  }
}

void Worker::idle() {
  if (busy_since_s_ >= 0) {
    const double t = now();
    counters_.add(counters_.busy_s, t - busy_since_s_);
    busy_since_s_ = -1;
  }
  if (unpublished_) publish();
  engine_.pool_flush(free_);
  // Look for work a little before sleeping; yielding, so that a submitting
  // thread that shares the cores keeps running.
  for (const double until = now() + idle_spin_s_; now() < until;) {
    if (has_work_now() || stop_.load(std::memory_order_relaxed)) return;
    std::this_thread::yield();
  }
  sleeping_.store(true, std::memory_order_seq_cst);
  engine_.sleeping(true);
  if (!has_work_now() && !stop_.load(std::memory_order_seq_cst)) parker_->park();
  engine_.sleeping(false);
  sleeping_.store(false, std::memory_order_relaxed);
}

bool Worker::has_work_now() {
  if (!alive()) return !inbox_.empty() || has_announced_.load(std::memory_order_acquire);
  if (!fixed_.empty() || local_.size() > 0 || !inbox_.empty() ||
      has_announced_.load(std::memory_order_acquire))
    return true;
  for (const auto& p : parts_) {
    if (p->task->finished() || (p->excluded && p->in_flight == 0)) return true;  // to leave it
    const ChunkSource& s = *p->run->source;
    if (s.stealable(index_) || s.exhausted()) return true;
  }
  if (engine_.steals_anything())
    for (int v = 0; v < engine_.devices(); ++v)
      if (v != index_ && engine_.worker(v).has_stealable()) return true;
  return false;
}

std::optional<Worker::Work> Worker::find_work(bool chunks) {
  if (!fixed_.empty()) {
    TaskRecord* t = fixed_.front();
    fixed_.pop_front();
    return task_work(t);
  }
  if (local_.size() > 0)
    if (auto x = local_.pop()) return task_work(reinterpret_cast<TaskRecord*>(*x));
  if (!inbox_.empty()) {
    take_inbox();
    if (!fixed_.empty()) {
      TaskRecord* t = fixed_.front();
      fixed_.pop_front();
      return task_work(t);
    }
    if (auto x = local_.pop()) return task_work(reinterpret_cast<TaskRecord*>(*x));
  }
  if (has_announced_.load(std::memory_order_acquire)) take_announcements();
  if (chunks && !parts_.empty())
    if (auto w = chunk_work()) return w;
  if (engine_.steals_anything()) return steal_work();
  return std::nullopt;
}

std::optional<Worker::Work> Worker::chunk_work() {
  const std::size_t n = parts_.size();
  std::optional<Work> found;
  for (std::size_t i = 0; i < n && !found; ++i) {
    Participation& p = *parts_[(next_part_ + i) % n];
    if (p.task->finished() || p.excluded) continue;
    if (auto take = p.run->source->next(index_)) {
      next_part_ = (next_part_ + i) % n;  // stay with it while it has chunks
      found = Work{p.task, &p, *take, take->victim};
    }
  }
  // Those with nothing left for this device publish and, once done with, go.
  for (std::size_t i = 0; i < parts_.size();) {
    Participation& p = *parts_[i];
    if (found && found->part == &p) {
      ++i;
      continue;
    }
    settle(p);
    const bool over = p.task->finished() || p.excluded || p.run->source->exhausted();
    if (over && p.in_flight == 0) {
      TaskRecord* t = p.task;
      spare_parts_.push_back(std::move(parts_[i]));
      parts_.erase(parts_.begin() + std::ptrdiff_t(i));
      engine_.spread_leave(t, *this);
      if (found) {  // keep the found participation's place
        for (std::size_t j = 0; j < parts_.size(); ++j)
          if (parts_[j].get() == found->part) next_part_ = j;
      }
    } else {
      ++i;
    }
  }
  if (next_part_ >= parts_.size()) next_part_ = 0;
  return found;
}

std::optional<Worker::Work> Worker::steal_work() {
  const int n = engine_.devices();
  auto from = [&](int v) -> std::optional<Work> {
    if (v == index_ || v < 0) return std::nullopt;
    if (TaskRecord* t = engine_.worker(v).steal(*this)) {
      sticky_ = v;
      return task_work(t, v);
    }
    return std::nullopt;
  };
  if (const std::vector<int>* order = engine_.victim_order(index_)) {
    for (int v : *order)
      if (auto w = from(v)) return w;
    return std::nullopt;
  }
  if (auto w = from(sticky_)) return w;
  rng_ ^= rng_ << 13, rng_ ^= rng_ >> 7, rng_ ^= rng_ << 17;
  const int start = int(rng_ % std::uint64_t(n));
  for (int i = 0; i < n; ++i)
    if (auto w = from((start + i) % n)) return w;
  return std::nullopt;
}

// ---- issuing ----

void Worker::issue(Work& w) {
  if (busy_since_s_ < 0) busy_since_s_ = prev_done_s_ = now();
  if (w.part)
    issue_chunk(*w.part, w.take);
  else
    issue_task(w.task, w.victim);
}

void Worker::injected_fault() {
  if (fault_after_ >= 0 && launches_ >= fault_after_)
    raise(Errc::device_failed, device_.name(),
          "injected fault (BATON_FAULT): launch " + std::to_string(launches_ + 1) +
              " fails as on a lost device");
  ++launches_;
}

Worker::Lane& Worker::lane_of(const TaskRecord* t) {
  const Kernel& k = t->kernel->kernel;
  if (k.is_prefetch() && &fetch_.queue != &compute_) return fetch_;
  return k.uses_side_queue() && &side_.queue != &compute_ ? side_ : main_;
}

const EventPtr* Worker::holding(const TaskRecord* t, Lane& lane) {
  for (const EventWait& w : t->waits) {
    if (w.device == index_ && w.lane == lane.id) continue;  // queue order
    if (!lane.queue.can_wait(w.event)) return &w.event;
    // The side queue is in order too: a task there that waited on the device
    // for a compute queue's long kernel, or for another device's step of a
    // ring, would hold up every later one. A ring's steps become ready step
    // by step over all buckets, while their inputs (backward, layer by layer)
    // come bucket by bucket: held here, a bucket's first step enters the
    // queue once its gradient is made, and its next once the neighbour's
    // step is done (64 simulated GPUs in 8 nodes waited up to 0.6 ms a step
    // behind others' when the queue held them).
    const bool own_side = w.lane == LaneId::side && w.device == index_;
    if (lane.id == LaneId::side && !own_side && !done_now(w.event)) return &w.event;
    if (t->kernel->kernel.is_prefetch() && !done_now(w.event)) return &w.event;
  }
  for (const auto& [task, copies] : landing_)
    if (task == t) return first_not_done(copies);
  return nullptr;
}

const EventPtr* Worker::first_not_done(const std::vector<EventPtr>& events) {
  for (const EventPtr& e : events)
    if (!done_now(e)) return &e;
  return nullptr;
}

// A ring's add on the side queue reads its neighbour's piece: copied in as
// the add went down the queue, the add waited there for it, and so did every
// later add, of other buckets too, whose pieces had landed (64 simulated GPUs
// in 8 nodes: the last bucket's sums waited behind the large layer's). Its
// copies are issued here instead, and it goes once they land.
bool Worker::inputs_landing(TaskRecord* t) {
  auto it =
      std::find_if(landing_.begin(), landing_.end(), [&](const auto& l) { return l.first == t; });
  if (it != landing_.end()) {
    if (first_not_done(it->second)) return true;
    landing_.erase(it);
    return false;
  }
  try {
    const std::uint64_t unused = t->kernel->kernel.unused_args(device_.info().code_backend());
    prepare(device_, index_, engine_.devices(), t->args,
            Span{t->range.first, t->range.first + t->range.n}, unused, landing_scratch_);
  } catch (...) {
    return false;  // enqueue meets the error again, and handles it
  }
  std::vector<EventPtr> copies;
  for (const EventPtr& e : landing_scratch_.waits)
    if (!done_now(e)) copies.push_back(e);
  if (copies.empty()) return false;
  landing_.emplace_back(t, std::move(copies));
  return true;
}

EventPtr Worker::enqueue(TaskRecord* t, Lane& lane, Span span, std::uint64_t step, bool whole,
                         Enqueued& out) {
  Queue& queue = lane.queue;
  if (t->tracked)
    for (const EventWait& w : t->waits)
      if (w.device != index_ || w.lane != lane.id) queue.wait(w.event);
  const Kernel& kernel = t->kernel->kernel;
  const std::uint64_t unused = kernel.unused_args(device_.info().code_backend());
  if (!t->args.empty()) {
    prepare(device_, index_, engine_.devices(), t->args, span, unused, scratch_);
    out.bytes_in = scratch_.bytes_in;
    // Its own open mark is on this very queue: in order, nothing to wait for
    // (and waiting would record it, one event per task again).
    for (const EventPtr& e : scratch_.waits)
      if (e != open_mark_ || lane.id != LaneId::compute) queue.wait(e);
  } else {
    scratch_.launch.clear();
  }
  const KernelArgs args(scratch_.launch);
  // After the waits: the chunk's time on the device is its launches' alone.
  if (!whole) out.started = queue.record_timed();
  // A prefetch on the copy-in queue launches nothing there: its copies are all of it.
  const bool launches = lane.id != LaneId::fetch;
  try {
    for (std::uint64_t at = span.begin; launches && at < span.end; at += step) {
      const Span piece{at, std::min(span.end, at + step)};
      injected_fault();
      queue.launch(kernel, piece, args);
      out.launched = piece.end - span.begin;
    }
  } catch (...) {
    // What was launched stands (on a cpu device it has run, in place): its
    // writes are recorded, and the caller gives back only the rest.
    if (out.launched > 0 && t->tracked) {
      try {
        const Span ran{span.begin, span.begin + out.launched};
        record_writes(device_, t->args, ran, unused, queue.record(), false);
      } catch (const Error&) {  // the device is gone: what it held goes with it
      }
    }
    throw;
  }
  EventPtr done = whole && lane.id == LaneId::compute ? task_done_event(t)
                  : out.started                       ? queue.record_timed()
                                                      : queue.record();
  if (t->tracked)
    out.bytes_out = record_writes(device_, t->args, span, unused, done, engine_.write_back());
  return done;
}

EventPtr Worker::task_done_event(const TaskRecord* t) {
  // Timed tasks need their own end; a device that runs work as it is
  // enqueued has nothing to gain. A task pinned to one device of several is
  // a stage of work across devices (a layer's backward that a ring's step
  // on another device follows): a Mark recorded when another queue comes to
  // wait would stand for all this device has queued by then.
  if (depth_ == 1 || engine_.learns(t) || (t->pinned >= 0 && engine_.devices() > 1))
    return compute_.record();
  // One recorded already (someone had to wait for it) was recorded before
  // this task's launch and cannot stand for it.
  if (!open_mark_ || !open_mark_->join()) {
    open_mark_ = std::make_shared<Mark>(compute_);
    open_uses_ = 0;
  }
  EventPtr m = open_mark_;
  if (++open_uses_ >= kMarkRun) record_open_mark();
  return m;
}

void Worker::record_open_mark() {
  if (!open_mark_) return;
  std::shared_ptr<Mark> m = std::move(open_mark_);
  m->record();
}

void Worker::issue_task(TaskRecord* t, int victim) {
  if (!engine_.can_run(t, index_)) {  // stolen, but not for this device
    engine_.make_ready(t, this);
    return;
  }
  Lane& lane = lane_of(t);
  if ((t->tracked && holding(t, lane)) ||
      (lane.id == LaneId::side && !t->args.empty() && inputs_landing(t))) {
    defer(t);
    return;
  }
  engine_.left_queue(t, index_);
  const double start = engine_.learns(t) ? now() : -1;
  const double traced = engine_.trace_log().on() ? now() : -1;
  std::uint64_t after = 0;  // traced: the other devices whose tasks this one follows
  if (traced >= 0 && t->tracked)
    for (const EventWait& w : t->waits)
      if (w.device >= 0 && w.device != index_ && w.device < 64)
        after |= std::uint64_t(1) << w.device;
  const Span span{t->range.first, t->range.first + t->range.n};
  Enqueued q;
  EventPtr done;
  try {
    done = enqueue(t, lane, span, span.size(), true, q);
  } catch (const Error& e) {
    if (e.code() == Errc::device_failed) {
      counters_.add(counters_.reruns, 1);
      std::vector<TaskRecord*> again{t};
      device_lost(e.message());
      engine_.requeue(again);
    } else if (e.code() == Errc::out_of_memory) {
      engine_.exclude(t, index_, e.message());
    } else {
      task_failed(t, std::current_exception());
    }
    return;
  } catch (...) {  // a cpu kernel that threw: the caller's error
    task_failed(t, std::current_exception());
    return;
  }
  counters_.add(counters_.tasks, 1);
  counters_.add(counters_.items, t->range.n);
  counters_.add(counters_.bytes_in, q.bytes_in);
  counters_.add(counters_.bytes_out, q.bytes_out);
  if (victim >= 0) counters_.add(counters_.steals, 1);
  engine_.issued(t, done, index_, lane.id, *this);
  InFlight f{t, nullptr, span, std::move(done), start, 0, traced, victim, after, nullptr};
  if (traced >= 0) f.issue_s = now() - traced;
  in_flight(lane, std::move(f));
}

void Worker::in_flight(Lane& lane, InFlight f) {
  // A device that runs work as it is enqueued (no pipeline) is done already.
  if (depth_ == 1 && lane.flight.empty() && done_now(f.done))
    completed(f, lane);
  else
    lane.flight.push_back(std::move(f));
}

bool Worker::done_now(const EventPtr& e) {
  try {
    return e->ready();
  } catch (const Error&) {
    return false;  // reap() hears of the failure
  }
}

void Worker::issue_chunk(Participation& p, const Take& take) {
  TaskRecord* t = p.task;
  SplitRun& run = *p.run;
  const Span items{t->range.first + take.span.begin, t->range.first + take.span.end};
  if (take.left_work && engine_.any_idle()) engine_.wake_one(index_);
  const double start = now();
  const double traced = engine_.trace_log().on() ? start : -1;
  const std::uint64_t step = take.launch ? take.launch : items.size();
  Lane& lane = lane_of(t);
  Enqueued q;
  EventPtr done;
  try {
    done = enqueue(t, lane, items, step, false, q);
  } catch (...) {
    Take rest = take;
    rest.span.begin += q.launched;
    if (q.launched > 0) {  // the launched part counts as done here
      ++p.in_flight;
      ++chunks_in_flight_;
      chunk_completed(p, {take.span.begin, rest.span.begin}, step, 0);
    }
    chunk_failed(p, rest, std::current_exception());
    return;
  }
  DeviceStats& st = run.stats[index_];
  st.bytes_in += q.bytes_in;
  st.bytes_out += q.bytes_out;
  if (take.victim >= 0) ++st.steals;
  counters_.add(counters_.bytes_in, q.bytes_in);
  counters_.add(counters_.bytes_out, q.bytes_out);
  if (take.victim >= 0) counters_.add(counters_.steals, 1);
  ++p.in_flight;
  ++chunks_in_flight_;
  InFlight f{t, &p, take.span, std::move(done), start, step, traced, take.victim, 0, nullptr};
  f.started = std::move(q.started);
  if (traced >= 0) f.issue_s = now() - traced;
  in_flight(lane, std::move(f));
}

bool Worker::retry_deferred() {
  bool any = false;
  for (std::size_t i = 0; i < deferred_.size();) {
    TaskRecord* t = deferred_[i];
    if (holding(t, lane_of(t))) {
      ++i;
      continue;
    }
    deferred_.erase(deferred_.begin() + std::ptrdiff_t(i));
    issue_task(t, -1);
    any = true;
  }
  return any;
}

// ---- completion ----

bool Worker::reap() {
  const bool side = reap(side_), fetched = reap(fetch_);
  return reap(main_) || side || fetched;
}

bool Worker::reap(Lane& lane) {
  std::deque<InFlight>& flight = lane.flight;
  if (flight.empty()) return false;
  // Everything in flight on a lane went down its queue, in order, so what is
  // done is a prefix of it: found by halving, a few looks for many tasks.
  std::size_t done_count = 0;
  try {
    std::size_t not_done = flight.size();  // the first known not done
    if (flight.back().done->ready()) {
      done_count = not_done;
    } else {
      not_done = flight.size() - 1;
      while (done_count < not_done) {
        const std::size_t mid = done_count + (not_done - done_count) / 2;
        if (flight[mid].done->ready())
          done_count = mid + 1;
        else
          not_done = mid;
      }
    }
  } catch (const Error& e) {
    device_lost(e.message());
    return true;
  }
  // Completions seen at once share the time since the previous one, in
  // proportion to their items: the host cannot tell when each of them ended
  // (giving the first all of it would teach the policies that the others took
  // no time).
  double first_issued_s = -1;
  std::uint64_t timed_items = 0;
  for (std::size_t i = 0; i < done_count; ++i)
    if (flight[i].issued_s >= 0) {
      if (first_issued_s < 0) first_issued_s = flight[i].issued_s;
      timed_items += std::max<std::uint64_t>(1, flight[i].span.size());
    }
  const double shared_s = timed_items > 0 ? since_previous(first_issued_s) : 0;
  for (std::size_t i = 0; i < done_count; ++i) {
    InFlight done = std::move(flight.front());
    flight.pop_front();
    double seconds = 0;
    if (done.issued_s >= 0)
      seconds =
          chunk_seconds(done, shared_s * double(std::max<std::uint64_t>(1, done.span.size())) /
                                  double(timed_items));
    completed(done, lane, seconds);
  }
  return done_count > 0;
}

void Worker::trace(const InFlight& f, Lane& lane, double now_s, double device_s) {
  TraceLog& log = engine_.trace_log();
  if (f.traced_s < 0 || !log.on()) return;
  TraceSpan s;
  s.name = f.task->kernel->kernel.name();
  // Where the device says when it ended (a simulated one) and how long it
  // took, the span is that; else, pipelined, it starts when the one before
  // it ended, if later than its issue, and ends when the host saw it end.
  const double due = f.done->due_s();
  s.end_s = due >= 0 ? std::max(lane.traced_until_s, std::min(due, now_s)) : now_s;
  s.begin_s = device_s >= 0 ? s.end_s - device_s : std::max(lane.traced_until_s, f.traced_s);
  s.first = f.part ? f.task->range.first + f.span.begin : f.span.begin;
  s.items = f.span.size();
  s.chunk = f.part != nullptr;
  s.victim = f.victim;
  s.after = f.after;
  s.issue_s = f.issue_s;
  s.side = lane.id != LaneId::compute;
  lane.traced_until_s = s.end_s;
  log.add(index_, std::move(s));
}

double Worker::since_previous(double issued_s) {
  // With work pipelined, its cost is the time since the previous completion.
  const double t = now();
  const double seconds = t - std::max(prev_done_s_, issued_s);
  prev_done_s_ = t;
  return seconds;
}

double Worker::chunk_seconds(const InFlight& f, double host_s) {
  if (!f.started) return host_s;
  try {
    const double s = f.done->seconds_since(*f.started);
    return s >= 0 ? s : host_s;
  } catch (const Error&) {  // a device lost since: its chunk is done, its time the host's
    return host_s;
  }
}

void Worker::completed(InFlight& f, Lane& lane) {
  completed(f, lane, f.issued_s >= 0 ? chunk_seconds(f, since_previous(f.issued_s)) : 0);
}

void Worker::completed(InFlight& f, Lane& lane, double seconds) {
  if (f.traced_s >= 0) trace(f, lane, now(), f.started ? seconds : -1);
  if (f.part) {
    last_chunk_s_ = seconds;
    chunk_completed(*f.part, f.span, f.step, seconds);
  } else {
    engine_.finished(f.task, *this, seconds);
  }
}

void Worker::chunk_completed(Participation& p, Span span, std::uint64_t step, double seconds) {
  --p.in_flight;
  --chunks_in_flight_;
  p.done_items += span.size();
  DeviceStats& st = p.run->stats[index_];
  const std::uint64_t launches = (span.size() + step - 1) / step;
  if (st.items == 0) {
    st.first_chunk_items = span.size();
    st.first_chunk_s = seconds;
  }
  st.chunks += launches;
  st.items += span.size();
  st.busy_s += seconds;
  counters_.add(counters_.chunks, launches);
  counters_.add(counters_.items, span.size());
  p.run->source->completed(index_, span, seconds);
  engine_.chunk_done(p.task, index_, span.size(), seconds);
}

void Worker::settle(Participation& p) {
  if (p.in_flight == 0 && p.done_items > 0) {
    const std::uint64_t items = p.done_items;
    p.done_items = 0;
    engine_.spread_publish(p.task, items, *this);
  }
}

// ---- failures ----

void Worker::task_failed(TaskRecord* t, std::exception_ptr e) {
  engine_.fail(t, std::move(e), this);
}

void Worker::chunk_failed(Participation& p, const Take& take, std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const Error& err) {
    if (err.code() == Errc::device_failed) {
      p.run->source->give_back(index_, take.span);
      p.run->reruns.fetch_add(1, std::memory_order_relaxed);
      device_lost(err.message());
      return;
    }
    if (err.code() == Errc::out_of_memory) {  // this device cannot hold it: others take it
      p.excluded = true;
      p.run->source->give_back(index_, take.span);
      p.run->source->retire(index_);  // its share of what is left goes to the others
      engine_.spread_exclude(p.task, index_, err.message());
      return;
    }
  } catch (...) {
  }
  engine_.spread_error(p.task, e);
}

void Worker::device_lost(const std::string& cause) {
  if (!alive()) return;
  failure_ = cause;  // before the release: whoever sees the device dead reads why
  alive_.store(false, std::memory_order_release);
  std::vector<TaskRecord*> requeue;
  // Work already enqueued: what completes stays done, what cannot is re-run.
  for (Lane* lane : {&main_, &side_, &fetch_})
    while (!lane->flight.empty()) {
      InFlight f = std::move(lane->flight.front());
      lane->flight.pop_front();
      bool ok = false;
      try {
        f.done->wait();
        ok = true;
      } catch (const Error&) {
      }
      if (ok) {
        completed(f, *lane);
        continue;
      }
      counters_.add(counters_.reruns, 1);
      if (f.part) {
        --f.part->in_flight;
        --chunks_in_flight_;
        f.part->run->source->give_back(index_, f.span);
        f.part->run->reruns.fetch_add(1, std::memory_order_relaxed);
      } else {
        engine_.lost_in_flight(f.task, cause);
        requeue.push_back(f.task);
      }
    }
  open_mark_.reset();  // recorded or failed as its tasks were drained above
  for (TaskRecord* t : fixed_) requeue.push_back(t);
  fixed_.clear();
  while (auto x = local_.pop()) requeue.push_back(reinterpret_cast<TaskRecord*>(*x));
  inbox_.take_all(requeue);
  for (TaskRecord* t : deferred_) requeue.push_back(t);
  deferred_.clear();
  landing_.clear();
  take_announcements();
  // The run's figures say so through alive() (Engine::spread_stats): written
  // here, they raced with the host reading a run the others had finished.
  for (auto& p : parts_) {
    settle(*p);
    p->run->source->retire(index_);
  }
  std::vector<TaskRecord*> left;
  for (auto& p : parts_) left.push_back(p->task);
  parts_.clear();
  engine_.device_failed(*this, cause, requeue, left);
}

}  // namespace baton::detail
