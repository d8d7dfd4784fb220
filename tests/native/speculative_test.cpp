// Sampler::verify_draft, speculative sampling: the emitted tokens follow the
// target distribution (chi-square at each position, k = 1 and k = 4, several
// (p, q) pairs), the acceptance rate at each position is sum_x min(p, q), the
// T = 0 rule, zero draft probabilities, masks, the history, errors.
//
// Statistics: fixed seeds; each chi-square and each acceptance check is a test
// at false-alarm rate 1e-4 (chi-square: the Wilson-Hilferty quantile;
// acceptance: |z| <= 3.89, two-sided), about 80 checks in all, so a random
// seed would raise a false alarm in under 1% of runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "reference.h"
#include "smx/sampler.h"

namespace {

using smx::SamplerOptions;
using smx::SampleStatus;
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr double kZ = 3.719;   // one-sided 1e-4 normal quantile (chi-square upper tail)
constexpr double kZ2 = 3.891;  // two-sided 1e-4

// The chi-square quantile by Wilson-Hilferty.
double chi2_crit(double df) {
  const double a = 2.0 / (9.0 * df);
  return df * std::pow(1.0 - a + kZ * std::sqrt(a), 3.0);
}

// The target distribution of a row for the options used below, in double:
// top-k (0 = off) of the logits (ties by lower index), then softmax at T
// (T = 0: the first maximum).
std::vector<double> target_probs(const float* x, size_t n, uint32_t top_k, double t) {
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return x[a] > x[b]; });
  std::vector<double> p(n, 0.0);
  if (t == 0) {
    p[order[0]] = 1;
    return p;
  }
  size_t keep = 0;
  for (size_t i = 0; i < n; ++i) keep += x[i] != -kInf;
  if (top_k != 0) keep = std::min<size_t>(keep, top_k);
  const double m = x[order[0]];
  double sum = 0;
  for (size_t j = 0; j < keep; ++j) sum += std::exp((x[order[j]] - m) / t);
  for (size_t j = 0; j < keep; ++j) p[order[j]] = std::exp((x[order[j]] - m) / t) / sum;
  return p;
}

std::vector<float> softmax_f(const std::vector<double>& l) {
  double m = -INFINITY, s = 0;
  for (double v : l) m = std::max(m, v);
  for (double v : l) s += std::exp(v - m);
  std::vector<float> q(l.size());
  for (size_t i = 0; i < l.size(); ++i) q[i] = static_cast<float>(std::exp(l[i] - m) / s);
  return q;
}

// One draw from q (double inverse CDF), with the test's own generator.
int32_t draw_from(const float* q, size_t n, std::mt19937_64& g) {
  double total = 0;
  for (size_t i = 0; i < n; ++i) total += q[i];
  const double u = std::uniform_real_distribution<double>(0, total)(g);
  double c = 0;
  for (size_t i = 0; i < n; ++i) {
    c += q[i];
    if (u < c && q[i] > 0) return static_cast<int32_t>(i);
  }
  for (size_t i = n; i-- > 0;)
    if (q[i] > 0) return static_cast<int32_t>(i);
  return 0;
}

struct Pair {
  std::string name;
  std::vector<float> logits;  // one target row (position j uses it rotated by j)
  std::vector<float> q;       // one draft row (position j: rotated by j)
  uint32_t top_k = 0;
  float t = 1.0f;
};

std::vector<float> rotate(const std::vector<float>& v, size_t j) {
  std::vector<float> r(v.size());
  for (size_t i = 0; i < v.size(); ++i) r[(i + j) % v.size()] = v[i];
  return r;
}

std::vector<Pair> pairs() {
  std::vector<Pair> ps;
  ps.push_back({"generic", {2, 1, 0, -1, 0.5f, 1.5f}, softmax_f({0, 1, 2, 0, 0, 1})});
  ps.push_back(
      {"sparse draft (q = 0 where p > 0)", {2, 1, 0, -1, 0.5f, 1.5f}, {0.5f, 0.5f, 0, 0, 0, 0}});
  ps.push_back({"target top-k 2 at T 0.7, uniform draft",
                {0.3f, 2, 1, -1, 0.5f, 1.7f},
                std::vector<float>(6, 1.0f / 6),
                2,
                0.7f});
  {  // p == q: q is the sampler's own distribution
    Pair p{"p == q", {1, 0.2f, -0.5f, 2, 0.7f, 0}, {}};
    p.q = softmax_f({1, 0.2f, -0.5f, 2, 0.7f, 0});
    ps.push_back(p);
  }
  ps.push_back({"disjoint supports", {1, 2, 3, -kInf, -kInf, -kInf}, {0, 0, 0, 0.2f, 0.3f, 0.5f}});
  return ps;
}

