// smx::Sampler: every filter against an independent double-precision,
// sort-based reference written here from the definitions (HF transformers'
// warpers, llama.cpp's samplers); chi-square goodness of fit of the draws;
// the golden file; errors.
#include "smx/sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "sampler_golden.h"

namespace {

using smx::SamplerOptions;
using smx::SampleStatus;
using smx::Step;
constexpr float kInf = std::numeric_limits<float>::infinity();

// ---------------------------------------------------------------------------
// Reference: sorts the candidates by (logit desc, index asc) at each step and
// computes probabilities in double with std::exp.
struct RefResult {
  std::vector<double> probs;  // over the vocabulary
  bool ambiguous = false;     // a cut sits within float32 rounding of its threshold
};

struct Ref {
  SamplerOptions o;
  std::map<uint32_t, float> bias;
  std::vector<int32_t> history;

  std::vector<double> processed(const std::vector<float>& x) const {
    std::vector<double> l(x.begin(), x.end());
    for (const auto& [i, b] : bias) l[i] = b == -kInf ? -INFINITY : l[i] + b;
    if (o.penalty_last_n == 0) return l;
    size_t w = history.size();
    if (o.penalty_last_n > 0) w = std::min<size_t>(w, o.penalty_last_n);
    std::map<int32_t, int> count;
    for (size_t i = history.size() - w; i < history.size(); ++i) count[history[i]]++;
    for (const auto& [t, c] : count) {
      double& v = l[t];
      v = v > 0 ? v / o.repetition_penalty : v * o.repetition_penalty;
      v -= c * static_cast<double>(o.frequency_penalty) + static_cast<double>(o.presence_penalty);
    }
    return l;
  }

