// exp(z) for z <= 0, shared by every kernel: the scalar function below and the
// SIMD128 one in wasmsimd.cpp perform the same float32 operations in the same
// order, so a tail element gets the same bits as a vector lane.
//
// Algorithm "rr2_p6":
//   n = round(z * log2(e))                 (magic-number rounding)
//   r = (z - n * ln2_hi) - n * ln2_lo + c  (2-step Cody-Waite reduction; c is the
//                                           caller's correction term, see below)
//   e^r ~ 1 + r + r^2 (c2 + r (c3 + r (c4 + r (c5 + r c6))))
//   e^z = (1 + p) * 2^n                    (2^n built from the exponent bits)
// |r| <= ln2/2. c2..c6 are a Chebyshev fit of (e^r - 1 - r) / r^2 on
// [-1.02 ln2/2, 1.02 ln2/2], rounded to float32; the polynomial's own relative
// error is 7.8e-9 (0.13 ulp).
//
// Error bound (asserted by tests/native/exp_sweep_test.cpp over all 1.12e9
// float32 z in [kExpCutoff, 0]): at most kExpBoundUlp = 1.05 ulp against exp
// computed in double (worst seen: 1.046 ulp at z = -0x1.df4322p+5), for every
// result that is a normal float. Results below FLT_MIN (z < -87.34) are
// denormal (rounded once) and z < kExpCutoff gives exactly +0.
//
// The correction c lets a caller pass the rounding error of z = x - max (from
// TwoSum), so that exp sees x - max exactly and not its float32 rounding.
#pragma once
#include <cstdint>
#include <cstring>
#include <limits>

