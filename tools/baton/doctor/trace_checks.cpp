#include "doctor/trace_checks.hpp"

#include <algorithm>
#include <map>
#include <regex>

#include "table.hpp"

namespace baton::cli {

namespace {

struct Window {
  double begin, end;
};

// What one device did inside a run's windows.
struct Use {
  double busy = 0;           // seconds, overlaps once
  double longest = 0;        // its longest chunk, clipped (see use_in)
  double last_end = 0;       // its last span's end
  double interior_idle = 0;  // idle between its first and last span
  int spans = 0, stolen = 0;
};

// A chunk is one span, or spans in a row on the track over the same item:
// a micro-batch run a layer at a time is as coarse a unit as one run whole.
Use use_in(const Track& tr, const std::vector<Window>& windows) {
  Use u;
  for (const Window& w : windows) {
    double reached = w.begin, first = -1, last = -1, chunk_begin = 0;
    const Span* before = nullptr;
    for (const Span& s : tr.spans) {
      const double b = std::max(s.begin_s, w.begin), e = std::min(s.end_s, w.end);
      if (e <= b) continue;
      ++u.spans;
      u.stolen += s.stolen;
      if (!before || before->first != s.first || before->items != s.items) chunk_begin = b;
      before = &s;
      u.longest = std::max(u.longest, e - chunk_begin);
      if (first < 0) first = b;
      const double from = std::max(b, reached);
      if (e > from) u.busy += e - from;
      reached = std::max(reached, e);
      last = std::max(last, e);
    }
    if (first >= 0) {
      u.interior_idle += last - first;  // its extent, less its busy time below
      u.last_end = std::max(u.last_end, last);
    }
  }
  u.interior_idle = std::max(0.0, u.interior_idle - u.busy);
  return u;
}

// The host's spans grouped into runs: a training run's steps ("... step 3")
// are one run; each other span is a run of its own name.
std::map<std::string, std::vector<Window>> runs_of(const TraceEvents& t) {
  std::map<std::string, std::vector<Window>> runs;
  static const std::regex step(" step [0-9]+$");
  if (const Track* host = t.host(); host && !host->spans.empty()) {
    for (const Span& s : host->spans)
      runs[std::regex_replace(s.name, step, "")].push_back({s.begin_s, s.end_s});
  } else {
    runs["the trace"].push_back({t.begin_s, t.end_s});
  }
  return runs;
}

}  // namespace

Findings check_trace(const TraceEvents& t) {
  Findings out;
  for (const auto& [name, windows] : runs_of(t)) {
    double length = 0;
    for (const Window& w : windows) length += w.end - w.begin;
    if (!(length > 0)) continue;
    std::vector<std::pair<std::string, Use>> used;
    for (const Track& tr : t.tracks)
      if (tr.name != "host")
        if (Use u = use_in(tr, windows); u.spans > 0) used.push_back({tr.name, u});
    if (used.size() < 2) continue;
    auto share = [&](const Use& u) { return u.busy / length; };
    const auto [lo, hi] = std::minmax_element(used.begin(), used.end(), [&](auto& a, auto& b) {
      return share(a.second) < share(b.second);
    });
    std::string shares;
    int steals = 0;
    double longest = 0;
    for (const auto& [dev, u] : used) {
      shares += (shares.empty() ? "" : ", ") + dev + " " + percent(share(u), 0);
      steals += u.stolen;
      longest = std::max(longest, u.longest);
    }
    const std::string what = name + ": busy " + shares + " of the run";
    if (share(hi->second) - share(lo->second) <= kUnevenSpread) {
      if (share(hi->second) >= kMostlyIdle)
        out.push_back({"balance", "ok", what, ""});
      else
        out.push_back({"balance", "warn", "idle: " + what,
                       "every device waits most of the run: for the host (making batches, "
                       "launching, the turn between steps) or for transfers. The timeline "
                       "(--report) shows the gaps; in training, --dataset N takes batch making "
                       "off the step."});
      continue;
    }
    // The likely cause, the most telling first. Per step of a training run,
    // the longest span is set against one step's length.
    const double run_length = length / double(windows.size());
    const Use& idle = lo->second;
    Finding f{"balance", "warn", "uneven: " + what, ""};
    if (longest > 0.25 * run_length) {
      f.change = "chunks too coarse: one chunk took " + percent(longest / run_length, 0) +
                 " of the run, so the others wait for it. Give the run more items (or more "
                 "micro-batches: a smaller --micro-batch), or a smaller --chunk.";
    } else if (steals == 0) {
      f.change =
          "nothing was stolen: the split was fixed (static, or weighted/model with rates "
          "that no longer hold) or the steal threshold is too high. Run ws (or ws-topo), "
          "which moves work to the idle device.";
    } else if (idle.interior_idle > 0.3 * length) {
      f.change = lo->first + " waits between its chunks (" +
                 percent(idle.interior_idle / length, 0) +
                 " of the run idle between them): for data over a slow link or through pageable "
                 "host memory. Check the link with baton topo --probe, and move less per item.";
    } else {
      f.change = "the devices ran at rates other than the split assumed (another job on " +
                 lo->first + " or " + hi->first +
                 ", or rates not yet learned): run ws, and warm up before measuring.";
    }
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace baton::cli
