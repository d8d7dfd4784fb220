// Softmax micro-kernels. Each op has a scalar and a SIMD128 variant that give
// bit-identical results: the scalar code replays the vector code's lanes,
// accumulators and reduction order. Names follow op__isa_algorithm_unroll_accs.
//
//   rmax(n, x)                      -> max of x[0..n) (NaN if any is NaN); n >= 1
//   rminmax(n, x, mm)               mm[0] = min, mm[1] = max of x[0..n); max is NaN
//                                    if any x is NaN; a zero result is +0. n >= 1
//   raddstoreexpminusc(n, x, nc, mask, y)
//                                    y[i] = exp(x[i] - nc ln 2) (rr2_p5, <= 2.5 ulp),
//                                    returns the sum (as
//                                    below). The fast path of softmax at T = 1:
//                                    nc = round(max log2 e) and |max| <= 1024, so the
//                                    shift by a multiple of ln 2 costs no rounding
//                                    and x - max needs no TwoSum. mask: zero the
//                                    lanes below 2^-126 (needed when min < max - 80
//                                    or -Infinity occurs). y may be null.
//   raddstoreexpminusmax(n, x, m, t, y)
//                                    y[i] = exp((x[i] - m) / t), returns the sum of
//                                    y in double (float32 partial sums of 8
//                                    values per lane, then float64 lanes). m must
//                                    be max(x), finite; t > 0 finite. x == y allowed.
//   raddstoreexptempered(n, x, m, t, mask, y)
//                                    y[i] = exp((x[i] - m) / t) by the tempered path
//                                    (exp_tempered: x - m in float32, times 1 / t as a
//                                    float pair, rr2_p5 with the correction), returns
//                                    the sum as below. Softmax at T != 1 of 256+
//                                    entries: m = max(x), |m| <= 2^100, t in [2^-64,
//                                    2^64]. mask: x may be -Infinity, and lanes below
//                                    2^-126 are zeroed (needed unless every x >= m -
//                                    80 t). y may be null.
//   raddstoreexpdot(n, x, m, t, nc, path, y, dot)
//                                    the exponentials, stored and summed, of one of
//                                    the kernels above, by path (ExpPath): kExpShift
//                                    and kExpShiftMasked are raddstoreexpminusc's
//                                    (mask false / true; t is then 1), kExpTempered and
//                                    kExpTemperedMasked raddstoreexptempered's, kExpExact
//                                    raddstoreexpminusmax's (m = max(x), finite); the
//                                    same bits and sum. Also *dot = the sum of the
//                                    float products y[i] * d[i], d[i] = max(x[i] - m,
//                                    -FLT_MAX) in float, summed as y is (float partial
//                                    sums of 8 per lane, then float64 lanes). y may be
//                                    null. One pass for the mean logit and the entropy.
//   vscale(n, x, s, y)              y[i] = x[i] * s
//   vlogsoftmax(n, x, m, t, c, y)   y[i] = (x[i] - m) / t - c, with x[i] - m exact
//   raddstorescale(n, x, s, y)      -> y[i] = x[i] * s (as vscale), returns the sum of y
//                                    in double: two float64 lanes of the even and odd
//                                    entries of each group of 4 (the low and high pair),
//                                    (lo0 + lo1) + (hi0 + hi1) + the tail in order.
//                                    y may be x.
//   rsumsqdiff(n, x, c, out)        out[0] = sum of d, out[1] = sum of d^2 with d = x[i] - c
//                                    in double (x[i] promoted, c a double): two float64
//                                    lanes each for the low and high pair of each group of
//                                    4, (lo0 + lo1) + (hi0 + hi1) + the tail in order.
//   raddscaleindexge(n, x, s, g, t, out, count)
//                                    -> the sum of x[i] * s (float products) as raddstorescale's,
//                                    storing nothing; and indexge(n, g, t, out) into out, count
//   indexge(n, x, t, out)           -> the count of i with x[i] >= t; out receives those i,
//                                    ascending (out has room for n; entries past the count
//                                    may be written)
//   findabove(n, x, t)              -> the least multiple of 16, i, such that x[i, i + 16)
//                                    holds an entry that is not <= t (above t, or NaN);
//                                    n - n % 16 when no whole block does. A scan for the
//                                    few entries above a threshold skips the rest 16 at a
//                                    time.
//   vbitmask(n, x, mask, y)         -> y[i] = x[i] where bit (i & 31) of mask[i >> 5] is set,
//                                    else -Infinity (a token bitmask as grammar engines
//                                    give it); returns the number of set bits of entries
//                                    0..n. Kept entries are copied bit for bit (NaN too);
//                                    bits past n are not read. y may be x (in place).
//   findabovemasked(n, x, t, mask, first)
//                                    -> findabove over the entries a token bitmask allows
//                                    (x[i] is token i): the least i = first + 16 j with
//                                    i + 16 <= n such that x[i, i + 16) holds an allowed entry
//                                    that is not <= t; else the first i with i + 16 > n. first
//                                    is a multiple of 16. A block whose 16 bits are all clear
//                                    is skipped without reading x.
//
// Pointers need no alignment. t == 1 skips the division. kernels.inc lists every
// variant; dispatch.h picks the core's; the kernel tests and the benchmark run
// every one.
#pragma once
#include <cstddef>
#include <cstdint>

