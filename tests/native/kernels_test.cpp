// Every kernel of kernels.inc against a double-precision reference: sizes below,
// at and around the SIMD tile, large sizes, misaligned pointers, and inputs where
// a naive exp overflows. The scalar and SIMD128 variant of each op must agree
// to the bit.
#include "kernels/kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "kernels/exp_rr2_p6.h"
#include "reference.h"

namespace k = smx::kernels;

namespace {

std::vector<size_t> sizes() {
  std::vector<size_t> s;
  for (size_t n = 1; n <= 64; ++n) s.push_back(n);
  for (size_t base : {96, 128, 256, 1024})
    for (size_t d = 0; d < 9; ++d) s.push_back(base - 4 + d);
  for (size_t n : {1000, 32000, 128256, 262144, 1 << 20}) s.push_back(n);
  return s;
}

struct Input {
  const char* name;
  double scale;
  bool normal;
};
const Input kInputs[] = {
    {"normal(0,3)", 3, true}, {"1e3", 1e3, false}, {"1e30", 1e30, false}, {"3e38", 3e38, false}};

// x with one float of padding in front, so that x.data() + 1 is misaligned.
std::vector<float> make(const Input& in, size_t n, uint32_t seed) {
  auto v = in.normal ? ref::normal(n + 1, in.scale, seed) : ref::spread(n + 1, in.scale, seed);
  return v;
}

}  // namespace

TEST(Kernels, RaddstoreexpminusmaxMatchesDoubleAndVariantsAgree) {
  for (const auto& in : kInputs) {
    for (size_t n : sizes()) {
      for (size_t offset : {0, 1}) {
        if (n >= (1 << 20) && offset) continue;
        auto buf = make(in, n, static_cast<uint32_t>(n * 7 + offset));
        const float* x = buf.data() + offset;
        const float m = k::f32_rmax__scalar_u4(n, x);
        std::vector<float> ys(n + 1), yv(n + 1);
        const double ss =
            k::f32_raddstoreexpminusmax__scalar_rr2_p6_u8_acc2(n, x, m, 1.0f, ys.data() + offset);
        const double sv =
            k::f32_raddstoreexpminusmax__wasmsimd_rr2_p6_u8_acc2(n, x, m, 1.0f, yv.data() + offset);
        ASSERT_EQ(ref::bits(static_cast<float>(ss)), ref::bits(static_cast<float>(sv))) << n;
        ASSERT_EQ(ss, sv) << in.name << " n=" << n;
        double exact_sum = 0, stored_sum = 0;
        for (size_t i = 0; i < n; ++i) {
          const float y = yv[i + offset];
          ASSERT_EQ(ref::bits(ys[i + offset]), ref::bits(y)) << in.name << " n=" << n << " i=" << i;
          const double r = std::exp(static_cast<double>(x[i]) - static_cast<double>(m));
          exact_sum += r;
          stored_sum += y;
          if (r >= 0x1p-126) {
            ASSERT_LE(ref::ulps(y, r), k::kExpBoundUlp)
                << in.name << " n=" << n << " x=" << x[i] << " m=" << m;
          } else {
            // Below FLT_MIN the kernel may flush to 0 (documented in exp_rr2_p6.h).
            ASSERT_LE(std::fabs(y - r), 0x1p-126) << in.name << " x=" << x[i];
          }
        }
        // The kernel's sum of its own outputs: float32 partials of 8 values per lane.
        EXPECT_LE(std::fabs(sv - stored_sum), 4e-7 * stored_sum) << in.name << " n=" << n;
        EXPECT_LE(std::fabs(sv - exact_sum), 5e-7 * exact_sum) << in.name << " n=" << n;
      }
    }
  }
}

TEST(Kernels, RaddstoreexpminusmaxWithTemperature) {
  for (float t : {0.3f, 2.0f, 1e-3f, 1e6f}) {
    for (size_t n : {1, 7, 33, 1000}) {
      auto x = ref::normal(n, 3.0, 11);
      const float m = k::f32_rmax__scalar_u4(n, x.data());
      std::vector<float> ys(n), yv(n);
      const double ss =
          k::f32_raddstoreexpminusmax__scalar_rr2_p6_u8_acc2(n, x.data(), m, t, ys.data());
      const double sv =
          k::f32_raddstoreexpminusmax__wasmsimd_rr2_p6_u8_acc2(n, x.data(), m, t, yv.data());
      ASSERT_EQ(ss, sv);
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(ref::bits(ys[i]), ref::bits(yv[i]));
        const double z = (static_cast<double>(x[i]) - m) / t;
        const double r = std::exp(z);
        // (x - m) / t is rounded once in float32: relative error |z| 2^-24 + 1 ulp.
        if (r >= 0x1p-126) {
          ASSERT_LE(std::fabs(yv[i] - r) / r, std::fabs(z) * 0x1p-24 + 0x1p-23) << t;
        }
      }
    }
  }
}

