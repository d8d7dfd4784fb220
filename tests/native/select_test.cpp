// cpp/src/select.{h,cpp} against a simple sort-based reference: the order is
// decreasing logit (or increasing key), ties by lower position; -0 == +0;
// masked (-Infinity) and +Infinity entries; many ties; every path (heap scan,
// radix levels, small-bucket sorts).
#include "select.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<uint32_t> RefOrder(const std::vector<float>& g) {
  std::vector<uint32_t> a(g.size());
  std::iota(a.begin(), a.end(), 0u);
  std::stable_sort(a.begin(), a.end(), [&](uint32_t x, uint32_t y) { return g[x] > g[y]; });
  return a;
}

std::vector<uint32_t> RefOrderByKey(const std::vector<double>& k) {
  std::vector<uint32_t> a(k.size());
  std::iota(a.begin(), a.end(), 0u);
  std::stable_sort(a.begin(), a.end(), [&](uint32_t x, uint32_t y) { return k[x] < k[y]; });
  return a;
}

// Inputs of several kinds: spread, narrow (one radix bucket), ties, zeros of
// both signs, infinities, huge magnitudes.
std::vector<float> Input(int kind, size_t m, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::uniform_int_distribution<int> small(-3, 3);
  std::vector<float> g(m);
  for (size_t i = 0; i < m; ++i) {
    switch (kind) {
      case 0:
        g[i] = normal(rng);
        break;
      case 1:
        g[i] = 1.0f + 1e-6f * static_cast<float>(small(rng));
        break;  // narrow, ties
      case 2:
        g[i] = static_cast<float>(small(rng));
        break;  // heavy ties
      case 3:
        g[i] = (rng() & 1) ? 0.0f : -0.0f;
        break;  // signed zeros
      case 4: {
        const int r = static_cast<int>(rng() % 8);
        g[i] = r == 0 ? -kInf : r == 1 ? kInf : r == 2 ? 3.4e38f : r == 3 ? -3.4e38f : normal(rng);
        break;
      }
      default:
        g[i] = std::nextafter(2.0f, 3.0f) * static_cast<float>(rng() % 1000);
        break;
    }
  }
  return g;
}

TEST(Select, DescKeyIsMonotone) {
  const float v[] = {-kInf, -3.4e38f, -1.0f, -1e-45f, -0.0f, 0.0f, 1e-45f, 1.0f, 3.4e38f, kInf};
  for (size_t i = 0; i + 1 < std::size(v); ++i) {
    const uint32_t a = smx::sel::desc_key(v[i]), b = smx::sel::desc_key(v[i + 1]);
    if (v[i] == v[i + 1])
      EXPECT_EQ(a, b) << v[i];
    else
      EXPECT_GT(a, b) << v[i] << " " << v[i + 1];
  }
}

TEST(Select, FirstKAndKthMatchTheSortedOrder) {
  std::mt19937 rng(1234);
  const size_t sizes[] = {1, 2, 5, 16, 17, 33, 100, 1000, 5000, 40000};
  for (int kind = 0; kind < 6; ++kind) {
    for (size_t m : sizes) {
      const std::vector<float> g = Input(kind, m, rng);
      const std::vector<uint32_t> ref = RefOrder(g);
      const size_t ks[] = {1, 2, 7, 40, 255, 256, 257, 1000, m / 16, m / 2, m - 1, m};
      for (size_t k : ks) {
        if (k < 1 || k > m) continue;
        std::vector<uint32_t> out(m), scratch(m);
        smx::sel::first_k(g.data(), m, k, out.data(), scratch.data());
        std::vector<uint32_t> want(ref.begin(), ref.begin() + k);
        std::sort(want.begin(), want.end());
        ASSERT_EQ(std::vector<uint32_t>(out.begin(), out.begin() + k), want)
            << "kind " << kind << " m " << m << " k " << k;
        EXPECT_EQ(smx::sel::kth(g.data(), m, k, scratch.data()), ref[k - 1])
            << "kind " << kind << " m " << m << " k " << k;
      }
    }
  }
}

TEST(Select, FirstKScanMatchesFirstKAndFindsTheFirstNaN) {
  std::mt19937 rng(77);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int kind = 0; kind < 6; ++kind) {
    for (size_t m : {1, 16, 40, 100, 1000, 40000}) {
      std::vector<float> g = Input(kind, m, rng);
      for (size_t k : {1, 2, 7, 40, 256}) {
        if (k > m) continue;
        std::vector<uint32_t> a(m), b(m), scratch(m);
        ASSERT_EQ(smx::sel::first_k_scan(g.data(), m, k, a.data()), m);
        smx::sel::first_k(g.data(), m, k, b.data(), scratch.data());
        ASSERT_EQ(std::vector<uint32_t>(a.begin(), a.begin() + k),
                  std::vector<uint32_t>(b.begin(), b.begin() + k))
            << "kind " << kind << " m " << m << " k " << k;
        for (size_t at : {m - 1, m / 2, size_t{0}, std::min(k, m - 1)}) {
          std::vector<float> h = g;
          h[at] = nan;
          if (at + 3 < m) h[at + 3] = nan;
          EXPECT_EQ(smx::sel::first_k_scan(h.data(), m, k, a.data()), at)
              << "kind " << kind << " m " << m;
        }
      }
    }
  }
}