namespace smx::kernels {

using rmax_ukernel = float(size_t n, const float* x);
using rminmax_ukernel = void(size_t n, const float* x, float* min_max);
using raddstoreexpminusc_ukernel = double(size_t n, const float* x, float nc, bool mask, float* y);
using raddstoreexpminusmax_ukernel = double(size_t n, const float* x, float max, float t, float* y);
using raddstoreexptempered_ukernel = double(size_t n, const float* x, float max, float t, bool mask,
                                            float* y);
// The paths of raddstoreexpdot.
enum ExpPath : int { kExpExact, kExpShift, kExpShiftMasked, kExpTempered, kExpTemperedMasked };
using raddstoreexpdot_ukernel = double(size_t n, const float* x, float max, float t, float nc,
                                       int path, float* y, double* dot);
using vscale_ukernel = void(size_t n, const float* x, float s, float* y);
using vlogsoftmax_ukernel = void(size_t n, const float* x, float max, float t, float c, float* y);
using findabove_ukernel = size_t(size_t n, const float* x, float t);
using raddstorescale_ukernel = double(size_t n, const float* x, float s, float* y);
using rsumsqdiff_ukernel = void(size_t n, const float* x, double c, double* out);
using indexge_ukernel = size_t(size_t n, const float* x, float t, uint32_t* out);
using findabovemasked_ukernel = size_t(size_t n, const float* x, float t, const uint32_t* mask,
                                       size_t first);
using vbitmask_ukernel = size_t(size_t n, const float* x, const uint32_t* mask, float* y);
using raddscaleindexge_ukernel = double(size_t n, const float* x, float s, const float* g, float t,
                                        uint32_t* out, size_t* count);

#define SMX_KERNEL(op, name, isa) op##_ukernel name;
#include "kernels.inc"
#undef SMX_KERNEL

// Scalar functions of the same polynomials, one definition each (scalar.cpp),
// for the core, which does not see the kernels' private helpers.

// exp in float32 over every input (overflow to +Infinity, underflow to 0): the
// polynomial of the kernels with a two-step scale. softmax_naive uses it.
float exp_f32(float x);
// The shift of raddstoreexpminusc for a slice whose maximum is max (|max| <=
// 1024): nc = round(max log2 e).
float exp_shift_for(float max);
// raddstoreexpminusc's value for one x: exp(x - nc ln 2), the same bits
// (mask: as the kernel's mask argument).
float exp_minus_shift(float x, float nc, bool mask = false);
// raddstoreexpminusmax's value for one x (max = the slice's max, t > 0).
float exp_minus_max_at(float x, float max, float t);
// raddstoreexptempered's value for one x (mask: as the kernel's).
float exp_tempered_at(float x, float max, float t, bool mask);
// vlogsoftmax's value for one x.
float log_softmax_at(float x, float max, float t, float c);

}  // namespace smx::kernels