void run_pair(const Pair& pr, size_t k, uint64_t seed, size_t trials) {
  const size_t n = pr.logits.size();
  std::vector<float> target((k + 1) * n), q(k * n);
  std::vector<std::vector<double>> p(k + 1);
  for (size_t j = 0; j <= k; ++j) {
    const auto row = rotate(pr.logits, j);
    std::copy(row.begin(), row.end(), target.begin() + j * n);
    p[j] = target_probs(row.data(), n, pr.top_k, pr.t);
    if (j < k) {
      const auto qr = rotate(pr.q, j);
      std::copy(qr.begin(), qr.end(), q.begin() + j * n);
    }
  }
  SamplerOptions o;
  o.top_k = pr.top_k;
  o.temperature = pr.t;
  smx::Sampler s;
  ASSERT_EQ(s.configure(o), SampleStatus::kOk);
  s.seed(seed);
  std::mt19937_64 g(seed * 7919);
  std::vector<std::vector<double>> count(k + 1, std::vector<double>(n, 0));
  std::vector<double> reached(k + 1, 0), acc(k + 1, 0);
  std::vector<int32_t> draft(k), out(k + 1);
  for (size_t t = 0; t < trials; ++t) {
    for (size_t j = 0; j < k; ++j) draft[j] = draw_from(q.data() + j * n, n, g);
    size_t a = 0;
    ASSERT_EQ(s.verify_draft(draft.data(), q.data(), k, target.data(), n, out.data(), &a),
              SampleStatus::kOk);
    ASSERT_LE(a, k);
    for (size_t j = 0; j <= a; ++j) {
      count[j][out[j]] += 1;
      reached[j] += 1;
      if (j < a) {
        acc[j] += 1;
        ASSERT_EQ(out[j], draft[j]);
      }
    }
  }
  for (size_t j = 0; j <= k; ++j) {
    if (reached[j] < 50) continue;
    double chi2 = 0, pool_e = 0, pool_o = 0;
    int bins = 0;
    for (size_t i = 0; i < n; ++i) {
      if (p[j][i] == 0) {
        EXPECT_EQ(count[j][i], 0) << pr.name << " k=" << k << " position " << j << " token " << i;
        continue;
      }
      const double e = reached[j] * p[j][i];
      if (e < 5) {
        pool_e += e, pool_o += count[j][i];
        continue;
      }
      chi2 += (count[j][i] - e) * (count[j][i] - e) / e, ++bins;
    }
    if (pool_e > 0) chi2 += (pool_o - pool_e) * (pool_o - pool_e) / pool_e, ++bins;
    if (bins >= 2) {
      const double crit = chi2_crit(bins - 1);
      std::printf("  %-40s k=%zu pos %zu: chi2 %7.2f df %d crit %6.2f (n=%.0f)\n", pr.name.c_str(),
                  k, j, chi2, bins - 1, crit, reached[j]);
      EXPECT_LT(chi2, crit) << pr.name << " k=" << k << " position " << j;
    }
    if (j < k) {  // acceptance: sum_x min(p, q)
      double alpha = 0;
      for (size_t i = 0; i < n; ++i) alpha += std::min(p[j][i], static_cast<double>(q[j * n + i]));
      const double rate = acc[j] / reached[j];
      const double sd = std::sqrt(std::max(alpha * (1 - alpha), 1e-12) / reached[j]);
      std::printf("  %-40s k=%zu pos %zu: acceptance %.4f, sum min(p, q) %.4f\n", pr.name.c_str(),
                  k, j, rate, alpha);
      EXPECT_LE(std::fabs(rate - alpha), kZ2 * sd + 1e-6) << pr.name << " k=" << k << " pos " << j;
    }
  }
}

TEST(Speculative, EmittedTokensFollowTheTargetAndAcceptanceIsSumMin) {
  uint64_t seed = 100;
  for (const Pair& pr : pairs()) {
    run_pair(pr, 1, ++seed, 40000);
    run_pair(pr, 4, ++seed, 40000);
  }
}

