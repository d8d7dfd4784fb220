// SIMD128 kernels, written once with the WebAssembly intrinsics; natively the
// same source compiles through SIMDe (simd128.h).
#include <cfloat>
#include <cmath>

#include "exp_rr2_p6.h"
#include "kernels.h"
#include "simd128.h"

namespace smx::kernels {

namespace {
float hi_lane_max(v128_t v) {
  return pmax(pmax(wasm_f32x4_extract_lane(v, 0), wasm_f32x4_extract_lane(v, 1)),
              pmax(wasm_f32x4_extract_lane(v, 2), wasm_f32x4_extract_lane(v, 3)));
}
float lo_lane_min(v128_t v) {
  return pmin(pmin(wasm_f32x4_extract_lane(v, 0), wasm_f32x4_extract_lane(v, 1)),
              pmin(wasm_f32x4_extract_lane(v, 2), wasm_f32x4_extract_lane(v, 3)));
}
}  // namespace

float f32_rmax__wasmsimd_u16_acc4(size_t n, const float* x) {
  if (n < 16) return f32_rmax__scalar_u4(n, x);
  v128_t m0 = wasm_v128_load(x), m1 = wasm_v128_load(x + 4);
  v128_t m2 = wasm_v128_load(x + 8), m3 = wasm_v128_load(x + 12);
  size_t i = 16;
  for (; i + 16 <= n; i += 16) {
    m0 = wasm_f32x4_max(m0, wasm_v128_load(x + i));
    m1 = wasm_f32x4_max(m1, wasm_v128_load(x + i + 4));
    m2 = wasm_f32x4_max(m2, wasm_v128_load(x + i + 8));
    m3 = wasm_f32x4_max(m3, wasm_v128_load(x + i + 12));
  }
  for (; i + 4 <= n; i += 4) m0 = wasm_f32x4_max(m0, wasm_v128_load(x + i));
  m0 = wasm_f32x4_max(wasm_f32x4_max(m0, m1), wasm_f32x4_max(m2, m3));
  float m = max_wasm(max_wasm(wasm_f32x4_extract_lane(m0, 0), wasm_f32x4_extract_lane(m0, 1)),
                     max_wasm(wasm_f32x4_extract_lane(m0, 2), wasm_f32x4_extract_lane(m0, 3)));
  for (; i < n; ++i) m = max_wasm(m, x[i]);
  return m;
}

void f32_rminmax__wasmsimd_u16_acc4(size_t n, const float* x, float* min_max) {
  if (n < 16) return f32_rminmax__scalar_u4(n, x, min_max);
  v128_t hi0 = wasm_v128_load(x), hi1 = wasm_v128_load(x + 4);
  v128_t hi2 = wasm_v128_load(x + 8), hi3 = wasm_v128_load(x + 12);
  v128_t lo0 = hi0, lo1 = hi1, lo2 = hi2, lo3 = hi3;
  v128_t nan = wasm_v128_or(wasm_v128_or(wasm_f32x4_ne(hi0, hi0), wasm_f32x4_ne(hi1, hi1)),
                            wasm_v128_or(wasm_f32x4_ne(hi2, hi2), wasm_f32x4_ne(hi3, hi3)));
  size_t i = 16;
  for (; i + 16 <= n; i += 16) {
    const v128_t v0 = wasm_v128_load(x + i), v1 = wasm_v128_load(x + i + 4);
    const v128_t v2 = wasm_v128_load(x + i + 8), v3 = wasm_v128_load(x + i + 12);
    hi0 = wasm_f32x4_pmax(hi0, v0), lo0 = wasm_f32x4_pmin(lo0, v0);
    hi1 = wasm_f32x4_pmax(hi1, v1), lo1 = wasm_f32x4_pmin(lo1, v1);
    hi2 = wasm_f32x4_pmax(hi2, v2), lo2 = wasm_f32x4_pmin(lo2, v2);
    hi3 = wasm_f32x4_pmax(hi3, v3), lo3 = wasm_f32x4_pmin(lo3, v3);
    nan =
        wasm_v128_or(nan, wasm_v128_or(wasm_v128_or(wasm_f32x4_ne(v0, v0), wasm_f32x4_ne(v1, v1)),
                                       wasm_v128_or(wasm_f32x4_ne(v2, v2), wasm_f32x4_ne(v3, v3))));
  }
  for (; i + 4 <= n; i += 4) {
    const v128_t v = wasm_v128_load(x + i);
    hi0 = wasm_f32x4_pmax(hi0, v), lo0 = wasm_f32x4_pmin(lo0, v);
    nan = wasm_v128_or(nan, wasm_f32x4_ne(v, v));
  }
  const v128_t hi = wasm_f32x4_pmax(wasm_f32x4_pmax(hi0, hi1), wasm_f32x4_pmax(hi2, hi3));
  const v128_t lo = wasm_f32x4_pmin(wasm_f32x4_pmin(lo0, lo1), wasm_f32x4_pmin(lo2, lo3));
  float mx = hi_lane_max(hi), mn = lo_lane_min(lo);
  bool has_nan = wasm_v128_any_true(nan);
  for (; i < n; ++i) mx = pmax(mx, x[i]), mn = pmin(mn, x[i]), has_nan |= x[i] != x[i];
  min_max[0] = mn + 0.0f;  // +0 for a zero of either sign
  min_max[1] = has_nan ? std::numeric_limits<float>::quiet_NaN() : mx + 0.0f;
}

namespace {

// The vector twin of expm1_poly.
inline v128_t expm1_poly_x4(v128_t r) {
  v128_t q = wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_splat(kC6), r), wasm_f32x4_splat(kC5));
  q = wasm_f32x4_add(wasm_f32x4_mul(q, r), wasm_f32x4_splat(kC4));
  q = wasm_f32x4_add(wasm_f32x4_mul(q, r), wasm_f32x4_splat(kC3));
  q = wasm_f32x4_add(wasm_f32x4_mul(q, r), wasm_f32x4_splat(kC2));
  return wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_mul(r, r), q), r);
}

