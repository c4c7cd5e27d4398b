// A worker's completions and failures: what its device finished is timed
// and reported; what a lost device held is run again elsewhere.
#include <algorithm>

#include "baton/error.hpp"
#include "submit/kernel_entry.hpp"
#include "submit/split_run.hpp"
#include "submit/worker.hpp"

namespace baton::detail {

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
  TraceLog& log = host_.trace_log();
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
  s.issued_at_s = f.traced_s;
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
    host_.finished(f.task, *this, seconds);
  }
}

void Worker::chunk_completed(Participation& p, Span span, std::uint64_t step, double seconds) {
  --p.in_flight;
  --chunks_in_flight_;
  p.done_items += span.size();
  DeviceStats& st = p.task->split->stats[index_];
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
  host_.chunk_done(p.task, index_, span, seconds);
}

void Worker::settle(Participation& p) {
  if (p.in_flight == 0 && p.done_items > 0) {
    const std::uint64_t items = p.done_items;
    p.done_items = 0;
    host_.spread_publish(p.task, items, *this);
  }
}

// ---- failures ----

void Worker::task_failed(TaskRecord* t, std::exception_ptr e) {
  host_.fail(t, std::move(e), this);
}

void Worker::chunk_failed(Participation& p, const Take& take, std::exception_ptr e) {
  try {
    std::rethrow_exception(e);
  } catch (const Error& err) {
    if (err.code() == Errc::device_failed) {
      host_.chunk_returned(p.task, index_, take.span, true);
      device_lost(err.message());
      return;
    }
    if (err.code() == Errc::out_of_memory) {  // this device cannot hold it: others take it
      p.excluded = true;
      host_.chunk_returned(p.task, index_, take.span, false);
      host_.chunks_retired(p.task, index_);  // its share of what is left goes to the others
      host_.spread_exclude(p.task, index_, err.message());
      return;
    }
  } catch (...) {
  }
  host_.spread_error(p.task, e);
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
        host_.chunk_returned(f.part->task, index_, f.span, true);
      } else {
        host_.lost_in_flight(f.task, cause);
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
    host_.chunks_retired(p->task, index_);
  }
  std::vector<TaskRecord*> left;
  for (auto& p : parts_) left.push_back(p->task);
  parts_.clear();
  host_.device_failed(*this, cause, requeue, left);
}

}  // namespace baton::detail
