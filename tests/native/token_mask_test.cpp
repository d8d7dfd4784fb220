// Token masks in smx::Sampler: a masked call equals the call on scores whose
// forbidden entries are -Infinity (bit for bit, draws included) for every kind
// of option (the top-k fast path, the general path, bias, penalties, min_keep,
// T = 0 and Infinity); probabilities against a double reference; NaN and
// errors; per-row masks in batches; apply_token_bitmask.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "reference.h"
#include "smx/sampler.h"

namespace {

using smx::SamplerOptions;
using smx::SampleStatus;
constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<uint32_t> random_mask(size_t n, uint32_t seed, int density_shift) {
  std::mt19937 g(seed);
  std::vector<uint32_t> m(smx::mask_words(n));
  for (auto& w : m) {
    w = g();
    for (int i = 0; i < density_shift; ++i) w &= g();  // about 2^-density_shift of the bits
    if (g() % 5 == 0) w = 0xFFFFFFFFu;
    if (g() % 5 == 0) w = 0;
  }
  m[0] |= 1u;  // at least one token allowed
  return m;
}

std::vector<float> masked_copy(const std::vector<float>& x, const std::vector<uint32_t>& m) {
  std::vector<float> y(x);
  for (size_t i = 0; i < x.size(); ++i)
    if (!((m[i >> 5] >> (i & 31)) & 1u)) y[i] = -kInf;
  return y;
}

smx::Sampler make(const SamplerOptions& o, uint64_t seed) {
  smx::Sampler s;
  EXPECT_EQ(s.configure(o), SampleStatus::kOk);
  s.seed(seed);
  return s;
}

struct Config {
  std::string name;
  SamplerOptions o;
  bool bias_forbidden = false;  // +50 on forbidden tokens (must not bring them back)
  bool history = false;         // penalties over forbidden and allowed tokens
};

std::vector<Config> configs() {
  std::vector<Config> c;
  auto add = [&](std::string name, auto edit, bool bias = false, bool hist = false) {
    SamplerOptions o;
    edit(o);
    c.push_back({std::move(name), o, bias, hist});
  };
  add("defaults", [](SamplerOptions&) {});
  add("top-k 40 (fast path)", [](SamplerOptions& o) { o.top_k = 40; });
  add("T 0.7 top-k 40 (fast path)", [](SamplerOptions& o) { o.temperature = 0.7f, o.top_k = 40; });
  add("top-p 0.9 T 0.8", [](SamplerOptions& o) { o.top_p = 0.9, o.temperature = 0.8f; });
  add("min-p 0.05", [](SamplerOptions& o) { o.min_p = 0.05; });
  add("top-k 1 min-keep 300", [](SamplerOptions& o) { o.top_k = 1, o.min_keep = 300; });
  add("T 0 (greedy)", [](SamplerOptions& o) { o.temperature = 0; });
  add("T Infinity", [](SamplerOptions& o) { o.temperature = kInf; });
  add(
      "bias +50 on forbidden, top-k 40", [](SamplerOptions& o) { o.top_k = 40; }, true);
  add(
      "penalties", [](SamplerOptions& o) { o.repetition_penalty = 0.5f, o.presence_penalty = -3; },
      false, true);
  add("typical 0.9, xtc", [](SamplerOptions& o) {
    o.typical_p = 0.9, o.xtc_probability = 0.5, o.xtc_threshold = 0.01;
  });
  return c;
}

void setup(smx::Sampler& s, const Config& c, const std::vector<uint32_t>& m, size_t n) {
  if (c.bias_forbidden) {
    std::vector<uint32_t> idx;
    std::vector<float> b;
    for (uint32_t i = 0; i < n && idx.size() < 50; ++i)
      if (!((m[i >> 5] >> (i & 31)) & 1u)) idx.push_back(i), b.push_back(50.0f);
    ASSERT_EQ(s.set_logit_bias(idx.data(), b.data(), idx.size()), SampleStatus::kOk);
  }
  if (c.history) {
    std::vector<int32_t> h;
    for (int32_t i = 0; i < 64; ++i) h.push_back(i * 37 % static_cast<int32_t>(n));
    ASSERT_EQ(s.accept(h.data(), h.size()), SampleStatus::kOk);
  }
}

TEST(TokenMask, AMaskedCallEqualsTheCallOnMinusInfinityScores) {
  uint32_t seed = 1;
  for (size_t n : {1u, 31u, 33u, 1000u, 20000u, 151936u}) {
    for (int density : {0, 3}) {
      const auto x = ref::normal(n, 3.0, seed++);
      const auto m = random_mask(n, seed++, density);
      const auto xm = masked_copy(x, m);
      for (const Config& c : configs()) {
        smx::Sampler a = make(c.o, 77), b = make(c.o, 77);
        setup(a, c, m, n);
        setup(b, c, m, n);
        std::vector<float> pa(n), pb(n);
        ASSERT_EQ(a.probs(x.data(), n, pa.data(), m.data()), SampleStatus::kOk) << c.name;
        ASSERT_EQ(b.probs(xm.data(), n, pb.data()), SampleStatus::kOk) << c.name;
        for (size_t i = 0; i < n; ++i) {
          ASSERT_EQ(ref::bits(pa[i]), ref::bits(pb[i])) << c.name << " n=" << n << " i=" << i;
          if (xm[i] == -kInf) {
            ASSERT_EQ(pa[i], 0.0f) << c.name << " forbidden " << i;
          }
        }
        std::vector<int32_t> da(200), db(200);
        ASSERT_EQ(a.sample_many(x.data(), n, 200, da.data(), m.data()), SampleStatus::kOk);
        ASSERT_EQ(b.sample_many(xm.data(), n, 200, db.data()), SampleStatus::kOk);
        ASSERT_EQ(da, db) << c.name << " n=" << n;
        for (int i = 0; i < 50; ++i) {
          int32_t ta = -1, tb = -2;
          ASSERT_EQ(a.sample(x.data(), n, &ta, m.data()), SampleStatus::kOk);
          ASSERT_EQ(b.sample(xm.data(), n, &tb), SampleStatus::kOk);
          ASSERT_EQ(ta, tb) << c.name << " n=" << n;
          ASSERT_NE(xm[ta], -kInf);
        }
        const size_t k = std::min<size_t>(n, 20);
        std::vector<int32_t> ia(k), ib(k);
        std::vector<float> ba(k), bb(k), aa(k), ab(k);
        ASSERT_EQ(a.logprobs(x.data(), n, k, ia.data(), ba.data(), aa.data(), m.data()),
                  SampleStatus::kOk);
        ASSERT_EQ(b.logprobs(xm.data(), n, k, ib.data(), bb.data(), ab.data()), SampleStatus::kOk);
        ASSERT_EQ(ia, ib) << c.name;
        for (size_t j = 0; j < k; ++j) {
          ASSERT_EQ(ref::bits(ba[j]), ref::bits(bb[j])) << c.name;
          ASSERT_EQ(ref::bits(aa[j]), ref::bits(ab[j])) << c.name;
        }
      }
    }
  }
}

// At T = 1 with no filter: softmax over the allowed tokens, against double.
TEST(TokenMask, ProbabilitiesAreTheSoftmaxOverTheAllowedTokens) {
  const size_t n = 5000;
  const auto x = ref::normal(n, 2.0, 9);
  const auto m = random_mask(n, 10, 2);
  std::vector<float> allowed;
  for (size_t i = 0; i < n; ++i)
    if ((m[i >> 5] >> (i & 31)) & 1u) allowed.push_back(x[i]);
  const auto r = ref::softmax(allowed.data(), allowed.size());
  smx::Sampler s = make(SamplerOptions{}, 1);
  std::vector<float> p(n);
  ASSERT_EQ(s.probs(x.data(), n, p.data(), m.data()), SampleStatus::kOk);
  size_t j = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!((m[i >> 5] >> (i & 31)) & 1u)) {
      EXPECT_EQ(p[i], 0.0f);
      continue;
    }
    EXPECT_NEAR(p[i], r[j], 1e-6 * r[j] + 1e-30) << i;
    ++j;
  }
}

