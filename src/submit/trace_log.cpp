#include "submit/trace_log.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace baton::detail {

void TraceLog::start() {
  for (auto& spans : per_track_) spans.clear();
  counters_.clear();
  on_.store(true, std::memory_order_release);
}

void TraceLog::add_host(TraceSpan span) {
  if (!on()) return;
  std::lock_guard lock(host_mu_);
  per_track_.back().push_back(std::move(span));
}

void TraceLog::add_counter(TraceCounter counter) {
  if (!on()) return;
  std::lock_guard lock(host_mu_);
  counters_.push_back(std::move(counter));
}

std::string TraceLog::finish(bool simulated) {
  on_.store(false, std::memory_order_release);
  nlohmann::json events = nlohmann::json::array();
  auto name_track = [&](std::size_t tid, const std::string& name) {
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 0},
                      {"tid", tid},
                      {"args", {{"name", name}}}});
    events.push_back({{"name", "thread_sort_index"},
                      {"ph", "M"},
                      {"pid", 0},
                      {"tid", tid},
                      {"args", {{"sort_index", tid}}}});
  };
  std::uint64_t flows = 0;
  auto arrow = [&](const char* name, std::size_t from, double from_s, std::size_t to, double to_s) {
    const std::uint64_t id = ++flows;
    events.push_back({{"name", name},
                      {"cat", name},
                      {"ph", "s"},
                      {"id", id},
                      {"pid", 0},
                      {"tid", from},
                      {"ts", from_s * 1e6}});
    events.push_back({{"name", name},
                      {"cat", name},
                      {"ph", "f"},
                      {"bp", "e"},
                      {"id", id},
                      {"pid", 0},
                      {"tid", to},
                      {"ts", to_s * 1e6}});
  };
  // A dependency's arrow: from the last span on device track `track` that
  // ended by the end of span `s` (a task waited for ends before its follower
  // does; the follower's span may start earlier, from its issue), just inside
  // that span's end, to the same time inside `s`. A worker's spans end in order.
  std::vector<std::vector<TraceSpan>> tracks;  // filled below, read by depends()
  auto depends = [&](std::size_t track, std::size_t t, const TraceSpan& s) {
    const auto& spans = tracks[track];
    auto it = std::upper_bound(spans.begin(), spans.end(), s.end_s,
                               [](double v, const TraceSpan& p) { return v < p.end_s; });
    if (it == spans.begin()) return arrow("depends", track, s.begin_s, t, s.begin_s);
    const TraceSpan& from = *std::prev(it);
    arrow("depends", track, std::max(from.begin_s, from.end_s - 1e-9), t,
          std::clamp(from.end_s, s.begin_s, s.end_s));
  };
  // Side-queue spans overlap the compute queue's: each device's go on a track
  // after every other (a tid past the host's), and the compute spans keep
  // ending in order.
  tracks.resize(per_track_.size());
  for (std::size_t t = 0; t < tracks_.size(); ++t) {
    auto& spans = per_track_[t];
    auto side = std::stable_partition(spans.begin(), spans.end(),
                                      [](const TraceSpan& s) { return !s.side; });
    if (side == spans.end()) continue;
    tracks.emplace_back(std::make_move_iterator(side), std::make_move_iterator(spans.end()));
    spans.erase(side, spans.end());
    name_track(tracks.size() - 1, tracks_[t] + " side");
  }
  for (std::size_t t = 0; t < per_track_.size(); ++t) tracks[t] = std::move(per_track_[t]);
  for (std::size_t t = 0; t < tracks.size(); ++t) {
    if (t < per_track_.size()) name_track(t, t < tracks_.size() ? tracks_[t] : "host");
    for (const TraceSpan& s : tracks[t]) {
      nlohmann::json args = nlohmann::json::object();
      if (s.items > 0) {
        args["first"] = s.first;
        args["items"] = s.items;
        args["kind"] = s.chunk ? "chunk" : "task";
        args["issue_us"] = s.issue_s * 1e6;
        args["issued_at_us"] = s.issued_at_s * 1e6;  // on the clock of "ts"
        if (s.victim >= 0) args["stolen_from"] = tracks_[std::size_t(s.victim)];
      }
      // Arrows: from the victim's track to the thief's span, and from the
      // tasks it waited for on other devices.
      if (s.victim >= 0) arrow("steal", std::size_t(s.victim), s.begin_s, t, s.begin_s);
      for (std::size_t a = 0; a < 64 && a < tracks_.size(); ++a)
        if (s.after >> a & 1) depends(a, t, s);
      events.push_back({{"name", s.name},
                        {"ph", "X"},
                        {"pid", 0},
                        {"tid", t},
                        {"ts", s.begin_s * 1e6},
                        {"dur", (s.end_s - s.begin_s) * 1e6},
                        {"args", args}});
    }
  }
  for (const TraceCounter& c : counters_)
    events.push_back({{"name", c.name},
                      {"ph", "C"},
                      {"pid", 0},
                      {"ts", c.time_s * 1e6},
                      {"args", {{"value", c.value}}}});
  for (auto& spans : per_track_) spans.clear();
  counters_.clear();
  nlohmann::json j{{"traceEvents", events},
                   {"displayTimeUnit", "ms"},
                   {"otherData", {{"clock", simulated ? "virtual (sim)" : "steady"}}}};
  return j.dump();
}

}  // namespace baton::detail
