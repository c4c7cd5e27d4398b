// Green-context SM partitions: creation, shared memory node and host link, bad sizes, and
// all partitions computing at once, each from its own worker thread.
#include <thread>

#include "baton/devices.hpp"
#include "cuda_test.hpp"
#include "resource/link_probe.hpp"

using namespace baton;
using namespace baton::test;

TEST(CudaPartitions, SplitsAGpuIntoDevicesOfTheAskedSizes) {
  BATON_REQUIRE_CUDA();
  if (!cuda::driver().has_green_contexts) GTEST_SKIP() << "driver without green contexts";
  CudaSet set("0/64+32+16+8");
  ASSERT_EQ(set.devices.size(), 4u);
  const int sizes[] = {64, 32, 16, 8};
  for (int i = 0; i < 4; ++i) {
    const DeviceInfo& info = set[i].info();
    EXPECT_EQ(info.name, "cuda0.p" + std::to_string(i));
    EXPECT_EQ(info.compute_units, sizes[i]);
    EXPECT_EQ(info.memory_node, set[0].info().memory_node) << "one GPU, one memory node";
    EXPECT_EQ(info.topology_id, "gpu0");
    EXPECT_NEAR(info.peak_gflops / set[0].info().peak_gflops, double(sizes[i]) / 64, 1e-9);
    // A wave: every SM's threads; a step of one: a block of 256 on each.
    EXPECT_EQ(info.parallel_items % std::uint64_t(sizes[i]), 0u);
    EXPECT_EQ(info.wave_step, std::uint64_t(sizes[i]) * 256);
    EXPECT_TRUE(set[i].context().is_green());
    std::cout << "  " << info.name << ": " << info.description << "\n";
  }
}

// Partitions of one GPU share its host link: the probe of the links both
// ways at once measures it once, and below what the link carries one way.
TEST(CudaPartitions, ShareOneHostLinkMeasuredOnce) {
  BATON_REQUIRE_CUDA();
  if (!cuda::driver().has_green_contexts) GTEST_SKIP() << "driver without green contexts";
  DeviceSet set = open_devices("cuda:0/64+32");
  const auto probe = detail::probe_host_links_both_ways(set, std::size_t(64) << 20, 3);
  ASSERT_EQ(probe.size(), 1u);
  EXPECT_EQ(probe[0].to, "cuda0.p0");
  EXPECT_GT(probe[0].measured_gbps, 1.0);
  EXPECT_LE(probe[0].measured_gbps, probe[0].nominal_gbps);
  std::cout << "  host <-> gpu0 both ways: " << probe[0].measured_gbps << " GB/s each way of "
            << probe[0].nominal_gbps << "\n";
}

TEST(CudaPartitions, BadSizesSayWhatWouldFit) {
  BATON_REQUIRE_CUDA();
  if (!cuda::driver().has_green_contexts) GTEST_SKIP() << "driver without green contexts";
  BackendFixture f;
  detail::BackendContext& ctx = f.ctx;
  for (const char* bad : {"0/60", "0/64+64+64"}) {
    try {
      detail::cuda_backend().create(bad, ctx);
      ADD_FAILURE() << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::bad_device_spec) << e.what();
      std::cout << "  " << e.what() << "\n";
    }
  }
}

TEST(CudaPartitions, AllPartitionsComputeConcurrently) {
  BATON_REQUIRE_CUDA();
  if (!cuda::driver().has_green_contexts) GTEST_SKIP() << "driver without green contexts";
  if (detail::builtin_cuda_fatbin().empty()) GTEST_SKIP() << "built without nvcc";
  CudaSet set("0/64+32+16+8");
  const std::size_t n = 1 << 18;
  const float a = 1.0001f, b = -0.0002f;
  const int iters = 500;
  auto in = random_floats(n, 11);
  Kernel fma = builtin("baton_fma");
  std::vector<std::vector<float>> outs(4, std::vector<float>(n, -1));
  std::vector<std::thread> workers;
  for (int i = 0; i < 4; ++i) {
    workers.emplace_back([&, i] {
      cuda::CudaDevice& dev = set[i];
      dev.bind_thread();
      Queue& q = dev.queue(QueueRole::compute);
      DeviceMemory din = dev.allocate(n * 4), dout = dev.allocate(n * 4);
      q.write(din, 0, in.data(), n * 4, HostKind::pageable);
      std::vector<LaunchArg> args{buffer_arg(din, 4), buffer_arg(dout, 4), scalar_arg(a),
                                  scalar_arg(b), scalar_arg(iters)};
      for (int rep = 0; rep < 5; ++rep) q.launch(fma, Span{0, n}, KernelArgs(args));
      q.read(outs[i].data(), dout, 0, n * 4, HostKind::pageable);
      q.finish();
      dev.release(din);
      dev.release(dout);
    });
  }
  for (auto& t : workers) t.join();
  for (int i = 0; i < 4; ++i) {
    std::size_t wrong = 0;
    for (std::size_t j = 0; j < n; ++j) wrong += outs[i][j] != fma_ref(in[j], a, b, iters);
    EXPECT_EQ(wrong, 0u) << "partition " << i;
  }
}
