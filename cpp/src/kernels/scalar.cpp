// Scalar kernels. They replay the SIMD128 kernels' lanes and reduction order
// (see wasmsimd.cpp), so the baseline wasm build gives the SIMD build's bits.
#include <algorithm>
#include <cfloat>
#include <cstring>
#include <limits>

#include "exp_rr2_p6.h"
#include "kernels.h"

namespace smx::kernels {

float f32_rmax__scalar_u4(size_t n, const float* x) {
  float m = x[0];
  for (size_t i = 1; i < n; ++i) m = max_wasm(m, x[i]);
  return m;
}

void f32_rminmax__scalar_u4(size_t n, const float* x, float* min_max) {
  float mx = x[0], mn = x[0];
  bool has_nan = x[0] != x[0];
  for (size_t i = 1; i < n; ++i) mx = pmax(mx, x[i]), mn = pmin(mn, x[i]), has_nan |= x[i] != x[i];
  min_max[0] = mn + 0.0f;  // +0 for a zero of either sign
  min_max[1] = has_nan ? std::numeric_limits<float>::quiet_NaN() : mx + 0.0f;
}

namespace {

// The exponentials of the kernels (wasmsimd.cpp's, scalar); kFinite as there.
template <bool kMask>
struct ShiftExp {
  static constexpr bool kFinite = !kMask;
  float bias;
  explicit ShiftExp(float nc) : bias(kMagic + 127.0f - nc) {}
  float operator()(float v) const { return exp_shifted<kMask>(v, bias); }
};
template <bool kMask>
struct TemperedExp {
  static constexpr bool kFinite = !kMask;
  float neg_max;
  TemperedScale s;
  TemperedExp(float max, float t) : neg_max(-max), s(tempered_scale(t)) {}
  float operator()(float v) const { return exp_tempered<kMask>(v, neg_max, s.k, s.kl); }
};
template <bool kScaled>
struct ExactExp {
  static constexpr bool kFinite = false;
  float neg_max, t, neg_max_t;
  ExactExp(float max, float tt) : neg_max(-max), t(tt), neg_max_t(-max / tt) {}
  float operator()(float v) const { return exp_minus_max<kScaled>(v, neg_max, t, neg_max_t); }
};

// The lanes and reduction order of the SIMD128 kernels, over any exp (with
// dot: also the dot of wasmsimd.cpp's raddstore, into *dot, summed the same way).
template <bool with_dot, typename Exp>
double raddstore(size_t n, const float* x, float* y, const Exp& exp, float m = 0.0f,
                 double* dot = nullptr) {
  const bool store = y != nullptr;
  double dlo[2] = {0, 0}, dhi[2] = {0, 0}, plo[2] = {0, 0}, phi[2] = {0, 0};
  const auto term = [m](float v, float e) {
    return e * (Exp::kFinite ? v - m : pmax(-FLT_MAX, v - m));
  };
  const auto fold = [](const float* a, double* lo, double* hi) {
    lo[0] += a[0], lo[1] += a[1], hi[0] += a[2], hi[1] += a[3];
  };
  // Blocks of 32: two 4-lane float accumulators, each lane sums 4 values; then
  // acc0 + acc1 per lane, and the 4 lanes are added into 2 double lanes each.
  for (; n >= 32; n -= 32, x += 32, y += store ? 32 : 0) {
    float acc0[4] = {0, 0, 0, 0}, acc1[4] = {0, 0, 0, 0}, pacc0[4] = {0, 0, 0, 0},
          pacc1[4] = {0, 0, 0, 0};
    for (size_t j = 0; j < 32; j += 8) {
      for (size_t l = 0; l < 4; ++l) {
        const float e0 = exp(x[j + l]);
        const float e1 = exp(x[j + 4 + l]);
        if (store) y[j + l] = e0, y[j + 4 + l] = e1;
        acc0[l] += e0;
        acc1[l] += e1;
        if (with_dot) pacc0[l] += term(x[j + l], e0), pacc1[l] += term(x[j + 4 + l], e1);
      }
    }
    float a[4], p[4];
    for (size_t l = 0; l < 4; ++l) a[l] = acc0[l] + acc1[l], p[l] = pacc0[l] + pacc1[l];
    fold(a, dlo, dhi);
    if (with_dot) fold(p, plo, phi);
  }
  for (; n >= 4; n -= 4, x += 4, y += store ? 4 : 0) {
    float a[4], p[4];
    for (size_t l = 0; l < 4; ++l) {
      a[l] = exp(x[l]);
      if (store) y[l] = a[l];
      p[l] = with_dot ? term(x[l], a[l]) : 0.0f;
    }
    fold(a, dlo, dhi);
    if (with_dot) fold(p, plo, phi);
  }
  double tail = 0, tail_dot = 0;
  for (size_t i = 0; i < n; ++i) {
    const float e = exp(x[i]);
    if (store) y[i] = e;
    tail += e;
    if (with_dot) tail_dot += term(x[i], e);
  }
  if (with_dot) *dot = (plo[0] + plo[1]) + (phi[0] + phi[1]) + tail_dot;
  return (dlo[0] + dlo[1]) + (dhi[0] + dhi[1]) + tail;
}

double exact_store(size_t n, const float* x, float max, float t, float* y) {
  return t == 1.0f ? raddstore<false>(n, x, y, ExactExp<false>(max, t))
                   : raddstore<false>(n, x, y, ExactExp<true>(max, t));
}

}  // namespace

double f32_raddstoreexpminusmax__scalar_rr2_p6_u8_acc2(size_t n, const float* x, float max, float t,
                                                       float* y) {
  return exact_store(n, x, max, t, y);
}

double f32_raddstoreexpminusc__scalar_rr2_p5_u8_acc2(size_t n, const float* x, float nc, bool mask,
                                                     float* y) {
  return mask ? raddstore<false>(n, x, y, ShiftExp<true>(nc))
              : raddstore<false>(n, x, y, ShiftExp<false>(nc));
}

double f32_raddstoreexptempered__scalar_rr2_p5_u8_acc2(size_t n, const float* x, float max, float t,
                                                       bool mask, float* y) {
  return mask ? raddstore<false>(n, x, y, TemperedExp<true>(max, t))
              : raddstore<false>(n, x, y, TemperedExp<false>(max, t));
}

double f32_raddstoreexpdot__scalar_u8_acc2(size_t n, const float* x, float max, float t, float nc,
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

void f32_vscale__scalar_u4(size_t n, const float* x, float s, float* y) {
  for (size_t i = 0; i < n; ++i) y[i] = x[i] * s;
}

void f32_vlogsoftmax__scalar_u4(size_t n, const float* x, float max, float t, float c, float* y) {
  const float neg_max = -max, neg_max_t = neg_max / t;
  for (size_t i = 0; i < n; ++i) y[i] = log_softmax_one(x[i], neg_max, t, neg_max_t, c);
}

size_t f32_findabove__scalar_u16(size_t n, const float* x, float t) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    unsigned flag = 0;  // no early exit inside a block (vectorizable)
    for (size_t j = 0; j < 16; ++j) flag |= static_cast<unsigned>(!(x[i + j] <= t));
    if (flag != 0) return i;
  }
  return i;
}

