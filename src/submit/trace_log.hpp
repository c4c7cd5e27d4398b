// What a run did, span by span, for a person to see: while tracing is on,
// each worker notes every chunk and task it ran (from its issue, or the
// previous completion where work is pipelined, to the completion the worker
// saw) into a buffer of its own, and the host adds spans of its own (a
// training step) and counters (a device's utilisation, memory, power over
// time). Written as Chrome/Perfetto trace-event JSON: one track per device
// (and one for its side queue, where it used one), one for the host, one counter track per counter
// name, a flow arrow from the victim's track to each stolen chunk or task, and one from the end of
// the task a task waited for on another device to its start.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

namespace baton::detail {

struct TraceSpan {
  std::string name;  // the kernel's, or the host's label
  double begin_s = 0, end_s = 0;
  std::uint64_t first = 0, items = 0;  // the items it ran (none for a host span)
  bool chunk = false;                  // a chunk of a spread task (else a whole task)
  int victim = -1;                     // >= 0: stolen from that track's device
  // Tracks (devices 0-63) whose tasks it waited for: cross-device dependencies.
  std::uint64_t after = 0;
  // The host's time to issue it: its copies, waits and launches (a copy from
  // pageable memory, or a launcher that blocks, shows here).
  double issue_s = 0;
  // When the host began to issue it: before its begin by what the device
  // and its queue took to start it (a run's first span shows whether its
  // start waited on the host or on the device).
  double issued_at_s = 0;
  // It ran on the device's side queue (QueueRole::side), or it was a
  // prefetch on its copy-in queue, beside the spans of its compute queue:
  // drawn on a track of its own under the device's.
  bool side = false;
};

struct TraceCounter {
  std::string name;  // "cuda0 util %": one counter track per name
  double time_s = 0;
  double value = 0;
};

class TraceLog {
 public:
  explicit TraceLog(std::vector<std::string> tracks) : tracks_(std::move(tracks)) {
    per_track_.resize(tracks_.size() + 1);  // the last: the host
  }
  bool on() const { return on_.load(std::memory_order_relaxed); }
  void start();
  // The spans so far as trace-event JSON (`simulated`: times are virtual),
  // and tracing stops; the spans are dropped.
  std::string finish(bool simulated);
  // From track `track`'s worker only, while on.
  void add(int track, TraceSpan span) { per_track_[std::size_t(track)].push_back(std::move(span)); }
  // From any host thread.
  void add_host(TraceSpan span);
  void add_counter(TraceCounter counter);

 private:
  std::atomic<bool> on_{false};
  std::vector<std::string> tracks_;
  std::vector<std::vector<TraceSpan>> per_track_;
  std::vector<TraceCounter> counters_;  // under host_mu_
  std::mutex host_mu_;
};

}  // namespace baton::detail
