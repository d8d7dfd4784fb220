// Selection without sorting the vocabulary: top-k sets and mass-weighted cuts
// (top-p, typical) in O(n), by a threshold scan with a small heap (small k) or
// by radix selection on order-preserving integer keys (2048-bucket histograms
// of counts and masses, refined only inside the bucket that holds the answer);
// and the comparison-based selection the sampler falls back on (quickselect,
// heapsort, a mass-weighted quickselect).
//
// "The order" of positions 0..m of a float array g: decreasing g, ties by lower
// position (a strict total order; -0 and +0 are equal). g holds no NaN (the
// sampler rejects NaN before). "The order by key": increasing key, ties by
// lower position. Everything here is integer work or comparisons, except the
// masses, which are double sums; see mass_cut for their order. Deterministic
// and identical natively and in both wasm builds.
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

// Position a comes before b in the order of g.
struct ByLogit {
  const float* g;
  bool operator()(uint32_t a, uint32_t b) const { return g[a] > g[b] || (g[a] == g[b] && a < b); }
};

// Position a comes before b in the order by key.
struct ByKey {
  const double* k;
  bool operator()(uint32_t a, uint32_t b) const { return k[a] < k[b] || (k[a] == k[b] && a < b); }
};

// Positions of the first k of g[0, m) in the order, written to out[0, k) in
// ascending order. 1 <= k <= m. out and scratch each have room for m entries.
void first_k(const float* g, size_t m, size_t k, uint32_t* out, uint32_t* scratch);

// The same for raw scores that may hold NaN, reading x once (a threshold
// scan with a small heap; meant for k <= 256 and k * 16 <= n): returns n and
// the first k positions in out[0, k), ascending; or, if x holds a NaN, the
// index of the first NaN (out is then undefined). 1 <= k <= n.
size_t first_k_scan(const float* x, size_t n, size_t k, uint32_t* out);

// The first k positions of g[0, m) in the order, as a max-heap under the
// order (the root is the k-th): the threshold scan with a heap, meant for k
// << m. 1 <= k <= m.
void first_k_heap(const float* g, size_t m, size_t k, uint32_t* out);

// The same, sorted in the order. 1 <= k <= m.
void first_k_sorted(const float* g, size_t m, size_t k, uint32_t* out);

// The positions p of g[0, m) with g[p] >= t, ascending, into out; returns how
// many (the findabove kernel skips blocks without one). g holds no NaN.
size_t at_least(const float* g, size_t m, float t, uint32_t* out);

// The k-th (1-based) position of g[0, m) in the order. 1 <= k <= m; scratch
// has room for m entries.
uint32_t kth(const float* g, size_t m, size_t k, uint32_t* scratch);

// a[0, n) in increasing order (a heapsort: no std::sort in the module, whose
// introsort would cost ~700 bytes gzip of wasm for these short lists).
void sort_indices(uint32_t* a, size_t n);

// a[0, n) rearranged so that a[0, k) are its first k in the order of g, sorted
// (a quickselect, then a heapsort of the k). 0 <= k <= n.
void sort_first_k(uint32_t* a, size_t n, size_t k, const float* g);

struct MassCut {
  uint32_t pos;  // the first element c in the order whose prefix mass reaches target
  size_t rank;   // 1 + the number of elements before c in the order
  bool found;    // false: the whole mass stays below target (pos, rank undefined)
  double mass;   // the prefix mass up to and including c, as summed (radix cuts only)
};

// With mass(c) = sum of w over the elements of the order up to and including
// c: the first c with mass(c) >= target. The sums are double sums whose order
// is that of buckets, then of positions: equal to the sums in the order
// (a cumulative sum after a full sort) whenever they are exact, which holds
// when every w in the prefix is 0 or a float >= 2^-29 (each a multiple of
// 2^-52, and every partial sum < 2). The caller checks that and otherwise
// falls back to weighted_cut, whose rounding it must reproduce.
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

// mass_cut over the positions among[0, count) (ascending) only: the same
// answer as over every position when the order's prefix up to the cut lies
// among them (with target a prefix mass the caller knows).
MassCut mass_cut_among(const float* g, const float* w, const uint32_t* among, size_t count,
                       double target, uint32_t* scratch);

// The same, among null meaning every position 0..count, with a first level
// of bins by (top - g) * scale (top >= every
// g among them, scale > 0 finite): for candidates whose logits span a
// narrow range, where the radix digits of the float keys barely separate.
MassCut mass_cut_binned(const float* g, const float* w, const uint32_t* among, size_t count,
                        double target, float top, float scale, uint32_t* scratch);

// The same by key (keys >= 0 and finite, scale > 0 finite), with a first
// level of bins by key * scale.
MassCut mass_cut_by_key_binned(const double* key, const float* w, const uint32_t* among,
                               size_t count, double target, double scale, uint32_t* scratch);

// mass_cut_by_key over the positions among[0, count) (ascending) only.
MassCut mass_cut_by_key_among(const double* key, const float* w, const uint32_t* among,
                              size_t count, double target, uint32_t* scratch);

// mass_cut_by_key over list[0, n) (positions; reordered in place), which
// follow in the order `rank` elements of mass `before` (summed exactly, as
// the radix cut's sums): the cut within a bin of keys whose predecessors the
// caller has summed.
MassCut mass_cut_by_key_after(const double* key, const float* w, uint32_t* list, size_t n,
                              double target, double before, size_t rank);

// The same as mass_cut for the order by key; keys are >= 0 doubles or
// +Infinity.
MassCut mass_cut_by_key(const double* key, const float* w, size_t m, double target,
                        uint32_t* scratch);

// The mass cut by comparisons, whose double sums run in the order itself (the
// rounding of a cumulative sum after a full sort): a quickselect over a[0, n)
// (any permutation of the positions) that descends into the side holding the
// crossing, in the order of g (weighted_cut) or by key (weighted_cut_by_key).
// If rounding keeps the whole sum below target: the last element of the order.
// found is always true.
MassCut weighted_cut(uint32_t* a, size_t n, const float* w, double target, const float* g);
MassCut weighted_cut_by_key(uint32_t* a, size_t n, const float* w, double target,
                            const double* key);

}  // namespace sel
}  // namespace smx