TEST(Kernels, RaddstoreexpminusmaxWithoutStore) {
  auto x = ref::normal(1001, 3.0, 5);
  const float m = k::f32_rmax__scalar_u4(x.size(), x.data());
  std::vector<float> y(x.size());
  const double with =
      k::f32_raddstoreexpminusmax__wasmsimd_rr2_p6_u8_acc2(x.size(), x.data(), m, 1.0f, y.data());
  EXPECT_EQ(with, k::f32_raddstoreexpminusmax__wasmsimd_rr2_p6_u8_acc2(x.size(), x.data(), m, 1.0f,
                                                                       nullptr));
  EXPECT_EQ(with, k::f32_raddstoreexpminusmax__scalar_rr2_p6_u8_acc2(x.size(), x.data(), m, 1.0f,
                                                                     nullptr));
}

TEST(Kernels, RmaxMatchesAndPropagatesNaN) {
  for (size_t n : sizes()) {
    for (size_t offset : {0, 1}) {
      auto buf = ref::normal(n + 1, 3.0, static_cast<uint32_t>(n));
      const float* x = buf.data() + offset;
      float m = -INFINITY;
      for (size_t i = 0; i < n; ++i) m = std::max(m, x[i]);
      ASSERT_EQ(k::f32_rmax__scalar_u4(n, x), m);
      ASSERT_EQ(k::f32_rmax__wasmsimd_u16_acc4(n, x), m);
      buf[offset + (n * 5) / 7] = NAN;
      ASSERT_TRUE(std::isnan(k::f32_rmax__scalar_u4(n, x))) << n;
      ASSERT_TRUE(std::isnan(k::f32_rmax__wasmsimd_u16_acc4(n, x))) << n;
    }
  }
  const float inf[3] = {-INFINITY, INFINITY, 1};
  EXPECT_EQ(k::f32_rmax__wasmsimd_u16_acc4(3, inf), INFINITY);
}

TEST(Kernels, VscaleIsOneRoundedMultiply) {
  for (size_t n : sizes()) {
    auto x = ref::normal(n + 1, 3.0, static_cast<uint32_t>(n));
    std::vector<float> ys(n + 1), yv(n + 1);
    k::f32_vscale__scalar_u4(n, x.data() + 1, 0.37f, ys.data() + 1);
    k::f32_vscale__wasmsimd_u8(n, x.data() + 1, 0.37f, yv.data() + 1);
    for (size_t i = 1; i <= n; ++i) {
      const float r =
          static_cast<float>(static_cast<double>(x[i]) * 0.37f);  // exact product, rounded once
      ASSERT_EQ(ref::bits(ys[i]), ref::bits(r));
      ASSERT_EQ(ref::bits(yv[i]), ref::bits(r));
    }
  }
}

TEST(Kernels, VlogsoftmaxMatchesDouble) {
  for (const auto& in : kInputs) {
    for (size_t n : {1, 3, 4, 5, 17, 1000, 32000}) {
      auto x = make(in, n, 3);
      const float m = k::f32_rmax__scalar_u4(n, x.data());
      const float c = 2.75f;
      std::vector<float> ys(n), yv(n);
      k::f32_vlogsoftmax__scalar_u4(n, x.data(), m, 1.0f, c, ys.data());
      k::f32_vlogsoftmax__wasmsimd_u8(n, x.data(), m, 1.0f, c, yv.data());
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(ref::bits(ys[i]), ref::bits(yv[i]));
        const double r = (static_cast<double>(x[i]) - m) - c;
        if (std::isinf(static_cast<float>(r))) {
          ASSERT_EQ(yv[i], static_cast<float>(r)) << "overflowing x - m rounds to -Infinity";
        } else {
          ASSERT_LE(ref::ulps(yv[i], r), 1.0) << in.name << " " << x[i];
        }
      }
    }
  }
}