// The vector twin of exp_shifted.
template <bool kMask, bool kCorr = false>
inline v128_t exp_shifted_x4(v128_t x, v128_t bias, v128_t c = wasm_f32x4_splat(0.0f)) {
  const v128_t t = wasm_f32x4_add(wasm_f32x4_mul(x, wasm_f32x4_splat(kLog2e)), bias);
  const v128_t s = wasm_i32x4_shl(t, 23);
  const v128_t n = wasm_f32x4_sub(t, bias);
  v128_t r = wasm_f32x4_sub(x, wasm_f32x4_mul(n, wasm_f32x4_splat(kLn2Hi)));
  r = wasm_f32x4_sub(r, wasm_f32x4_mul(n, wasm_f32x4_splat(kLn2Lo)));
  if (kCorr) r = wasm_f32x4_add(r, c);
  v128_t q = wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_splat(kP5), r), wasm_f32x4_splat(kP4));
  q = wasm_f32x4_add(wasm_f32x4_mul(q, r), wasm_f32x4_splat(kP3));
  q = wasm_f32x4_add(wasm_f32x4_mul(q, r), wasm_f32x4_splat(kP2));
  q = wasm_f32x4_add(wasm_f32x4_mul(q, r), wasm_f32x4_splat(kP1));
  const v128_t f = wasm_f32x4_mul(wasm_f32x4_add(wasm_f32x4_mul(r, q), wasm_f32x4_splat(1.0f)), s);
  if (!kMask) return f;
  return wasm_v128_andnot(f, wasm_f32x4_lt(t, wasm_f32x4_splat(kExpShiftFloor)));
}

// The vector twin of exp_rr2_p6 (same operations, same order).
inline v128_t exp_rr2_p6_x4(v128_t z, v128_t c) {
  const v128_t bias = wasm_f32x4_splat(kMagicBias);
  const v128_t t = wasm_f32x4_add(wasm_f32x4_mul(z, wasm_f32x4_splat(kLog2e)), bias);
  const v128_t s = wasm_i32x4_shl(t, 23);
  const v128_t n = wasm_f32x4_sub(t, bias);
  v128_t r = wasm_f32x4_sub(z, wasm_f32x4_mul(n, wasm_f32x4_splat(kLn2Hi)));
  r = wasm_f32x4_sub(r, wasm_f32x4_mul(n, wasm_f32x4_splat(kLn2Lo)));
  r = wasm_f32x4_add(r, c);
  const v128_t f = wasm_f32x4_mul(wasm_f32x4_add(expm1_poly_x4(r), wasm_f32x4_splat(1.0f)), s);
  return wasm_v128_andnot(f, wasm_f32x4_lt(z, wasm_f32x4_splat(kExpCutoff)));
}

