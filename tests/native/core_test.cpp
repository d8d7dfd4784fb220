// The core against a double-precision reference: the accuracy bar of the
// softmax family at every size up to 2^20, N-D axes, and every semantic of
// DESIGN.md ("Semantics").
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "kernels/kernels.h"
#include "math_f64.h"
#include "reference.h"
#include "smx/softmax.h"

namespace {

smx::Layout vec(size_t n) { return smx::Layout{1, n, 1}; }
smx::Options opts(float t = 1.0f, smx::Masked m = smx::Masked::kNaN) {
  smx::Options o;
  o.temperature = t;
  o.masked = m;
  return o;
}

std::vector<size_t> bar_sizes() {
  std::vector<size_t> s;
  for (size_t n = 1; n <= 64; ++n) s.push_back(n);
  for (size_t n : {127, 128, 129, 1000, 32000, 128256, 262144, 1 << 20}) s.push_back(n);
  return s;
}

struct Worst {
  double softmax_rel = 0, log_abs = 0;
};

// Asserts the accuracy bar on x and returns the worst errors seen.
Worst check_bar(const std::vector<float>& x, const char* what) {
  const size_t n = x.size();
  std::vector<float> y(n), ly(n);
  EXPECT_EQ(smx::softmax(x.data(), y.data(), vec(n), opts()), smx::Status::kOk);
  EXPECT_EQ(smx::log_softmax(x.data(), ly.data(), vec(n), opts()), smx::Status::kOk);
  const auto r = ref::softmax(x.data(), n);
  const auto lr = ref::log_softmax(x.data(), n);
  Worst w;
  double sum = 0;
  for (size_t i = 0; i < n; ++i) {
    sum += y[i];
    if (r[i] >= 1e-30) w.softmax_rel = std::max(w.softmax_rel, std::fabs(y[i] - r[i]) / r[i]);
    if (std::isfinite(static_cast<float>(lr[i])))
      w.log_abs = std::max(w.log_abs, std::fabs(ly[i] - lr[i]) / std::max(1.0, std::fabs(lr[i])));
    else
      EXPECT_EQ(ly[i], -INFINITY);
  }
  EXPECT_LE(w.softmax_rel, 1e-6) << what << " n=" << n;
  EXPECT_LE(w.log_abs, 1e-6) << what << " n=" << n;
  EXPECT_NEAR(sum, 1.0, 1e-6) << what << " n=" << n;
  return w;
}

}  // namespace

TEST(AccuracyBar, NormalInputsEverySize) {
  Worst worst;
  for (size_t n : bar_sizes()) {
    for (uint32_t seed : {1u, 2u}) {
      const Worst w =
          check_bar(ref::normal(n, 3.0, seed * 7919 + static_cast<uint32_t>(n)), "normal(0,3)");
      worst.softmax_rel = std::max(worst.softmax_rel, w.softmax_rel);
      worst.log_abs = std::max(worst.log_abs, w.log_abs);
    }
  }
  std::printf("normal(0,3), n = 1..2^20: softmax max rel err %.3g, log-softmax max err %.3g\n",
              worst.softmax_rel, worst.log_abs);
}

TEST(AccuracyBar, EdgeMagnitudes) {
  for (double scale : {1e3, 1e30, 3e38}) {
    Worst worst;
    for (size_t n : bar_sizes()) {
      const Worst w = check_bar(ref::spread(n, scale, static_cast<uint32_t>(n)), "edge");
      worst.softmax_rel = std::max(worst.softmax_rel, w.softmax_rel);
      worst.log_abs = std::max(worst.log_abs, w.log_abs);
    }
    std::printf("spread over +-%g: softmax max rel err %.3g, log-softmax max err %.3g\n", scale,
                worst.softmax_rel, worst.log_abs);
  }
}

TEST(AccuracyBar, ManyValuesNearTheMax) {
  // All mass spread thin: the sum is large and every output small.
  std::vector<float> x(1 << 20);
  for (size_t i = 0; i < x.size(); ++i) x[i] = 1e3f + static_cast<float>(i % 97) * 1e-3f;
  check_bar(x, "flat");
}

TEST(LogSumExp, MatchesDouble) {
  for (size_t n : {1, 5, 1000, 262144}) {
    auto x = ref::normal(n, 3.0, 3);
    double y = 0;
    ASSERT_EQ(smx::log_sum_exp(x.data(), &y, vec(n), opts()), smx::Status::kOk);
    double m = -INFINITY, s = 0;
    for (float v : x) m = std::max(m, static_cast<double>(v));
    for (float v : x) s += std::exp(v - m);
    EXPECT_NEAR(y, m + std::log(s), 1e-6 * std::max(1.0, std::fabs(m + std::log(s))));
  }
  double y = 0;
  ASSERT_EQ(smx::log_sum_exp(nullptr, &y, vec(0), opts()), smx::Status::kOk);
  EXPECT_EQ(y, -INFINITY);
}

