// Peer copies between distinct GPUs (cuMemcpyPeerAsync after enabling peer
// access). Skipped, as a whole, on machines with one GPU.
#include "cuda_test.hpp"

using namespace baton;
using namespace baton::test;

TEST(CudaCopies, PeerCopiesBetweenGpus) {
  BATON_REQUIRE_CUDA();
  CudaSet set("");
  if (set.devices.size() < 2) GTEST_SKIP() << "one GPU only: no peer to copy from";
  auto &a = set[0], &b = set[1];
  const std::size_t n = (8u << 20) + 3;
  auto src = random_bytes(n, 10);
  DeviceMemory x = a.allocate(n), y = b.allocate(n);
  Queue& qa = a.queue(QueueRole::copy_in);
  qa.write(x, 0, src.data(), n, HostKind::pageable);
  EventPtr e = qa.record();
  Queue& qb = b.queue(QueueRole::copy_in);
  qb.wait(e);
  if (!b.copy_from_peer(qb, y, 0, a, x, 0, n)) GTEST_SKIP() << "no peer access between GPUs";
  std::vector<unsigned char> back(n);
  qb.read(back.data(), y, 0, n, HostKind::pageable);
  qb.finish();
  EXPECT_EQ(src, back);
  a.release(x);
  b.release(y);
}