// The vector twin of scaled_diff: (x - m) / t as *z + *c.
template <bool kScaled>
inline void scaled_diff_x4(v128_t x, v128_t neg_max, v128_t t, v128_t neg_max_t, v128_t* z,
                           v128_t* c) {
  const v128_t d = wasm_f32x4_add(x, neg_max);
  const v128_t bb = wasm_f32x4_sub(d, x);
  v128_t e = wasm_f32x4_add(wasm_f32x4_sub(x, wasm_f32x4_sub(d, bb)), wasm_f32x4_sub(neg_max, bb));
  e = wasm_v128_andnot(e, wasm_f32x4_ne(e, e));  // NaN (an intermediate overflow) -> 0
  if (!kScaled) {
    *z = d, *c = e;
    return;
  }
  *z = wasm_f32x4_div(d, t), *c = wasm_f32x4_div(e, t);
  const v128_t minus_inf = wasm_f32x4_splat(-INFINITY);  // x = -Inf stays -Inf (masked)
  const v128_t overflow = wasm_v128_and(wasm_f32x4_eq(d, minus_inf), wasm_f32x4_ne(x, minus_inf));
  if (wasm_v128_any_true(overflow)) {  // rare: x - m beyond float32
    *z = wasm_v128_bitselect(wasm_f32x4_add(wasm_f32x4_div(x, t), neg_max_t), *z, overflow);
    *c = wasm_v128_andnot(*c, overflow);
  }
}

template <bool kScaled>
inline v128_t exp_minus_max_x4(v128_t x, v128_t neg_max, v128_t t, v128_t neg_max_t) {
  v128_t z, c;
  scaled_diff_x4<kScaled>(x, neg_max, t, neg_max_t, &z, &c);
  return exp_rr2_p6_x4(z, c);
}

// The vector twin of exp_tempered.
template <bool kMask>
inline v128_t exp_tempered_x4(v128_t x, v128_t neg_max, v128_t k, v128_t kl) {
  const v128_t d = wasm_f32x4_add(x, neg_max);
  return exp_shifted_x4<kMask, true>(wasm_f32x4_mul(d, k), wasm_f32x4_splat(kTemperedBias),
                                     wasm_f32x4_mul(d, kl));
}

// The exponentials of the kernels, each a vector and a scalar twin that give
// the same bits. kFinite: no entry is -Infinity and no x - m overflows (the
// dot's clamp of x - m is not needed).
template <bool kMask>
struct ShiftExp {  // exp(x - nc ln 2): softmax's fast path
  static constexpr bool kFinite = !kMask;
  float bias_s;
  v128_t bias;
  explicit ShiftExp(float nc) : bias_s(kMagic + 127.0f - nc), bias(wasm_f32x4_splat(bias_s)) {}
  v128_t operator()(v128_t v) const { return exp_shifted_x4<kMask>(v, bias); }
  float operator()(float v) const { return exp_shifted<kMask>(v, bias_s); }
};
template <bool kMask>
struct TemperedExp {  // exp((x - m) / t): the tempered path
  static constexpr bool kFinite = !kMask;
  float neg_max_s, k_s, kl_s;
  v128_t neg_max, k, kl;
  TemperedExp(float max, float t) : neg_max_s(-max), neg_max(wasm_f32x4_splat(-max)) {
    const TemperedScale ts = tempered_scale(t);
    k_s = ts.k, kl_s = ts.kl, k = wasm_f32x4_splat(ts.k), kl = wasm_f32x4_splat(ts.kl);
  }
  v128_t operator()(v128_t v) const { return exp_tempered_x4<kMask>(v, neg_max, k, kl); }
  float operator()(float v) const { return exp_tempered<kMask>(v, neg_max_s, k_s, kl_s); }
};
template <bool kScaled>
struct ExactExp {  // exp((x - m) / t), x - m by TwoSum: the exact path
  static constexpr bool kFinite = false;
  float neg_max_s, t_s, neg_max_t_s;
  v128_t neg_max, t, neg_max_t;
  ExactExp(float max, float tt)
      : neg_max_s(-max),
        t_s(tt),
        neg_max_t_s(-max / tt),
        neg_max(wasm_f32x4_splat(neg_max_s)),
        t(wasm_f32x4_splat(tt)),
        neg_max_t(wasm_f32x4_splat(neg_max_t_s)) {}
  v128_t operator()(v128_t v) const { return exp_minus_max_x4<kScaled>(v, neg_max, t, neg_max_t); }
  float operator()(float v) const { return exp_minus_max<kScaled>(v, neg_max_s, t_s, neg_max_t_s); }
};

