// NCCL through the communicator: one whole GPU is a ring of one rank (the
// all-reduce runs on the worker's stream and leaves the sum, its own slot);
// partitions of one GPU are refused by name. Several GPUs join the runs
// that wait for a machine with several.
#include <gtest/gtest.h>

#include "baton/error.hpp"
#include "baton/runtime.hpp"
#include "collective/nccl.hpp"
#include "collective/nccl_processes.hpp"
#include "support/open_runtime.hpp"

using namespace baton;
using namespace baton::collective;

namespace {

std::unique_ptr<Runtime> open(const std::string& devices, std::string& why) {
  Options o;
  o.devices = devices;
  o.perf_model_file = "";
  return test::open_or_skip(o, why);
}

}  // namespace

TEST(Nccl, OneGpuAllReducesItsSlotOnItsStream) {
  std::string why;
  auto rt = open("cuda:0", why);
  if (!rt) GTEST_SKIP() << "no CUDA GPU: " << why;
  if (const std::string unfit = nccl_unfit(*rt, {0}); !unfit.empty()) GTEST_SKIP() << unfit;
  auto comm = make_communicator(*rt, {0}, "nccl");
  EXPECT_EQ(comm->name().rfind("nccl ", 0), 0u) << comm->name();
  const std::uint64_t n = 1'000'003;
  std::vector<Buffer<float>> slots{rt->buffer<float>(n)};
  {
    auto h = slots[0].host();
    for (std::uint64_t i = 0; i < n; ++i) h[i] = float(i % 1000) * 0.5f;
  }
  std::vector<Task> tasks;
  std::vector<Piece> owned;
  for (const Piece& b : buckets(n, 4, 1 << 16, 1 << 20)) {
    const auto pieces = comm->reduce_scatter(slots, b, {1.0}, tasks);
    ASSERT_EQ(pieces.size(), 1u);
    EXPECT_EQ(pieces[0], b) << "one rank holds its whole bucket";
    owned.push_back(pieces[0]);
  }
  EXPECT_EQ(tasks.size(), owned.size()) << "an all-reduce a bucket";
  for (Task t : tasks) rt->wait(t);
  const auto got = slots[0].read();
  std::uint64_t wrong = 0;
  for (std::uint64_t i = 0; i < n; ++i) wrong += got[i] != float(i % 1000) * 0.5f;
  EXPECT_EQ(wrong, 0u);
}

TEST(Nccl, PartitionsOfOneGpuAreRefusedByName) {
  std::string why;
  auto rt = open("cuda:0/64+32", why);
  if (!rt) GTEST_SKIP() << "no CUDA GPU: " << why;
  const std::string unfit = nccl_unfit(*rt, {0, 1});
  EXPECT_FALSE(unfit.empty());
  try {
    Nccl comm(*rt, {0, 1});
    ADD_FAILURE() << "NCCL over two partitions of one GPU";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(unfit), std::string::npos) << e.what();
  }
  // "auto" falls back to the ring, and says why.
  std::string chose;
  EXPECT_EQ(make_communicator(*rt, {0, 1}, "auto", &chose)->name(), "ring");
  EXPECT_NE(chose.find(unfit), std::string::npos) << chose;
}

// NCCL between processes (nccl_processes.hpp), in the one process a machine
// of one GPU allows (NCCL takes one rank a GPU): the unique id goes through
// the group, the leader's worker joins the communicator, and each bucket's
// all-reduce runs on its stream in submission order. With one rank the sum
// is the slot itself; several processes wait for a machine with several GPUs.
TEST(NcclProcesses, OneProcessJoinsAndSumsOnItsLeader) {
  std::string why;
  auto rt = open("cuda:0", why);
  if (!rt) GTEST_SKIP() << "no CUDA GPU: " << why;
  if (const std::string unfit = nccl_unfit(*rt, {0}); !unfit.empty()) GTEST_SKIP() << unfit;
  const auto group = single_process();
  NcclProcesses across(*rt, 0, *group);
  EXPECT_NE(across.name().find("across processes"), std::string::npos) << across.name();
  const std::uint64_t n = 300'001;
  Buffer<float> slot = rt->buffer<float>(n);
  {
    auto h = slot.host();
    for (std::uint64_t i = 0; i < n; ++i) h[i] = float(i % 977) - 3.5f;
  }
  std::vector<Task> tasks;
  for (const Piece& b : buckets(n, 4, 1 << 14, 1 << 18))
    tasks.push_back(across.all_reduce(slot, b));
  for (Task t : tasks) rt->wait(t);
  const auto got = slot.read();
  std::uint64_t wrong = 0;
  for (std::uint64_t i = 0; i < n; ++i) wrong += got[i] != float(i % 977) - 3.5f;
  EXPECT_EQ(wrong, 0u);
}

TEST(NcclProcesses, APartitionCannotBeALeader) {
  std::string why;
  auto rt = open("cuda:0/64+32", why);
  if (!rt) GTEST_SKIP() << "no CUDA GPU: " << why;
  const auto group = single_process();
  EXPECT_THROW(NcclProcesses(*rt, 0, *group), Error);
  // A group of one never sums across processes.
  EXPECT_EQ(device_sum_across_processes(*rt, {0, 1}, 0, true, *group), nullptr);
}
