// The backend's face: its unavailable reason, specs, DeviceInfo, topology.
#include <algorithm>

#include "baton/devices.hpp"
#include "cuda_test.hpp"

using namespace baton;
using namespace baton::test;

TEST(CudaBackend, RejectsMalformedSpecs) {
  BATON_REQUIRE_CUDA();
  BackendFixture f;
  detail::BackendContext& ctx = f.ctx;
  for (const char* bad : {"x", "0,1", "-1", "0/", "0/8+", "1a"}) {
    try {
      detail::cuda_backend().create(bad, ctx);
      ADD_FAILURE() << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::bad_device_spec) << bad << ": " << e.what();
    }
  }
  try {
    detail::cuda_backend().create("999", ctx);
    ADD_FAILURE() << "GPU 999 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), Errc::bad_device_spec);
    EXPECT_NE(std::string(e.what()).find("this machine has"), std::string::npos) << e.what();
  }
}

TEST(CudaBackend, DescribesAWholeGpu) {
  BATON_REQUIRE_CUDA();
  CudaSet set("0");
  ASSERT_EQ(set.devices.size(), 1u);
  const DeviceInfo& info = set[0].info();
  EXPECT_EQ(info.name, "cuda0");
  EXPECT_EQ(info.backend, BackendKind::cuda);
  EXPECT_EQ(info.topology_id, "gpu0");
  EXPECT_NE(info.memory_node, kHostNode);
  EXPECT_GT(info.compute_units, 0);
  EXPECT_GT(info.memory_bytes, 1ull << 30);
  EXPECT_EQ(info.pci_bus_id.size(), 12u) << info.pci_bus_id;  // "0000:19:00.0"
  EXPECT_EQ(info.pipeline_depth, 3);
  const auto& p = set[0].gpu().props();
  EXPECT_DOUBLE_EQ(info.peak_gflops, double(p.sm_count) *
                                         cuda::fp32_lanes_per_sm(p.cc_major, p.cc_minor) * 2 *
                                         p.clock_khz * 1e-6);
  std::cout << "  " << info.name << ": " << info.description << ", peak " << info.peak_gflops
            << " GFLOP/s\n";
  const Topology topo = set.topology();
  ASSERT_TRUE(topo.has_node("gpu0"));
  auto link = topo.link("gpu0", "host");
  ASSERT_TRUE(link);
  EXPECT_EQ(link->kind, LinkKind::pcie);
  EXPECT_GT(link->gbps, 10);
}

TEST(CudaBackend, ACpuDeviceLeavesAThreadToEachGpusWorker) {
  BATON_REQUIRE_CUDA();
  const int all = open_devices("cpu").devices[0]->info().compute_units;
  auto set = open_devices("cuda,cpu");
  const int gpus = int(set.devices.size()) - 1;
  ASSERT_GE(gpus, 1);
  const DeviceInfo& cpu = set.devices.back()->info();
  EXPECT_EQ(cpu.backend, BackendKind::cpu);  // in the spec's place, though opened last
  EXPECT_EQ(cpu.compute_units, std::max(1, all - gpus));
  std::cout << "  " << cpu.name << ": " << cpu.description << " beside " << gpus << " GPU(s)\n";
}

TEST(CudaBackend, EveryGpuGetsItsOwnMemoryNode) {
  BATON_REQUIRE_CUDA();
  CudaSet set("");
  ASSERT_GE(set.devices.size(), 1u);
  for (std::size_t i = 0; i < set.devices.size(); ++i) {
    EXPECT_EQ(set[i].name(), "cuda" + std::to_string(i));
    for (std::size_t j = 0; j < i; ++j)
      EXPECT_NE(set[i].info().memory_node, set[j].info().memory_node);
  }
}
