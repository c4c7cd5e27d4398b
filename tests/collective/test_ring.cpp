// The ring on the cpu backend (devices that share host memory) and on sim
// devices (each a memory of its own, copies on virtual links), in one node
// and in several.
#include "collective/kernels.hpp"
#include "collective/ring_cases.hpp"
#include "collective/two_level_ring.hpp"

namespace ring_cases {
INSTANTIATE_TEST_SUITE_P(cpu, RingOver, testing::Values("cpu:1x1", "cpu:3x1"));
INSTANTIATE_TEST_SUITE_P(sim, RingOver, testing::Values("sim:4,2,1", "sim:1,1,1,1,1"));
// Three nodes of two devices joined by a network: the ring in two levels.
INSTANTIATE_TEST_SUITE_P(sim_nodes, RingOver,
                         testing::Values("sim:" BATON_TEST_DIR "/collective/cluster3x2.json"));
}  // namespace ring_cases

namespace {

using namespace baton;

// Which communicator a kind gives, and a clear error for one that cannot serve.
TEST(Communicator, AutoIsTheRingOffCudaAndNcclIsNamedWhereItCannot) {
  Options o;
  o.devices = "sim:2,1";
  o.perf_model_file = "";
  Runtime rt(o);
  EXPECT_EQ(collective::make_communicator(rt, {0, 1}, "auto")->name(), "ring");
  EXPECT_EQ(collective::make_communicator(rt, {0, 1}, "ring")->name(), "ring");
  try {
    collective::make_communicator(rt, {0, 1}, "nccl");
    ADD_FAILURE() << "NCCL over sim devices";
  } catch (const Error& e) {
    // No NCCL here (or no CUDA in this build), or a device it cannot serve, named.
    const std::string what = e.what();
    EXPECT_TRUE(what.find("sim0") != std::string::npos || what.find("NCCL") != std::string::npos ||
                what.find("nccl") != std::string::npos)
        << what;
  }
  EXPECT_THROW(collective::make_communicator(rt, {0, 1}, "mesh"), Error);
}

}  // namespace

namespace {

using namespace baton;

std::unique_ptr<Runtime> three_nodes_of_two() {
  Options o;
  o.devices = "sim:" BATON_TEST_DIR "/collective/cluster3x2.json";
  o.perf_model_file = "";
  return std::make_unique<Runtime>(o);
}

TEST(TwoLevelRing, NodesAreWhatTheNetworkJoinsAndEachReadsItsPlaceAcross) {
  auto rt = three_nodes_of_two();
  const std::vector<int> all{0, 1, 2, 3, 4, 5};
  const auto nodes = collective::network_nodes(*rt, all);
  ASSERT_EQ(nodes.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    std::vector<int> node = nodes[i];
    std::sort(node.begin(), node.end());
    EXPECT_EQ(node, (std::vector<int>{int(2 * i), int(2 * i + 1)})) << "node " << i;
  }
  const auto comm = collective::make_communicator(*rt, all, "auto");
  EXPECT_EQ(comm->name(), "ring in 3 nodes of 2");
  // One node alone, or devices one per node: one ring.
  EXPECT_EQ(collective::make_communicator(*rt, {0, 1}, "auto")->name(), "ring");
  EXPECT_EQ(collective::make_communicator(*rt, {0, 2, 4}, "auto")->name(), "ring");
  // Unequal nodes: one ring.
  EXPECT_EQ(collective::make_communicator(*rt, {0, 1, 2}, "auto")->name(), "ring");

  std::vector<Buffer<float>> slots;
  for (int p = 0; p < 6; ++p) slots.push_back(rt->buffer<float>(4096));
  std::vector<Task> tasks;
  const auto owned =
      comm->reduce_scatter(slots, collective::Piece{0, 4096}, {1, 2, 3, 4, 5, 6}, tasks);
  for (Task t : tasks) rt->wait(t);
  // Rank r reads, from the other nodes, the pieces of the devices in its
  // place there, and nothing else.
  const std::size_t per_node = 2;
  std::vector<std::vector<collective::Piece>> read(6);
  for (const auto& [rank, piece] : comm->gather_reads(owned)) read[rank].push_back(piece);
  for (std::size_t r = 0; r < 6; ++r) {
    std::vector<collective::Piece> expect;
    for (std::size_t q = 0; q < 6; ++q)
      if (q / per_node != r / per_node && q % per_node == r % per_node) expect.push_back(owned[q]);
    EXPECT_EQ(read[r], expect) << "rank " << r;
  }
}

// A device reads what it misses from a holder in its own node, not from the
// owner across the network: on the virtual clock, a read at 400 GB/s, not 40.
TEST(TwoLevelRing, AReaderCopiesFromItsNodeRatherThanAcrossTheNetwork) {
  auto rt = three_nodes_of_two();
  const Kernel touch = collective::touch_kernel();
  const std::uint64_t n = std::uint64_t(1) << 24;  // 64 MiB: 1.6 ms at 40 GB/s, 0.16 at 400
  auto buf = rt->buffer<float>(n);
  // Written on gpu0_0, then read by gpu1_0 across the network.
  rt->wait(rt->submit(Range{1}, touch, out(buf, whole), on(0)));
  rt->wait(rt->submit(Range{1}, touch, in(buf, whole), on(2)));
  // gpu1_1 reads it: both holders have it, gpu1_0 is in its node.
  const double start = rt->clock().now();
  rt->wait(rt->submit(Range{1}, touch, in(buf, whole), on(3)));
  const double took = rt->clock().now() - start;
  EXPECT_LT(took, 0.5e-3) << "read across the network (" << took * 1e3 << " ms)";
  EXPECT_GT(took, 0.1e-3) << "no copy at all (" << took * 1e3 << " ms)";
}

// Copies over a node's NVLink and across the network go side by side, each
// link on a queue of its own: a reader of one buffer from its node and one
// from another node waits for the longer copy, not for both in turn.
TEST(TwoLevelRing, CopiesOverDifferentLinksRunSideBySide) {
  auto rt = three_nodes_of_two();
  const Kernel touch = collective::touch_kernel();
  auto near = rt->buffer<float>(std::uint64_t(1) << 26);           // 256 MiB: 0.67 ms at 400 GB/s
  auto far = rt->buffer<float>(std::uint64_t(1) << 23);            // 32 MiB: 0.84 ms at 40 GB/s
  rt->wait(rt->submit(Range{1}, touch, out(near, whole), on(0)));  // gpu0_0
  rt->wait(rt->submit(Range{1}, touch, out(far, whole), on(2)));   // gpu1_0
  const double start = rt->clock().now();
  rt->wait(rt->submit(Range{1}, touch, in(near, whole), in(far, whole), on(1)));  // gpu0_1
  const double took = rt->clock().now() - start;
  EXPECT_LT(took, 1.1e-3) << "one link's copy waited for the other's (" << took * 1e3 << " ms)";
  EXPECT_GT(took, 0.8e-3) << "faster than the network moves the bytes (" << took * 1e3 << " ms)";
}

}  // namespace
