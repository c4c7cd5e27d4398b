// History performance models (common/perf_model.hpp): medians per kernel,
// device and size class, the first run and outliers dropped, kept in a file.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "baton/error.hpp"
#include "common/perf_model.hpp"

using baton::detail::PerfModel;

TEST(PerfModel, UncalibratedUntilThreeRunsAfterTheFirst) {
  PerfModel m;
  EXPECT_TRUE(std::isnan(m.predict("gemm", "cuda0", 1000)));
  m.record("gemm", "cuda0", 1000, 5.0);  // the first: module load, compilation
  for (int i = 0; i < 2; ++i) m.record("gemm", "cuda0", 1000, 1e-3);
  EXPECT_TRUE(std::isnan(m.predict("gemm", "cuda0", 1000)));
  m.record("gemm", "cuda0", 1000, 1e-3);
  EXPECT_NEAR(m.predict("gemm", "cuda0", 1000), 1e-3, 1e-12);
  EXPECT_EQ(m.counts().first_dropped, 1u);
  // Another size class, device or kernel knows nothing yet.
  EXPECT_TRUE(std::isnan(m.predict("gemm", "cuda0", 100000)));
  EXPECT_TRUE(std::isnan(m.predict("gemm", "cuda1", 1000)));
  EXPECT_TRUE(std::isnan(m.predict("saxpy", "cuda0", 1000)));
}

// For a simulator: a size not measured takes its time from those that were.
TEST(PerfModel, SizesNotMeasuredFollowTheNearestMeasured) {
  PerfModel m;
  // Class 10 (1536 at its middle): 1 ms a run; class 20 (1.5 Mi): 1 s.
  for (int i = 0; i < 4; ++i) m.record("gemm", "cuda0", 1536, 1e-3);
  for (int i = 0; i < 4; ++i) m.record("gemm", "cuda0", 1536 << 10, 1.0);
  // Between them, on the line through the two: class 15, 48 Ki items.
  const double lo = 1536, hi = 1536 << 10, at = 1536 << 5;
  EXPECT_NEAR(m.predict_nearest("gemm", "cuda0", 1536 << 5),
              1e-3 + (1.0 - 1e-3) * (at - lo) / (hi - lo), 1e-9);
  // Below them, the nearest's time per item; above them, the same line.
  EXPECT_NEAR(m.predict_nearest("gemm", "cuda0", 96), 1e-3 / 1536 * 96, 1e-12);
  const double above = 1536 << 12;
  EXPECT_NEAR(m.predict_nearest("gemm", "cuda0", 1536 << 12),
              1e-3 + (1.0 - 1e-3) * (above - lo) / (hi - lo), 1e-9);
  EXPECT_TRUE(std::isnan(m.predict("gemm", "cuda0", 1536 << 5))) << "predict stays exact";
  EXPECT_TRUE(std::isnan(m.predict_nearest("gemm", "cuda1", 4000)));
  EXPECT_TRUE(std::isnan(m.predict_nearest("saxpy", "cuda0", 4000)));
}

// A fixed cost per run (a launch) measured at two sizes stays fixed between them.
TEST(PerfModel, AFixedCostStaysFixedBetweenSizes) {
  PerfModel m;
  const auto cost = [](double items) { return 20e-6 + 1e-9 * items; };
  for (std::uint64_t n : {std::uint64_t(3) << 9, std::uint64_t(3) << 19})
    for (int i = 0; i < 4; ++i) m.record("fma", "p3", n, cost(double(n)));
  for (std::uint64_t n : {std::uint64_t(1) << 12, std::uint64_t(1) << 16})
    EXPECT_NEAR(m.predict_nearest("fma", "p3", n), cost(double(n)), 1e-3 * cost(double(n))) << n;
}

// ... and above the largest size measured, larger runs share it too: a
// chunk of ws, larger than any the models recorded, predicted as the largest's
// time per item took 7 % too long on H100 partitions.
TEST(PerfModel, AFixedCostStaysFixedAboveTheLargestSize) {
  PerfModel m;
  const auto cost = [](double items) { return 20e-6 + 1e-9 * items; };
  for (std::uint64_t n : {std::uint64_t(3) << 9, std::uint64_t(3) << 15})
    for (int i = 0; i < 4; ++i) m.record("fma", "p3", n, cost(double(n)));
  for (std::uint64_t n : {std::uint64_t(1) << 18, std::uint64_t(1) << 22})
    EXPECT_NEAR(m.predict_nearest("fma", "p3", n), cost(double(n)), 1e-3 * cost(double(n))) << n;
  // Times per item that grow with size show no fixed cost: the largest's scales.
  PerfModel growing;
  for (int i = 0; i < 4; ++i) growing.record("fma", "p3", 3 << 9, 1e-6);
  for (int i = 0; i < 4; ++i) growing.record("fma", "p3", 3 << 15, 1e-4);
  EXPECT_NEAR(growing.predict_nearest("fma", "p3", 3 << 17), 4e-4, 1e-12);
}

TEST(PerfModel, ScalesWithinASizeClassAndRejectsOutliers) {
  PerfModel m;
  m.record("k", "d", 1024, 1);
  for (double s : {1e-3, 1.1e-3, 0.9e-3, 1e-3}) m.record("k", "d", 1024, s);
  // 1500 items share 1024's class: the median time per item times 1500.
  EXPECT_NEAR(m.predict("k", "d", 1500), 1e-3 / 1024 * 1500, 1e-9);
  // A 100x outlier (the 70 ms among 190 us that misled a StarPU user) is dropped.
  m.record("k", "d", 1024, 0.1);
  m.record("k", "d", 1024, 1e-5);
  EXPECT_EQ(m.counts().outliers, 2u);
  EXPECT_NEAR(m.predict("k", "d", 1024), 1e-3, 1e-12);
}

TEST(PerfModel, SavesAndLoadsAndNamesABadFile) {
  const std::string path = "test_perf_model.json";
  {
    PerfModel m;
    for (int i = 0; i < 5; ++i) m.record("k", "cpu0 | 2 threads", 64, 2e-6 * 64);
    EXPECT_TRUE(m.dirty());
    ASSERT_TRUE(m.save(path));
  }
  PerfModel back;
  back.load(path);
  EXPECT_NEAR(back.predict("k", "cpu0 | 2 threads", 64), 2e-6 * 64, 1e-15);
  EXPECT_FALSE(back.dirty());
  std::ofstream(path) << "{\"version\": 1, \"models\": [{\"kernel\": \"k\"}]}";
  try {
    PerfModel bad;
    bad.load(path);
    ADD_FAILURE() << "a malformed model file was accepted";
  } catch (const baton::Error& e) {
    EXPECT_EQ(e.code(), baton::Errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("BATON_PERF_MODEL_FILE"), std::string::npos);
  }
  std::remove(path.c_str());
  PerfModel none;
  none.load("/nonexistent/baton/models.json");  // no file yet: an empty model
  EXPECT_TRUE(std::isnan(none.predict("k", "d", 1)));
}
