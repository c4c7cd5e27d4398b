// The tests' main: as GoogleTest's, but an executable whose every test
// skipped (no GPU, no OpenCL device) exits 77, which ctest reports as
// "Skipped" (SKIP_RETURN_CODE). One that ran some tests and skipped others
// passes or fails on what ran: a skipped case never hides a failed one.
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const int failed = RUN_ALL_TESTS();
  const testing::UnitTest& u = *testing::UnitTest::GetInstance();
  if (failed == 0 && u.successful_test_count() == 0 && u.skipped_test_count() > 0) return 77;
  return failed;
}
