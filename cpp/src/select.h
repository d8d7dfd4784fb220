// Selection without sorting the vocabulary: top-k sets and mass-weighted cuts
// (top-p, typical) in O(n), by a threshold scan with a small heap (small k) or
// by radix selection on order-preserving integer keys (2048-bucket histograms
// of counts and masses, refined only inside the bucket that holds the answer).
//
// "The order" of positions 0..m of a float array g: decreasing g, ties by lower
// position (a strict total order; -0 and +0 are equal). g holds no NaN (the
// sampler rejects NaN before). Everything here is integer work or comparisons,
// except the masses, which are double sums; see mass_cut for their order.
// Deterministic and identical natively and in both wasm builds.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace smx {
namespace sel {

// Smaller key <=> earlier in the order of decreasing float (-0 keyed as +0).
inline uint32_t desc_key(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof b);
  if (b == 0x80000000u) b = 0;
  const uint32_t neg = static_cast<uint32_t>(static_cast<int32_t>(b) >> 31);
  return b ^ (~neg & 0x7FFFFFFFu);
}

// Smaller key <=> smaller double, for doubles >= 0 or +Infinity (no NaN, no -0).
inline uint64_t asc_key(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// Positions of the first k of g[0, m) in the order, written to out[0, k) in
// ascending order. 1 <= k <= m. out and scratch each have room for m entries.
void first_k(const float* g, size_t m, size_t k, uint32_t* out, uint32_t* scratch);

// The same for raw scores that may hold NaN, reading x once (a threshold
// scan with a small heap; meant for k <= 256 and k * 16 <= n): returns n and
// the first k positions in out[0, k), ascending; or, if x holds a NaN, the
// index of the first NaN (out is then undefined). 1 <= k <= n.
size_t first_k_scan(const float* x, size_t n, size_t k, uint32_t* out);

// The k-th (1-based) position of g[0, m) in the order. 1 <= k <= m; scratch
// has room for m entries.
uint32_t kth(const float* g, size_t m, size_t k, uint32_t* scratch);

struct MassCut {
  uint32_t pos;  // the first element c in the order whose prefix mass reaches target
  size_t rank;   // 1 + the number of elements before c in the order
  bool found;    // false: the whole mass stays below target (pos, rank undefined)
};

// With mass(c) = sum of w over the elements of the order up to and including
// c: the first c with mass(c) >= target. The sums are double sums whose order
// is that of buckets, then of positions: equal to the sums in the order
// (a cumulative sum after a full sort) whenever they are exact, which holds
// when every w in the prefix is 0 or a float >= 2^-29 (each a multiple of
// 2^-52, and every partial sum < 2). The caller checks that and otherwise
// falls back to the code whose rounding it must reproduce.
// scratch: room for m entries; w >= 0.
MassCut mass_cut(const float* g, const float* w, size_t m, double target, uint32_t* scratch);
// top-p in one step: total = the sum of w[0, m) in index order (a double sum,
// as a plain loop gives it), target = factor * total, and mass_cut's answer
// (cut.found false also when !(target > 0)). s receives, ascending, the
// positions of a superset of the elements up to the cut (s_len of them):
// compacting over s instead of 0..m gives the same result. s and scratch:
// room for m entries each.
struct TopPCut {
  MassCut cut;
  double total;
  size_t s_len;
};
TopPCut top_p_cut(const float* g, const float* w, size_t m, double factor, uint32_t* s,
                  uint32_t* scratch);

// The same for the order of increasing key[p] (ties by lower position); keys
// are >= 0 doubles or +Infinity.
MassCut mass_cut_by_key(const double* key, const float* w, size_t m, double target,
                        uint32_t* scratch);

// Max-heap sift under `less`: the root is the element that comes last. Shared
// by the heaps of select.cpp and sampler.cpp.
template <class Less>
void sift_down(uint32_t* a, size_t i, size_t len, Less less) {
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= len) return;
    if (c + 1 < len && less(a[c], a[c + 1])) ++c;
    if (!less(a[i], a[c])) return;
    const uint32_t t = a[i];
    a[i] = a[c];
    a[c] = t;
    i = c;
  }
}

}  // namespace sel
}  // namespace smx