TEST(TokenMask, MinKeepAndBiasCannotBringAForbiddenTokenBack) {
  const std::vector<float> x = {5, 4, 3, 2, 1, 0, -1, -2};
  const uint32_t m[1] = {0b00110000};  // tokens 4 and 5 only
  SamplerOptions o;
  o.top_k = 1;
  o.min_keep = 8;
  smx::Sampler s = make(o, 3);
  const uint32_t bi[1] = {0};
  const float bv[1] = {100.0f};
  ASSERT_EQ(s.set_logit_bias(bi, bv, 1), SampleStatus::kOk);
  std::vector<float> p(8);
  ASSERT_EQ(s.probs(x.data(), 8, p.data(), m), SampleStatus::kOk);
  const double e = std::exp(1.0);
  EXPECT_NEAR(p[4], e / (e + 1), 1e-6);
  EXPECT_NEAR(p[5], 1 / (e + 1), 1e-6);
  for (int i : {0, 1, 2, 3, 6, 7}) EXPECT_EQ(p[i], 0.0f) << i;
}

TEST(TokenMask, NaNIsAnErrorOnlyWhereTheMaskAllows) {
  for (uint32_t top_k : {0u, 40u}) {  // the general path and the top-k fast path
    const size_t n = 4096;
    auto x = ref::normal(n, 1.0, 4);
    std::vector<uint32_t> m(smx::mask_words(n), 0xFFFFFFFFu);
    m[10] = 0;  // tokens 320..351 forbidden
    x[333] = NAN;
    SamplerOptions o;
    o.top_k = top_k;
    smx::Sampler s = make(o, 5);
    int32_t t = -1;
    EXPECT_EQ(s.sample(x.data(), n, &t, m.data()), SampleStatus::kOk) << top_k;
    EXPECT_TRUE(t < 320 || t >= 352);
    x[3000] = NAN;
    EXPECT_EQ(s.sample(x.data(), n, &t, m.data()), SampleStatus::kNaNScore) << top_k;
    EXPECT_EQ(s.error_index(), 3000u);
    EXPECT_EQ(s.sample(x.data(), n, &t), SampleStatus::kNaNScore);
    EXPECT_EQ(s.error_index(), 333u);
  }
}

