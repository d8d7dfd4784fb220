// tests/golden/speculative.json against the native build (the SIMD core here,
// the scalar core in scalar_speculative_golden_test): the same masked draws
// and verification results, byte for byte.
#include "speculative_golden.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

TEST(SpeculativeGolden, FileMatchesThisBuild) {
  std::ifstream f(std::string(SMX_GOLDEN_DIR) + "/speculative.json", std::ios::binary);
  ASSERT_TRUE(f.good()) << "tests/golden/speculative.json missing: run make_speculative_golden";
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_TRUE(ss.str() == golden_spec::json())
      << "tests/golden/speculative.json differs from this build; if the bits were meant to move, "
         "regenerate it with make_speculative_golden";
  for (const auto& c : golden_spec::masked_cases())
    EXPECT_EQ(golden_spec::run_masked(c).size(), c.draws);
  for (const auto& c : golden_spec::verify_cases())
    EXPECT_GE(golden_spec::run_verify(c).size(), 2 * c.rounds);
}
