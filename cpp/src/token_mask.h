// Token masks (smx/sampler.h, step 0): bit (i & 31) of word i >> 5 allows
// token i. The sampler's top-k fast path with a mask: the threshold scan of
// select.h that skips forbidden entries, so that a masked draw reads the
// scores once, as an unmasked one does.
#pragma once
#include <cstddef>
#include <cstdint>

namespace smx {

inline bool mask_allows(const uint32_t* mask, size_t i) { return (mask[i >> 5] >> (i & 31)) & 1u; }

// sel::first_k_scan over the allowed entries of x[0, n) only: returns n and
// the first k allowed positions in the order (decreasing x, ties by lower
// position) in out[0, k), ascending; or the first allowed position whose
// score is NaN; or n + 1 when fewer than k entries are allowed (out is then
// undefined). A forbidden entry is never compared. 1 <= k <= n.
size_t first_k_scan_masked(const float* x, size_t n, size_t k, const uint32_t* mask, uint32_t* out);

}  // namespace smx
