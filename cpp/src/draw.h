// The draw: given u in [0, 1) and probabilities q[0, n) in index order, the
// first position whose cumulative probability (a double sum in index order)
// exceeds u * total, total = the sum of all (if rounding leaves none above:
// the last position with q > 0).
#pragma once
#include <cstddef>

namespace smx {

// cum[0, n) = the cumulative sums of q; returns their total.
double cumulative_sums(const float* q, size_t n, double* cum);

// The draw from the cumulative sums (binary search).
size_t draw_exact(const float* q, const double* cum, size_t n, double u, double total);

// The same answer from approximate sums: before[b] = the sum of the blocks of
// `block` entries before block b, for b = 0 .. ceil(n / block) (the last: the
// total), each within n 2^-53 of the total of the exact value (double sums of
// the block, in any order, then in block order). Returns the position where
// no sum of the definition can differ from these by enough to change it: a
// margin of margin_scale (n + 64) 2^-53 of the total, with margin_scale >= 8
// (sums of n terms are within n 2^-53 of exact, the definition's and these,
// plus the rounding of u * total); else n, and the caller uses draw_exact.
size_t draw_from_blocks(const float* q, size_t n, const double* before, size_t block, double u,
                        double margin_scale = 8.0);

}  // namespace smx