TEST(Axis, EveryAxisOf3DMatchesMovingItLast) {
  const int32_t shape[3] = {4, 5, 6};
  auto x = ref::normal(120, 3.0, 12);
  for (int32_t axis : {0, 1, 2, -1, -2, -3}) {
    smx::Layout l;
    ASSERT_EQ(smx::make_layout(120, shape, 3, axis, &l), smx::Status::kOk);
    std::vector<float> y(120);
    ASSERT_EQ(smx::softmax(x.data(), y.data(), l, opts()), smx::Status::kOk);
    const int a = axis < 0 ? axis + 3 : axis;
    const size_t strides[3] = {30, 6, 1};
    for (size_t i = 0; i < 4; ++i)
      for (size_t j = 0; j < 5; ++j)
        for (size_t k = 0; k < 6; ++k) {
          size_t idx[3] = {i, j, k};
          if (idx[a] != 0) continue;
          std::vector<float> slice(shape[a]);
          for (int32_t t = 0; t < shape[a]; ++t) {
            idx[a] = t;
            slice[t] = x[idx[0] * 30 + idx[1] * 6 + idx[2]];
          }
          const auto r = ref::softmax(slice.data(), slice.size());
          for (int32_t t = 0; t < shape[a]; ++t) {
            idx[a] = t;
            EXPECT_NEAR(y[idx[0] * strides[0] + idx[1] * strides[1] + idx[2]], r[t],
                        1e-6 * r[t] + 1e-30);
          }
        }
  }
}

TEST(Layout, RejectsBadShapesAndAxes) {
  smx::Layout l;
  const int32_t s23[2] = {2, 3}, neg[2] = {-2, -3}, zero[2] = {0, 3};
  EXPECT_EQ(smx::make_layout(6, s23, 2, 2, &l), smx::Status::kBadAxis);
  EXPECT_EQ(smx::make_layout(6, s23, 2, -3, &l), smx::Status::kBadAxis);
  EXPECT_EQ(smx::make_layout(7, s23, 2, 0, &l), smx::Status::kBadShape);
  EXPECT_EQ(smx::make_layout(6, neg, 2, 0, &l), smx::Status::kBadShape);
  EXPECT_EQ(smx::make_layout(0, zero, 2, 1, &l), smx::Status::kOk);
  EXPECT_EQ(l.outer, 0u);
  const int32_t huge[3] = {65536, 65536, 0};
  EXPECT_EQ(smx::make_layout(0, huge, 3, 0, &l), smx::Status::kOk);
  const int32_t over[2] = {65536, 65536};
  EXPECT_EQ(smx::make_layout(0, over, 2, 0, &l), smx::Status::kBadShape);
  EXPECT_EQ(smx::make_layout(6, s23, 0, 1, &l), smx::Status::kBadAxis);
}

TEST(Semantics, TemperatureZeroSplitsAmongMaxima) {
  const float x[4] = {1, 3, 3, -INFINITY};
  float y[4];
  ASSERT_EQ(smx::softmax(x, y, vec(4), opts(0.0f)), smx::Status::kOk);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[1], 0.5f);
  EXPECT_EQ(y[2], 0.5f);
  EXPECT_EQ(y[3], 0.0f);
  ASSERT_EQ(smx::log_softmax(x, y, vec(4), opts(0.0f)), smx::Status::kOk);
  EXPECT_EQ(y[0], -INFINITY);
  EXPECT_FLOAT_EQ(y[1], static_cast<float>(-std::log(2.0)));
}

TEST(Semantics, TinyTemperatureApproachesTheLimit) {
  const float x[3] = {2, 1, 0};
  float y[3];
  ASSERT_EQ(smx::softmax(x, y, vec(3), opts(1e-30f)), smx::Status::kOk);
  EXPECT_EQ(y[0], 1.0f);
  EXPECT_EQ(y[1], 0.0f);
}

TEST(Semantics, TemperatureInfinityIsUniformOverUnmasked) {
  const float x[4] = {5, -INFINITY, -7, INFINITY};
  float y[4];
  ASSERT_EQ(smx::softmax(x, y, vec(4), opts(INFINITY)), smx::Status::kOk);
  EXPECT_FLOAT_EQ(y[0], 1.0f / 3);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_FLOAT_EQ(y[2], 1.0f / 3);
  EXPECT_FLOAT_EQ(y[3], 1.0f / 3);
}

