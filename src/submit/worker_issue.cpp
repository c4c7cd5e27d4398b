// A worker's issuing: whole tasks and chunks of spread ones go down its
// device's queues, with the waits and copies their data needs.
#include <algorithm>

#include "baton/error.hpp"
#include "submit/kernel_entry.hpp"
#include "submit/split_run.hpp"
#include "submit/worker.hpp"

namespace baton::detail {

namespace {

// Whole tasks issued back to back that share one completion event (a Mark).
constexpr int kMarkRun = 8;

}  // namespace

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
    prepare(device_, index_, host_.devices(), t->args,
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
    prepare(device_, index_, host_.devices(), t->args, span, unused, scratch_);
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
    out.bytes_out = record_writes(device_, t->args, span, unused, done, host_.write_back());
  return done;
}

EventPtr Worker::task_done_event(const TaskRecord* t) {
  // Timed tasks need their own end; a device that runs work as it is
  // enqueued has nothing to gain. A task pinned to one device of several is
  // a stage of work across devices (a layer's backward that a ring's step
  // on another device follows): a Mark recorded when another queue comes to
  // wait would stand for all this device has queued by then.
  if (depth_ == 1 || host_.learns(t) || (t->pinned >= 0 && host_.devices() > 1))
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
  if (!host_.can_run(t, index_)) {  // stolen, but not for this device
    host_.make_ready(t, this);
    return;
  }
  Lane& lane = lane_of(t);
  if ((t->tracked && holding(t, lane)) ||
      (lane.id == LaneId::side && !t->args.empty() && inputs_landing(t))) {
    defer(t);
    return;
  }
  host_.left_queue(t, index_);
  const double start = host_.learns(t) ? now() : -1;
  const double traced = host_.trace_log().on() ? now() : -1;
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
      host_.requeue(again);
    } else if (e.code() == Errc::out_of_memory) {
      host_.exclude(t, index_, e.message());
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
  host_.issued(t, done, index_, lane.id, *this);
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
  SplitRun& run = *t->split;
  const Span items{t->range.first + take.span.begin, t->range.first + take.span.end};
  if (take.left_work && host_.any_idle()) host_.wake_one(index_);
  const double start = now();
  const double traced = host_.trace_log().on() ? start : -1;
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

}  // namespace baton::detail