  RefResult run(const std::vector<float>& x) const {
    const std::vector<double> l0 = processed(x);
    std::vector<size_t> cand;
    for (size_t i = 0; i < x.size(); ++i)
      if (l0[i] != -INFINITY) cand.push_back(i);
    std::vector<double> l = l0;
    double t = 1;
    RefResult r;
    auto probs = [&](const std::vector<size_t>& c) {  // aligned with c
      double m = -INFINITY;
      for (size_t i : c) m = std::max(m, l[i]);
      std::vector<double> p(c.size());
      size_t ninf = 0;
      for (size_t i : c) ninf += l[i] == INFINITY;
      double s = 0;
      for (size_t j = 0; j < c.size(); ++j) {
        p[j] = ninf ? (l[c[j]] == INFINITY ? 1.0 : 0.0) : std::exp((l[c[j]] - m) / t);
        s += p[j];
      }
      for (auto& v : p) v /= s;
      return p;
    };
    auto by_logit = [&](std::vector<size_t> c) {
      std::sort(c.begin(), c.end(),
                [&](size_t a, size_t b) { return l[a] > l[b] || (l[a] == l[b] && a < b); });
      return c;
    };
    auto keep_prefix = [&](const std::vector<size_t>& sorted, size_t k) {
      k = std::max<size_t>(k, std::min<size_t>(o.min_keep, sorted.size()));
      std::vector<size_t> c(sorted.begin(), sorted.begin() + std::min(k, sorted.size()));
      std::sort(c.begin(), c.end());
      return c;
    };
    // Shortest prefix of `sorted` (with probabilities ps) whose mass reaches p.
    auto mass_prefix = [&](const std::vector<double>& ps, double p) {
      const double target = p - smx::kMassSlack;
      double cum = 0;
      size_t k = ps.size();
      for (size_t j = 0; j < ps.size(); ++j) {
        cum += ps[j];
        if (std::fabs(cum - target) < 2e-5) r.ambiguous = true;
        if (cum >= target && k == ps.size()) k = j + 1;
      }
      return k;
    };
    for (int s = 0; s < o.order_len; ++s) {
      switch (o.order[s]) {
        case Step::kTemperature:
          if (o.temperature == 0) {
            cand = {by_logit(cand)[0]};
          } else if (o.temperature == kInf) {
            for (size_t i : cand) l[i] = 0;
          } else {
            t = o.temperature;
          }
          break;
        case Step::kTopK:
          if (o.top_k > 0) cand = keep_prefix(by_logit(cand), o.top_k);
          break;
        case Step::kTopP:
          if (o.top_p < 1 && cand.size() > 1) {
            const auto sorted = by_logit(cand);
            const auto ps = probs(sorted);
            cand = keep_prefix(sorted, mass_prefix(ps, o.top_p));
          }
          break;
        case Step::kMinP:
          if (o.min_p > 0 && cand.size() > 1) {
            const auto ps = probs(cand);
            const double pmax = *std::max_element(ps.begin(), ps.end());
            std::vector<size_t> kept;
            for (size_t j = 0; j < cand.size(); ++j) {
              if (std::fabs(ps[j] / pmax - o.min_p) < 2e-5) r.ambiguous = true;
              if (ps[j] >= o.min_p * pmax * (1 - smx::kMassSlack)) kept.push_back(cand[j]);
            }
            cand = kept.size() >= std::min<size_t>(o.min_keep, cand.size())
                       ? kept
                       : keep_prefix(by_logit(cand), o.min_keep);
          }
          break;
        case Step::kTypicalP:
          if (o.typical_p < 1 && cand.size() > 1) {
            const auto ps = probs(cand);
            double h = 0;
            for (double p : ps)
              if (p > 0) h -= p * std::log(p);
            std::vector<double> key(x.size());
            std::map<size_t, double> pm;
            for (size_t j = 0; j < cand.size(); ++j) {
              key[cand[j]] = std::fabs(-std::log(ps[j]) - h);
              pm[cand[j]] = ps[j];
            }
            auto sorted = cand;
            std::sort(sorted.begin(), sorted.end(), [&](size_t a, size_t b) {
              return key[a] < key[b] || (key[a] == key[b] && a < b);
            });
            std::vector<double> sp;
            for (size_t i : sorted) sp.push_back(pm[i]);
            const size_t k = mass_prefix(sp, o.typical_p);
            // Float32 log-probabilities can swap two distinct near-equal keys.
            for (size_t j = 0; j + 1 < sorted.size(); ++j) {
              const double a = key[sorted[j]], b = key[sorted[j + 1]];
              if (l[sorted[j]] != l[sorted[j + 1]] && std::fabs(a - b) < 1e-4 * (1 + a) &&
                  j + 1 == k)
                r.ambiguous = true;
            }
            if (k < std::min<size_t>(o.min_keep, sorted.size())) {
              cand = keep_prefix(sorted, o.min_keep);  // the first of the typical order (HF)
            } else {
              cand.assign(sorted.begin(), sorted.begin() + k);
              std::sort(cand.begin(), cand.end());
            }
          }
          break;
        default:  // the further steps: off here (sampler_steps_test.cpp)
          break;
      }
    }
    const auto ps = probs(cand);
    r.probs.assign(x.size(), 0.0);
    for (size_t j = 0; j < cand.size(); ++j) r.probs[cand[j]] = ps[j];
    return r;
  }
};

smx::Sampler make(const SamplerOptions& o, uint64_t seed = 1) {
  smx::Sampler s;
  EXPECT_EQ(s.configure(o), SampleStatus::kOk);
  s.seed(seed);
  return s;
}

std::vector<float> probs_of(smx::Sampler& s, const std::vector<float>& x) {
  std::vector<float> p(x.size());
  EXPECT_EQ(s.probs(x.data(), x.size(), p.data()), SampleStatus::kOk);
  return p;
}

std::vector<double> probs_of(const SamplerOptions& o, const std::vector<float>& x) {
  auto s = make(o);
  const auto p = probs_of(s, x);
  return {p.begin(), p.end()};
}

void set_order(SamplerOptions& o, std::initializer_list<Step> steps) {
  o.order_len = 0;
  for (Step s : steps) o.order[o.order_len++] = s;
}

std::vector<size_t> support(const std::vector<double>& p) {
  std::vector<size_t> s;
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] > 0) s.push_back(i);
  return s;
}

// The same support as the reference and the same probabilities within float32 rounding.
void expect_matches_reference(smx::Sampler& s, const Ref& ref, const std::vector<float>& x,
                              const std::string& what) {
  const auto p = probs_of(s, x);
  const auto r = ref.run(x).probs;
  double sum = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    // Removed entries are exactly 0; a kept entry may underflow float32 (p < 2^-126).
    if (r[i] == 0 || p[i] == 0) {
      ASSERT_TRUE(p[i] == 0 && r[i] < 1e-37)
          << what << " i=" << i << " ours " << p[i] << " ref " << r[i];
    }
    ASSERT_NEAR(p[i], r[i], 2e-6 + 2e-5 * r[i]) << what << " i=" << i;
    sum += p[i];
  }
  EXPECT_NEAR(sum, 1.0, 1e-5) << what;
}

