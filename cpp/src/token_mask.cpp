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

// The heap scan of select.cpp (heap_first_k) with one more test where an
// entry would enter the heap: the findabove kernel still skips the blocks of
// 16 whose entries are all <= the k-th so far, allowed or not.
size_t first_k_scan_masked(const float* x, size_t n, size_t k, const uint32_t* mask, uint32_t* a) {
  size_t p = 0, j = 0;
  for (; p < n && j < k; ++p) {
    if (!mask_allows(mask, p)) continue;
    if (x[p] != x[p]) return p;
    a[j++] = static_cast<uint32_t>(p);
  }
  if (j < k) return n + 1;
  const sel::ByLogit less{x};
  for (size_t i = k / 2; i-- > 0;) sel::sift_down(a, i, k, less);
  float t = x[a[0]];
  while (p < n) {
    p += dispatch::findabove(n - p, x + p, t);
    const size_t end = std::min(p + 16, n);
    for (; p < end; ++p) {
      const float v = x[p];
      if (!(v <= t) && mask_allows(mask, p)) {
        if (v != v) return p;
        a[0] = static_cast<uint32_t>(p);
        sel::sift_down(a, 0, k, less);
        t = x[a[0]];
      }
    }
  }
  std::sort(a, a + k);  // distinct integers: one result
  return n;
}

}  // namespace smx
