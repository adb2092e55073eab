// The tests' main: GoogleTest's, except that a program that ran no test, or whose tests all
// skipped themselves (no GPU here), exits 77, which CTest reports as skipped (SKIP_RETURN_CODE in
// tests/CMakeLists.txt). A failure keeps its own status: it is never taken for a skip.
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  const testing::UnitTest& run = *testing::UnitTest::GetInstance();
  if (rc == 0 && run.skipped_test_count() == run.test_to_run_count()) return 77;
  return rc;
}