// ---------------------------------------------------------------------------
TEST(Sampler, LlamaCppTopPCaseKeepsPoint4AndPoint3) {
  // llama.cpp tests/test-sampling.cpp: probs {0.1, 0.2, 0.3, 0.4}, top-p 0.7 -> {0.4, 0.3}.
  const std::vector<float> x = {std::log(0.1f), std::log(0.2f), std::log(0.3f), std::log(0.4f)};
  auto check = [&](double p, std::vector<double> expected) {
    SamplerOptions o;
    o.top_p = p;
    const auto got = probs_of(o, x);
    for (size_t i = 0; i < 4; ++i)
      EXPECT_NEAR(got[i], expected[i], 1e-6) << "top-p " << p << " i=" << i;
  };
  check(0.7, {0, 0, 0.3 / 0.7, 0.4 / 0.7});
  check(0.8, {0, 0.2 / 0.9, 0.3 / 0.9, 0.4 / 0.9});
  check(1.0, {0.1, 0.2, 0.3, 0.4});
  check(1e-9, {0, 0, 0, 1});
}

TEST(Sampler, LlamaCppTopKAndMinPCases) {
  const std::vector<float> x = {std::log(0.1f), std::log(0.2f), std::log(0.3f), std::log(0.4f)};
  SamplerOptions o;
  o.top_k = 1;
  EXPECT_EQ(probs_of(o, x), (std::vector<double>{0, 0, 0, 1}));
  o.top_k = 3;
  auto p = probs_of(o, x);
  EXPECT_NEAR(p[1], 0.2 / 0.9, 1e-6);
  EXPECT_EQ(p[0], 0);
  o = {};
  o.min_p = 0.76;  // 0.3 / 0.4 = 0.75 < 0.76: only 0.4 stays
  EXPECT_EQ(probs_of(o, x), (std::vector<double>{0, 0, 0, 1}));
  o.min_p = 0.5;  // 0.2 / 0.4 = 0.5 reaches it (within kMassSlack)
  p = probs_of(o, x);
  EXPECT_EQ(p[0], 0);
  EXPECT_NEAR(p[1], 0.2 / 0.9, 1e-6);
}

TEST(Sampler, TopKKeepsExactlyKWithTiesByLowerIndex) {
  const std::vector<float> x = {1, 2, 2, 2, 0, 2};
  SamplerOptions o;
  o.top_k = 2;
  EXPECT_EQ(support(probs_of(o, x)), (std::vector<size_t>{1, 2}));
  o.top_k = 4;
  EXPECT_EQ(support(probs_of(o, x)), (std::vector<size_t>{1, 2, 3, 5}));
  o.top_k = 100;
  EXPECT_EQ(support(probs_of(o, x)).size(), 6u);
  // Many ties across the selection's small-range and partition paths.
  std::vector<float> big(1000);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<float>(i % 7);
  for (uint32_t k : {1u, 5u, 100u, 142u, 143u, 144u, 500u}) {
    o.top_k = k;
    const auto s = support(probs_of(o, big));
    ASSERT_EQ(s.size(), k);
    std::vector<size_t> expected;
    for (float level = 6; level >= 0; --level)
      for (size_t i = 0; i < big.size() && expected.size() < k; ++i)
        if (big[i] == level) expected.push_back(i);
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(s, expected) << "k=" << k;
  }
}

TEST(Sampler, TopPTiesKeepLowerIndexFirst) {
  SamplerOptions o;
  o.top_p = 0.5;  // four equal entries: two reach 0.5
  EXPECT_EQ(support(probs_of(o, {1, 1, 1, 1})), (std::vector<size_t>{0, 1}));
  o.top_p = 0.29;  // e / (1 + 3e) = 0.297 each
  EXPECT_EQ(support(probs_of(o, {0, 1, 1, 1})), (std::vector<size_t>{1}));
  o.top_p = 0.3;
  EXPECT_EQ(support(probs_of(o, {0, 1, 1, 1})), (std::vector<size_t>{1, 2}));
}

TEST(Sampler, MaskedEntriesGetZeroAndAreNeverDrawn) {
  const std::vector<float> x = {-kInf, 0, -kInf, 1, -kInf};
  auto s = make({}, 3);
  const auto p = probs_of(s, x);
  EXPECT_EQ(p[0], 0);
  EXPECT_EQ(p[2], 0);
  EXPECT_EQ(p[4], 0);
  std::vector<int32_t> d(10000);
  ASSERT_EQ(s.sample_many(x.data(), x.size(), d.size(), d.data()), SampleStatus::kOk);
  for (int32_t v : d) ASSERT_TRUE(v == 1 || v == 3);
}

