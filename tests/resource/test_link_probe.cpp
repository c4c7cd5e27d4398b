// baton topo --probe's measurements on a sim machine, whose links are known:
// direct copies reach the figure the topology states, peer copies over
// NVLink theirs, and a pair with no peer path, staged through host memory,
// reaches half its path's figure and is flagged.
#include <gtest/gtest.h>

#include "baton/devices.hpp"
#include "resource/link_probe.hpp"

using namespace baton;

TEST(LinkProbe, SimLinksMeasureWhatTheirModelSaysAndStagedPairsAreFlagged) {
  DeviceSet set = open_devices("sim:dgx1");
  const auto probe = detail::probe_links(set, std::size_t(8) << 20, 2);
  const std::size_t n = set.devices.size();
  ASSERT_EQ(probe.size(), 2 * n + n * (n - 1));  // host both ways, then every ordered pair
  int staged = 0;
  for (const auto& m : probe) {
    SCOPED_TRACE(m.from + " -> " + m.to);
    ASSERT_GT(m.nominal_gbps, 0);
    if (m.route == "via host") {
      ++staged;
      EXPECT_EQ(m.kind, "pcie");
      EXPECT_LT(m.measured_gbps, 0.55 * m.nominal_gbps);
      EXPECT_TRUE(m.slow);
    } else {
      // 8 MiB over the link, plus its few microseconds of latency.
      EXPECT_GT(m.measured_gbps, 0.95 * m.nominal_gbps);
      EXPECT_LE(m.measured_gbps, m.nominal_gbps * 1.0001);
      EXPECT_FALSE(m.slow);
    }
  }
  EXPECT_GT(staged, 0);  // the cube-mesh leaves some pairs without NVLink
}

TEST(LinkProbe, DevicesInHostMemoryHaveNoLinkToMeasure) {
  DeviceSet set = open_devices("cpu:2x1,sim:1");
  const auto probe = detail::probe_links(set, std::size_t(1) << 20, 1);
  ASSERT_EQ(probe.size(), 2u);  // host -> sim0 and back
  for (const auto& m : probe) EXPECT_TRUE(m.from == "sim0" || m.to == "sim0");
}

TEST(LinkProbe, EachHostLinkIsMeasuredBothWaysAtOnce) {
  DeviceSet set = open_devices("cpu:2x1,sim:dgx1");
  const auto probe = detail::probe_host_links_both_ways(set, std::size_t(8) << 20, 2);
  ASSERT_EQ(probe.size(), 8u);  // one a GPU; the cpu device works in host memory
  for (std::size_t i = 0; i < probe.size(); ++i) {
    const auto& m = probe[i];
    EXPECT_EQ(m.from, "host");
    EXPECT_EQ(m.to, "sim" + std::to_string(i));
    EXPECT_EQ(m.route, "both ways");
    // The sim's links carry their figure each way at once.
    EXPECT_GT(m.measured_gbps, 0.95 * m.nominal_gbps) << m.to;
    EXPECT_LE(m.measured_gbps, m.nominal_gbps * 1.0001) << m.to;
  }
}

// Sim devices behind one link to host (partitions of a GPU on its PCIe link)
// share it: the both-ways probe measures it once, for the first of them, at
// the shared link's figure, and a device on a link of its own apart. (A sum
// over both partitions would promise the oracle twice the link.)
TEST(LinkProbe, DevicesBehindOneHostLinkAreMeasuredOnce) {
  DeviceSet set = open_devices("sim:" BATON_TEST_DIR "/sim_shared_link.json");
  const auto probe = detail::probe_host_links_both_ways(set, std::size_t(8) << 20, 2);
  ASSERT_EQ(probe.size(), 2u);
  EXPECT_EQ(probe[0].to, "sim0");
  EXPECT_EQ(probe[1].to, "sim2");
  EXPECT_DOUBLE_EQ(probe[0].nominal_gbps, 10);
  EXPECT_DOUBLE_EQ(probe[1].nominal_gbps, 20);
  for (const auto& m : probe) {
    EXPECT_GT(m.measured_gbps, 0.95 * m.nominal_gbps) << m.to;
    EXPECT_LE(m.measured_gbps, m.nominal_gbps * 1.0001) << m.to;
  }
}