TEST(TokenMask, AMaskThatAllowsNoTokenIsKEmptyMask) {
  const size_t n = 40;  // two words; bits 40..63 lie past the vocabulary
  const std::vector<float> x(n, 0.0f);
  const uint32_t none[2] = {0, 0xFFFFFF00u};
  for (uint32_t top_k : {0u, 1u}) {
    SamplerOptions o;
    o.top_k = top_k;
    smx::Sampler s = make(o, 1);
    int32_t t = 0;
    EXPECT_EQ(s.sample(x.data(), n, &t, none), SampleStatus::kEmptyMask);
    std::vector<float> p(n);
    EXPECT_EQ(s.probs(x.data(), n, p.data(), none), SampleStatus::kEmptyMask);
    int32_t i[1];
    float b[1], a[1];
    EXPECT_EQ(s.logprobs(x.data(), n, 1, i, b, a, none), SampleStatus::kEmptyMask);
    const uint32_t last[2] = {0, 0x80u};  // token 39 only
    EXPECT_EQ(s.sample(x.data(), n, &t, last), SampleStatus::kOk);
    EXPECT_EQ(t, 39);
  }
  // Allowed tokens whose scores are all -Infinity: kAllMasked, as without a mask.
  std::vector<float> y(n, 0.0f);
  y[39] = -kInf;
  smx::Sampler s = make(SamplerOptions{}, 1);
  const uint32_t last[2] = {0, 0x80u};
  int32_t t = 0;
  EXPECT_EQ(s.sample(y.data(), n, &t, last), SampleStatus::kAllMasked);
}

TEST(TokenMask, BatchRowsTakeOneMaskEach) {
  const size_t n = 100, rows = 3, w = smx::mask_words(n);
  const auto x = ref::normal(rows * n, 2.0, 8);
  std::vector<uint32_t> m(rows * w, 0);
  m[0 * w + 0] = 1u << 7;  // row 0: token 7
  m[1 * w + 2] = 1u << 4;  // row 1: token 68
  m[2 * w + 3] = 0xFu;     // row 2: tokens 96..99
  smx::Sampler s = make(SamplerOptions{}, 2);
  for (int it = 0; it < 20; ++it) {
    int32_t out[3];
    ASSERT_EQ(s.sample_batch(x.data(), rows, n, out, m.data()), SampleStatus::kOk);
    EXPECT_EQ(out[0], 7);
    EXPECT_EQ(out[1], 68);
    EXPECT_GE(out[2], 96);
  }
  m[1 * w + 2] = 0;
  int32_t out[3];
  EXPECT_EQ(s.sample_batch(x.data(), rows, n, out, m.data()), SampleStatus::kEmptyMask);
  EXPECT_EQ(s.error_index(), 1u);
}

TEST(TokenMask, ApplyTokenBitmaskWritesMinusInfinityAndCounts) {
  for (size_t n : {1u, 32u, 33u, 100u, 151936u}) {
    auto x = ref::normal(n, 1.0, 12);
    const auto m = random_mask(n, 13, 1);
    const auto want = masked_copy(x, m);
    size_t count = 0;
    for (float v : want) count += v != -kInf;
    EXPECT_EQ(smx::apply_token_bitmask(x.data(), n, m.data()), count);
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(ref::bits(x[i]), ref::bits(want[i])) << i;
  }
}

}  // namespace