// At T = 0 a draft token is accepted exactly when it is the target's greedy choice.
TEST(Speculative, AtTemperatureZeroTheGreedyTokenIsAcceptedAndNothingElse) {
  SamplerOptions o;
  o.temperature = 0;
  smx::Sampler s;
  ASSERT_EQ(s.configure(o), SampleStatus::kOk);
  s.seed(5);
  const size_t n = 50, k = 4;
  std::mt19937 g(3);
  for (int it = 0; it < 500; ++it) {
    auto target = ref::normal((k + 1) * n, 2.0, static_cast<uint32_t>(it));
    std::vector<int32_t> greedy(k + 1), draft(k);
    for (size_t j = 0; j <= k; ++j)
      greedy[j] = static_cast<int32_t>(
          std::max_element(target.begin() + j * n, target.begin() + (j + 1) * n) -
          (target.begin() + j * n));
    std::vector<float> q(k * n, 0.0f);
    for (size_t j = 0; j < k; ++j) {
      draft[j] = g() % 3 != 0 ? greedy[j] : static_cast<int32_t>(g() % n);
      q[j * n + draft[j]] = 0.6f;
      q[j * n + (draft[j] + 1) % n] = 0.4f;
    }
    size_t want = 0;
    while (want < k && draft[want] == greedy[want]) ++want;
    std::vector<int32_t> out(k + 1);
    size_t a = 99;
    ASSERT_EQ(s.verify_draft(draft.data(), q.data(), k, target.data(), n, out.data(), &a),
              SampleStatus::kOk);
    ASSERT_EQ(a, want);
    for (size_t j = 0; j <= a; ++j) ASSERT_EQ(out[j], greedy[j]) << it << " " << j;
  }
}

// A draft token of draft probability 0 that the target gives mass: accepted
// (min(1, p / 0) = 1); one the target gives none: rejected.
TEST(Speculative, ZeroDraftProbability) {
  smx::Sampler s;
  s.seed(1);
  const std::vector<float> target = {0, 1, 2, 0, 1, 2};
  const std::vector<float> q = {1, 0, 0};
  for (int it = 0; it < 100; ++it) {
    int32_t draft = 2, out[2];
    size_t a = 9;
    ASSERT_EQ(s.verify_draft(&draft, q.data(), 1, target.data(), 3, out, &a), SampleStatus::kOk);
    EXPECT_EQ(a, 1u);
    EXPECT_EQ(out[0], 2);
  }
  const std::vector<float> masked = {0, -kInf, 2, 0, 1, 2};
  const std::vector<float> q2 = {0.5f, 0.5f, 0};
  for (int it = 0; it < 100; ++it) {
    int32_t draft = 1, out[2];
    size_t a = 9;
    ASSERT_EQ(s.verify_draft(&draft, q2.data(), 1, masked.data(), 3, out, &a), SampleStatus::kOk);
    EXPECT_EQ(a, 0u);
    EXPECT_NE(out[0], 1);
  }
}

// A mask row per position: a forbidden draft token is never accepted, no
// emitted token is forbidden at its position.
TEST(Speculative, MaskRowsApplyPerPosition) {
  const size_t n = 64, k = 3, w = smx::mask_words(n);
  const auto target = ref::normal((k + 1) * n, 1.0, 21);
  std::vector<float> q(k * n, 1.0f / n);
  std::vector<uint32_t> m((k + 1) * w, 0xFFFFFFFFu);
  m[0 * w + 0] = 0xFFFFFFFEu;          // position 0: token 0 forbidden
  m[1 * w + 1] = 0;                    // position 1: tokens 32..63 forbidden
  m[3 * w + 0] = 0, m[3 * w + 1] = 1;  // bonus position: token 32 only
  smx::Sampler s;
  s.seed(9);
  for (int it = 0; it < 2000; ++it) {
    const int32_t draft[3] = {0, it % 2 ? 40 : 1, it % 64};
    int32_t out[4];
    size_t a = 0;
    ASSERT_EQ(s.verify_draft(draft, q.data(), k, target.data(), n, out, &a, m.data()),
              SampleStatus::kOk);
    EXPECT_EQ(a, 0u);  // draft[0] = 0 is forbidden at position 0
    EXPECT_NE(out[0], 0);
  }
  // All accepted when the draft is the only allowed choice everywhere.
  std::vector<uint32_t> one((k + 1) * w, 0);
  for (size_t j = 0; j <= k; ++j) one[j * w] = 1u << (j + 1);
  const int32_t draft[3] = {1, 2, 3};
  int32_t out[4];
  size_t a = 0;
  ASSERT_EQ(s.verify_draft(draft, q.data(), k, target.data(), n, out, &a, one.data()),
            SampleStatus::kOk);
  EXPECT_EQ(a, k);
  EXPECT_EQ(out[3], 4);
}

