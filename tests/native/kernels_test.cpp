// Every kernel of kernels.inc against a double-precision reference: sizes below,
// at and around the SIMD tile, large sizes, misaligned pointers, and inputs where
// a naive exp overflows. The variants of each op (scalar, SIMD128) must agree
// to the bit. The variants come from kernels.inc: a kernel added there is
// tested here (an op without a list below does not compile).
#include "kernels/kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/exp_rr2_p6.h"
#include "reference.h"

namespace k = smx::kernels;

namespace {

template <class Fn>
struct Variant {
  const char* name;
  const char* isa;
  Fn* fn;
};

// The scalar variant of an op, which the others must match bit for bit.
template <class Fn>
Fn* scalar(const std::vector<Variant<Fn>>& v) {
  for (const auto& e : v)
    if (std::string(e.isa) == "scalar") return e.fn;
  return nullptr;
}

// Every variant of every op, as kernels.inc lists them.
struct Variants {
  std::vector<Variant<k::rmax_ukernel>> rmax;
  std::vector<Variant<k::rminmax_ukernel>> rminmax;
  std::vector<Variant<k::raddstoreexpminusc_ukernel>> raddstoreexpminusc;
  std::vector<Variant<k::raddstoreexpminusmax_ukernel>> raddstoreexpminusmax;
  std::vector<Variant<k::raddstoreexptempered_ukernel>> raddstoreexptempered;
  std::vector<Variant<k::raddstoreexpdot_ukernel>> raddstoreexpdot;
  std::vector<Variant<k::vscale_ukernel>> vscale;
  std::vector<Variant<k::vlogsoftmax_ukernel>> vlogsoftmax;
  std::vector<Variant<k::findabove_ukernel>> findabove;
  std::vector<Variant<k::raddstorescale_ukernel>> raddstorescale;
  std::vector<Variant<k::rsumsqdiff_ukernel>> rsumsqdiff;
  std::vector<Variant<k::indexge_ukernel>> indexge;
  std::vector<Variant<k::vbitmask_ukernel>> vbitmask;
  std::vector<Variant<k::findabovemasked_ukernel>> findabovemasked;
  std::vector<Variant<k::raddscaleindexge_ukernel>> raddscaleindexge;
};

const Variants& all() {
  static const Variants v = [] {
    Variants r;
#define SMX_KERNEL(op, name, isa) r.op.push_back({#name, #isa, &k::name});
#include "kernels/kernels.inc"
#undef SMX_KERNEL
    return r;
  }();
  return v;
}

TEST(Kernels, EveryOpHasAScalarAndASimdVariant) {
  const Variants& v = all();
  for (size_t n :
       {v.rmax.size(), v.rminmax.size(), v.raddstoreexpminusc.size(), v.raddstoreexpminusmax.size(),
        v.raddstoreexptempered.size(), v.raddstoreexpdot.size(), v.vscale.size(),
        v.vlogsoftmax.size(), v.findabove.size(), v.vbitmask.size(), v.findabovemasked.size(),
        v.raddscaleindexge.size()})
    EXPECT_EQ(n, 2u);
}

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
  auto* const S = scalar(all().raddstoreexpminusmax);
  for (const auto& variant : all().raddstoreexpminusmax) {
    auto* const V = variant.fn;
    for (const auto& in : kInputs) {
      for (size_t n : sizes()) {
        for (size_t offset : {0, 1}) {
          if (n >= (1 << 20) && offset) continue;
          auto buf = make(in, n, static_cast<uint32_t>(n * 7 + offset));
          const float* x = buf.data() + offset;
          const float m = k::f32_rmax__scalar_u4(n, x);
          std::vector<float> ys(n + 1), yv(n + 1);
          const double ss = S(n, x, m, 1.0f, ys.data() + offset);
          const double sv = V(n, x, m, 1.0f, yv.data() + offset);
          ASSERT_EQ(ref::bits(static_cast<float>(ss)), ref::bits(static_cast<float>(sv))) << n;
          ASSERT_EQ(ss, sv) << variant.name << " " << in.name << " n=" << n;
          double exact_sum = 0, stored_sum = 0;
          for (size_t i = 0; i < n; ++i) {
            const float y = yv[i + offset];
            ASSERT_EQ(ref::bits(ys[i + offset]), ref::bits(y))
                << variant.name << " " << in.name << " n=" << n << " i=" << i;
            const double r = std::exp(static_cast<double>(x[i]) - static_cast<double>(m));
            exact_sum += r;
            stored_sum += y;
            if (r >= 0x1p-126) {
              ASSERT_LE(ref::ulps(y, r), k::kExpBoundUlp)
                  << variant.name << " " << in.name << " n=" << n << " x=" << x[i] << " m=" << m;
            } else {
              // Below FLT_MIN the kernel may flush to 0 (documented in exp_rr2_p6.h).
              ASSERT_LE(std::fabs(y - r), 0x1p-126)
                  << variant.name << " " << in.name << " x=" << x[i];
            }
          }
          // The kernel's sum of its own outputs: float32 partials of 8 values per lane.
          EXPECT_LE(std::fabs(sv - stored_sum), 4e-7 * stored_sum)
              << variant.name << " " << in.name << " n=" << n;
          EXPECT_LE(std::fabs(sv - exact_sum), 5e-7 * exact_sum)
              << variant.name << " " << in.name << " n=" << n;
        }
      }
    }
  }
}