TEST(Kernels, RminmaxMatchesAndFlagsNaN) {
  for (size_t n : sizes()) {
    for (size_t offset : {0, 1}) {
      auto buf = ref::normal(n + 1, 3.0, static_cast<uint32_t>(n) + 17);
      const float* x = buf.data() + offset;
      float lo = INFINITY, hi = -INFINITY;
      for (size_t i = 0; i < n; ++i) lo = std::min(lo, x[i]), hi = std::max(hi, x[i]);
      float s[2], v[2];
      k::f32_rminmax__scalar_u4(n, x, s);
      k::f32_rminmax__wasmsimd_u16_acc4(n, x, v);
      ASSERT_EQ(s[0], lo);
      ASSERT_EQ(s[1], hi);
      ASSERT_EQ(ref::bits(v[0]), ref::bits(s[0]));
      ASSERT_EQ(ref::bits(v[1]), ref::bits(s[1]));
      buf[offset + (n * 3) / 5] = NAN;
      k::f32_rminmax__scalar_u4(n, x, s);
      k::f32_rminmax__wasmsimd_u16_acc4(n, x, v);
      ASSERT_TRUE(std::isnan(s[1]) && std::isnan(v[1])) << n;
    }
  }
  // Zeros of either sign come out as +0, whatever the lane order.
  std::vector<float> z(37, -0.0f);
  z[20] = 0.0f;
  float v[2];
  k::f32_rminmax__wasmsimd_u16_acc4(z.size(), z.data(), v);
  EXPECT_EQ(ref::bits(v[0]), 0u);
  EXPECT_EQ(ref::bits(v[1]), 0u);
  const float inf[4] = {-INFINITY, 2, INFINITY, -INFINITY};
  k::f32_rminmax__scalar_u4(4, inf, v);
  EXPECT_EQ(v[0], -INFINITY);
  EXPECT_EQ(v[1], INFINITY);
}

TEST(Kernels, RaddstoreexpminuscMatchesDoubleAndVariantsAgree) {
  // y = exp(x - nc ln 2) with nc = round(max log2 e), for |max| <= 1024.
  for (double center : {0.0, 13.0, -700.0, 1020.0, -1020.0}) {
    double worst = 0;
    for (size_t n : sizes()) {
      if (n > 262144) continue;
      for (size_t offset : {0, 1}) {
        auto buf = ref::normal(n + 1, 3.0, static_cast<uint32_t>(n) * 3 + offset);
        for (auto& v : buf) v = static_cast<float>(v + center);
        if (n > 8) buf[offset + n / 2] = -INFINITY;  // masked
        const float* x = buf.data() + offset;
        float mm[2];
        k::f32_rminmax__scalar_u4(n, x, mm);
        const float nc = std::nearbyint(mm[1] * k::kLog2e);
        const double c = static_cast<double>(nc) * 0.693147180559945309417;
        const bool mask = !(mm[0] >= mm[1] - 80.0f);
        std::vector<float> ys(n + 1), yv(n + 1);
        const double ss =
            k::f32_raddstoreexpminusc__scalar_rr2_p5_u8_acc2(n, x, nc, mask, ys.data() + offset);
        const double sv =
            k::f32_raddstoreexpminusc__wasmsimd_rr2_p5_u8_acc2(n, x, nc, mask, yv.data() + offset);
        ASSERT_EQ(ss, sv) << center << " n=" << n;
        EXPECT_EQ(sv, k::f32_raddstoreexpminusc__wasmsimd_rr2_p5_u8_acc2(n, x, nc, mask, nullptr));
        double exact = 0;
        for (size_t i = 0; i < n; ++i) {
          const float y = yv[i + offset];
          ASSERT_EQ(ref::bits(ys[i + offset]), ref::bits(y)) << center << " n=" << n << " i=" << i;
          const double r = std::exp(static_cast<double>(x[i]) - c);
          exact += r;
          if (r >= 0x1p-126) {
            worst = std::max(worst, ref::ulps(y, r));
            ASSERT_LE(ref::ulps(y, r), k::kExpShiftedBoundUlp) << center << " x=" << x[i];
          } else {
            ASSERT_LE(std::fabs(y - r), 0x1p-126) << center << " x=" << x[i];
          }
        }
        EXPECT_LE(std::fabs(sv - exact), 5e-7 * exact) << center << " n=" << n;
      }
    }
    std::printf("raddstoreexpminusc around %g: max error %.4f ulp\n", center, worst);
  }
}