void f64_rsumsqdiff__scalar_u4(size_t n, const float* x, double c, double* out) {
  double s[4] = {0, 0, 0, 0}, q[4] = {0, 0, 0, 0};
  for (; n >= 4; n -= 4, x += 4) {
    for (size_t l = 0; l < 4; ++l) {
      const double d = static_cast<double>(x[l]) - c;
      s[l] += d;
      q[l] += d * d;
    }
  }
  double ts = 0, tq = 0;
  for (size_t i = 0; i < n; ++i) {
    const double d = static_cast<double>(x[i]) - c;
    ts += d;
    tq += d * d;
  }
  out[0] = (s[0] + s[1]) + (s[2] + s[3]) + ts;
  out[1] = (q[0] + q[1]) + (q[2] + q[3]) + tq;
}

size_t u32_indexge__scalar_u16(size_t n, const float* x, float t, uint32_t* out) {
  size_t j = 0;
  for (size_t i = 0; i < n; ++i) {
    out[j] = static_cast<uint32_t>(i);
    j += x[i] >= t;
  }
  return j;
}

double f32_raddscaleindexge__scalar_u4(size_t n, const float* x, float s, const float* g, float t,
                                       uint32_t* out, size_t* count) {
  *count = u32_indexge__scalar_u16(n, g, t, out);
  double lo[2] = {0, 0}, hi[2] = {0, 0};
  for (; n >= 4; n -= 4, x += 4) {
    lo[0] += x[0] * s, lo[1] += x[1] * s, hi[0] += x[2] * s, hi[1] += x[3] * s;
  }
  double tail = 0;
  for (size_t i = 0; i < n; ++i) tail += x[i] * s;
  return (lo[0] + lo[1]) + (hi[0] + hi[1]) + tail;
}

float exp_f32(float x) {
  if (x != x) return x;
  if (x > 0x1.62E42Ep+6f) return std::numeric_limits<float>::infinity();  // > ln(FLT_MAX)
  if (x < -0x1.9FE368p+6f) return 0.0f;                                   // < ln(2^-150)
  const float n = (x * kLog2e + kMagic) - kMagic;  // round(x / ln 2), in [-150, 128]
  float r = x - n * kLn2Hi;
  r = r - n * kLn2Lo;
  const float p = expm1_poly(r) + 1.0f;
  // 2^n as two normal factors, so that overflow and gradual underflow round once each.
  const int ni = static_cast<int>(n);
  const int n1 = ni / 2, n2 = ni - n1;
  const float s1 = bits_float(static_cast<uint32_t>(n1 + 127) << 23);
  const float s2 = bits_float(static_cast<uint32_t>(n2 + 127) << 23);
  return (p * s1) * s2;
}

