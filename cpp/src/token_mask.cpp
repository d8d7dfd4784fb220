#include "token_mask.h"

#include <algorithm>

#include "kernels/dispatch.h"
#include "select.h"
#include "select_heap.h"
#include "smx/sampler.h"

namespace smx {

size_t apply_token_bitmask(float* x, size_t n, const uint32_t* mask) {
  return dispatch::vbitmask(n, x, mask, x);
}

// The heap scan of select.cpp (heap_first_k) with the mask in its threshold
// test: the findabovemasked kernel skips the blocks of 16 with no allowed
// entry above the k-th so far (and, without reading the scores, those with no
// allowed entry at all).
size_t first_k_scan_masked(const float* x, size_t n, size_t k, const uint32_t* mask, uint32_t* a) {
  size_t p = 0, j = 0;
  while (p < n && j < k) {  // the first k allowed positions, word by word
    const uint32_t w = mask[p >> 5] >> (p & 31);
    if (w == 0) {
      p = (p | 31) + 1;
      continue;
    }
    p += static_cast<size_t>(__builtin_ctz(w));
    if (p >= n) break;
    if (x[p] != x[p]) return p;
    a[j++] = static_cast<uint32_t>(p++);
  }
  if (j < k) return n + 1;
  const sel::ByLogit less{x};
  for (size_t i = k / 2; i-- > 0;) sel::sift_down(a, i, k, less);
  float t = x[a[0]];
  const auto visit = [&](size_t q) {
    const float v = x[q];
    if (!(v <= t) && mask_allows(mask, q)) {
      if (v != v) return false;
      a[0] = static_cast<uint32_t>(q);
      sel::sift_down(a, 0, k, less);
      t = x[a[0]];
    }
    return true;
  };
  for (; p < n && p % 16 != 0; ++p)
    if (!visit(p)) return p;
  while (p < n) {
    p = dispatch::findabovemasked(n, x, t, mask, p);
    const size_t end = std::min(p + 16, n);
    for (; p < end; ++p)
      if (!visit(p)) return p;
  }
  sel::sort_indices(a, k);  // distinct integers: one result
  return n;
}

}  // namespace smx
