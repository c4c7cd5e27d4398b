// baton doctor's reading of a run's results (doctor/results_checks.hpp): the
// fields bench balance and train write, and what each finding says.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "doctor/results_checks.hpp"

using namespace baton::cli;
using nlohmann::json;

namespace {

const Finding* find(const Findings& f, const std::string& status, const std::string& text) {
  for (const Finding& x : f)
    if (x.status == status && (x.what + " " + x.change).find(text) != std::string::npos) return &x;
  return nullptr;
}

json balance_run(const std::string& policy, double rate, double efficiency) {
  return {
      {"policy", policy},
      {"items_per_s", rate},
      {"efficiency", efficiency},
      {"managed_memory", false},
      {"devices", json::array({{{"name", "cuda0"}, {"out_of_memory", ""}, {"failed", false}}})}};
}

}  // namespace

TEST(DoctorResults, ABalancedRunIsOk) {
  const json r = {{"oracle_items_per_s", 100.0},
                  {"runs", {balance_run("static", 60, 0.6), balance_run("ws", 98, 0.98)}}};
  const Findings f = check_results(r);
  ASSERT_NE(find(f, "ok", "ws reached 98.0 % of the oracle"), nullptr);
  for (const Finding& x : f) EXPECT_NE(x.status, "warn") << x.what;
}

TEST(DoctorResults, OutOfMemoryManagedMemoryAndFailuresAreNamed) {
  json run = balance_run("ws", 50, 0.5);
  run["managed_memory"] = true;
  run["devices"].push_back({{"name", "cuda1"}, {"out_of_memory", "needs 9 GiB, has 8"}});
  run["devices"].push_back({{"name", "cuda2"}, {"failed", true}, {"failure", "ECC error"}});
  const Findings f = check_results({{"oracle_items_per_s", 100.0}, {"runs", {run}}});
  EXPECT_NE(find(f, "warn", "fell back to managed memory"), nullptr);
  EXPECT_NE(find(f, "warn", "cuda1 was left out: needs 9 GiB"), nullptr);
  EXPECT_NE(find(f, "warn", "cuda2 failed: ECC error"), nullptr);
  EXPECT_NE(find(f, "warn", "ws reached 50.0 %"), nullptr);
}

TEST(DoctorResults, WsLosingToAFixedSplitIsAWarning) {
  const json r = {{"oracle_items_per_s", 100.0},
                  {"runs", {balance_run("weighted", 95, 0.95), balance_run("ws", 91, 0.91)}}};
  const Findings f = check_results(r);
  const Finding* w = find(f, "warn", "of the better fixed split");
  ASSERT_NE(w, nullptr);
  EXPECT_NE(w->what.find("95.8 %"), std::string::npos) << w->what;
}

TEST(DoctorResults, DevicesSharingCoresWhereOneAloneWins) {
  const json r = {{"oracle_items_per_s", 10.0},
                  {"sharing",
                   {{{"devices", {"cpu0", "opencl0.0"}},
                     {"resource", "host-cores"},
                     {"together_items_per_s", 8.0},
                     {"best_alone_items_per_s", 10.0},
                     {"alone_wins", true}}}},
                  {"runs", json::array()}};
  const Findings f = check_results(r);
  const Finding* s = find(f, "warn", "cpu0 and opencl0.0 share host-cores");
  ASSERT_NE(s, nullptr);
  EXPECT_NE(s->what.find("80.0 %"), std::string::npos) << s->what;
  EXPECT_NE(s->change.find("leave the others out"), std::string::npos);
}

TEST(DoctorResults, ATrainingStepSpentOutsideTheGradientIsNamed) {
  const json run = {{"devices", "cuda0+cuda1"},
                    {"policy", "ws"},
                    {"device_count", 2},
                    {"samples_per_s", 1000.0},
                    {"failures", {"step 3: cuda1: lost"}},
                    {"efficiency_vs_ideal", 0.95},
                    {"median_step_seconds",
                     {{"step", 0.010}, {"grad", 0.004}, {"update", 0.005}, {"rest", 0.001}}}};
  // As train's --json has it: "steps" is the steps measured per run.
  const Findings f = check_results({{"steps", 8}, {"runs", {run}}});
  EXPECT_NE(find(f, "warn", "forward and backward are 40.0 % of the step"), nullptr);
  EXPECT_NE(find(f, "warn", "the reduction and update 50.0 %"), nullptr);
  EXPECT_NE(find(f, "warn", "step 3: cuda1: lost"), nullptr);
}

TEST(DoctorResults, AStepSpentOnTheHostNamesTheHost) {
  const json run = {{"devices", "cuda0.p0+cuda0.p1"},
                    {"policy", "ws"},
                    {"device_count", 2},
                    {"samples_per_s", 1.26e6},
                    {"median_step_seconds",
                     {{"step", 0.013}, {"grad", 0.002}, {"update", 0.0003}, {"rest", 0.0107}}}};
  const Findings all = check_results({{"runs", {run}}});
  const Finding* f = find(all, "warn", "the host's turn 82.3 %");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->change.find("--dataset N"), std::string::npos) << f->change;
}

TEST(DoctorResults, SomethingElseGivesNothing) {
  EXPECT_TRUE(check_results(json::array({1, 2})).empty());
  EXPECT_TRUE(check_results({{"unrelated", true}}).empty());
}