TEST(Sampler, GreedyAtTemperatureZeroTakesTheFirstMaximum) {
  SamplerOptions o;
  o.temperature = 0;
  auto s = make(o, 5);
  const std::vector<float> x = {1, 3, 3, 2};
  for (int i = 0; i < 100; ++i) {
    int32_t t = -1;
    ASSERT_EQ(s.sample(x.data(), x.size(), &t), SampleStatus::kOk);
    ASSERT_EQ(t, 1);
  }
  EXPECT_EQ(probs_of(s, x), (std::vector<float>{0, 1, 0, 0}));
}

TEST(Sampler, TemperatureInfinityIsUniformOverUnmasked) {
  SamplerOptions o;
  o.temperature = kInf;
  const auto p = probs_of(o, {5, -kInf, -100, 1e30f});
  EXPECT_EQ(p[1], 0);
  for (int i : {0, 2, 3}) EXPECT_EQ(p[i], p[0]);
  EXPECT_NEAR(p[0], 1.0 / 3, 1e-7);
}

TEST(Sampler, PlusInfinityEntriesShareTheMass) {
  EXPECT_EQ(probs_of(SamplerOptions{}, {kInf, 0, kInf, 1}), (std::vector<double>{0.5, 0, 0.5, 0}));
}

TEST(Sampler, HfAndLlamaCppOrdersDifferWhereTemperatureMatters) {
  const std::vector<float> x = {2, 1, 0};
  SamplerOptions hf;
  hf.temperature = 2, hf.top_p = 0.6;
  SamplerOptions ll = hf;
  set_order(ll, {Step::kTopK, Step::kTypicalP, Step::kTopP, Step::kMinP, Step::kTemperature});
  // At T = 2 the first entry has 0.506 < 0.6: hf keeps two; at T = 1 it has 0.665: llama.cpp keeps
  // one.
  EXPECT_EQ(support(probs_of(hf, x)), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(support(probs_of(ll, x)), (std::vector<size_t>{0}));
  hf.top_p = 1, hf.temperature = 3, hf.min_p = 0.5;
  ll.top_p = 1, ll.temperature = 3, ll.min_p = 0.5;
  EXPECT_EQ(support(probs_of(hf, x)).size(), 3u);  // ratios e^(-1/3), e^(-2/3) at T = 3
  EXPECT_EQ(support(probs_of(ll, x)), (std::vector<size_t>{0}));
  // Without a probability filter the two orders agree.
  hf.min_p = 0, ll.min_p = 0, hf.top_k = 2, ll.top_k = 2;
  EXPECT_EQ(probs_of(hf, x), probs_of(ll, x));
}

TEST(Sampler, LogitBiasAndPenaltiesFollowTheirFormulas) {
  SamplerOptions o;
  o.repetition_penalty = 2, o.frequency_penalty = 0.5f, o.presence_penalty = 0.25f,
  o.penalty_last_n = 3;
  smx::Sampler s = make(o);
  const int32_t hist[] = {0, 1, 1, 2};  // the window (last 3) holds 1, 1, 2
  ASSERT_EQ(s.accept(hist, 4), SampleStatus::kOk);
  const uint32_t bi[] = {3};
  const float bv[] = {-kInf};
  ASSERT_EQ(s.set_logit_bias(bi, bv, 1), SampleStatus::kOk);
  const std::vector<float> x = {1, 2, -2, 9};
  // 0: untouched 1; 1: 2 / 2 - (2 * 0.5 + 0.25) = -0.25; 2: -2 * 2 - 0.75 = -4.75; 3: banned.
  const double l[] = {1, -0.25, -4.75};
  const double z = std::exp(l[0]) + std::exp(l[1]) + std::exp(l[2]);
  const auto p = probs_of(s, x);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(p[i], std::exp(l[i]) / z, 1e-6) << i;
  EXPECT_EQ(p[3], 0);
  s.clear_history();
  const auto q = probs_of(s, x);
  EXPECT_NEAR(q[1] / q[0], std::exp(1.0), 1e-5);
}

TEST(Sampler, EveryFilterMatchesTheSortBasedReference) {
  std::mt19937 gen(12345);
  std::normal_distribution<double> normal(0, 1);
  std::uniform_real_distribution<double> unif(0, 1);
  const size_t sizes[] = {1, 2, 3, 5, 10, 17, 64, 100, 333, 1000, 4096, 20000};
  const float temps[] = {1, 0.3f, 0.7f, 1.5f, 0, kInf};
  int checked = 0, skipped = 0;
  for (int iter = 0; iter < 1500; ++iter) {
    const size_t n = sizes[iter % 12];
    const double sigma = unif(gen) < 0.5 ? 1 : 4;
    const bool ties = unif(gen) < 0.3, masks = unif(gen) < 0.3;
    std::vector<float> x(n);
    for (auto& v : x) {
      v = static_cast<float>(normal(gen) * sigma);
      if (ties) v = std::round(v * 2) / 2;
      if (masks && unif(gen) < 0.3) v = -kInf;
    }
    if (masks) x[gen() % n] = static_cast<float>(normal(gen));  // at least one unmasked
    Ref ref;
    SamplerOptions& o = ref.o;
    o.temperature = unif(gen) < 0.5 ? 1 : temps[gen() % 6];
    if (unif(gen) < 0.5) o.top_k = 1 + gen() % (n + 3);
    if (unif(gen) < 0.5) o.top_p = 0.05 + 0.95 * unif(gen);
    if (unif(gen) < 0.4) o.min_p = 0.3 * unif(gen);
    if (unif(gen) < 0.4) o.typical_p = 0.05 + 0.95 * unif(gen);
    if (unif(gen) < 0.3) o.min_keep = 1 + gen() % 5;
    const int ord = gen() % 3;
    if (ord == 1)
      set_order(o, {Step::kTopK, Step::kTypicalP, Step::kTopP, Step::kMinP, Step::kTemperature});
    if (ord == 2) std::shuffle(o.order, o.order + smx::kNumSteps, gen);
    if (unif(gen) < 0.2) {
      o.repetition_penalty = 1.5f, o.frequency_penalty = 0.3f, o.presence_penalty = -0.2f;
      o.penalty_last_n = gen() % 2 ? -1 : 4;
      for (int i = 0; i < 6; ++i) ref.history.push_back(static_cast<int32_t>(gen() % n));
    }
    if (unif(gen) < 0.2) ref.bias[gen() % n] = static_cast<float>(normal(gen));
    const RefResult rr = ref.run(x);
    if (rr.ambiguous) {
      ++skipped;
      continue;
    }
    smx::Sampler s = make(o);
    ASSERT_EQ(s.accept(ref.history.data(), ref.history.size()), SampleStatus::kOk);
    std::vector<uint32_t> bi;
    std::vector<float> bv;
    for (const auto& [i, b] : ref.bias) bi.push_back(i), bv.push_back(b);
    ASSERT_EQ(s.set_logit_bias(bi.data(), bv.data(), bi.size()), SampleStatus::kOk);
    bool all_masked = true;
    for (double v : ref.processed(x)) all_masked = all_masked && v == -INFINITY;
    if (all_masked) continue;
    expect_matches_reference(s, ref, x, "iter " + std::to_string(iter) + " n=" + std::to_string(n));
    if (HasFatalFailure()) return;
    ++checked;
  }
  EXPECT_GT(checked, 1300);
  std::printf("reference cases: %d checked, %d skipped as within rounding of a cut\n", checked,
              skipped);
}

// ---------------------------------------------------------------------------
// Chi-square goodness of fit of 1e5 draws against probs(). Bins with an
// expected count below 5 are pooled. Per test, false-alarm rate 1e-4: the
// critical value is the 0.9999 quantile of chi-square(df) by Wilson-Hilferty,
// df (1 - 2/(9 df) + z sqrt(2/(9 df)))^3 with z = 3.719 (slightly
// conservative for df <= 2). Over 24 fixed-seed tests: at most 0.24% overall.
double wilson_hilferty_999(double df) {
  const double z = 3.719016;
  const double a = 2 / (9 * df);
  return df * std::pow(1 - a + z * std::sqrt(a), 3);
}

struct Fit {
  double chi2, crit, df;
};

Fit chi_square(const SamplerOptions& o, const std::vector<float>& x, uint64_t seed) {
  smx::Sampler s = make(o, seed);
  const auto p = probs_of(s, x);
  const size_t n_draws = 100000;
  std::vector<int32_t> d(n_draws);
  EXPECT_EQ(s.sample_many(x.data(), x.size(), n_draws, d.data()), SampleStatus::kOk);
  std::vector<double> count(x.size(), 0);
  for (int32_t v : d) count[v] += 1;
  double total = 0;
  for (float v : p) total += v;
  double chi2 = 0, pool_e = 0, pool_o = 0;
  int bins = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (p[i] == 0) {
      EXPECT_EQ(count[i], 0) << "drew entry " << i << " of probability 0";
      continue;
    }
    const double e = n_draws * p[i] / total;
    if (e < 5) {
      pool_e += e, pool_o += count[i];
      continue;
    }
    chi2 += (count[i] - e) * (count[i] - e) / e;
    ++bins;
  }
  if (pool_e > 0) chi2 += (pool_o - pool_e) * (pool_o - pool_e) / std::max(pool_e, 1e-300), ++bins;
  const double df = std::max(bins - 1, 1);
  return {chi2, wilson_hilferty_999(df), df};
}

