#include <gtest/gtest.h>

#include "baton/error.hpp"

TEST(Error, CarriesCodePlaceAndMessage) {
  try {
    baton::raise(baton::Errc::bad_device_spec, "--devices", "'gpu' is not a device");
    FAIL() << "raise returned";
  } catch (const baton::Error& e) {
    EXPECT_EQ(e.code(), baton::Errc::bad_device_spec);
    EXPECT_EQ(e.where(), "--devices");
    EXPECT_STREQ(e.what(), "bad device spec (--devices): 'gpu' is not a device");
  }
}

TEST(Error, EveryCodeHasAName) {
  for (int c = 0; c <= static_cast<int>(baton::Errc::internal); ++c)
    EXPECT_NE(baton::to_string(static_cast<baton::Errc>(c)), "unknown error");
}
