// Spec parsing, partition-size rules and allocator arithmetic: no GPU needed.
#include <gtest/gtest.h>

#include "baton/error.hpp"
#include "device/cuda/caching_allocator.hpp"
#include "device/cuda/green_partition.hpp"

using namespace baton;
using namespace baton::cuda;

static std::string message_of(auto&& fn, Errc expected) {
  try {
    fn();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), expected) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return {};
}

TEST(CudaPartitionSizes, ParsesPlusSeparatedCounts) {
  EXPECT_EQ(parse_partition_sizes("64+32+16+8", "cuda:0/64+32+16+8"),
            (std::vector<int>{64, 32, 16, 8}));
  EXPECT_EQ(parse_partition_sizes("128", "cuda:0/128"), (std::vector<int>{128}));
  for (const char* bad : {"", "64+", "+8", "64+x", "0", "-8", "8.5", "64++8"})
    message_of([&] { parse_partition_sizes(bad, "cuda:0/x"); }, Errc::bad_device_spec);
}

TEST(CudaPartitionSizes, SetsAsidePartitionsMarkedWithATilde) {
  std::vector<bool> skipped;
  EXPECT_EQ(parse_partition_sizes("~96+32", "cuda:0/~96+32", &skipped), (std::vector<int>{96, 32}));
  EXPECT_EQ(skipped, (std::vector<bool>{true, false}));
  skipped.clear();
  EXPECT_EQ(parse_partition_sizes("64+~32+16", "w", &skipped), (std::vector<int>{64, 32, 16}));
  EXPECT_EQ(skipped, (std::vector<bool>{false, true, false}));
  for (const char* bad : {"~", "~~8", "8~", "~0"}) {
    std::vector<bool> flags;
    message_of([&] { parse_partition_sizes(bad, "cuda:0/x", &flags); }, Errc::bad_device_spec);
  }
  std::vector<bool> flags;
  EXPECT_NE(message_of([&] { parse_partition_sizes("~64+~8", "w", &flags); }, Errc::bad_device_spec)
                .find("every partition is set aside"),
            std::string::npos);
  // Where set-aside partitions mean nothing, '~' is refused.
  message_of([] { parse_partition_sizes("~64+8", "w"); }, Errc::bad_device_spec);
}

TEST(CudaPartitionSizes, RejectsSizesOffTheGranularityWithAHint) {
  const std::string m = message_of([] { check_partition_sizes({60}, 132, 8, 16, "cuda:0/60"); },
                                   Errc::bad_device_spec);
  EXPECT_NE(m.find("cuda:0/60"), std::string::npos) << m;
  EXPECT_NE(m.find("multiples of 8 SMs on this GPU (132 SMs)"), std::string::npos) << m;
  EXPECT_NE(m.find("try 56 or 64"), std::string::npos) << m;
  const std::string small =
      message_of([] { check_partition_sizes({4}, 132, 8, 16, "cuda:0/4"); }, Errc::bad_device_spec);
  EXPECT_NE(small.find("try 8"), std::string::npos) << small;
}

TEST(CudaPartitionSizes, RejectsMoreThanTheGpuHas) {
  const std::string m = message_of(
      [] {
        check_partition_sizes({64, 64, 16}, 132, 8, 16, "cuda:0/64+64+16");
      },
      Errc::bad_device_spec);
  EXPECT_NE(m.find("144 SMs"), std::string::npos) << m;
  EXPECT_NE(m.find("at most 128"), std::string::npos) << m;
  EXPECT_NO_THROW(check_partition_sizes({64, 32, 16, 8}, 132, 8, 16, "ok"));
  EXPECT_NO_THROW(check_partition_sizes({128}, 132, 8, 16, "ok"));
}

TEST(CudaAllocatorRules, SizeClassesWasteAtMostAQuarter) {
  EXPECT_EQ(CachingAllocator::size_class(1), 512u);
  EXPECT_EQ(CachingAllocator::size_class(512), 512u);
  EXPECT_EQ(CachingAllocator::size_class(1024), 1024u);
  EXPECT_EQ(CachingAllocator::size_class(1025), 1280u);
  EXPECT_EQ(CachingAllocator::size_class((32u << 20) + 1), 34u << 20);
  for (std::size_t b = 1; b < (std::size_t(1) << 34); b = b * 3 + 7) {
    const std::size_t c = CachingAllocator::size_class(b);
    EXPECT_GE(c, b);
    EXPECT_LE(c, std::max<std::size_t>(512, b + b / 4 + 1)) << b;
    EXPECT_EQ(CachingAllocator::size_class(c), c) << "classes are fixed points";
  }
}

TEST(CudaAllocatorRules, ManagedMemoryOnlyWithinFreeMemory) {
  constexpr std::size_t GiB = std::size_t(1) << 30;
  EXPECT_TRUE(CachingAllocator::managed_fits(1 * GiB, 10 * GiB));
  EXPECT_FALSE(CachingAllocator::managed_fits(10 * GiB, 10 * GiB)) << "no headroom left";
  EXPECT_FALSE(CachingAllocator::managed_fits(11 * GiB, 10 * GiB));
  EXPECT_FALSE(CachingAllocator::managed_fits(1, CachingAllocator::kManagedHeadroom - 1));
  EXPECT_TRUE(
      CachingAllocator::managed_fits(10 * GiB - CachingAllocator::kManagedHeadroom, 10 * GiB));
}
