// smx::Pcg32 against the published pcg32-demo output (pcg-c-basic, seed 42,
// sequence 54: pcg-random.org "Using the Basic C Implementation"), and its
// bits-to-uniform conversion against its definition.
#include "smx/rng.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace {

TEST(Rng, Pcg32MatchesPublishedDemoOutput) {
  smx::Pcg32 rng(42u, 54u);
  const uint32_t expected[6] = {0xa15c02b7u, 0x7b47f409u, 0xba1d3330u,
                                0x83d2f293u, 0xbfa4784bu, 0xcbed606eu};
  for (uint32_t e : expected) EXPECT_EQ(rng.next(), e);
  // The demo then flips 65 coins (boundedrand 2, 1 = H) and rolls 33 dice.
  const std::string coins = "HHTTTHTHHHTHTTTHHHHHTTTHHHTHTHTHTTHTTTHHHHHHTTTTHHTTTTTHTTTTTTTHT";
  std::string got;
  for (size_t i = 0; i < coins.size(); ++i) got += rng.bounded(2) ? 'H' : 'T';
  EXPECT_EQ(got, coins);
  const int rolls[33] = {3, 4, 1, 1, 2, 2, 3, 2, 4, 3, 2, 4, 3, 3, 5, 2, 3,
                         1, 3, 1, 5, 1, 4, 1, 5, 6, 4, 6, 6, 2, 6, 3, 3};
  for (int r : rolls) EXPECT_EQ(static_cast<int>(rng.bounded(6)) + 1, r);
}

TEST(Rng, DefaultStreamIsTheDemoStream) {
  smx::Pcg32 a(42u), b(42u, 54u);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(a.next(), b.next());
  smx::Pcg32 c;
  c.seed(42u);
  EXPECT_EQ(c.next(), 0xa15c02b7u);
}

TEST(Rng, SeedsGiveDistinctStreamsAndReseedingRepeats) {
  std::set<uint32_t> firsts;
  for (uint64_t s : {0ull, 1ull, 2ull, 42ull, 0xFFFFFFFFull, 0x100000000ull, ~0ull}) {
    smx::Pcg32 r(s);
    firsts.insert(r.next());
    smx::Pcg32 again(s);
    smx::Pcg32 r2(s);
    for (int i = 0; i < 50; ++i) ASSERT_EQ(again.next(), r2.next());
  }
  EXPECT_EQ(firsts.size(), 7u);  // the high half of a 64-bit seed matters too
}

TEST(Rng, NextDoubleIsTheDocumented53BitConversion) {
  smx::Pcg32 a(7u), b(7u);
  for (int i = 0; i < 10000; ++i) {
    const uint64_t hi = a.next() >> 5, lo = a.next() >> 6;
    const double expected = std::ldexp(static_cast<double>((hi << 26) | lo), -53);
    const double u = b.next_double();
    ASSERT_EQ(u, expected);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
}

// 1e6 uniforms in 100 bins: chi-square with 99 degrees of freedom. Critical
// value at a false-alarm rate of 1e-4 (Wilson-Hilferty): about 157.
TEST(Rng, NextDoubleIsUniform) {
  smx::Pcg32 r(2024u);
  std::vector<double> counts(100, 0.0);
  const int n = 1000000;
  for (int i = 0; i < n; ++i) counts[static_cast<size_t>(r.next_double() * 100)] += 1;
  double chi2 = 0;
  for (double c : counts) chi2 += (c - n / 100.0) * (c - n / 100.0) / (n / 100.0);
  const double df = 99, z = 3.719016;
  const double crit = df * std::pow(1 - 2 / (9 * df) + z * std::sqrt(2 / (9 * df)), 3);
  EXPECT_LT(chi2, crit);
}

}  // namespace