inline v128_t high_half(v128_t a) { return wasm_i32x4_shuffle(a, a, 2, 3, 2, 3); }

// The loop shared by the exp-store-sum kernels: blocks of 32 elements in two
// 4-lane float accumulators (8 values per lane), folded into two float64
// lanes; then whole vectors, then a scalar tail. With kDot, *dot also
// receives the sum of e * d, d = max(x - m, -FLT_MAX) (x - m where
// Exp::kFinite), in float products, summed as the exponentials are (float
// accumulators per lane over each block, then double). kDot is a template
// argument: tested at run time inside the loop it costs V8 10-20% of the
// kernel's time (measured); y is tested at run time (half the instantiations,
// the same speed).
template <bool kDot, typename Exp>
double raddstore(size_t n, const float* x, float* y, const Exp& vexp, float m = 0.0f,
                 double* dot = nullptr) {
  const bool store = y != nullptr;
  v128_t dlo = wasm_f64x2_splat(0.0), dhi = wasm_f64x2_splat(0.0);
  v128_t plo = dlo, phi = dlo;
  const v128_t vm = wasm_f32x4_splat(m), floor = wasm_f32x4_splat(-FLT_MAX);
  const auto term = [&](v128_t v, v128_t e) {
    const v128_t d = wasm_f32x4_sub(v, vm);
    return wasm_f32x4_mul(e, Exp::kFinite ? d : wasm_f32x4_pmax(floor, d));
  };
  const auto sterm = [m](float v, float e) {
    return e * (Exp::kFinite ? v - m : pmax(-FLT_MAX, v - m));
  };
  const auto fold = [&](v128_t a, v128_t* lo, v128_t* hi) {
    *lo = wasm_f64x2_add(*lo, wasm_f64x2_promote_low_f32x4(a));
    *hi = wasm_f64x2_add(*hi, wasm_f64x2_promote_low_f32x4(high_half(a)));
  };
  for (; n >= 32; n -= 32, x += 32, y += store ? 32 : 0) {
    v128_t acc0 = wasm_f32x4_splat(0.0f), acc1 = acc0, pacc0 = acc0, pacc1 = acc0;
    for (size_t j = 0; j < 32; j += 8) {
      const v128_t v0 = wasm_v128_load(x + j), v1 = wasm_v128_load(x + j + 4);
      const v128_t e0 = vexp(v0);
      const v128_t e1 = vexp(v1);
      if (store) wasm_v128_store(y + j, e0), wasm_v128_store(y + j + 4, e1);
      acc0 = wasm_f32x4_add(acc0, e0);
      acc1 = wasm_f32x4_add(acc1, e1);
      if (kDot) {
        pacc0 = wasm_f32x4_add(pacc0, term(v0, e0));
        pacc1 = wasm_f32x4_add(pacc1, term(v1, e1));
      }
    }
    fold(wasm_f32x4_add(acc0, acc1), &dlo, &dhi);
    if (kDot) fold(wasm_f32x4_add(pacc0, pacc1), &plo, &phi);
  }
  for (; n >= 4; n -= 4, x += 4, y += store ? 4 : 0) {
    const v128_t v = wasm_v128_load(x);
    const v128_t a = vexp(v);
    if (store) wasm_v128_store(y, a);
    fold(a, &dlo, &dhi);
    if (kDot) fold(term(v, a), &plo, &phi);
  }
  double tail = 0, tail_dot = 0;
  for (size_t i = 0; i < n; ++i) {
    const float e = vexp(x[i]);
    if (store) y[i] = e;
    tail += e;
    if (kDot) tail_dot += sterm(x[i], e);
  }
  if (kDot) {
    *dot = (wasm_f64x2_extract_lane(plo, 0) + wasm_f64x2_extract_lane(plo, 1)) +
           (wasm_f64x2_extract_lane(phi, 0) + wasm_f64x2_extract_lane(phi, 1)) + tail_dot;
  }
  return (wasm_f64x2_extract_lane(dlo, 0) + wasm_f64x2_extract_lane(dlo, 1)) +
         (wasm_f64x2_extract_lane(dhi, 0) + wasm_f64x2_extract_lane(dhi, 1)) + tail;
}

