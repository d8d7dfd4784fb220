#include "draw.h"

#include <algorithm>

namespace smx {

double cumulative_sums(const float* q, size_t n, double* cum) {
  double sum = 0.0;
  for (size_t j = 0; j < n; ++j) cum[j] = sum += q[j];
  return sum;
}

size_t draw_exact(const float* q, const double* cum, size_t n, double u, double total) {
  const double target = u * total;
  size_t a = 0, b = n;
  while (a < b) {
    const size_t mid = a + (b - a) / 2;
    if (cum[mid] > target)
      b = mid;
    else
      a = mid + 1;
  }
  if (a < n) return a;
  // u * total rounded up to total: the last entry with mass.
  a = n - 1;
  while (a > 0 && q[a] == 0.0f) --a;
  return a;
}

size_t draw_from_blocks(const float* q, size_t n, const double* before, size_t block, double u,
                        double margin_scale) {
  const size_t blocks = (n + block - 1) / block;
  const double total = before[blocks];
  const double target = u * total;
  const double margin = margin_scale * static_cast<double>(n + 64) * 0x1p-53 * total;
  if (!(target < total - margin)) return n;
  // The last block that starts at or below the target, then its entries in order.
  size_t a = 0, b = blocks;
  while (b - a > 1) {
    const size_t mid = a + (b - a) / 2;
    if (before[mid] <= target)
      a = mid;
    else
      b = mid;
  }
  double cum = before[a];
  const size_t end = std::min(n, (a + 1) * block);
  for (size_t j = a * block; j < end; ++j) {
    const double next = cum + q[j];
    if (next > target) return target - cum > margin && next - target > margin ? j : n;
    cum = next;
  }
  return n;
}

}  // namespace smx
