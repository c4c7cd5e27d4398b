// A GPU's link to host at its PCIe generation and width (NVML's figures):
// the per-direction rate, against the PCI-SIG rates and encodings.
#include <gtest/gtest.h>

#include "resource/nvml.hpp"

using baton::pcie_gbps;
using baton::PcieLink;

TEST(PcieRate, EachGenerationAtItsRateAndEncoding) {
  EXPECT_NEAR(pcie_gbps({5, 16}), 63.02, 0.01);  // 32 GT/s, 128b/130b: an H100/H200's
  EXPECT_NEAR(pcie_gbps({4, 16}), 31.51, 0.01);  // 16 GT/s
  EXPECT_NEAR(pcie_gbps({3, 16}), 15.75, 0.01);  // 8 GT/s
  EXPECT_NEAR(pcie_gbps({2, 16}), 8.0, 1e-9);    // 5 GT/s, 8b/10b
  EXPECT_NEAR(pcie_gbps({1, 1}), 0.25, 1e-9);    // 2.5 GT/s
  EXPECT_NEAR(pcie_gbps({6, 16}), 121.0, 0.01);  // 64 GT/s, FLIT 242/256
  EXPECT_NEAR(pcie_gbps({4, 8}), pcie_gbps({4, 16}) / 2, 1e-9);  // lanes add up
  EXPECT_EQ(pcie_gbps({0, 16}), 0);
  EXPECT_EQ(pcie_gbps({7, 16}), 0);
}