// The reference cut: the sorted cumulative sum. Weights are dyadic (multiples
// of 2^-20, sums < 2), so every double sum is exact and any order must agree.
TEST(Select, MassCutMatchesTheSortedCumulativeSum) {
  std::mt19937 rng(99);
  const size_t sizes[] = {1, 3, 31, 32, 33, 200, 3000, 50000};
  for (int kind = 0; kind < 6; ++kind) {
    for (size_t m : sizes) {
      const std::vector<float> g = Input(kind, m, rng);
      std::vector<float> w(m);
      for (size_t i = 0; i < m; ++i) w[i] = static_cast<float>(rng() % 9) * 0x1p-20f;  // zeros too
      double total = 0.0;
      for (float v : w) total += v;
      const std::vector<uint32_t> ref = RefOrder(g);
      std::vector<double> keys(m);
      for (size_t i = 0; i < m; ++i)
        keys[i] = (kind == 3 && (i & 1)) ? -0.0 : std::fabs(static_cast<double>(g[i]));
      const std::vector<uint32_t> ref_key = RefOrderByKey(keys);
      for (double f : {1e-9, 0.01, 0.3, 0.5, 0.9, 0.999, 1.0, 1.5}) {
        const double target = f * total;
        if (!(target > 0.0)) continue;
        std::vector<uint32_t> scratch(m);
        for (int by_key = 0; by_key < 2; ++by_key) {
          const std::vector<uint32_t>& order = by_key ? ref_key : ref;
          size_t want = m;
          double c = 0.0;
          for (size_t j = 0; j < m; ++j) {
            c += w[order[j]];
            if (c >= target) {
              want = j;
              break;
            }
          }
          const smx::sel::MassCut got =
              by_key ? smx::sel::mass_cut_by_key(keys.data(), w.data(), m, target, scratch.data())
                     : smx::sel::mass_cut(g.data(), w.data(), m, target, scratch.data());
          if (want == m) {
            EXPECT_FALSE(got.found) << "kind " << kind << " m " << m << " f " << f;
            continue;
          }
          ASSERT_TRUE(got.found) << "kind " << kind << " m " << m << " f " << f << " by_key "
                                 << by_key;
          EXPECT_EQ(got.pos, order[want])
              << "kind " << kind << " m " << m << " f " << f << " by_key " << by_key;
          EXPECT_EQ(got.rank, want + 1)
              << "kind " << kind << " m " << m << " f " << f << " by_key " << by_key;
        }
      }
    }
  }
}

TEST(Select, TopPCutMatchesMassCutWithTheIndexOrderTotal) {
  std::mt19937 rng(5);
  for (int kind = 0; kind < 6; ++kind) {
    for (size_t m : {1, 17, 100, 3000, 50000}) {
      const std::vector<float> g = Input(kind, m, rng);
      std::vector<float> w(m);
      for (size_t i = 0; i < m; ++i) w[i] = static_cast<float>(rng() % 9) * 0x1p-20f;
      double total = 0.0;
      for (float v : w) total += v;
      for (double f : {0.0, 1e-9, 0.3, 0.9, 0.999, 1.0, 1.5}) {
        std::vector<uint32_t> s(m), scratch(m), scratch2(m);
        const smx::sel::TopPCut c =
            smx::sel::top_p_cut(g.data(), w.data(), m, f, s.data(), scratch.data());
        EXPECT_EQ(c.total, total);
        if (!(f * total > 0.0)) {
          EXPECT_FALSE(c.cut.found);
          continue;
        }
        const smx::sel::MassCut want =
            smx::sel::mass_cut(g.data(), w.data(), m, f * total, scratch2.data());
        ASSERT_EQ(c.cut.found, want.found) << "kind " << kind << " m " << m << " f " << f;
        if (!want.found) continue;
        EXPECT_EQ(c.cut.pos, want.pos);
        EXPECT_EQ(c.cut.rank, want.rank);
        // s: ascending, and holds every element up to the cut.
        const uint32_t kc = smx::sel::desc_key(g[want.pos]);
        size_t in = 0;
        for (size_t p = 0; p < m; ++p) {
          const uint32_t kp = smx::sel::desc_key(g[p]);
          if (kp < kc || (kp == kc && p <= want.pos)) ++in;
        }
        std::vector<uint32_t> ss(s.begin(), s.begin() + c.s_len);
        EXPECT_TRUE(std::is_sorted(ss.begin(), ss.end()));
        size_t covered = 0;
        for (uint32_t p : ss) {
          const uint32_t kp = smx::sel::desc_key(g[p]);
          if (kp < kc || (kp == kc && p <= want.pos)) ++covered;
        }
        EXPECT_EQ(covered, in) << "kind " << kind << " m " << m << " f " << f;
      }
    }
  }
}

}  // namespace
