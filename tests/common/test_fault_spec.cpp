// BATON_FAULT: which device fails after how many launches, and clear errors
// for what does not parse.
#include <gtest/gtest.h>

#include "baton/error.hpp"
#include "submit/fault.hpp"

using baton::detail::parse_faults;

TEST(FaultSpec, NamesDevicesAndLaunchCounts) {
  const std::vector<std::string> names{"cpu0", "cpu1", "cuda0.p1"};
  EXPECT_EQ(parse_faults("", names), (std::vector<long long>{-1, -1, -1}));
  EXPECT_EQ(parse_faults("cuda0.p1:after=100,cpu0:after=0", names),
            (std::vector<long long>{0, -1, 100}));
}

TEST(FaultSpec, BadSpecsAreClearErrors) {
  const std::vector<std::string> names{"cpu0", "cpu1"};
  for (const char* bad : {"cpu0", "cpu0:after=", "cpu0:after=x", "cpu0:after=-1", "cpu0:before=3",
                          "gpu9:after=1", "cpu0:after=1x"}) {
    try {
      parse_faults(bad, names);
      ADD_FAILURE() << bad << " accepted";
    } catch (const baton::Error& e) {
      EXPECT_EQ(e.code(), baton::Errc::invalid_argument) << bad;
      EXPECT_EQ(e.where(), "BATON_FAULT");
    }
  }
}