// verify_draft leaves the history alone: penalties see drafted tokens only after accept().
TEST(Speculative, TheHistoryChangesOnlyThroughAccept) {
  SamplerOptions o;
  o.repetition_penalty = 3.0f;
  smx::Sampler a, b;
  ASSERT_EQ(a.configure(o), SampleStatus::kOk);
  ASSERT_EQ(b.configure(o), SampleStatus::kOk);
  const std::vector<float> target = {3, 2, 1, 0, 3, 2, 1, 0};
  const std::vector<float> q = {0.7f, 0.1f, 0.1f, 0.1f};
  const int32_t draft = 0;
  int32_t out[2];
  size_t acc = 0;
  ASSERT_EQ(a.verify_draft(&draft, q.data(), 1, target.data(), 4, out, &acc), SampleStatus::kOk);
  std::vector<float> pa(4), pb(4);
  ASSERT_EQ(a.probs(target.data(), 4, pa.data()), SampleStatus::kOk);
  ASSERT_EQ(b.probs(target.data(), 4, pb.data()), SampleStatus::kOk);
  EXPECT_EQ(pa, pb);
  ASSERT_EQ(a.accept(out, acc + 1), SampleStatus::kOk);
  ASSERT_EQ(a.probs(target.data(), 4, pa.data()), SampleStatus::kOk);
  EXPECT_NE(pa, pb);
}

TEST(Speculative, ErrorsComeBeforeAnyDrawAndLeaveTheStreamAlone) {
  const size_t n = 4, k = 2;
  const std::vector<float> target(12, 0.0f);
  const std::vector<float> q = {0.25f, 0.25f, 0.25f, 0.25f, 0.1f, 0.2f, 0.3f, 0.4f};
  smx::Sampler s, fresh;
  s.seed(4), fresh.seed(4);
  int32_t out[3];
  size_t a = 0;
  const int32_t bad_token[2] = {1, 4};
  EXPECT_EQ(s.verify_draft(bad_token, q.data(), k, target.data(), n, out, &a),
            SampleStatus::kBadToken);
  EXPECT_EQ(s.error_index(), 1u);
  const int32_t draft[2] = {1, 2};
  for (float bad : {-0.1f, NAN, 1.5f, kInf}) {
    auto qb = q;
    qb[6] = bad;
    EXPECT_EQ(s.verify_draft(draft, qb.data(), k, target.data(), n, out, &a),
              SampleStatus::kBadDraft);
    EXPECT_EQ(s.error_index(), 6u);
  }
  auto qs = q;
  qs[4] = 0.2f;  // row 1 sums to 1.1
  EXPECT_EQ(s.verify_draft(draft, qs.data(), k, target.data(), n, out, &a),
            SampleStatus::kDraftSum);
  EXPECT_EQ(s.error_index(), 1u);
  // A NaN in row 2 (the bonus row), entry 1: found once both drafts are accepted.
  std::vector<float> peaked = {0, 30, 0, 0, 0, 0, 30, 0, 0, 0, 0, 0};
  peaked[9] = NAN;
  const std::vector<float> qp = {0, 1, 0, 0, 0, 0, 1, 0};
  EXPECT_EQ(s.verify_draft(draft, qp.data(), k, peaked.data(), n, out, &a),
            SampleStatus::kNaNScore);
  EXPECT_EQ(s.error_index(), 9u);
  EXPECT_EQ(s.verify_draft(draft, q.data(), 0, target.data(), 0, out, &a), SampleStatus::kEmpty);
  // The errors before the target rows consumed nothing.
  smx::Sampler t;
  t.seed(4);
  EXPECT_EQ(t.verify_draft(draft, qp.data(), k, peaked.data(), n, out, &a),
            SampleStatus::kNaNScore);
  for (int it = 0; it < 20; ++it) {
    int32_t o1[3], o2[3];
    size_t a1 = 0, a2 = 0;
    ASSERT_EQ(s.verify_draft(draft, q.data(), k, target.data(), n, o1, &a1), SampleStatus::kOk);
    ASSERT_EQ(t.verify_draft(draft, q.data(), k, target.data(), n, o2, &a2), SampleStatus::kOk);
    ASSERT_EQ(a1, a2);
    for (size_t j = 0; j <= a1; ++j) ASSERT_EQ(o1[j], o2[j]);
  }
}

// k = 0: one draw from the target's row, exactly sample().
TEST(Speculative, NoDraftTokensIsOneSample) {
  const auto x = ref::normal(1000, 2.0, 5);
  smx::Sampler a, b;
  a.seed(8), b.seed(8);
  for (int it = 0; it < 100; ++it) {
    int32_t out[1], t = -1;
    size_t acc = 9;
    ASSERT_EQ(a.verify_draft(nullptr, nullptr, 0, x.data(), 1000, out, &acc), SampleStatus::kOk);
    ASSERT_EQ(b.sample(x.data(), 1000, &t), SampleStatus::kOk);
    EXPECT_EQ(acc, 0u);
    EXPECT_EQ(out[0], t);
  }
}

}  // namespace