TEST(Semantics, NegativeOrNaNTemperatureIsRejected) {
  const float x[2] = {1, 2};
  float y[2];
  EXPECT_EQ(smx::softmax(x, y, vec(2), opts(-1.0f)), smx::Status::kBadTemperature);
  EXPECT_EQ(smx::softmax(x, y, vec(2), opts(NAN)), smx::Status::kBadTemperature);
  EXPECT_EQ(smx::log_softmax(x, y, vec(2), opts(NAN)), smx::Status::kBadTemperature);
}

TEST(Semantics, MaskedEntriesGetExactlyZero) {
  const float x[5] = {2, -INFINITY, 1, -INFINITY, 0};
  float y[5];
  ASSERT_EQ(smx::softmax(x, y, vec(5), opts()), smx::Status::kOk);
  const float kept[3] = {2, 1, 0};
  const auto r = ref::softmax(kept, 3);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_EQ(y[3], 0.0f);
  EXPECT_NEAR(y[0], r[0], 1e-7);
  EXPECT_NEAR(y[4], r[2], 1e-7);
}

TEST(Semantics, PlusInfinityEntriesShareTheMass) {
  const float x[4] = {INFINITY, 1e38f, INFINITY, -INFINITY};
  float y[4];
  ASSERT_EQ(smx::softmax(x, y, vec(4), opts()), smx::Status::kOk);
  EXPECT_EQ(y[0], 0.5f);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_EQ(y[2], 0.5f);
  EXPECT_EQ(y[3], 0.0f);
}

TEST(Semantics, AllMaskedFollowsThePolicy) {
  const float x[3] = {-INFINITY, -INFINITY, -INFINITY};
  float y[3];
  ASSERT_EQ(smx::softmax(x, y, vec(3), opts(1, smx::Masked::kNaN)), smx::Status::kOk);
  EXPECT_TRUE(std::isnan(y[0]));
  ASSERT_EQ(smx::softmax(x, y, vec(3), opts(1, smx::Masked::kZeros)), smx::Status::kOk);
  EXPECT_EQ(y[2], 0.0f);
  ASSERT_EQ(smx::softmax(x, y, vec(3), opts(1, smx::Masked::kUniform)), smx::Status::kOk);
  EXPECT_FLOAT_EQ(y[1], 1.0f / 3);
  EXPECT_EQ(smx::softmax(x, y, vec(3), opts(1, smx::Masked::kThrow)), smx::Status::kAllMasked);
  ASSERT_EQ(smx::log_softmax(x, y, vec(3), opts(1, smx::Masked::kZeros)), smx::Status::kOk);
  EXPECT_EQ(y[0], -INFINITY);
  double lse = 0;
  ASSERT_EQ(smx::log_sum_exp(x, &lse, vec(3), opts()), smx::Status::kOk);
  EXPECT_EQ(lse, -INFINITY);
}

TEST(Semantics, NaNPoisonsOnlyItsSlice) {
  const float x[6] = {1, NAN, 2, 1, 2, 3};
  float y[6];
  ASSERT_EQ(smx::softmax(x, y, smx::Layout{2, 3, 1}, opts()), smx::Status::kOk);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(std::isnan(y[i]));
  const auto r = ref::softmax(x + 3, 3);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(y[3 + i], r[i], 1e-7);
}

TEST(Semantics, ExtremeFiniteInputsStayInRange) {
  const float x[4] = {3.4e38f, -3.4e38f, 3.4e38f, 0};
  float y[4];
  ASSERT_EQ(smx::softmax(x, y, vec(4), opts()), smx::Status::kOk);
  EXPECT_EQ(y[0], 0.5f);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_EQ(y[2], 0.5f);
  EXPECT_EQ(y[3], 0.0f);
}

TEST(Semantics, InPlace) {
  auto x = ref::normal(1000, 3.0, 4);
  std::vector<float> y(1000), z = x;
  ASSERT_EQ(smx::log_softmax(x.data(), y.data(), vec(1000), opts()), smx::Status::kOk);
  ASSERT_EQ(smx::log_softmax(z.data(), z.data(), vec(1000), opts()), smx::Status::kOk);
  EXPECT_EQ(y, z);
}

TEST(Naive, OverflowsAsTheCourseShows) {
  const float x[3] = {1000, 1001, 1002};
  float y[3];
  ASSERT_EQ(smx::softmax_naive(x, y, vec(3), opts()), smx::Status::kOk);
  for (float v : y) EXPECT_TRUE(std::isnan(v));
  const float small[3] = {2, 1, 0};
  ASSERT_EQ(smx::softmax_naive(small, y, vec(3), opts()), smx::Status::kOk);
  const auto r = ref::softmax(small, 3);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(y[i], r[i], 3e-7);
}