std::vector<float> zipf(size_t n, double s) {
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(-s * std::log(i + 1.0));
  return x;
}

std::vector<float> normal_scores(size_t n, double sigma, uint32_t seed, double masked = 0) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> d(0, sigma);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<float> x(n);
  for (auto& v : x) v = u(gen) < masked ? -kInf : static_cast<float>(d(gen));
  x[0] = 0;
  return x;
}

TEST(Sampler, ChiSquareGoodnessOfFitOver24Distributions) {
  struct Dist {
    std::string name;
    std::vector<float> x;
    SamplerOptions o;
  };
  auto opt = [](auto edit) {
    SamplerOptions o;
    edit(o);
    return o;
  };
  std::vector<Dist> ds = {
      {"[2,1,0]", {2, 1, 0}, {}},
      {"[2,1,0] T=0.5", {2, 1, 0}, opt([](auto& o) { o.temperature = 0.5f; })},
      {"[2,1,0] T=2", {2, 1, 0}, opt([](auto& o) { o.temperature = 2; })},
      {"uniform 10", std::vector<float>(10, 0), {}},
      {"uniform 1000", std::vector<float>(1000, 3), {}},
      {"zipf 50000", zipf(50000, 1.1), {}},
      {"zipf 50000 top-k 40", zipf(50000, 1.1), opt([](auto& o) { o.top_k = 40; })},
      {"zipf 50000 top-p 0.9", zipf(50000, 1.1), opt([](auto& o) { o.top_p = 0.9; })},
      {"zipf 50000 min-p 0.01", zipf(50000, 1.1), opt([](auto& o) { o.min_p = 0.01; })},
      {"normal 1000 30% masked", normal_scores(1000, 2, 1, 0.3), {}},
      {"masks [0,-inf,1,-inf,2]", {0, -kInf, 1, -kInf, 2}, {}},
      {"ties [1,1,1,0,0]", {1, 1, 1, 0, 0}, {}},
      {"normal 100 top-k 5", normal_scores(100, 1, 2), opt([](auto& o) { o.top_k = 5; })},
      {"normal 100 top-p 0.5", normal_scores(100, 1, 3), opt([](auto& o) { o.top_p = 0.5; })},
      {"normal 200 typical 0.8", normal_scores(200, 1.5, 4),
       opt([](auto& o) { o.typical_p = 0.8; })},
      {"normal 500 llama.cpp order", normal_scores(500, 2, 5), opt([](auto& o) {
         o.temperature = 1.5f, o.top_k = 50, o.top_p = 0.9;
         set_order(o, {Step::kTopK, Step::kTypicalP, Step::kTopP, Step::kMinP, Step::kTemperature});
       })},
      {"T=inf, masked", {1, -kInf, 5, 2, -kInf, 0, 9}, opt([](auto& o) { o.temperature = kInf; })},
      {"+inf entries", {kInf, 0, kInf, 1}, {}},
      {"spread 1e3", normal_scores(300, 1e3, 6), opt([](auto& o) { o.temperature = 300; })},
      {"min-keep 4 with top-p 0.01", normal_scores(50, 1, 7),
       opt([](auto& o) { o.top_p = 0.01, o.min_keep = 4; })},
      {"128256 normal, T 0.8, top-k 40, top-p 0.95", normal_scores(128256, 3, 8),
       opt([](auto& o) { o.temperature = 0.8f, o.top_k = 40, o.top_p = 0.95; })},
      {"[0, -3]", {0, -3}, {}},
      {"32000 normal, 10% masked, min-p 0.02", normal_scores(32000, 2.5, 9, 0.1),
       opt([](auto& o) { o.min_p = 0.02; })},
      {"10 entries T=0.25",
       {0.1f, 0.5f, 0.2f, 0.9f, 0.4f, 0.3f, 0.8f, 0.0f, 0.6f, 0.7f},
       opt([](auto& o) { o.temperature = 0.25f; })},
  };
  ASSERT_GE(ds.size(), 20u);
  uint64_t seed = 1000;
  for (const auto& d : ds) {
    const Fit f = chi_square(d.o, d.x, ++seed);
    std::printf("  %-45s chi2 %9.2f  df %6.0f  critical %9.2f\n", d.name.c_str(), f.chi2, f.df,
                f.crit);
    EXPECT_LT(f.chi2, f.crit) << d.name;
  }
}

