// Selection by comparisons, for the rare paths and the short lists: heapsort,
// quickselect and the mass-weighted quickselect whose sums run in the order
// itself (see select.h). Compiled for size: the sampler's fast paths are in
// select.cpp.
#include <algorithm>

#include "select.h"
#include "select_heap.h"

namespace smx {
namespace sel {
namespace {

template <class Less>
void insertion_sort(uint32_t* a, size_t n, Less less) {
  for (size_t i = 1; i < n; ++i) {
    const uint32_t v = a[i];
    size_t j = i;
    for (; j > 0 && less(v, a[j - 1]); --j) a[j] = a[j - 1];
    a[j] = v;
  }
}

// Own heapsort: the fallback of the selections past their depth limit.
template <class Less>
void heap_sort(uint32_t* a, size_t n, Less less) {
  for (size_t i = n / 2; i-- > 0;) sift_down(a, i, n, less);
  for (size_t end = n; end > 1; --end) {
    std::swap(a[0], a[end - 1]);
    sift_down(a, 0, end - 1, less);
  }
}

// Partitions a[lo, hi) (hi - lo >= 3) around the median of three; returns the
// pivot's final place p: a[lo, p) precede a[p], a(p, hi) follow it.
template <class Less>
size_t partition(uint32_t* a, size_t lo, size_t hi, Less less) {
  const size_t mid = lo + (hi - lo) / 2;
  if (less(a[mid], a[lo])) std::swap(a[mid], a[lo]);
  if (less(a[hi - 1], a[lo])) std::swap(a[hi - 1], a[lo]);
  if (less(a[hi - 1], a[mid])) std::swap(a[hi - 1], a[mid]);
  std::swap(a[mid], a[hi - 1]);
  const uint32_t pivot = a[hi - 1];
  size_t store = lo;
  for (size_t i = lo; i + 1 < hi; ++i) {
    if (less(a[i], pivot)) std::swap(a[i], a[store++]);
  }
  std::swap(a[store], a[hi - 1]);
  return store;
}

int depth_limit(size_t n) {
  int d = 16;
  for (size_t v = n; v > 1; v >>= 1) d += 2;
  return d;
}

constexpr size_t kSmallRange = 16;  // at most this many: insertion sort

// Quickselect: afterwards a[0, k) are the first k elements in the order and
// a[k - 1] is the k-th. 1 <= k <= n.
template <class Less>
void select_first(uint32_t* a, size_t n, size_t k, Less less) {
  size_t lo = 0, hi = n;
  int depth = depth_limit(n);
  while (hi - lo > kSmallRange) {
    if (depth-- == 0) return heap_sort(a + lo, hi - lo, less);
    const size_t p = partition(a, lo, hi, less);
    if (p + 1 == k) return;
    if (p + 1 > k)
      hi = p;
    else
      lo = p + 1;
  }
  insertion_sort(a + lo, hi - lo, less);
}

// See weighted_cut in select.h. Masses are double sums in a fixed order.
template <class Less>
MassCut weighted_cut_in(uint32_t* a, size_t n, const float* w, double target, Less less) {
  size_t lo = 0, hi = n;
  double before = 0.0;  // mass of a[0, lo)
  int depth = depth_limit(n);
  while (hi - lo > kSmallRange) {
    if (depth-- == 0) {
      heap_sort(a + lo, hi - lo, less);
      break;
    }
    const size_t p = partition(a, lo, hi, less);
    double left = 0.0;
    for (size_t i = lo; i < p; ++i) left += w[a[i]];
    if (before + left >= target) {
      hi = p;
      continue;
    }
    before += left;
    if (before + w[a[p]] >= target) return {a[p], p + 1, true, 0.0};
    before += w[a[p]];
    lo = p + 1;
  }
  if (hi - lo <= kSmallRange) insertion_sort(a + lo, hi - lo, less);
  for (size_t i = lo; i < hi; ++i) {
    before += w[a[i]];
    if (before >= target) return {a[i], i + 1, true, 0.0};
  }
  return {a[hi - 1], hi, true, 0.0};
}

}  // namespace

void first_k_sorted(const float* g, size_t m, size_t k, uint32_t* out) {
  first_k_heap(g, m, k, out);
  heap_sort(out, k, ByLogit{g});
}

void sort_indices(uint32_t* a, size_t n) {
  heap_sort(a, n, [](uint32_t x, uint32_t y) { return x < y; });
}

void sort_first_k(uint32_t* a, size_t n, size_t k, const float* g) {
  if (k == 0) return;
  const ByLogit less{g};
  select_first(a, n, k, less);
  heap_sort(a, k, less);
}

MassCut weighted_cut(uint32_t* a, size_t n, const float* w, double target, const float* g) {
  return weighted_cut_in(a, n, w, target, ByLogit{g});
}

MassCut weighted_cut_by_key(uint32_t* a, size_t n, const float* w, double target,
                            const double* key) {
  return weighted_cut_in(a, n, w, target, ByKey{key});
}

}  // namespace sel
}  // namespace smx
