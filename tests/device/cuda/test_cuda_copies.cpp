// Host <-> device copies from pageable (staged), pinned and registered memory,
// device-to-device and peer copies, on sizes around the staging chunk.
#include "cuda_test.hpp"
#include "device/cuda/staging_pool.hpp"

using namespace baton;
using namespace baton::test;

namespace {

// A device of another backend, for the no-direct-path case.
class OtherDevice final : public Device {
 public:
  OtherDevice() : Device(DeviceInfo{}) {}
  DeviceMemory allocate(std::size_t) override { return {}; }
  void release(DeviceMemory) override {}
  Queue& queue(QueueRole) override { throw std::logic_error("unused"); }
};

std::vector<std::size_t> sizes() {
  const std::size_t chunk = cuda::StagingPool::kChunk;
  return {1, 4096 + 3, (1u << 20) + 1, chunk, 3 * chunk + 123, 7 * chunk + 5};
}

}  // namespace

TEST(CudaCopies, PageableRoundTripsThroughStaging) {
  BATON_REQUIRE_CUDA();
  CudaSet set("0");
  auto& dev = set[0];
  Queue &in_q = dev.queue(QueueRole::copy_in), &out_q = dev.queue(QueueRole::copy_out);
  unsigned seed = 1;
  for (std::size_t n : sizes()) {
    auto src = random_bytes(n, seed++);
    std::vector<unsigned char> back(n, 0xAB);
    DeviceMemory m = dev.allocate(n + 64);
    in_q.write(m, 64, src.data(), n, HostKind::pageable);  // at an offset
    EventPtr e = in_q.record();
    out_q.wait(e);
    out_q.read(back.data(), m, 64, n, HostKind::pageable);
    out_q.finish();
    EXPECT_EQ(src, back) << n << " bytes";
    dev.release(m);
  }
}

TEST(CudaCopies, PinnedAndRegisteredMemoryCopyDirectly) {
  BATON_REQUIRE_CUDA();
  CudaSet set("0");
  auto& dev = set[0];
  Queue& q = dev.queue(QueueRole::copy_in);
  const std::size_t n = 3 * cuda::StagingPool::kChunk + 999;
  cuda::ContextGuard guard(dev.gpu().primary());
  void* pinned = nullptr;
  cuda::check(cuda::driver().cuMemHostAlloc(&pinned, n, CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc",
              "test");
  std::vector<unsigned char> registered(n);
  cuda::check(cuda::driver().cuMemHostRegister(registered.data(), n, CU_MEMHOSTREGISTER_PORTABLE),
              "cuMemHostRegister", "test");
  auto src = random_bytes(n, 7);
  std::memcpy(pinned, src.data(), n);
  DeviceMemory m = dev.allocate(n);
  q.write(m, 0, pinned, n, HostKind::pinned);
  q.read(registered.data(), m, 0, n, HostKind::pinned);
  q.finish();
  EXPECT_EQ(std::memcmp(registered.data(), src.data(), n), 0);
  cuda::driver().cuMemHostUnregister(registered.data());
  cuda::driver().cuMemFreeHost(pinned);
  dev.release(m);
}

TEST(CudaCopies, DeviceToDeviceAndPeerCopies) {
  BATON_REQUIRE_CUDA();
  const bool green = cuda::driver().has_green_contexts;
  CudaSet set(green ? "0/16+16" : "0");
  auto& a = set[0];
  auto& b = green ? set[1] : set[0];
  const std::size_t n = 2 * cuda::StagingPool::kChunk + 17;
  auto src = random_bytes(n, 9);
  DeviceMemory x = a.allocate(n), y = a.allocate(n), z = b.allocate(n);
  Queue& qa = a.queue(QueueRole::compute);
  qa.write(x, 0, src.data(), n, HostKind::pageable);
  qa.copy(y, 0, x, 0, n);
  EventPtr e = qa.record();
  Queue& qb = b.queue(QueueRole::copy_in);
  qb.wait(e);
  ASSERT_TRUE(b.copy_from_peer(qb, z, 0, a, y, 0, n)) << "partitions share memory";
  std::vector<unsigned char> back(n);
  qb.read(back.data(), z, 0, n, HostKind::pageable);
  qb.finish();
  EXPECT_EQ(src, back);
  OtherDevice other;
  EXPECT_FALSE(b.copy_from_peer(qb, z, 0, other, DeviceMemory{}, 0, n));
  a.release(x);
  a.release(y);
  b.release(z);
}