float exp_shift_for(float max) { return (max * kLog2e + kMagic) - kMagic; }

float exp_minus_shift(float x, float nc, bool mask) {
  const float bias = kMagic + 127.0f - nc;
  return mask ? exp_shifted<true>(x, bias) : exp_shifted<false>(x, bias);
}

float exp_minus_max_at(float x, float max, float t) {
  const float neg_max = -max, neg_max_t = neg_max / t;
  return t == 1.0f ? exp_minus_max<false>(x, neg_max, t, neg_max_t)
                   : exp_minus_max<true>(x, neg_max, t, neg_max_t);
}

float exp_tempered_at(float x, float max, float t, bool mask) {
  const TemperedScale s = tempered_scale(t);
  return mask ? exp_tempered<true>(x, -max, s.k, s.kl) : exp_tempered<false>(x, -max, s.k, s.kl);
}

float log_softmax_at(float x, float max, float t, float c) {
  const float neg_max = -max, neg_max_t = neg_max / t;
  return log_softmax_one(x, neg_max, t, neg_max_t, c);
}

double f32_raddstorescale__scalar_u4(size_t n, const float* x, float s, float* y) {
  double lo[2] = {0, 0}, hi[2] = {0, 0};
  for (; n >= 4; n -= 4, x += 4, y += 4) {
    float a[4];
    for (size_t l = 0; l < 4; ++l) y[l] = a[l] = x[l] * s;
    lo[0] += a[0], lo[1] += a[1], hi[0] += a[2], hi[1] += a[3];
  }
  double tail = 0;
  for (size_t i = 0; i < n; ++i) tail += y[i] = x[i] * s;
  return (lo[0] + lo[1]) + (hi[0] + hi[1]) + tail;
}

// Branch-free within a word (a select of bit patterns, so kept entries keep
// their bits, NaN payloads too): a random mask costs no mispredictions.
size_t f32_vbitmask__scalar_u32(size_t n, const float* x, const uint32_t* mask, float* y) {
  constexpr uint32_t kMinusInfBits = 0xFF800000u;
  size_t count = 0;
  for (size_t i = 0; i < n; i += 32, x += 32, y += 32) {
    const size_t len = std::min<size_t>(32, n - i);
    uint32_t w = mask[i >> 5];
    if (len < 32) w &= (1u << len) - 1;
    count += static_cast<size_t>(__builtin_popcount(w));
    if (w == 0xFFFFFFFFu) {
      if (x != y) std::copy(x, x + 32, y);
      continue;
    }
    uint32_t b[32];
    std::memcpy(b, x, len * sizeof(float));
    for (size_t j = 0; j < len; ++j) {
      const uint32_t keep = 0u - ((w >> j) & 1u);
      b[j] = (b[j] & keep) | (kMinusInfBits & ~keep);
    }
    std::memcpy(y, b, len * sizeof(float));
  }
  return count;
}

namespace {
// The entries of x[0, 16) that are not <= t, as bits (bit j: entry j).
uint32_t above_bits(const float* x, float t) {
  uint32_t above = 0;
  for (size_t j = 0; j < 16; ++j) above |= static_cast<uint32_t>(!(x[j] <= t)) << j;
  return above;
}
}  // namespace

// A word of the mask (two blocks of 16) at a time, as the SIMD kernel.
size_t f32_findabovemasked__scalar_u16(size_t n, const float* x, float t, const uint32_t* mask,
                                       size_t first) {
  size_t i = first;
  if (i % 32 != 0 && i + 16 <= n) {  // the second half of a word first
    const uint32_t bits = mask[i >> 5] >> 16;
    if (bits != 0 && (above_bits(x + i, t) & bits) != 0) return i;
    i += 16;
  }
  for (; i + 32 <= n; i += 32) {
    const uint32_t w = mask[i >> 5];
    if (w == 0) continue;
    unsigned flag = 0;  // as findabove first: most words hold nothing above t
    for (size_t j = 0; j < 32; ++j) flag |= static_cast<unsigned>(!(x[i + j] <= t));
    if (flag == 0) continue;
    const uint32_t above = (above_bits(x + i, t) | above_bits(x + i + 16, t) << 16) & w;
    if (above != 0) return (above & 0xFFFFu) != 0 ? i : i + 16;
  }
  if (i + 16 <= n) {
    const uint32_t bits = mask[i >> 5] & 0xFFFFu;
    if (bits != 0 && (above_bits(x + i, t) & bits) != 0) return i;
    i += 16;
  }
  return i;
}

}  // namespace smx::kernels
