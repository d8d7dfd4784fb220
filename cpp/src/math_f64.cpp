#include "math_f64.h"

#include <cmath>
#include <limits>

namespace smx {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

double log_f64(double x) {
  if (!(x > 0)) return x == 0 ? -kInf : std::numeric_limits<double>::quiet_NaN();
  if (x == kInf) return x;
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

double exp_f64(double x) {
  if (x != x) return x;
  if (x > 709.782712893384) return kInf;
  if (x < -745.1332191019412) return 0.0;
  const double k = std::floor(x * 1.4426950408889634 + 0.5);
  const double r = (x - k * 0x1.62E42FEE00000p-1) - k * 0x1.A39EF35793C76p-33;  // fdlibm ln2 hi, lo
  double s = 1.0;  // the Taylor series to r^20 / 20! (below 1e-28)
  for (int j = 20; j >= 1; --j) s = 1.0 + s * r / j;
  return std::ldexp(s, static_cast<int>(k));
}

double pow_f64(double x, double y) {
  if (x != x || y != y || x < 0) return std::numeric_limits<double>::quiet_NaN();
  if (y == 0) return 1.0;
  if (x == 0) return y > 0 ? 0.0 : kInf;
  if (x == kInf) return y > 0 ? kInf : 0.0;
  if (x == 1) return 1.0;
  return exp_f64(y * log_f64(x));
}

double pow_int(double base, int e) {
  double r = 1.0;
  while (e > 0) {
    if (e & 1) r *= base;
    base *= base;
    e >>= 1;
  }
  return r;
}

}  // namespace smx
