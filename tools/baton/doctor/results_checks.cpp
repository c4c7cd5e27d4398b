#include "doctor/results_checks.hpp"

#include "table.hpp"

namespace baton::cli {

namespace {

using nlohmann::json;

void check_devices(const json& run, const std::string& label, Findings& out) {
  if (run.value("managed_memory", false))
    out.push_back({"memory", "warn", label + ": buffers fell back to managed memory",
                   "a device's memory was full: pages then move on demand, far slower than "
                   "copies. Free the device (other jobs), or run a smaller problem."});
  for (const auto& d : run.value("devices", json::array())) {
    if (!d.is_object()) continue;
    const std::string name = d.value("name", "?");
    if (const std::string oom = d.value("out_of_memory", ""); !oom.empty())
      out.push_back({"memory", "warn", label + ": " + name + " was left out: " + oom,
                     "its buffers did not fit: the others ran its share. A smaller problem, or "
                     "a device with more free memory, puts it back to work."});
    if (d.value("failed", false))
      out.push_back({"run", "warn", label + ": " + name + " failed: " + d.value("failure", ""),
                     "its work ran on the others; see the device's health (baton devices)."});
  }
}

void check_balance(const json& r, Findings& out) {
  for (const auto& g : r.value("sharing", json::array())) {
    std::string names;
    for (const auto& n : g.value("devices", json::array()))
      names += (names.empty() ? "" : " and ") + n.get<std::string>();
    const double together = g.value("together_items_per_s", 0.0);
    const double alone = g.value("best_alone_items_per_s", 0.0);
    const bool alone_wins = g.value("alone_wins", false);
    out.push_back({"sharing", alone_wins ? "warn" : "info",
                   names + " share " + g.value("resource", std::string("?")) + ": together " +
                       percent(alone > 0 ? together / alone : 0, 1) + " of the fastest alone",
                   alone_wins ? "together they are slower than the fastest alone, so baton runs "
                                "only that one: leave the others out of -d."
                              : ""});
  }
  double ws = -1, best_fixed = 0, ws_eff = 0;
  for (const auto& run : r["runs"]) {
    const std::string policy = run.value("policy", "?");
    check_devices(run, policy, out);
    const double rate = run.value("items_per_s", 0.0);
    if (policy == "ws") ws = rate, ws_eff = run.value("efficiency", 0.0);
    if (policy == "static" || policy == "weighted") best_fixed = std::max(best_fixed, rate);
  }
  if (ws < 0) return;
  const bool far = ws_eff<0.9, loses = best_fixed> 0 && ws < 0.98 * best_fixed;
  out.push_back(
      {"balance", far || loses ? "warn" : "ok",
       "ws reached " + percent(ws_eff, 1) + " of the oracle" +
           (best_fixed > 0 ? ", " + percent(ws / best_fixed, 1) + " of the better fixed split"
                           : ""),
       far || loses ? "too little work per device to split well, or a transfer-bound kernel: give "
                      "the run more items (-n), and read the trace's timeline (--trace or "
                      "--report) with baton doctor --trace."
                    : ""});
}

void check_training(const json& r, Findings& out) {
  for (const auto& run : r["runs"]) {
    const std::string label =
        run.value("devices", std::string("?")) + ", " + run.value("policy", std::string("?"));
    for (const auto& f : run.value("failures", json::array()))
      out.push_back({"run", "warn", label + ": " + f.get<std::string>(),
                     "the step ran again on the others; see the device's health."});
    if (run.value("device_count", 1) < 2) continue;
    const json parts = run.value("median_step_seconds", json::object());
    const double step = parts.value("step", 0.0), grad = parts.value("grad", 0.0);
    const double update = parts.value("update", 0.0), rest = parts.value("rest", 0.0);
    const double ideal = run.value("efficiency_vs_ideal", 0.0);
    if (step > 0 && grad / step < 0.6 && rest > update)
      out.push_back({"run", "warn",
                     label + ": forward and backward are " + percent(grad / step, 1) +
                         " of the step, the host's turn " + percent(rest / step, 1) +
                         " (making the next batch, waiting between steps)",
                     "the devices wait for the host: --dataset N makes N batches once (as a "
                     "loader's cache would), and a larger model per sample gives them more to "
                     "do while the host works."});
    else if (step > 0 && grad / step < 0.6)
      out.push_back({"run", "warn",
                     label + ": forward and backward are " + percent(grad / step, 1) +
                         " of the step, the reduction and update " + percent(update / step, 1),
                     "a larger batch per device (-b) spreads the reduction over more work; "
                     "--no-overlap shows what the reduction costs alone."});
    else if (ideal > 0 && ideal < 0.9)
      out.push_back({"balance", "warn", label + ": " + percent(ideal, 1) + " of a perfect split",
                     "more micro-batches per device (a smaller -m) let the split follow the "
                     "rates; run ws."});
  }
}

}  // namespace

Findings check_results(const json& r) {
  Findings out;
  if (!r.is_object()) return out;
  const bool runs = r.contains("runs") && r["runs"].is_array();
  if (runs && r.contains("oracle_items_per_s")) check_balance(r, out);
  if (runs && !r["runs"].empty() && r["runs"][0].contains("samples_per_s")) check_training(r, out);
  // A training job's steps (the comparison's "steps" is their count).
  const json steps = r.contains("steps") && r["steps"].is_array() ? r["steps"] : json::array();
  for (const auto& s : steps)
    for (const auto& f : s.value("failures", json::array()))
      out.push_back({"run", "warn",
                     "step " + std::to_string(s.value("step", 0)) + ": " + f.get<std::string>(),
                     "the step ran on the others; see the device's health."});
  return out;
}

}  // namespace baton::cli
