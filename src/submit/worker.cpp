#include "submit/worker.hpp"

#include <pthread.h>
#include <sched.h>
#include <sys/prctl.h>

#include <algorithm>

#include "baton/error.hpp"

namespace baton::detail {

namespace {

// How long a worker with work in flight, and nothing else to do, blocks on
// its oldest event before it looks at its queues again.
constexpr double kPollS = 100e-6;

thread_local int tls_device = -1;

}  // namespace

Worker::Worker(WorkerHost& host, int index, Device& device, std::vector<unsigned> cpus,
               long long fault_after)
    : host_(host),
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
      idle_spin_s_(device.clock().is_virtual() ? 0 : host.options().idle_spin_us * 1e-6),
      gap_spin_s_(device.info().needs_driver_thread ? host.options().gap_spin_us * 1e-6 : 0),
      long_chunk_s_(host.options().long_chunk_us * 1e-6),
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
  tls_device = index_;
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
  for (auto& p : parts_) host_.spread_leave(p->task, *this);
  parts_.clear();
  publish();
  clock_.detach_worker();
}

// ---- queues ----

void Worker::post(TaskRecord* t) {
  if (host_.stealable(t)) inbox_stealable_.fetch_add(1, std::memory_order_relaxed);
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
    if (!host_.stealable(t) || !host_.can_run(t, thief.index())) {
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
  if (host_.any_idle()) host_.wake_one(index_);
}

void Worker::take_inbox() {
  inbox_scratch_.clear();
  inbox_stealable_.store(0, std::memory_order_relaxed);
  inbox_.take_all(inbox_scratch_);
  for (TaskRecord* t : inbox_scratch_) push_local(t, host_.stealable(t));
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
    parts_.push_back(std::move(p));
  }
}

void Worker::count_finished(std::uint64_t n) {
  unpublished_ += n;
  if (unpublished_ >= 64) publish();
}

void Worker::publish() {
  counters_.last_done_s.store(now(), std::memory_order_relaxed);
  host_.published(unpublished_);
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
      for (TaskRecord* t : announced_) host_.spread_leave(t, *this);
      announced_.clear();
      has_announced_.store(false, std::memory_order_relaxed);
    }
    host_.requeue(requeue);
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
  host_.pool_flush(free_);
  // Look for work a little before sleeping; yielding, so that a submitting
  // thread that shares the cores keeps running. A GPU's worker looks for
  // twice as long as its last idle time, up to BATON_GAP_SPIN_US: a loop that
  // submits a run every 1.5 ms (`bench balance`; a training step's host
  // work) found the workers of H100 partitions asleep each time, and waking
  // one took 15 to 300 us, up to 6 % of a 5 ms run; spinning, 2 to 6 us.
  // Only a worker that drives its device from a thread the cpu devices leave
  // to it does (DeviceInfo::needs_driver_thread): on the host's cores it
  // would take cycles from the devices that compute there.
  const double since = now();
  double spin = idle_spin_s_;
  if (2 * last_gap_s_ <= gap_spin_s_) spin = std::max(spin, 2 * last_gap_s_);
  for (const double until = since + spin; now() < until;) {
    if (has_work_now() || stop_.load(std::memory_order_relaxed)) {
      last_gap_s_ = now() - since;
      return;
    }
    std::this_thread::yield();
  }
  sleeping_.store(true, std::memory_order_seq_cst);
  host_.sleeping(true);
  if (!has_work_now() && !stop_.load(std::memory_order_seq_cst)) parker_->park();
  host_.sleeping(false);
  sleeping_.store(false, std::memory_order_relaxed);
  last_gap_s_ = now() - since;
}

bool Worker::has_work_now() {
  if (!alive()) return !inbox_.empty() || has_announced_.load(std::memory_order_acquire);
  if (!fixed_.empty() || local_.size() > 0 || !inbox_.empty() ||
      has_announced_.load(std::memory_order_acquire))
    return true;
  for (const auto& p : parts_) {
    if (p->task->finished() || (p->excluded && p->in_flight == 0)) return true;  // to leave it
    if (host_.chunks_for(p->task, index_)) return true;
  }
  if (host_.steals_anything())
    for (int v = 0; v < host_.devices(); ++v)
      if (v != index_ && host_.worker(v).has_stealable()) return true;
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
  if (host_.steals_anything()) return steal_work();
  return std::nullopt;
}

std::optional<Worker::Work> Worker::chunk_work() {
  const std::size_t n = parts_.size();
  std::optional<Work> found;
  for (std::size_t i = 0; i < n && !found; ++i) {
    Participation& p = *parts_[(next_part_ + i) % n];
    if (p.task->finished() || p.excluded) continue;
    if (auto take = host_.next_chunk(p.task, index_)) {
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
    const bool over = p.task->finished() || p.excluded || host_.chunks_exhausted(p.task);
    if (over && p.in_flight == 0) {
      TaskRecord* t = p.task;
      spare_parts_.push_back(std::move(parts_[i]));
      parts_.erase(parts_.begin() + std::ptrdiff_t(i));
      host_.spread_leave(t, *this);
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
  const int n = host_.devices();
  auto from = [&](int v) -> std::optional<Work> {
    if (v == index_ || v < 0) return std::nullopt;
    if (TaskRecord* t = host_.worker(v).steal(*this)) {
      sticky_ = v;
      return task_work(t, v);
    }
    return std::nullopt;
  };
  if (const std::vector<int>* order = host_.victim_order(index_)) {
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

}  // namespace baton::detail

int baton::this_device() {
  return detail::tls_device;
}