TEST(Sampler, CourseExampleFrequencies) {
  // softmax([2, 1, 0]) = [0.665, 0.245, 0.090]: the second candidate about 24%
  // of the time, the third about 9%; greedy always the first.
  const std::vector<float> x = {2, 1, 0};
  smx::Sampler s = make({}, 2718);
  std::vector<int32_t> d(100000);
  ASSERT_EQ(s.sample_many(x.data(), 3, d.size(), d.data()), SampleStatus::kOk);
  std::vector<double> f(3, 0);
  for (int32_t v : d) f[v] += 1.0 / d.size();
  const double e1 = std::exp(1.0) / (std::exp(2.0) + std::exp(1.0) + 1);
  const double e2 = 1 / (std::exp(2.0) + std::exp(1.0) + 1);
  EXPECT_NEAR(f[1], e1, 5 * std::sqrt(e1 * (1 - e1) / d.size()));  // 0.2447
  EXPECT_NEAR(f[2], e2, 5 * std::sqrt(e2 * (1 - e2) / d.size()));  // 0.0900
  EXPECT_NEAR(f[1], 0.24, 0.01);
  EXPECT_NEAR(f[2], 0.09, 0.01);
  SamplerOptions g;
  g.temperature = 0;
  smx::Sampler greedy = make(g, 1);
  ASSERT_EQ(greedy.sample_many(x.data(), 3, d.size(), d.data()), SampleStatus::kOk);
  for (int32_t v : d) ASSERT_EQ(v, 0);
}

