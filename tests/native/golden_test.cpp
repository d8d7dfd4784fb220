// The golden file still matches what this build computes (linked against the
// SIMD core here and against the scalar core as golden_scalar_test).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "golden_softmax.h"

TEST(Golden, SoftmaxFileMatchesThisBuild) {
  std::ifstream f(SMX_GOLDEN_DIR "/softmax.json", std::ios::binary);
  ASSERT_TRUE(f) << "missing tests/golden/softmax.json";
  std::stringstream want;
  want << f.rdbuf();
  const std::string got = golden::make();
  ASSERT_EQ(got.size(), want.str().size());
  EXPECT_TRUE(got == want.str()) << "output bits changed: rerun build/make_golden and explain why";
}
