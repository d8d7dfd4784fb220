// The draw (cpp/src/draw.h) against its definition: the first position whose
// cumulative probability, a double sum in index order, exceeds u * total. The
// block-sum answer must equal it whenever it gives one, and give one nearly
// always; a sampler over more than 4096 candidates draws exactly the indices
// the definition gives over probs().
#include "draw.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "reference.h"
#include "smx/rng.h"
#include "smx/sampler.h"

namespace {

size_t by_definition(const std::vector<float>& q, double u) {
  double total = 0.0;
  for (float v : q) total += v;
  const double target = u * total;
  double cum = 0.0;
  for (size_t j = 0; j < q.size(); ++j)
    if ((cum += q[j]) > target) return j;
  size_t j = q.size() - 1;
  while (j > 0 && q[j] == 0.0f) --j;
  return j;
}

// Block sums in another order than the definition's (backwards in each block).
std::vector<double> block_sums(const std::vector<float>& q, size_t block) {
  std::vector<double> before(1, 0.0);
  for (size_t j = 0; j < q.size(); j += block) {
    double s = 0.0;
    for (size_t i = std::min(q.size(), j + block); i-- > j;) s += q[i];
    before.push_back(before.back() + s);
  }
  return before;
}

std::vector<float> probabilities(size_t n, uint32_t seed, int shape) {
  auto x = ref::normal(n, shape == 0 ? 3.0 : 12.0, seed);
  std::vector<float> q(n);
  double s = 0.0;
  for (size_t i = 0; i < n; ++i) s += q[i] = static_cast<float>(std::exp(x[i] / 2.0));
  for (size_t i = 0; i < n; ++i) {
    q[i] = static_cast<float>(q[i] / s);
    if (shape == 2 && i % 5 == 3) q[i] = 0.0f;       // zeros between
    if (shape == 3 && i % 7 == 1) q[i] = 0x1p-140f;  // denormals between
  }
  return q;
}

TEST(Draw, ExactAndBlockAnswersAreTheDefinition) {
  smx::Pcg32 rng(2024u);
  size_t decided = 0, draws = 0;
  for (size_t n : {1, 2, 7, 255, 256, 257, 4097, 20000}) {
    for (int shape = 0; shape < 4; ++shape) {
      const auto q = probabilities(n, static_cast<uint32_t>(n * 4 + shape), shape);
      std::vector<double> cum(n);
      const double total = smx::cumulative_sums(q.data(), n, cum.data());
      const auto before = block_sums(q, 256);
      for (int k = 0; k < 400; ++k) {
        const double u = k == 0 ? 0.0 : k == 1 ? 1.0 - 0x1p-53 : rng.next_double();
        const size_t want = by_definition(q, u);
        ASSERT_EQ(smx::draw_exact(q.data(), cum.data(), n, u, total), want) << n << " u=" << u;
        const size_t got = smx::draw_from_blocks(q.data(), n, before.data(), 256, u);
        if (got != n) {
          ASSERT_EQ(got, want) << n << " shape " << shape << " u=" << u;
          ++decided;
        }
        ++draws;
        // A huge margin decides (almost) nothing, and what it decides is right.
        const size_t wide = smx::draw_from_blocks(q.data(), n, before.data(), 256, u, 1e13);
        if (wide != n) {
          ASSERT_EQ(wide, want);
        }
      }
    }
  }
  // Undecided only within ~1e-10 of a boundary, or at u near 1.
  EXPECT_GE(decided, draws - 64) << decided << " of " << draws;
}

TEST(Draw, UndecidedWhenATargetSitsOnABoundary) {
  // Two halves of equal mass: u = 0.5 puts the target on the boundary.
  std::vector<float> q(8192, 1.0f / 8192);
  const auto before = block_sums(q, 256);
  EXPECT_EQ(smx::draw_from_blocks(q.data(), q.size(), before.data(), 256, 0.5), q.size());
  EXPECT_EQ(smx::draw_from_blocks(q.data(), q.size(), before.data(), 256, 0.5 + 0x1p-20), 4096u);
}

TEST(Draw, SamplerDrawsTheDefinitionsIndicesOverManyCandidates) {
  for (size_t n : {5000, 151936}) {
    auto x = ref::normal(n, 3.0, static_cast<uint32_t>(n));
    for (size_t i = 0; i < n; i += 97) x[i] = -INFINITY;  // masked: ascending indices
    for (float t : {1.0f, 0.6f}) {
      smx::Sampler s;
      smx::SamplerOptions o;
      o.temperature = t;
      ASSERT_EQ(s.configure(o), smx::SampleStatus::kOk);
      s.seed(77);
      std::vector<float> p(n);
      ASSERT_EQ(s.probs(x.data(), n, p.data()), smx::SampleStatus::kOk);
      std::vector<int32_t> got(2000);
      ASSERT_EQ(s.sample_many(x.data(), n, got.size(), got.data()), smx::SampleStatus::kOk);
      smx::Pcg32 rng(77u);
      for (int32_t g : got) ASSERT_EQ(static_cast<size_t>(g), by_definition(p, rng.next_double()));
    }
  }
}

}  // namespace