// The exact path at temperature t (at T != 1 it serves slices under 256
// entries and the extremes of max and t: the tempered path takes the rest).
double exact_store(size_t n, const float* x, float max, float t, float* y) {
  if (t == 1.0f) return raddstore<false>(n, x, y, ExactExp<false>(max, t));
  return raddstore<false>(n, x, y, ExactExp<true>(max, t));
}

}  // namespace

double f32_raddstoreexpminusmax__wasmsimd_rr2_p6_u8_acc2(size_t n, const float* x, float max,
                                                         float t, float* y) {
  return exact_store(n, x, max, t, y);
}

double f32_raddstoreexpminusc__wasmsimd_rr2_p5_u8_acc2(size_t n, const float* x, float nc,
                                                       bool mask, float* y) {
  return mask ? raddstore<false>(n, x, y, ShiftExp<true>(nc))
              : raddstore<false>(n, x, y, ShiftExp<false>(nc));
}

double f32_raddstoreexptempered__wasmsimd_rr2_p5_u8_acc2(size_t n, const float* x, float max,
                                                         float t, bool mask, float* y) {
  return mask ? raddstore<false>(n, x, y, TemperedExp<true>(max, t))
              : raddstore<false>(n, x, y, TemperedExp<false>(max, t));
}

// The exact path's dot at any t (at t = 1, (x - m) / 1 gives the same bits).
double f32_raddstoreexpdot__wasmsimd_u8_acc2(size_t n, const float* x, float max, float t, float nc,
                                             int path, float* y, double* dot) {
  switch (path) {
    case kExpShift:
      return raddstore<true>(n, x, y, ShiftExp<false>(nc), max, dot);
    case kExpShiftMasked:
      return raddstore<true>(n, x, y, ShiftExp<true>(nc), max, dot);
    case kExpTempered:
      return raddstore<true>(n, x, y, TemperedExp<false>(max, t), max, dot);
    case kExpTemperedMasked:
      return raddstore<true>(n, x, y, TemperedExp<true>(max, t), max, dot);
    default:
      return raddstore<true>(n, x, y, ExactExp<true>(max, t), max, dot);
  }
}

void f32_vscale__wasmsimd_u8(size_t n, const float* x, float s, float* y) {
  const v128_t vs = wasm_f32x4_splat(s);
  for (; n >= 8; n -= 8, x += 8, y += 8) {
    wasm_v128_store(y, wasm_f32x4_mul(wasm_v128_load(x), vs));
    wasm_v128_store(y + 4, wasm_f32x4_mul(wasm_v128_load(x + 4), vs));
  }
  for (; n >= 4; n -= 4, x += 4, y += 4) wasm_v128_store(y, wasm_f32x4_mul(wasm_v128_load(x), vs));
  for (size_t i = 0; i < n; ++i) y[i] = x[i] * s;
}

void f32_vlogsoftmax__wasmsimd_u8(size_t n, const float* x, float max, float t, float c, float* y) {
  const float neg_max_s = -max, neg_max_t_s = neg_max_s / t;
  const v128_t neg_max = wasm_f32x4_splat(neg_max_s), neg_max_t = wasm_f32x4_splat(neg_max_t_s);
  const v128_t vt = wasm_f32x4_splat(t), vc = wasm_f32x4_splat(c);
  const v128_t minus_inf = wasm_f32x4_splat(-INFINITY);
  const bool scaled = t != 1.0f;
  for (; n >= 4; n -= 4, x += 4, y += 4) {
    v128_t z, e;
    if (scaled) {
      scaled_diff_x4<true>(wasm_v128_load(x), neg_max, vt, neg_max_t, &z, &e);
    } else {
      scaled_diff_x4<false>(wasm_v128_load(x), neg_max, vt, neg_max_t, &z, &e);
    }
    const v128_t r = wasm_f32x4_add(wasm_f32x4_sub(z, vc), e);
    wasm_v128_store(y, wasm_v128_bitselect(minus_inf, r, wasm_f32x4_eq(z, minus_inf)));
  }
  for (size_t i = 0; i < n; ++i) y[i] = log_softmax_one(x[i], neg_max_s, t, neg_max_t_s, c);
}