TEST(ScalarMath, ExpF32AcrossTheWholeRange) {
  double worst = 0;
  for (float x = -110.0f; x < 89.0f; x += 0.0137f) {
    const double r = std::exp(static_cast<double>(x));
    const float y = smx::kernels::exp_f32(x);
    if (r > 3.4028234663852886e38) {
      EXPECT_EQ(y, INFINITY) << x;
    } else if (r >= 0x1p-126) {
      worst = std::max(worst, ref::ulps(y, r));
    } else {
      EXPECT_LE(std::fabs(y - r), 0x1p-149) << x;  // gradual underflow, rounded
    }
  }
  EXPECT_LE(worst, 1.05);
  EXPECT_EQ(smx::kernels::exp_f32(0.0f), 1.0f);
  EXPECT_TRUE(std::isnan(smx::kernels::exp_f32(NAN)));
}

TEST(ScalarMath, LogF64MatchesLibm) {
  for (double x : {1e-310, 1e-30, 0.5, 0.999999, 1.0, 1.000001, 2.0, 5.056, 262144.0, 1e300}) {
    EXPECT_NEAR(smx::log_f64(x), std::log(x), 4e-16 * std::max(1.0, std::fabs(std::log(x)))) << x;
  }
  EXPECT_EQ(smx::log_f64(0.0), -INFINITY);
  EXPECT_TRUE(std::isnan(smx::log_f64(-1.0)));
}

TEST(ScalarMath, ExpF64AndPowF64MatchLibm) {
  for (double x = -744.0; x < 709.0; x += 0.731) {
    const double r = std::exp(x);
    EXPECT_NEAR(smx::exp_f64(x), r, r >= 0x1p-1022 ? 2e-15 * r : 0x1p-1074) << x;
  }
  EXPECT_EQ(smx::exp_f64(710.0), INFINITY);
  EXPECT_EQ(smx::exp_f64(-746.0), 0.0);
  EXPECT_EQ(smx::exp_f64(0.0), 1.0);
  EXPECT_TRUE(std::isnan(smx::exp_f64(NAN)));
  for (double x : {1e-80, 0.01, 0.5, 2.0, 3.7, 151936.0})
    for (double y : {-3.5, -1.0, -0.2, 0.3, 1.0, 2.5})
      EXPECT_NEAR(smx::pow_f64(x, y), std::pow(x, y), 1e-13 * std::pow(x, y)) << x << "^" << y;
  // The limits of pow.
  EXPECT_EQ(smx::pow_f64(0.0, 2.0), 0.0);
  EXPECT_EQ(smx::pow_f64(0.0, -2.0), INFINITY);
  EXPECT_EQ(smx::pow_f64(INFINITY, 0.5), INFINITY);
  EXPECT_EQ(smx::pow_f64(INFINITY, -0.5), 0.0);
  EXPECT_EQ(smx::pow_f64(1.0, 7.0), 1.0);
  EXPECT_EQ(smx::pow_f64(5.0, 0.0), 1.0);
  EXPECT_TRUE(std::isnan(smx::pow_f64(-1.0, 2.0)));
  // Integer powers by squaring: exact where the result is representable.
  EXPECT_EQ(smx::pow_int(1.75, 0), 1.0);
  EXPECT_EQ(smx::pow_int(1.75, 1), 1.75);
  EXPECT_EQ(smx::pow_int(2.0, 60), 0x1p60);
  EXPECT_EQ(smx::pow_int(1.5, 5), 7.59375);
  EXPECT_NEAR(smx::pow_int(1.75, 40), std::pow(1.75, 40), 1e-14 * std::pow(1.75, 40));
}

TEST(Sigmoid, EqualsTwoOptionSoftmax) {
  for (float z = -100.0f; z <= 100.0f; z += 0.37f) {
    const float x[2] = {z, 0.0f};
    float y[2];
    smx::softmax(x, y, vec(2), opts());
    EXPECT_EQ(ref::bits(smx::sigmoid(z)), ref::bits(y[0])) << z;
    EXPECT_NEAR(smx::sigmoid(z), 1.0 / (1.0 + std::exp(-static_cast<double>(z))), 1.2e-7);
  }
}

TEST(Argmax, FirstMaximumAndNaN) {
  const float x[5] = {1, 3, 3, -INFINITY, 2};
  EXPECT_EQ(smx::argmax(x, 5), 1u);
  const float y[3] = {1, NAN, 5};
  EXPECT_EQ(smx::argmax(y, 3), 1u);
}