namespace smx::kernels {

inline constexpr double kExpBoundUlp = 1.05;
inline constexpr float kLog2e = 0x1.715476p+0f;
// 0x1.8p23 + 127: adding it rounds to an integer and keeps n + 127 in the low bits.
inline constexpr float kMagicBias = 0x1.8000FEp23f;
inline constexpr float kLn2Hi = 0x1.63p-1f;  // 9 significant bits: n * kLn2Hi is exact
inline constexpr float kLn2Lo = -0x1.BD0106p-13f;
inline constexpr float kC2 = 0x1.000000p-1f;
inline constexpr float kC3 = 0x1.5554D4p-3f;
inline constexpr float kC4 = 0x1.555514p-5f;
inline constexpr float kC5 = 0x1.121582p-7f;
inline constexpr float kC6 = 0x1.6D1B1Cp-10f;
// ln(2^-126): below it n would fall under -126 and 2^n is no longer a normal float.
inline constexpr float kExpCutoff = -0x1.5D589Ep+6f;

inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// e^r - 1 for |r| <= ln2/2: r + r^2 (c2 + r (c3 + r (c4 + r (c5 + r c6)))).
inline float expm1_poly(float r) {
  float q = kC6 * r + kC5;
  q = q * r + kC4;
  q = q * r + kC3;
  q = q * r + kC2;
  return (r * r) * q + r;
}

// e^(z + c) for z <= 0 and |c| <= ulp(z); +0 when z < kExpCutoff (also z = -inf).
inline float exp_rr2_p6(float z, float c) {
  const float t = z * kLog2e + kMagicBias;
  const float s = bits_float(float_bits(t) << 23);
  const float n = t - kMagicBias;
  float r = z - n * kLn2Hi;
  r = r - n * kLn2Lo;
  r = r + c;
  const float f = (expm1_poly(r) + 1.0f) * s;
  return z < kExpCutoff ? 0.0f : f;
}

// exp(x - nc ln 2) for an integer nc with |nc| <= 1478 and x <= (nc + 0.5) ln 2 + 0.01:
// the softmax fast path ("rr2_p5"). n = round(x log2 e) is reduced from x
// itself (Cody-Waite is exact for |n| < 2^12) and 2^(n - nc) comes from the
// exponent bits of t = x log2 e + kMagic + 127 - nc. e^r = 1 + r (p1 + r (p2 +
// r (p3 + r (p4 + r p5)))): a degree-5 fit of the relative error on
// [-1.01 ln2/2, 1.01 ln2/2] (Lawson's iteration, the 1 fixed so that e^0 is
// exactly 1; 9.7e-8 before rounding the coefficients to float32): two
// operations fewer than rr2_p6, and softmax ~16% faster in V8.
// Error: at most kExpShiftedBoundUlp = 2.5 ulp against exp in double (worst
// seen: 2.255 ulp over all 2.17e9 floats of [-87.34, 0.347] at nc = 0, swept by
// exp_sweep_test.cpp; 2.31 ulp at nc = -1478, kernels_test.cpp), for results
// that are normal floats. Below 2^-126 they are garbage unless masked:
// kExpShiftFloor is the t below which they are.
inline constexpr double kExpShiftedBoundUlp = 2.5;
inline constexpr float kMagic = 0x1.8p23f;
inline constexpr float kExpShiftFloor = kMagic + 1.0f;
inline constexpr float kP1 = 0x1.FFFFF6p-1f, kP2 = 0x1.FFFDAEp-2f, kP3 = 0x1.555AA0p-3f,
                       kP4 = 0x1.574408p-5f, kP5 = 0x1.0FA100p-7f;
inline float expm1_p5(float r) {
  float q = kP5 * r + kP4;
  q = q * r + kP3;
  q = q * r + kP2;
  q = q * r + kP1;
  return r * q;
}
// kCorr: exp(x + c - nc ln 2) for a correction c of x's rounding (|c| <=
// ulp(x)), added to the reduced argument (the tempered path below).
template <bool kMask, bool kCorr = false>
inline float exp_shifted(float x, float bias, float c = 0.0f) {
  const float t = x * kLog2e + bias;
  const float s = bits_float(float_bits(t) << 23);
  const float n = t - bias;
  float r = x - n * kLn2Hi;
  r = r - n * kLn2Lo;
  if (kCorr) r = r + c;
  const float f = (expm1_p5(r) + 1.0f) * s;
  return kMask && t < kExpShiftFloor ? 0.0f : f;
}

// pmax / pmin as WebAssembly's f32x4.pmax / pmin.
inline float pmax(float a, float b) { return a < b ? b : a; }
inline float pmin(float a, float b) { return b < a ? b : a; }

// Exactly x - m as d + e (Knuth's TwoSum): d = fl(x - m), e its rounding error.
struct TwoDiff {
  float d, e;
};
inline TwoDiff two_diff(float x, float neg_m) {
  const float d = x + neg_m;
  const float bb = d - x;
  const float e = (x - (d - bb)) + (neg_m - bb);
  // NaN where an intermediate overflows (d - x beyond float32 although d is not:
  // [FLT_MAX, 1e38] gave log-softmax NaN); the error is then negligible: 0.
  return {d, e != e ? 0.0f : e};
}

// (x - m) / t as z + c: z rounded to float32, c the (scaled) rounding error of
// x - m. Where x - m overflows float32 but (x - m) / t need not (t > 1, x and m
// of opposite signs near FLT_MAX), z = x / t - m / t and c = 0. kScaled false
// means t == 1; neg_m_t is -m / t.
template <bool kScaled>
inline TwoDiff scaled_diff(float x, float neg_m, float t, float neg_m_t) {
  const TwoDiff d = two_diff(x, neg_m);
  if (!kScaled) return d;
  // Not for x = -Infinity (a masked entry): there x / t - m / t is -Inf + Inf = NaN
  // when m < 0 and m / t overflows ([-Inf, -16] at t = 1.4e-45).
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  if (d.d == kNegInf && x != kNegInf) return {x / t + neg_m_t, 0.0f};
  return {d.d / t, d.e / t};
}

// exp((x - m) / t) with x - m taken exactly.
template <bool kScaled>
inline float exp_minus_max(float x, float neg_m, float t, float neg_m_t) {
  const TwoDiff z = scaled_diff<kScaled>(x, neg_m, t, neg_m_t);
  return exp_rr2_p6(z.d, z.e);
}

// The tempered path (softmax at T != 1 of 256+ entries): exp((x - m) / t) as
// rr2_p5 of z + c with d = x - m rounded to float32 (exact near the max: the
// max entry's exp is exactly 1), 1 / t = k + kl (k = float(1 / t), kl =
// float(1 / t - k), in double), z = d k and c = d kl: (x - m) / t is rounded
// twice (d and z, |z| 2^-23 at most), 1 / t not at all, and the fast path's
// polynomial adds its 2.5 ulp. kMask: x may be -Infinity and results below
// 2^-126 are flushed to 0; without it the caller knows that every x is finite
// and (x - m) / t >= -80. Either way |m| <= 2^100 (no x - m overflows).
struct TemperedScale {
  float k, kl;
};
inline TemperedScale tempered_scale(float t) {
  const double inv = 1.0 / static_cast<double>(t);
  const auto k = static_cast<float>(inv);
  return {k, static_cast<float>(inv - static_cast<double>(k))};
}
inline constexpr float kTemperedBias = kMagic + 127.0f;  // exp_shifted's bias for nc = 0
template <bool kMask>
inline float exp_tempered(float x, float neg_m, float k, float kl) {
  const float d = x + neg_m;
  return exp_shifted<kMask, true>(d * k, kTemperedBias, d * kl);
}

// (x - m) / t - c with x - m taken exactly; -Infinity where (x - m) / t
// overflows (the TwoSum error is NaN there).
inline float log_softmax_one(float x, float neg_m, float t, float neg_m_t, float c) {
  const TwoDiff z = t == 1.0f ? scaled_diff<false>(x, neg_m, t, neg_m_t)
                              : scaled_diff<true>(x, neg_m, t, neg_m_t);
  return z.d == -std::numeric_limits<float>::infinity() ? z.d : (z.d - c) + z.e;
}

// max as WebAssembly's f32.max: NaN if either is NaN, +0 over -0.
inline float max_wasm(float a, float b) {
  if (a != a || b != b) return a + b;
  if (a == b) return bits_float(float_bits(a) & float_bits(b));
  return a > b ? a : b;
}

}  // namespace smx::kernels
