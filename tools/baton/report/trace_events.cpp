#include "report/trace_events.hpp"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "baton/error.hpp"
#include "common/text_file.hpp"

namespace baton::cli {

double Track::busy_s() const {
  double busy = 0, reached = -1e300;
  for (const Span& s : spans) {  // spans in begin order; overlaps counted once
    const double from = std::max(s.begin_s, reached);
    if (s.end_s > from) busy += s.end_s - from;
    reached = std::max(reached, s.end_s);
  }
  return busy;
}

const Track* TraceEvents::host() const {
  for (const Track& t : tracks)
    if (t.name == "host") return &t;
  return nullptr;
}

TraceEvents read_trace_events(const std::string& path) {
  const auto bad = [&](const std::string& why) {
    return Error(Errc::invalid_argument, path, "not a baton trace: " + why);
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(detail::read_text_file(path, Errc::invalid_argument, "trace"));
  } catch (const nlohmann::json::exception& e) {
    throw bad(e.what());
  }
  if (!j.is_object() || !j.contains("traceEvents") || !j["traceEvents"].is_array())
    throw bad("no traceEvents array");
  TraceEvents t;
  t.simulated =
      j.value("otherData", nlohmann::json::object()).value("clock", "") == "virtual (sim)";
  std::map<int, std::size_t> by_tid;
  auto track = [&](int tid) -> Track& {
    auto [it, added] = by_tid.emplace(tid, t.tracks.size());
    if (added) t.tracks.push_back({"track " + std::to_string(tid), {}});
    return t.tracks[it->second];
  };
  bool any = false;
  try {
    for (const auto& e : j["traceEvents"]) {
      const std::string ph = e.value("ph", "");
      if (ph == "M" && e.value("name", "") == "thread_name") {
        track(e.at("tid").get<int>()).name = e.at("args").at("name").get<std::string>();
      } else if (ph == "X") {
        Span s;
        s.name = e.value("name", "");
        s.begin_s = e.at("ts").get<double>() * 1e-6;
        s.end_s = s.begin_s + e.at("dur").get<double>() * 1e-6;
        const auto args = e.value("args", nlohmann::json::object());
        s.items = args.value("items", std::uint64_t(0));
        s.first = args.value("first", std::uint64_t(0));
        s.stolen = args.contains("stolen_from");
        t.begin_s = any ? std::min(t.begin_s, s.begin_s) : s.begin_s;
        t.end_s = any ? std::max(t.end_s, s.end_s) : s.end_s;
        any = true;
        track(e.at("tid").get<int>()).spans.push_back(std::move(s));
      } else if (ph == "C") {
        t.counters[e.value("name", "")].push_back(
            {e.at("ts").get<double>() * 1e-6, e.at("args").at("value").get<double>()});
      } else if (ph == "s") {
        ++t.steals;
      }
    }
  } catch (const nlohmann::json::exception& e) {
    throw bad(std::string("an event: ") + e.what());
  }
  for (Track& tr : t.tracks)
    std::sort(tr.spans.begin(), tr.spans.end(),
              [](const Span& a, const Span& b) { return a.begin_s < b.begin_s; });
  for (auto& [name, series] : t.counters) std::sort(series.begin(), series.end());
  return t;
}

std::vector<std::vector<double>> busy_shares(const TraceEvents& t, int bins) {
  std::vector<std::vector<double>> out;
  const double span = std::max(t.end_s - t.begin_s, 1e-12), width = span / bins;
  for (const Track& tr : t.tracks) {
    std::vector<double> busy(std::size_t(bins), 0.0);
    double reached = t.begin_s;
    for (const Span& s : tr.spans) {
      double from = std::max(s.begin_s, reached);
      reached = std::max(reached, s.end_s);
      while (from < s.end_s) {
        const int b = std::min(bins - 1, int((from - t.begin_s) / width));
        const double bin_end = t.begin_s + (b + 1) * width;
        const double to = std::min(s.end_s, bin_end);
        busy[std::size_t(b)] += to - from;
        if (to <= from) break;
        from = to;
      }
    }
    for (double& b : busy) b = std::min(1.0, b / width);
    out.push_back(std::move(busy));
  }
  return out;
}

}  // namespace baton::cli