double f32_raddstorescale__wasmsimd_u4(size_t n, const float* x, float s, float* y) {
  const v128_t vs = wasm_f32x4_splat(s);
  v128_t lo = wasm_f64x2_splat(0.0), hi = lo;
  for (; n >= 4; n -= 4, x += 4, y += 4) {
    const v128_t a = wasm_f32x4_mul(wasm_v128_load(x), vs);
    wasm_v128_store(y, a);
    lo = wasm_f64x2_add(lo, wasm_f64x2_promote_low_f32x4(a));
    hi = wasm_f64x2_add(hi, wasm_f64x2_promote_low_f32x4(high_half(a)));
  }
  double tail = 0;
  for (size_t i = 0; i < n; ++i) tail += y[i] = x[i] * s;
  return (wasm_f64x2_extract_lane(lo, 0) + wasm_f64x2_extract_lane(lo, 1)) +
         (wasm_f64x2_extract_lane(hi, 0) + wasm_f64x2_extract_lane(hi, 1)) + tail;
}

void f64_rsumsqdiff__wasmsimd_u4(size_t n, const float* x, double c, double* out) {
  const v128_t vc = wasm_f64x2_splat(c);
  v128_t slo = wasm_f64x2_splat(0.0), shi = slo, qlo = slo, qhi = slo;
  for (; n >= 4; n -= 4, x += 4) {
    const v128_t v = wasm_v128_load(x);
    const v128_t dlo = wasm_f64x2_sub(wasm_f64x2_promote_low_f32x4(v), vc);
    const v128_t dhi = wasm_f64x2_sub(wasm_f64x2_promote_low_f32x4(high_half(v)), vc);
    slo = wasm_f64x2_add(slo, dlo), shi = wasm_f64x2_add(shi, dhi);
    qlo = wasm_f64x2_add(qlo, wasm_f64x2_mul(dlo, dlo));
    qhi = wasm_f64x2_add(qhi, wasm_f64x2_mul(dhi, dhi));
  }
  double ts = 0, tq = 0;
  for (size_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - c;
    ts += d;
    tq += d * d;
  }
  out[0] = (wasm_f64x2_extract_lane(slo, 0) + wasm_f64x2_extract_lane(slo, 1)) +
           (wasm_f64x2_extract_lane(shi, 0) + wasm_f64x2_extract_lane(shi, 1)) + ts;
  out[1] = (wasm_f64x2_extract_lane(qlo, 0) + wasm_f64x2_extract_lane(qlo, 1)) +
           (wasm_f64x2_extract_lane(qhi, 0) + wasm_f64x2_extract_lane(qhi, 1)) + tq;
}

namespace {

// For each 4-bit lane mask, the lanes that are set, packed to the front.
struct LaneTable {
  uint32_t lanes[16][4];
  uint8_t count[16];
  constexpr LaneTable() : lanes(), count() {
    for (int m = 0; m < 16; ++m) {
      int k = 0;
      for (int l = 0; l < 4; ++l)
        if (m & (1 << l)) lanes[m][k++] = static_cast<uint32_t>(l);
      count[m] = static_cast<uint8_t>(k);
    }
  }
};
constexpr LaneTable kLanes;

}  // namespace

