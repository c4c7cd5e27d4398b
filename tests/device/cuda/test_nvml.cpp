// NVML telemetry: one reading and the background sampler, checked against
// what the driver says of the same GPU.
#include <thread>

#include "baton/devices.hpp"
#include "cuda_test.hpp"
#include "resource/nvml.hpp"
#include "resource/telemetry.hpp"

using namespace baton;
using namespace baton::test;

TEST(Nvml, SamplesAreSane) {
  BATON_REQUIRE_CUDA();
  const Nvml& nvml = Nvml::get();
  if (!nvml.available()) GTEST_SKIP() << "no NVML: " << nvml.error();
  CudaSet set("0");
  const int index = nvml.index_of_pci_bus_id(set[0].gpu().props().pci_bus_id);
  ASSERT_GE(index, 0) << set[0].gpu().props().pci_bus_id;
  auto s = nvml.sample(unsigned(index));
  ASSERT_TRUE(s);
  EXPECT_GT(s->memory_total, 0u);
  // NVML counts all of the GPU's memory, the driver what it lets programs have.
  EXPECT_NEAR(double(s->memory_total), double(set[0].info().memory_bytes),
              0.05 * double(s->memory_total));
  EXPECT_LE(s->memory_used, s->memory_total);
  EXPECT_LE(s->util_gpu_pct, 100u);
  EXPECT_GT(s->sm_clock_mhz, 0u);
  EXPECT_GT(s->power_w, 1.0);
  EXPECT_LT(s->power_w, 2000.0);
  EXPECT_GT(s->temperature_c, 5u);
  EXPECT_LT(s->temperature_c, 110u);
  std::cout << "  gpu " << index << ": util " << s->util_gpu_pct << "%, "
            << s->memory_used / (1 << 20) << " MiB used, " << s->power_w << " W, "
            << s->sm_clock_mhz << " MHz, " << s->temperature_c << " C, "
            << nvml.active_nvlinks(unsigned(index)) << " NVLinks\n";
  // A data-centre GPU sits on PCIe Gen 3 or later with 8 lanes or more; the
  // topology's host link then runs at that link's rate.
  auto pcie = nvml.pcie_link(unsigned(index));
  ASSERT_TRUE(pcie);
  EXPECT_GE(pcie->generation, 3u);
  EXPECT_GE(pcie->width, 8u);
  std::cout << "  PCIe Gen " << pcie->generation << " x" << pcie->width << ": " << pcie_gbps(*pcie)
            << " GB/s per direction\n";
  auto opened = open_devices("cuda:0");
  auto host = opened.topology.link(opened.devices[0]->info().topology_id, "host");
  ASSERT_TRUE(host);
  EXPECT_DOUBLE_EQ(host->gbps, pcie_gbps(*pcie));

  // The telemetry sampler reads the same GPU for each of its devices.
  Telemetry telemetry({opened.devices[0].get()}, std::chrono::milliseconds(20), 4);
  EXPECT_EQ(telemetry.source(0), "nvml");
  telemetry.start();
  while (telemetry.rounds() < 6) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  telemetry.stop();
  const auto history = telemetry.history(0);
  ASSERT_EQ(history.size(), 4u) << "the ring keeps its capacity";
  for (std::size_t k = 1; k < history.size(); ++k)
    EXPECT_GT(history[k].time_s, history[k - 1].time_s);
  EXPECT_GT(history.back().time_s, s->time_s);
  EXPECT_EQ(history.back().memory_total, s->memory_total);
  EXPECT_GT(history.back().power_w, 1.0);
  std::cout << "  telemetry: " << telemetry.seconds_per_round() * 1e6 << " us per round\n";
}
