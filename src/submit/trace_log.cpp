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
  for (std::size_t t = 0; t < per_track_.size(); ++t) {
    name_track(t, t < tracks_.size() ? tracks_[t] : "host");
    for (const TraceSpan& s : per_track_[t]) {
      nlohmann::json args = nlohmann::json::object();
      if (s.items > 0) {
        args["first"] = s.first;
        args["items"] = s.items;
        args["kind"] = s.chunk ? "chunk" : "task";
        if (s.stolen) args["stolen"] = true;
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