size_t u32_indexge__wasmsimd_u16(size_t n, const float* x, float t, uint32_t* out) {
  const v128_t vt = wasm_f32x4_splat(t);
  size_t i = 0, j = 0;
  for (; i + 16 <= n; i += 16) {
    const v128_t m0 = wasm_f32x4_ge(wasm_v128_load(x + i), vt);
    const v128_t m1 = wasm_f32x4_ge(wasm_v128_load(x + i + 4), vt);
    const v128_t m2 = wasm_f32x4_ge(wasm_v128_load(x + i + 8), vt);
    const v128_t m3 = wasm_f32x4_ge(wasm_v128_load(x + i + 12), vt);
    if (!wasm_v128_any_true(wasm_v128_or(wasm_v128_or(m0, m1), wasm_v128_or(m2, m3)))) continue;
    const v128_t ms[4] = {m0, m1, m2, m3};
    for (size_t g = 0; g < 4; ++g) {
      const uint32_t bits = wasm_i32x4_bitmask(ms[g]);
      const v128_t lanes = wasm_v128_load(kLanes.lanes[bits]);
      wasm_v128_store(out + j,
                      wasm_i32x4_add(lanes, wasm_i32x4_splat(static_cast<int32_t>(i + 4 * g))));
      j += kLanes.count[bits];
    }
  }
  for (; i < n; ++i) {
    out[j] = static_cast<uint32_t>(i);
    j += x[i] >= t;
  }
  return j;
}

double f32_raddscaleindexge__wasmsimd_u16(size_t n, const float* x, float s, const float* g,
                                          float t, uint32_t* out, size_t* count) {
  const v128_t vs = wasm_f32x4_splat(s), vt = wasm_f32x4_splat(t);
  v128_t lo = wasm_f64x2_splat(0.0), hi = lo;
  size_t i = 0, j = 0;
  for (; i + 16 <= n; i += 16) {
    for (size_t k = 0; k < 16; k += 4) {
      const v128_t a = wasm_f32x4_mul(wasm_v128_load(x + i + k), vs);
      lo = wasm_f64x2_add(lo, wasm_f64x2_promote_low_f32x4(a));
      hi = wasm_f64x2_add(hi, wasm_f64x2_promote_low_f32x4(high_half(a)));
    }
    const v128_t m0 = wasm_f32x4_ge(wasm_v128_load(g + i), vt);
    const v128_t m1 = wasm_f32x4_ge(wasm_v128_load(g + i + 4), vt);
    const v128_t m2 = wasm_f32x4_ge(wasm_v128_load(g + i + 8), vt);
    const v128_t m3 = wasm_f32x4_ge(wasm_v128_load(g + i + 12), vt);
    if (!wasm_v128_any_true(wasm_v128_or(wasm_v128_or(m0, m1), wasm_v128_or(m2, m3)))) continue;
    const v128_t ms[4] = {m0, m1, m2, m3};
    for (size_t q = 0; q < 4; ++q) {
      const uint32_t bits = wasm_i32x4_bitmask(ms[q]);
      const v128_t lanes = wasm_v128_load(kLanes.lanes[bits]);
      wasm_v128_store(out + j,
                      wasm_i32x4_add(lanes, wasm_i32x4_splat(static_cast<int32_t>(i + 4 * q))));
      j += kLanes.count[bits];
    }
  }
  for (; i + 4 <= n; i += 4) {
    const v128_t a = wasm_f32x4_mul(wasm_v128_load(x + i), vs);
    lo = wasm_f64x2_add(lo, wasm_f64x2_promote_low_f32x4(a));
    hi = wasm_f64x2_add(hi, wasm_f64x2_promote_low_f32x4(high_half(a)));
    for (size_t l = i; l < i + 4; ++l) out[j] = static_cast<uint32_t>(l), j += g[l] >= t;
  }
  double tail = 0;
  for (; i < n; ++i) {
    tail += x[i] * s;
    out[j] = static_cast<uint32_t>(i), j += g[i] >= t;
  }
  *count = j;
  return (wasm_f64x2_extract_lane(lo, 0) + wasm_f64x2_extract_lane(lo, 1)) +
         (wasm_f64x2_extract_lane(hi, 0) + wasm_f64x2_extract_lane(hi, 1)) + tail;
}

size_t f32_findabove__wasmsimd_u16(size_t n, const float* x, float t) {
  const v128_t vt = wasm_f32x4_splat(t);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    v128_t le = wasm_f32x4_le(wasm_v128_load(x + i), vt);
    le = wasm_v128_and(le, wasm_f32x4_le(wasm_v128_load(x + i + 4), vt));
    le = wasm_v128_and(le, wasm_f32x4_le(wasm_v128_load(x + i + 8), vt));
    le = wasm_v128_and(le, wasm_f32x4_le(wasm_v128_load(x + i + 12), vt));
    if (!wasm_i32x4_all_true(le)) return i;
  }
  return i;
}