TEST(Kernels, RaddstoreexpminusmaxWithTemperature) {
  auto* const S = scalar(all().raddstoreexpminusmax);
  for (const auto& variant : all().raddstoreexpminusmax) {
    auto* const V = variant.fn;
    for (float t : {0.3f, 2.0f, 1e-3f, 1e6f}) {
      for (size_t n : {1, 7, 33, 1000}) {
        auto x = ref::normal(n, 3.0, 11);
        const float m = k::f32_rmax__scalar_u4(n, x.data());
        std::vector<float> ys(n), yv(n);
        const double ss = S(n, x.data(), m, t, ys.data());
        const double sv = V(n, x.data(), m, t, yv.data());
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
}

TEST(Kernels, RaddstoreexpminusmaxWithoutStore) {
  auto* const S = scalar(all().raddstoreexpminusmax);
  for (const auto& variant : all().raddstoreexpminusmax) {
    auto* const V = variant.fn;
    auto x = ref::normal(1001, 3.0, 5);
    const float m = k::f32_rmax__scalar_u4(x.size(), x.data());
    std::vector<float> y(x.size());
    const double with = V(x.size(), x.data(), m, 1.0f, y.data());
    EXPECT_EQ(with, V(x.size(), x.data(), m, 1.0f, nullptr));
    EXPECT_EQ(with, S(x.size(), x.data(), m, 1.0f, nullptr));
  }
}

TEST(Kernels, RmaxMatchesAndPropagatesNaN) {
  auto* const S = scalar(all().rmax);
  for (const auto& variant : all().rmax) {
    auto* const V = variant.fn;
    for (size_t n : sizes()) {
      for (size_t offset : {0, 1}) {
        auto buf = ref::normal(n + 1, 3.0, static_cast<uint32_t>(n));
        const float* x = buf.data() + offset;
        float m = -INFINITY;
        for (size_t i = 0; i < n; ++i) m = std::max(m, x[i]);
        ASSERT_EQ(S(n, x), m);
        ASSERT_EQ(V(n, x), m);
        buf[offset + (n * 5) / 7] = NAN;
        ASSERT_TRUE(std::isnan(S(n, x))) << n;
        ASSERT_TRUE(std::isnan(V(n, x))) << n;
      }
    }
    const float inf[3] = {-INFINITY, INFINITY, 1};
    EXPECT_EQ(V(3, inf), INFINITY);
  }
}

TEST(Kernels, VscaleIsOneRoundedMultiply) {
  auto* const S = scalar(all().vscale);
  for (const auto& variant : all().vscale) {
    auto* const V = variant.fn;
    for (size_t n : sizes()) {
      auto x = ref::normal(n + 1, 3.0, static_cast<uint32_t>(n));
      std::vector<float> ys(n + 1), yv(n + 1);
      S(n, x.data() + 1, 0.37f, ys.data() + 1);
      V(n, x.data() + 1, 0.37f, yv.data() + 1);
      for (size_t i = 1; i <= n; ++i) {
        const float r =
            static_cast<float>(static_cast<double>(x[i]) * 0.37f);  // exact product, rounded once
        ASSERT_EQ(ref::bits(ys[i]), ref::bits(r));
        ASSERT_EQ(ref::bits(yv[i]), ref::bits(r));
      }
    }
  }
}

TEST(Kernels, VlogsoftmaxMatchesDouble) {
  auto* const S = scalar(all().vlogsoftmax);
  for (const auto& variant : all().vlogsoftmax) {
    auto* const V = variant.fn;
    for (const auto& in : kInputs) {
      for (size_t n : {1, 3, 4, 5, 17, 1000, 32000}) {
        auto x = make(in, n, 3);
        const float m = k::f32_rmax__scalar_u4(n, x.data());
        const float c = 2.75f;
        std::vector<float> ys(n), yv(n);
        S(n, x.data(), m, 1.0f, c, ys.data());
        V(n, x.data(), m, 1.0f, c, yv.data());
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
}

TEST(Kernels, RminmaxMatchesAndFlagsNaN) {
  auto* const S = scalar(all().rminmax);
  for (const auto& variant : all().rminmax) {
    auto* const V = variant.fn;
    for (size_t n : sizes()) {
      for (size_t offset : {0, 1}) {
        auto buf = ref::normal(n + 1, 3.0, static_cast<uint32_t>(n) + 17);
        const float* x = buf.data() + offset;
        float lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < n; ++i) lo = std::min(lo, x[i]), hi = std::max(hi, x[i]);
        float s[2], v[2];
        S(n, x, s);
        V(n, x, v);
        ASSERT_EQ(s[0], lo);
        ASSERT_EQ(s[1], hi);
        ASSERT_EQ(ref::bits(v[0]), ref::bits(s[0]));
        ASSERT_EQ(ref::bits(v[1]), ref::bits(s[1]));
        buf[offset + (n * 3) / 5] = NAN;
        S(n, x, s);
        V(n, x, v);
        ASSERT_TRUE(std::isnan(s[1]) && std::isnan(v[1])) << n;
      }
    }
    // Zeros of either sign come out as +0, whatever the lane order.
    std::vector<float> z(37, -0.0f);
    z[20] = 0.0f;
    float v[2];
    V(z.size(), z.data(), v);
    EXPECT_EQ(ref::bits(v[0]), 0u);
    EXPECT_EQ(ref::bits(v[1]), 0u);
    const float inf[4] = {-INFINITY, 2, INFINITY, -INFINITY};
    V(4, inf, v);
    EXPECT_EQ(v[0], -INFINITY);
    EXPECT_EQ(v[1], INFINITY);
  }
}

TEST(Kernels, RaddstorescaleStoresVscaleBitsAndSumsThem) {
  auto* const S = scalar(all().raddstorescale);
  for (const auto& v : all().raddstorescale) {
    for (size_t n : sizes()) {
      auto x = ref::normal(n + 1, 3.0, static_cast<uint32_t>(n) + 9);
      for (auto& e : x) e = std::fabs(e);
      std::vector<float> ys(n + 1), yv(n + 1);
      const double ss = S(n, x.data() + 1, 0.37f, ys.data() + 1);
      const double sv = v.fn(n, x.data() + 1, 0.37f, yv.data() + 1);
      ASSERT_EQ(ss, sv) << v.name << " n=" << n;
      double exact = 0;
      for (size_t i = 1; i <= n; ++i) {
        const float r = static_cast<float>(static_cast<double>(x[i]) * 0.37f);
        ASSERT_EQ(ref::bits(yv[i]), ref::bits(r)) << v.name << " n=" << n;
        ASSERT_EQ(ref::bits(ys[i]), ref::bits(r));
        exact += r;
      }
      // Double sums of n nonnegative terms: within n 2^-53 of the exact sum.
      EXPECT_LE(std::fabs(sv - exact), (2.0 * n + 4) * 0x1p-53 * exact) << v.name << " n=" << n;
      // In place.
      std::vector<float> z(x.begin() + 1, x.end());
      EXPECT_EQ(v.fn(n, z.data(), 0.37f, z.data()), sv);
    }
  }
}

TEST(Kernels, RsumsqdiffSumsDeviationsAndSquaresInDouble) {
  auto* const S = scalar(all().rsumsqdiff);
  for (const auto& v : all().rsumsqdiff) {
    for (size_t n : sizes()) {
      for (double offset : {0.0, 1000.0}) {
        auto x = ref::normal(n + 1, 3.0, static_cast<uint32_t>(n) + 3);
        for (auto& e : x) e = static_cast<float>(e + offset);
        const double c = x[1] + 0.25;
        double s[2], r[2];
        S(n, x.data() + 1, c, s);
        v.fn(n, x.data() + 1, c, r);
        ASSERT_EQ(s[0], r[0]) << v.name << " n=" << n;
        ASSERT_EQ(s[1], r[1]) << v.name << " n=" << n;
        long double e1 = 0, e2 = 0, a1 = 0;
        for (size_t i = 1; i <= n; ++i) {
          const long double d = static_cast<long double>(x[i]) - c;
          e1 += d, e2 += d * d, a1 += std::fabs(static_cast<double>(d));
        }
        EXPECT_LE(std::fabs(static_cast<double>(r[0] - e1)),
                  (n + 4) * 0x1p-52 * static_cast<double>(a1))
            << v.name << " n=" << n;
        EXPECT_LE(std::fabs(static_cast<double>(r[1] - e2)),
                  (n + 4) * 0x1p-52 * static_cast<double>(e2))
            << v.name << " n=" << n;
      }
    }
  }
}

TEST(Kernels, IndexgeListsThePositionsAtOrAboveTheThreshold) {
  for (const auto& v : all().indexge) {
    for (size_t n : sizes()) {
      for (size_t offset : {0, 1}) {
        auto buf = ref::normal(n + 1, 3.0, static_cast<uint32_t>(n) + 21);
        const float* x = buf.data() + offset;
        for (float t : {-INFINITY, -2.0f, 0.0f, 4.0f, 9.0f, INFINITY, x[n / 2]}) {
          std::vector<uint32_t> want;
          for (size_t i = 0; i < n; ++i)
            if (x[i] >= t) want.push_back(static_cast<uint32_t>(i));
          std::vector<uint32_t> got(n);
          const size_t count = v.fn(n, x, t, got.data());
          got.resize(count);
          ASSERT_EQ(got, want) << v.name << " n=" << n << " t=" << t;
        }
      }
    }
  }
}

// Token bitmasks: random words, words all set and all clear (the kernels' fast
// paths), a NaN with a payload among the kept entries; out of place and in
// place; bits past n set (they must not count).
TEST(Kernels, VbitmaskKeepsTheAllowedEntriesAndCountsThem) {
  std::mt19937 rng(7);
  for (const auto& v : all().vbitmask) {
    for (size_t n : sizes()) {
      if (n > 262144) continue;
      for (size_t offset : {0, 1}) {
        auto buf = ref::normal(n + 1, 3.0, static_cast<uint32_t>(n) + 3);
        if (n > 5) {
          const uint32_t payload = 0x7FC01234u;
          std::memcpy(&buf[offset + 5], &payload, 4);
        }
        const float* x = buf.data() + offset;
        const size_t words = (n + 31) / 32;
        for (int pattern = 0; pattern < 4; ++pattern) {
          std::vector<uint32_t> mask(words);
          for (size_t w = 0; w < words; ++w) {
            const uint32_t r = rng();
            mask[w] = pattern == 0   ? r
                      : pattern == 1 ? 0xFFFFFFFFu
                      : pattern == 2 ? (w % 3 == 0   ? 0u
                                        : w % 3 == 1 ? 0xFFFFFFFFu
                                                     : r)
                                     : (w == words / 2 ? 1u << (r & 31) : 0u);
          }
          std::vector<float> want(n);
          size_t count = 0;
          for (size_t i = 0; i < n; ++i) {
            const bool allowed = (mask[i >> 5] >> (i & 31)) & 1u;
            want[i] = allowed ? x[i] : -INFINITY;
            count += allowed;
          }
          std::vector<float> out(n + 1, 1.0f);
          ASSERT_EQ(v.fn(n, x, mask.data(), out.data() + offset), count) << v.name << " n=" << n;
          std::vector<float> in_place(buf.begin() + offset, buf.begin() + offset + n);
          ASSERT_EQ(v.fn(n, in_place.data(), mask.data(), in_place.data()), count);
          for (size_t i = 0; i < n; ++i) {
            ASSERT_EQ(ref::bits(out[offset + i]), ref::bits(want[i])) << v.name << " n=" << n;
            ASSERT_EQ(ref::bits(in_place[i]), ref::bits(want[i])) << v.name << " n=" << n;
          }
        }
      }
    }
  }
}

TEST(Kernels, FindabovemaskedFindsTheFirstBlockWithAnAllowedEntryAboveTheThreshold) {
  std::mt19937 rng(11);
  for (const auto& v : all().findabovemasked) {
    for (size_t n : sizes()) {
      if (n > 262144) continue;
      auto x = ref::normal(n, 3.0, static_cast<uint32_t>(n) + 9);
      if (n >= 40) x[37] = NAN;
      std::vector<uint32_t> mask((n + 31) / 32);
      for (int pattern = 0; pattern < 3; ++pattern) {
        for (auto& w : mask) {
          const uint32_t r = rng();
          w = pattern == 0 ? r : pattern == 1 ? (r & rng() & rng() & rng()) : 0xFFFFFFFFu;
        }
        for (float t : {-INFINITY, -2.0f, 0.0f, 4.0f, 9.0f, INFINITY}) {
          for (size_t first : {size_t{0}, size_t{16}, size_t{48}}) {
            // The reference: the first whole block from `first` with an allowed entry not <= t.
            size_t want = first;
            while (want + 16 <= n) {
              bool hit = false;
              for (size_t j = want; j < want + 16; ++j)
                hit |= !(x[j] <= t) && ((mask[j >> 5] >> (j & 31)) & 1u);
              if (hit) break;
              want += 16;
            }
            ASSERT_EQ(v.fn(n, x.data(), t, mask.data(), first), want)
                << v.name << " n=" << n << " t=" << t << " first=" << first;
          }
        }
      }
    }
  }
}

TEST(Kernels, FindaboveFindsTheFirstBlockAboveTheThreshold) {
  for (const auto& v : all().findabove) {
    for (size_t n : sizes()) {
      for (size_t offset : {0, 1}) {
        auto buf = ref::normal(n + 1, 3.0, static_cast<uint32_t>(n) + 5);
        const float* x = buf.data() + offset;
        for (float t : {-INFINITY, -2.0f, 0.0f, 4.0f, 9.0f, INFINITY}) {
          // The reference: the first whole block of 16 with an entry not <= t.
          size_t want = n - n % 16;
          for (size_t b = 0; b + 16 <= n && want == n - n % 16; b += 16)
            for (size_t j = 0; j < 16; ++j)
              if (!(x[b + j] <= t)) want = b;
          ASSERT_EQ(v.fn(n, x, t), want) << v.name << " n=" << n << " t=" << t;
        }
        if (n >= 40) {  // a NaN flags its block
          buf[offset + 37] = NAN;
          ASSERT_LE(v.fn(n, x, INFINITY), 32u) << v.name << " n=" << n;
        }
      }
    }
  }
}

TEST(Kernels, RaddstoreexpminuscMatchesDoubleAndVariantsAgree) {
  auto* const S = scalar(all().raddstoreexpminusc);
  for (const auto& variant : all().raddstoreexpminusc) {
    auto* const V = variant.fn;
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
          const double ss = S(n, x, nc, mask, ys.data() + offset);
          const double sv = V(n, x, nc, mask, yv.data() + offset);
          ASSERT_EQ(ss, sv) << center << " n=" << n;
          EXPECT_EQ(sv, V(n, x, nc, mask, nullptr));
          double exact = 0;
          for (size_t i = 0; i < n; ++i) {
            const float y = yv[i + offset];
            ASSERT_EQ(ref::bits(ys[i + offset]), ref::bits(y))
                << center << " n=" << n << " i=" << i;
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
}

TEST(Kernels, RaddscaleindexgeSumsAsRaddstorescaleAndListsAsIndexge) {
  auto* const sum = scalar(all().raddstorescale);
  auto* const index = scalar(all().indexge);
  for (const auto& v : all().raddscaleindexge) {
    for (size_t n : sizes()) {
      for (size_t offset : {0, 1}) {
        auto buf = ref::normal(n + 1, 3.0, static_cast<uint32_t>(n) + 33);
        auto ebuf = buf;
        for (auto& e : ebuf) e = std::fabs(e);
        const float* g = buf.data() + offset;
        const float* x = ebuf.data() + (1 - offset);
        std::vector<float> y(n);
        const double want_sum = sum(n, x, 0.37f, y.data());
        for (float t : {-INFINITY, 0.0f, 4.0f, INFINITY, g[n / 2]}) {
          std::vector<uint32_t> want(n), got(n);
          want.resize(index(n, g, t, want.data()));
          size_t count = n + 1;
          const double got_sum = v.fn(n, x, 0.37f, g, t, got.data(), &count);
          got.resize(count);
          ASSERT_EQ(got_sum, want_sum) << v.name << " n=" << n << " t=" << t;
          ASSERT_EQ(got, want) << v.name << " n=" << n << " t=" << t;
        }
      }
    }
  }
}

// raddstoreexpdot: the exponentials and sum of the kernel its path names
// (raddstoreexpminusc with or without mask, raddstoreexptempered with or
// without, raddstoreexpminusmax), bit for bit, and the dot within its
// rounding (float products, partial sums of 8 per lane: 12 2^-24 of the
// magnitudes) of the exact sum of y * (x - m); every variant the same bits,
// stored or not. The unmasked paths get inputs they apply to (no -Infinity,
// every x >= m - 80 t).
TEST(Kernels, RaddstoreexpdotIsTheExpKernelPlusTheDotWithTheShiftedLogits) {
  auto* const S = scalar(all().raddstoreexpdot);
  auto* const shift = scalar(all().raddstoreexpminusc);
  auto* const tempered = scalar(all().raddstoreexptempered);
  auto* const exact = scalar(all().raddstoreexpminusmax);
  for (const auto& v : all().raddstoreexpdot) {
    for (size_t n : sizes()) {
      if (n > 100000) continue;
      for (int path : {k::kExpExact, k::kExpShift, k::kExpShiftMasked, k::kExpTempered,
                       k::kExpTemperedMasked}) {
        const bool masked =
            path == k::kExpShiftMasked || path == k::kExpTemperedMasked || path == k::kExpExact;
        auto x = ref::normal(n + 1, 3.0, static_cast<uint32_t>(n) + 51);
        if (masked && n > 10) x[n / 2] = -INFINITY, x[n / 3] = -1e30f;
        const float* xs = x.data() + 1;
        const float m = k::f32_rmax__scalar_u4(n, xs);
        const float nc = k::exp_shift_for(m);
        const bool is_shift = path == k::kExpShift || path == k::kExpShiftMasked;
        const bool is_tempered = path == k::kExpTempered || path == k::kExpTemperedMasked;
        for (float t : {1.0f, 0.7f, 3.0f}) {
          if ((is_shift && t != 1.0f) || (is_tempered && t == 1.0f)) continue;
          std::vector<float> y(n), want(n);
          double dot = 0, dot_s = 0, dot_null = 0;
          const double sum = v.fn(n, xs, m, t, nc, path, y.data(), &dot);
          const double want_sum = is_shift      ? shift(n, xs, nc, masked, want.data())
                                  : is_tempered ? tempered(n, xs, m, t, masked, want.data())
                                                : exact(n, xs, m, t, want.data());
          ASSERT_EQ(sum, want_sum) << v.name << " n=" << n << " t=" << t << " path=" << path;
          for (size_t i = 0; i < n; ++i) ASSERT_EQ(ref::bits(y[i]), ref::bits(want[i])) << i;
          ASSERT_EQ(sum, S(n, xs, m, t, nc, path, want.data(), &dot_s));
          ASSERT_EQ(dot, dot_s) << v.name << " n=" << n << " t=" << t << " path=" << path;
          ASSERT_EQ(sum, v.fn(n, xs, m, t, nc, path, nullptr, &dot_null));
          ASSERT_EQ(dot, dot_null) << v.name << " n=" << n << " t=" << t << " path=" << path;
          long double exact_dot = 0, mag = 0;
          for (size_t i = 0; i < n; ++i) {
            if (y[i] == 0.0f) continue;
            const long double term = static_cast<long double>(y[i]) * (xs[i] - m);
            exact_dot += term, mag += std::fabs(term);
          }
          EXPECT_LE(std::fabs(static_cast<double>(dot - exact_dot)),
                    static_cast<double>(12 * 0x1p-24 * mag) + 1e-300)
              << v.name << " n=" << n << " t=" << t << " path=" << path;
          EXPECT_TRUE(dot == dot) << v.name << " n=" << n;
        }
      }
    }
  }
}

// raddstoreexptempered against exp((x - m) / t) in double: (x - m) / t rounded
// twice (|z| 2^-23) plus the rr2_p5 polynomial's 2.5 ulp and the correction's
// rounding; the max entry exactly 1; every variant the same bits, masked or
// not where both apply; -Infinity and spreads beyond 87 t give exactly 0
// with the mask; temperatures across the path's range [2^-64, 2^64] and
// maxima up to 2^100.
TEST(Kernels, RaddstoreexptemperedMatchesDoubleAndVariantsAgree) {
  auto* const S = scalar(all().raddstoreexptempered);
  for (const auto& variant : all().raddstoreexptempered) {
    auto* const V = variant.fn;
    for (float t : {0.3f, 0.7f, 1.3f, 2.0f, 10.0f, 0x1p-64f, 0x1p64f, 1e-3f}) {
      for (float shift : {0.0f, 1000.0f, -0x1p90f, 0x1p100f}) {
        for (size_t n : {1, 7, 33, 256, 1000, 4099}) {
          auto x = ref::normal(n, 3.0, static_cast<uint32_t>(n) + 17);
          for (float& v : x) v += shift;
          const float m = k::f32_rmax__scalar_u4(n, x.data());
          float mm[2];
          k::f32_rminmax__scalar_u4(n, x.data(), mm);
          const bool unmasked_ok =
              static_cast<double>(mm[0]) >= static_cast<double>(m) - 80.0 * static_cast<double>(t);
          std::vector<float> ys(n), yv(n), yu(n);
          const double ss = S(n, x.data(), m, t, true, ys.data());
          const double sv = V(n, x.data(), m, t, true, yv.data());
          ASSERT_EQ(ss, sv) << variant.name << " t=" << t << " n=" << n;
          if (unmasked_ok) {
            ASSERT_EQ(sv, V(n, x.data(), m, t, false, yu.data()));
            for (size_t i = 0; i < n; ++i) ASSERT_EQ(ref::bits(yu[i]), ref::bits(yv[i])) << i;
          }
          for (size_t i = 0; i < n; ++i) {
            ASSERT_EQ(ref::bits(ys[i]), ref::bits(yv[i])) << variant.name << " i=" << i;
            const double z = (static_cast<double>(x[i]) - m) / static_cast<double>(t);
            const double r = std::exp(z);
            if (x[i] == m) ASSERT_EQ(yv[i], 1.0f);
            if (r >= 0x1p-126) {
              ASSERT_LE(std::fabs(yv[i] - r) / r, std::fabs(z) * 0x1p-23 + 3.0 * 0x1p-23)
                  << variant.name << " t=" << t << " x=" << x[i] << " m=" << m;
            } else {
              ASSERT_LE(std::fabs(yv[i] - r), 0x1p-126) << variant.name << " x=" << x[i];
            }
          }
        }
      }
    }
    // With the mask: -Infinity entries and spreads that would leave float32.
    std::vector<float> x(67, 1.0f), y(67);
    x[3] = -INFINITY, x[40] = -3e38f, x[66] = -INFINITY, x[10] = 2.0f;
    for (float t : {0.5f, 3.0f, 0x1p-64f, 0x1p64f}) {
      const double sum = V(x.size(), x.data(), 2.0f, t, true, y.data());
      ASSERT_EQ(sum, S(x.size(), x.data(), 2.0f, t, true, nullptr));
      EXPECT_EQ(y[3], 0.0f);
      EXPECT_EQ(y[66], 0.0f);
      EXPECT_EQ(y[40], 0.0f) << t;
      EXPECT_EQ(y[10], 1.0f);
      EXPECT_TRUE(sum == sum && sum >= 1.0) << t;
    }
  }
}