// ---------------------------------------------------------------------------
TEST(Sampler, SameSeedSameIndicesAndSampleManyEqualsRepeatedSample) {
  const auto x = normal_scores(5000, 2, 11);
  SamplerOptions o;
  o.top_p = 0.9, o.temperature = 0.9f;
  smx::Sampler a = make(o, 77), b = make(o, 77), c = make(o, 78);
  std::vector<int32_t> many(500);
  ASSERT_EQ(b.sample_many(x.data(), x.size(), many.size(), many.data()), SampleStatus::kOk);
  int differ = 0;
  for (size_t i = 0; i < many.size(); ++i) {
    int32_t t = -1, u = -1;
    ASSERT_EQ(a.sample(x.data(), x.size(), &t), SampleStatus::kOk);
    ASSERT_EQ(t, many[i]);
    c.sample(x.data(), x.size(), &u);
    differ += u != t;
  }
  EXPECT_GT(differ, 400);
  a.seed(77);  // reseeding restarts the stream
  int32_t t = -1;
  a.sample(x.data(), x.size(), &t);
  EXPECT_EQ(t, many[0]);
}

TEST(Sampler, BatchSamplesEachRowWithOneDraw) {
  const size_t rows = 4, n = 300;
  std::vector<float> x;
  for (size_t r = 0; r < rows; ++r) {
    const auto row = normal_scores(n, 2, 20 + r);
    x.insert(x.end(), row.begin(), row.end());
  }
  SamplerOptions o;
  o.top_k = 20;
  smx::Sampler a = make(o, 9), b = make(o, 9);
  std::vector<int32_t> out(rows);
  ASSERT_EQ(a.sample_batch(x.data(), rows, n, out.data()), SampleStatus::kOk);
  for (size_t r = 0; r < rows; ++r) {
    int32_t t = -1;
    ASSERT_EQ(b.sample(x.data() + r * n, n, &t), SampleStatus::kOk);
    EXPECT_EQ(out[r], t) << r;
  }
  x[2 * n + 7] = NAN;
  EXPECT_EQ(a.sample_batch(x.data(), rows, n, out.data()), SampleStatus::kNaNScore);
  EXPECT_EQ(a.error_index(), 2 * n + 7);
}

TEST(Sampler, LogprobsBeforeAndAfterTheFilters) {
  const std::vector<float> x = {0.5f, 3, -kInf, 3, 1, 2};
  SamplerOptions o;
  o.top_k = 2, o.temperature = 0.5f;
  smx::Sampler s = make(o);
  int32_t idx[6];
  float before[6], after[6];
  ASSERT_EQ(s.logprobs(x.data(), x.size(), 10, idx, before, after), SampleStatus::kOk);
  EXPECT_EQ(std::vector<int32_t>(idx, idx + 6), (std::vector<int32_t>{1, 3, 5, 4, 0, 2}));
  double z = 0;
  for (float v : x) z += std::exp(static_cast<double>(v));
  for (int j = 0; j < 5; ++j) EXPECT_NEAR(before[j], x[idx[j]] - std::log(z), 1e-6) << j;
  EXPECT_EQ(before[5], -kInf);
  EXPECT_NEAR(after[0], std::log(0.5), 1e-6);
  EXPECT_NEAR(after[1], std::log(0.5), 1e-6);
  for (int j = 2; j < 6; ++j) EXPECT_EQ(after[j], -kInf);
}

