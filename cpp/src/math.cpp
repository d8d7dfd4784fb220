// Scalar float32 exp over the whole range and float64 log, without libm, so
// that every platform computes the same bits.
#include <limits>

#include "kernels/exp_rr2_p6.h"
#include "smx/softmax.h"

namespace smx {

float exp_f32(float x) {
  using namespace kernels;
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

double log_f64(double x) {
  if (!(x > 0))
    return x == 0 ? -std::numeric_limits<double>::infinity()
                  : std::numeric_limits<double>::quiet_NaN();
  if (x == std::numeric_limits<double>::infinity()) return x;
  // x = m * 2^e with m in [sqrt(1/2), sqrt(2)); log m = 2 atanh(f), f = (m-1)/(m+1).
  int e = 0;
  double m = x;
  while (m >= 0x1.6A09E667F3BCDp+0) m *= 0.5, ++e;  // sqrt(2)
  while (m < 0x1.6A09E667F3BCDp-1) m *= 2.0, --e;   // sqrt(1/2)
  const double f = (m - 1.0) / (m + 1.0);           // |f| <= 0.1716
  const double f2 = f * f;
  double s = 0.0;
  for (int k = 23; k >= 1; k -= 2) s = s * f2 + 1.0 / k;  // sum f^(k-1) / k
  return e * 0x1.62E42FEFA39EFp-1 + 2.0 * f * s;
}

}  // namespace smx