TEST(Steps, ConsistentWithEachOtherAndTheCourse) {
  const float x[3] = {0.707f, 0.0f, 0.707f};
  float a[15];
  smx::Steps st{a, a + 3, a + 6, a + 9, a + 12, 0, 0, 0};
  ASSERT_EQ(smx::softmax_steps(x, 3, opts(), &st), smx::Status::kOk);
  EXPECT_EQ(st.max, 0.707f);
  EXPECT_NEAR(st.raw_exps[0], 2.028, 5e-4);
  EXPECT_NEAR(st.raw_sum, 5.056, 5e-4);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(st.shifted[i], st.scaled[i] - st.max);
    EXPECT_NEAR(st.exps[i], std::exp(static_cast<double>(st.shifted[i])), 2e-7);
    EXPECT_NEAR(st.probs[i], st.exps[i] / st.sum, 2e-7);
  }
  EXPECT_NEAR(st.probs[0], 0.401, 5e-4);
  EXPECT_NEAR(st.probs[1], 0.198, 5e-4);
}

TEST(Semantics, HugeTemperatureWhereXMinusMaxOverflows) {
  // x - max overflows float32, (x - max) / T does not.
  const float x[2] = {3.4e38f, -3.4e38f};
  float y[2];
  ASSERT_EQ(smx::softmax(x, y, vec(2), opts(1e38f)), smx::Status::kOk);
  const double z = (-6.8e38) / static_cast<double>(1e38f);
  const double p1 = std::exp(z) / (1 + std::exp(z));
  EXPECT_NEAR(y[1], p1, 1e-6 * p1);
  ASSERT_EQ(smx::log_softmax(x, y, vec(2), opts(2.0f)), smx::Status::kOk);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_NEAR(y[1], -3.4e38, 1e-6 * 3.4e38);
  ASSERT_EQ(smx::log_softmax(x, y, vec(2), opts(1e30f)), smx::Status::kOk);
  EXPECT_NEAR(y[1], -6.8e8, 1e-6 * 6.8e8);
  // 33 elements: the vector lanes and the scalar tail agree.
  std::vector<float> v(33, -3.4e38f), a(33), b(33);
  v[5] = 3.4e38f;
  ASSERT_EQ(smx::log_softmax(v.data(), a.data(), vec(33), opts(4.0f)), smx::Status::kOk);
  EXPECT_NEAR(a[32], -1.7e38, 1e-6 * 1.7e38);
  EXPECT_EQ(a[0], a[32]);
}

TEST(Semantics, DominantEntryIsExactlyOneOnEveryPath) {
  for (size_t n : {1, 2, 255, 256, 1000, 32000}) {
    for (float top : {13.7f, 200.0f, -3.3f}) {
      std::vector<float> x(n, top - 120.0f), y(n);
      x[n / 2] = top;
      ASSERT_EQ(smx::softmax(x.data(), y.data(), vec(n), opts()), smx::Status::kOk);
      EXPECT_EQ(y[n / 2], 1.0f) << "n=" << n << " top=" << top;
      EXPECT_EQ(smx::log_softmax(x.data(), y.data(), vec(n), opts()), smx::Status::kOk);
      EXPECT_EQ(y[n / 2], 0.0f) << "n=" << n << " top=" << top;
    }
  }
  const float one[1] = {13.7f};
  double lse = 0;
  ASSERT_EQ(smx::log_sum_exp(one, &lse, vec(1), opts()), smx::Status::kOk);
  EXPECT_EQ(lse, static_cast<double>(13.7f));
}

TEST(Semantics, InPlaceEqualsOutOfPlaceOnTheFastPathWhenDominated) {
  // 300 entries at T = 1 (fast path), one far above the others: the dominated
  // fix-up must not read x after the kernel wrote y over it.
  std::vector<float> x(300, -40.0f), y(300);
  x[7] = 10.0f;
  for (size_t i = 0; i < x.size(); i += 3) x[i] = -25.0f;
  x[7] = 10.0f;
  ASSERT_EQ(smx::softmax(x.data(), y.data(), vec(x.size()), opts()), smx::Status::kOk);
  std::vector<float> z = x;
  ASSERT_EQ(smx::softmax(z.data(), z.data(), vec(z.size()), opts()), smx::Status::kOk);
  for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(ref::bits(y[i]), ref::bits(z[i])) << i;
  EXPECT_EQ(y[7], 1.0f);
  const auto r = ref::softmax(x.data(), x.size());
  EXPECT_NEAR(y[0], r[0], 3e-6 * r[0]);
}
