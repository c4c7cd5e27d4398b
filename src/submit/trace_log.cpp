#include "submit/trace_log.hpp"

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
  for (std::size_t t = 0; t < per_track_.size(); ++t) {
    name_track(t, t < tracks_.size() ? tracks_[t] : "host");
    for (const TraceSpan& s : per_track_[t]) {
      nlohmann::json args = nlohmann::json::object();
      if (s.items > 0) {
        args["first"] = s.first;
        args["items"] = s.items;
        args["kind"] = s.chunk ? "chunk" : "task";
        if (s.victim >= 0) args["stolen_from"] = tracks_[std::size_t(s.victim)];
      }
      if (s.victim >= 0) {  // an arrow from the victim's track to the thief's span
        const std::uint64_t id = ++flows;
        events.push_back({{"name", "steal"},
                          {"cat", "steal"},
                          {"ph", "s"},
                          {"id", id},
                          {"pid", 0},
                          {"tid", s.victim},
                          {"ts", s.begin_s * 1e6}});
        events.push_back({{"name", "steal"},
                          {"cat", "steal"},
                          {"ph", "f"},
                          {"bp", "e"},
                          {"id", id},
                          {"pid", 0},
                          {"tid", t},
                          {"ts", s.begin_s * 1e6}});
      }
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
