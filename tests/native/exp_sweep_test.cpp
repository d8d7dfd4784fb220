// The ulp sweep: every float32 z in [kExpCutoff, 0] through both exp kernels
// (max = 0, so the kernel computes exp(z) exactly as stated in exp_rr2_p6.h),
// against exp in double. Asserts the bound of the doc comment and prints the
// largest error seen.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "kernels/exp_rr2_p6.h"
#include "kernels/kernels.h"
#include "reference.h"

namespace k = smx::kernels;

TEST(ExpSweep, EveryFloatWithinBound) {
  constexpr double kBoundUlp = smx::kernels::kExpBoundUlp;
  const uint32_t first = ref::bits(-0.0f), last = ref::bits(k::kExpCutoff);  // bits grow as z falls
  constexpr size_t kChunk = 1 << 20;
  std::vector<float> z(kChunk), ys(kChunk), yv(kChunk);
  double worst = 0;
  float worst_z = 0;
  uint64_t checked = 0;
  for (uint64_t b = first; b <= last; b += kChunk) {
    const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, last - b + 1));
    for (size_t i = 0; i < n; ++i) z[i] = k::bits_float(static_cast<uint32_t>(b + i));
    k::f32_raddstoreexpminusmax__wasmsimd_rr2_p6_u8_acc2(n, z.data(), 0.0f, 1.0f, yv.data());
    k::f32_raddstoreexpminusmax__scalar_rr2_p6_u8_acc2(n, z.data(), 0.0f, 1.0f, ys.data());
    for (size_t i = 0; i < n; ++i) {
      if (ref::bits(ys[i]) != ref::bits(yv[i])) FAIL() << "scalar and SIMD differ at z=" << z[i];
      const double r = std::exp(static_cast<double>(z[i]));
      if (r < 0x1p-126) continue;  // denormal results: rounded once, not held to the bound
      const double u = ref::ulps(yv[i], r);
      if (u > worst) worst = u, worst_z = z[i];
    }
    checked += n;
  }
  std::printf("exp_rr2_p6: %llu floats in [%a, 0], max error %.4f ulp at z=%a\n",
              static_cast<unsigned long long>(checked), static_cast<double>(k::kExpCutoff), worst,
              static_cast<double>(worst_z));
  EXPECT_LE(worst, kBoundUlp);
  EXPECT_GT(checked, 1000000000u);
}

// The shifted exp (rr2_p5) of the softmax fast path (raddstoreexpminusc, nc = 0):
// every float x in [ln 2^-126, ln2 / 2], masked as softmax masks.
TEST(ExpSweep, ShiftedExpEveryFloatWithinBound) {
  const float lo = -0x1.5D589Ep+6f, hi = 0x1.62E43p-2f;
  constexpr size_t kChunk = 1 << 20;
  std::vector<float> z(kChunk), ys(kChunk), yv(kChunk);
  double worst = 0;
  uint64_t checked = 0;
  auto sweep = [&](uint32_t first, uint32_t last) {  // bit patterns, inclusive
    for (uint64_t b = first; b <= last; b += kChunk) {
      const size_t n = static_cast<size_t>(std::min<uint64_t>(kChunk, last - b + 1));
      for (size_t i = 0; i < n; ++i) z[i] = k::bits_float(static_cast<uint32_t>(b + i));
      k::f32_raddstoreexpminusc__wasmsimd_rr2_p5_u8_acc2(n, z.data(), 0.0f, true, yv.data());
      k::f32_raddstoreexpminusc__scalar_rr2_p5_u8_acc2(n, z.data(), 0.0f, true, ys.data());
      for (size_t i = 0; i < n; ++i) {
        if (ref::bits(ys[i]) != ref::bits(yv[i])) FAIL() << "scalar and SIMD differ at x=" << z[i];
        const double r = std::exp(static_cast<double>(z[i]));
        if (r < 0x1p-126) continue;
        worst = std::max(worst, ref::ulps(yv[i], r));
      }
      checked += n;
    }
  };
  sweep(ref::bits(-0.0f), ref::bits(lo));  // negative floats: bits grow as x falls
  sweep(0, ref::bits(hi));
  std::printf("exp_shifted: %llu floats in [%a, %a], max error %.4f ulp\n",
              static_cast<unsigned long long>(checked), static_cast<double>(lo),
              static_cast<double>(hi), worst);
  EXPECT_LE(worst, k::kExpShiftedBoundUlp);
}

TEST(ExpSweep, BelowCutoffIsZero) {
  const float z[5] = {std::nextafter(k::kExpCutoff, -INFINITY), -100.0f, -1e30f, -3.4e38f,
                      -INFINITY};
  float y[5];
  k::f32_raddstoreexpminusmax__wasmsimd_rr2_p6_u8_acc2(5, z, 0.0f, 1.0f, y);
  for (float v : y) EXPECT_EQ(ref::bits(v), 0u);
}
