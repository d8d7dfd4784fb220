// Float64 functions without libm (beyond sqrt, floor and ldexp, exact by IEEE
// 754), so that native code and both wasm builds compute the same bits.
// Internal to the core (math_f64.cpp).
#pragma once

namespace smx {

// Natural log for x > 0 (-Infinity at 0, NaN below, +Infinity at +Infinity).
double log_f64(double x);
// e^x: x = k ln 2 + r, |r| <= ln 2 / 2, e^r by its Taylor series, then an exact
// scaling by 2^k. Overflow to +Infinity, underflow to 0, NaN stays NaN.
double exp_f64(double x);
// x^y for x >= 0 (NaN for x < 0 or NaN arguments), as exp(y log x) with the
// limits of pow.
double pow_f64(double x, double y);
// base^e for an integer e >= 0 by squaring: IEEE multiplications only.
double pow_int(double base, int e);

}  // namespace smx