TEST(Sampler, ErrorsAreStatusesAndTheSamplerKeepsWorking) {
  smx::Sampler s = make({});
  int32_t t = -1;
  const std::vector<float> good = {0, 1};
  EXPECT_EQ(s.sample(good.data(), 0, &t), SampleStatus::kEmpty);
  const std::vector<float> nan = {0, 1, NAN};
  EXPECT_EQ(s.sample(nan.data(), 3, &t), SampleStatus::kNaNScore);
  EXPECT_EQ(s.error_index(), 2u);
  const std::vector<float> masked = {-kInf, -kInf};
  EXPECT_EQ(s.sample(masked.data(), 2, &t), SampleStatus::kAllMasked);
  const uint32_t bi[] = {5};
  const float bv[] = {1};
  ASSERT_EQ(s.set_logit_bias(bi, bv, 1), SampleStatus::kOk);
  EXPECT_EQ(s.sample(good.data(), 2, &t), SampleStatus::kBadToken);
  EXPECT_EQ(s.error_index(), 5u);
  const float nanb[] = {NAN};
  EXPECT_EQ(s.set_logit_bias(bi, nanb, 1), SampleStatus::kBadOption);
  ASSERT_EQ(s.set_logit_bias(nullptr, nullptr, 0), SampleStatus::kOk);
  const int32_t neg = -1;
  EXPECT_EQ(s.accept(&neg, 1), SampleStatus::kBadToken);
  for (auto edit : std::vector<void (*)(SamplerOptions&)>{
           [](SamplerOptions& o) { o.temperature = -1; },
           [](SamplerOptions& o) { o.temperature = NAN; }, [](SamplerOptions& o) { o.top_p = 0; },
           [](SamplerOptions& o) { o.top_p = 1.5; }, [](SamplerOptions& o) { o.min_p = -0.1; },
           [](SamplerOptions& o) { o.min_p = 2; }, [](SamplerOptions& o) { o.typical_p = 0; },
           [](SamplerOptions& o) { o.min_keep = 0; },
           [](SamplerOptions& o) { o.repetition_penalty = 0; },
           [](SamplerOptions& o) { o.frequency_penalty = kInf; },
           [](SamplerOptions& o) { o.penalty_last_n = -2; },
           [](SamplerOptions& o) { o.order[1] = Step::kTemperature; },
           [](SamplerOptions& o) { o.top_k = 3, o.order_len = 0; }}) {
    SamplerOptions o;
    edit(o);
    EXPECT_EQ(s.configure(o), SampleStatus::kBadOption);
  }
  ASSERT_EQ(s.sample(good.data(), 2, &t), SampleStatus::kOk);
  EXPECT_TRUE(t == 0 || t == 1);
}

TEST(Sampler, SelectionSurvivesAdversarialOrders) {
  // Sorted, reversed, organ-pipe and constant inputs (quickselect's bad cases).
  const size_t n = 20000;
  std::vector<std::vector<float>> inputs(4, std::vector<float>(n));
  for (size_t i = 0; i < n; ++i) {
    inputs[0][i] = static_cast<float>(i);
    inputs[1][i] = static_cast<float>(n - i);
    inputs[2][i] = static_cast<float>(i < n / 2 ? i : n - i);
    inputs[3][i] = 1;
  }
  for (const auto& x : inputs) {
    Ref ref;
    ref.o.top_k = 777, ref.o.temperature = 500;
    smx::Sampler s = make(ref.o);
    expect_matches_reference(s, ref, x, "top-k");
    ref.o = {};
    ref.o.top_p = 0.37, ref.o.temperature = 2000;
    if (!ref.run(x).ambiguous) {
      smx::Sampler s2 = make(ref.o);
      expect_matches_reference(s2, ref, x, "top-p");
    }
  }
}

TEST(Sampler, GoldenFileMatchesTheNativeBuild) {
  std::ifstream f(std::string(SMX_GOLDEN_DIR) + "/sampler.json", std::ios::binary);
  ASSERT_TRUE(f.good()) << "tests/golden/sampler.json missing: run make_sampler_golden";
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_TRUE(ss.str() == golden::json())
      << "tests/golden/sampler.json differs from the native build; if the change is intended, "
         "regenerate it with make_sampler_golden";
  for (const auto& c : golden::cases()) EXPECT_EQ(golden::run(c).size(), c.draws) << c.name;
}

}  // namespace