// Per word of the mask: all set (a copy, nothing in place), none set (-Infinity
// stored), or 8 vectors whose lanes test one bit each (bits 4g..4g+3 after a
// shift by 4g). A partial last word goes to the scalar kernel: the same bits.
size_t f32_vbitmask__wasmsimd_u32(size_t n, const float* x, const uint32_t* mask, float* y) {
  const v128_t minus_inf = wasm_f32x4_splat(-INFINITY);
  const v128_t bits = wasm_i32x4_make(1, 2, 4, 8);
  size_t count = 0, i = 0;
  for (; i + 32 <= n; i += 32) {
    const uint32_t w = mask[i >> 5];
    count += static_cast<size_t>(__builtin_popcount(w));
    if (w == 0xFFFFFFFFu) {
      if (x != y)
        for (size_t g = 0; g < 32; g += 4) wasm_v128_store(y + i + g, wasm_v128_load(x + i + g));
    } else if (w == 0) {
      for (size_t g = 0; g < 32; g += 4) wasm_v128_store(y + i + g, minus_inf);
    } else {
      v128_t vw = wasm_i32x4_splat(static_cast<int32_t>(w));
      for (size_t g = 0; g < 32; g += 4) {
        const v128_t keep = wasm_i32x4_eq(wasm_v128_and(vw, bits), bits);
        wasm_v128_store(y + i + g, wasm_v128_bitselect(wasm_v128_load(x + i + g), minus_inf, keep));
        vw = wasm_u32x4_shr(vw, 4);
      }
    }
  }
  if (i < n) count += f32_vbitmask__scalar_u32(n - i, x + i, mask + (i >> 5), y + i);
  return count;
}

// As findabove, a word of the mask (two blocks of 16) at a time: a word with
// no bit set skips 32 entries unread, one test finds the words with nothing
// above t, and only the rest pay for the lane bitmasks.
size_t f32_findabovemasked__wasmsimd_u16(size_t n, const float* x, float t, const uint32_t* mask,
                                         size_t first) {
  const v128_t vt = wasm_f32x4_splat(t);
  // The lanes <= t of 16 entries as bits (bit j: entry j).
  const auto le_bits = [&](const float* p) {
    return wasm_i32x4_bitmask(wasm_f32x4_le(wasm_v128_load(p), vt)) |
           wasm_i32x4_bitmask(wasm_f32x4_le(wasm_v128_load(p + 4), vt)) << 4 |
           wasm_i32x4_bitmask(wasm_f32x4_le(wasm_v128_load(p + 8), vt)) << 8 |
           wasm_i32x4_bitmask(wasm_f32x4_le(wasm_v128_load(p + 12), vt)) << 12;
  };
  size_t i = first;
  if (i % 32 != 0 && i + 16 <= n) {  // the second half of a word first
    const uint32_t bits = mask[i >> 5] >> 16;
    if (bits != 0 && (~le_bits(x + i) & bits) != 0) return i;
    i += 16;
  }
  for (; i + 32 <= n; i += 32) {
    const uint32_t w = mask[i >> 5];
    if (w == 0) continue;
    const float* p = x + i;
    v128_t le = wasm_v128_and(wasm_f32x4_le(wasm_v128_load(p), vt),
                              wasm_f32x4_le(wasm_v128_load(p + 4), vt));
    for (size_t g = 8; g < 32; g += 8) {
      le = wasm_v128_and(le, wasm_v128_and(wasm_f32x4_le(wasm_v128_load(p + g), vt),
                                           wasm_f32x4_le(wasm_v128_load(p + g + 4), vt)));
    }
    if (wasm_i32x4_all_true(le)) continue;
    const uint32_t above = ~(le_bits(p) | le_bits(p + 16) << 16) & w;
    if (above != 0) return (above & 0xFFFFu) != 0 ? i : i + 16;
  }
  if (i + 16 <= n) {
    const uint32_t bits = mask[i >> 5] & 0xFFFFu;
    if (bits != 0 && (~le_bits(x + i) & bits) != 0) return i;
    i += 16;
  }
  return i;
}

}  // namespace smx::kernels
