#include "select.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/dispatch.h"
#include "select_heap.h"

namespace smx {
namespace sel {
namespace {

constexpr size_t kBuckets = 2048;
constexpr size_t kSmall = 32;  // at most this many: sort them (by key, then position)

// Radix digits, most significant first: 11, 11, 10 bits of a 32-bit key;
// 11 x 5 + 9 bits of a 64-bit key.
struct Digits {
  int levels;
  int shift[6];
  uint64_t mask[6];
};
constexpr Digits kDigits32{3, {21, 10, 0}, {2047, 2047, 1023}};
constexpr Digits kDigits64{6, {53, 42, 31, 20, 9, 0}, {2047, 2047, 2047, 2047, 2047, 511}};

struct KeyOfLogit {
  const float* g;
  uint64_t operator()(uint32_t p) const { return desc_key(g[p]); }
};
struct KeyOfDouble {
  const double* k;
  uint64_t operator()(uint32_t p) const {
    const uint64_t b = asc_key(k[p]);
    return b == 0x8000000000000000ull ? 0 : b;  // -0 keyed as +0
  }
};

struct Item {
  uint64_t key;
  uint32_t pos;
};

// Sorts a[0, n) (n <= kSmall) by key, ties by position.
template <class Key>
size_t sort_small(const uint32_t* a, size_t n, Key key, Item* out) {
  for (size_t i = 0; i < n; ++i) {
    const Item v{key(a[i]), a[i]};
    size_t j = i;
    for (; j > 0 && (v.key < out[j - 1].key || (v.key == out[j - 1].key && v.pos < out[j - 1].pos));
         --j)
      out[j] = out[j - 1];
    out[j] = v;
  }
  return n;
}

// Keeps in a[0, n) (ascending positions stay ascending) those whose digit at
// `level` is b; returns how many. When a is null, scans 0..n.
template <class Key>
size_t gather(uint32_t* a, size_t n, const uint32_t* from, Key key, const Digits& d, int level,
              uint64_t b) {
  const int s = d.shift[level];
  const uint64_t mask = d.mask[level];
  size_t j = 0;
  if (from == nullptr) {
    for (size_t i = 0; i < n; ++i) {
      const auto p = static_cast<uint32_t>(i);
      a[j] = p;
      j += ((key(p) >> s) & mask) == b;
    }
  } else {
    for (size_t i = 0; i < n; ++i) {
      const uint32_t p = from[i];
      a[j] = p;
      j += ((key(p) >> s) & mask) == b;
    }
  }
  return j;
}

template <class Key>
uint32_t radix_kth(size_t m, size_t k, Key key, const Digits& d, uint32_t* a) {
  uint32_t cnt[kBuckets];
  size_t n = m;
  const uint32_t* from = nullptr;  // level 0: every position
  for (int level = 0; level < d.levels; ++level) {
    if (from != nullptr && n <= kSmall) {
      Item s[kSmall];
      sort_small(a, n, key, s);
      return s[k - 1].pos;
    }
    std::fill(cnt, cnt + kBuckets, 0u);
    const int sh = d.shift[level];
    const uint64_t mask = d.mask[level];
    if (from == nullptr) {
      for (size_t i = 0; i < n; ++i) ++cnt[(key(static_cast<uint32_t>(i)) >> sh) & mask];
    } else {
      for (size_t i = 0; i < n; ++i) ++cnt[(key(a[i]) >> sh) & mask];
    }
    uint64_t b = 0;
    while (cnt[b] < k) k -= cnt[b++];
    n = gather(a, n, from, key, d, level, b);
    from = a;
  }
  return a[k - 1];  // equal keys: ascending positions
}

// From `level` on, over a[0, n) (from == a) or over 0..n (from == nullptr),
// with `before` the mass and `rank` the count of the elements before them.
template <class Key>
MassCut radix_mass_cut(size_t n, const float* w, double target, Key key, const Digits& d,
                       uint32_t* a, const uint32_t* from = nullptr, int first_level = 0,
                       double before = 0.0, size_t rank = 0) {
  uint32_t cnt[kBuckets];
  double mass[kBuckets];
  for (int level = first_level; level < d.levels; ++level) {
    if (from != nullptr && n <= kSmall) {
      Item s[kSmall];
      sort_small(from, n, key, s);
      for (size_t i = 0; i < n; ++i) {
        before += w[s[i].pos];
        if (before >= target) return {s[i].pos, rank + i + 1, true, before};
      }
      return {0, 0, false, 0.0};
    }
    std::fill(cnt, cnt + kBuckets, 0u);
    std::fill(mass, mass + kBuckets, 0.0);
    const int sh = d.shift[level];
    const uint64_t mask = d.mask[level];
    if (from == nullptr) {
      for (size_t i = 0; i < n; ++i) {
        const size_t b = (key(static_cast<uint32_t>(i)) >> sh) & mask;
        ++cnt[b];
        mass[b] += w[i];
      }
    } else {
      for (size_t i = 0; i < n; ++i) {
        const size_t b = (key(a[i]) >> sh) & mask;
        ++cnt[b];
        mass[b] += w[a[i]];
      }
    }
    size_t b = 0;
    for (; b <= mask; ++b) {
      if (cnt[b] == 0) continue;
      if (before + mass[b] >= target) break;
      before += mass[b];
      rank += cnt[b];
    }
    if (b > mask) return {0, 0, false, 0.0};
    n = gather(a, n, from, key, d, level, b);
    from = a;
  }
  for (size_t i = 0; i < n; ++i) {  // equal keys: ascending positions
    before += w[a[i]];
    if (before >= target) return {a[i], rank + i + 1, true, before};
  }
  return {0, 0, false, 0.0};
}

// a[0, k) = the first k positions of x[0, n) in the order, as a heap whose root
// is the k-th: one pass with the k-th so far as a threshold; the findabove
// kernel skips the blocks of 16 whose entries are all <= it (ties go to the
// lower position, already in). With kNaN, x may hold NaN (a block holding one
// is flagged too): returns the index of the first NaN (a undefined), else n.
// 1 <= k <= n.
template <bool kNaN>
size_t heap_first_k(const float* x, size_t n, size_t k, uint32_t* a) {
  for (size_t i = 0; i < k; ++i) {
    if (kNaN && x[i] != x[i]) return i;
    a[i] = static_cast<uint32_t>(i);
  }
  const ByLogit less{x};
  for (size_t i = k / 2; i-- > 0;) sift_down(a, i, k, less);
  float t = x[a[0]];
  size_t p = k;
  while (p < n) {
    p += dispatch::findabove(n - p, x + p, t);
    const size_t end = std::min(p + 16, n);
    for (; p < end; ++p) {
      const float v = x[p];
      if (v > t) {
        a[0] = static_cast<uint32_t>(p);
        sift_down(a, 0, k, less);
        t = x[a[0]];
      } else if (kNaN && v != v) {
        return p;
      }
    }
  }
  return n;
}

}  // namespace

void first_k_heap(const float* g, size_t m, size_t k, uint32_t* out) {
  heap_first_k<false>(g, m, k, out);
}

size_t first_k_scan(const float* x, size_t n, size_t k, uint32_t* out) {
  const size_t r = heap_first_k<true>(x, n, k, out);
  if (r == n) sort_indices(out, k);  // distinct integers: one result
  return r;
}

uint32_t kth(const float* g, size_t m, size_t k, uint32_t* scratch) {
  return radix_kth(m, k, KeyOfLogit{g}, kDigits32, scratch);
}

void first_k(const float* g, size_t m, size_t k, uint32_t* out, uint32_t* scratch) {
  if (k * 16 <= m && k <= 256) {
    heap_first_k<false>(g, m, k, out);
    sort_indices(out, k);  // distinct integers: one result
    return;
  }
  const uint32_t c = kth(g, m, k, scratch);
  const uint32_t kc = desc_key(g[c]);
  size_t j = 0;
  for (size_t p = 0; p < m; ++p) {
    const uint32_t kp = desc_key(g[p]);
    out[j] = static_cast<uint32_t>(p);
    j += kp < kc || (kp == kc && p <= c);
  }
}

size_t at_least(const float* g, size_t m, float t, uint32_t* out) {
  return dispatch::indexge(m, g, t, out);
}

TopPCut top_p_cut(const float* g, const float* w, size_t m, double factor, uint32_t* s,
                  uint32_t* scratch) {
  // Level 0 with four interleaved histograms (shorter dependency chains); the
  // total in index order, as the sampler's plain sum gives it.
  constexpr int kCopies = 4;
  static thread_local uint32_t cnt4[kCopies][kBuckets];
  static thread_local double mass4[kCopies][kBuckets];
  for (int c = 0; c < kCopies; ++c) {
    std::fill(cnt4[c], cnt4[c] + kBuckets, 0u);
    std::fill(mass4[c], mass4[c] + kBuckets, 0.0);
  }
  TopPCut r{{0, 0, false, 0.0}, 0.0, 0};
  double total = 0.0;
  size_t i = 0;
  for (; i + kCopies <= m; i += kCopies) {
    for (int c = 0; c < kCopies; ++c) {
      const size_t b = desc_key(g[i + c]) >> 21;
      ++cnt4[c][b];
      mass4[c][b] += w[i + c];
      total += w[i + c];
    }
  }
  for (; i < m; ++i) {
    const size_t b = desc_key(g[i]) >> 21;
    ++cnt4[0][b];
    mass4[0][b] += w[i];
    total += w[i];
  }
  r.total = total;
  const double target = factor * total;
  if (!(target > 0.0)) return r;
  double before = 0.0;
  size_t rank = 0;
  uint32_t b = 0;
  for (; b < kBuckets; ++b) {
    const uint32_t cb = cnt4[0][b] + cnt4[1][b] + cnt4[2][b] + cnt4[3][b];
    if (cb == 0) continue;
    const double mb = (mass4[0][b] + mass4[1][b]) + (mass4[2][b] + mass4[3][b]);
    if (before + mb >= target) break;
    before += mb;
    rank += cb;
  }
  if (b == kBuckets) return r;
  // S: every position in buckets <= b (a superset of the kept ones), ascending:
  // those with g >= tf, the least float of bucket b (-Infinity when the
  // bucket's last key is a NaN pattern: b >= 2044 holds -Infinity).
  const uint32_t kmax = ((b + 1) << 21) - 1;
  const uint32_t bits = kmax ^ (kmax & 0x80000000u ? 0u : 0x7FFFFFFFu);
  float tf;
  std::memcpy(&tf, &bits, sizeof tf);
  if (tf != tf) tf = -std::numeric_limits<float>::infinity();
  // g >= tf <=> g > the float below tf (no NaN in g); findabove skips the
  // blocks without such an entry (none when tf is -Infinity).
  const float below = std::nextafter(tf, -std::numeric_limits<float>::infinity());
  const bool skip = tf != -std::numeric_limits<float>::infinity();
  size_t j = 0;
  size_t p = 0;
  while (p < m) {
    if (skip) p += dispatch::findabove(m - p, g + p, below);
    const size_t end = std::min(p + 16, m);
    for (; p < end; ++p) {
      s[j] = static_cast<uint32_t>(p);
      j += g[p] >= tf;
    }
  }
  r.s_len = j;
  const KeyOfLogit key{g};
  const size_t n = gather(scratch, j, s, key, kDigits32, 0, b);
  r.cut = radix_mass_cut(n, w, target, key, kDigits32, scratch, scratch, 1, before, rank);
  return r;
}

MassCut mass_cut(const float* g, const float* w, size_t m, double target, uint32_t* scratch) {
  return radix_mass_cut(m, w, target, KeyOfLogit{g}, kDigits32, scratch);
}

MassCut mass_cut_among(const float* g, const float* w, const uint32_t* among, size_t count,
                       double target, uint32_t* scratch) {
  if (count == 0) return {0, 0, false, 0.0};
  // radix_mass_cut refines in place: from == a.
  std::memcpy(scratch, among, count * sizeof(uint32_t));
  return radix_mass_cut(count, w, target, KeyOfLogit{g}, kDigits32, scratch, scratch);
}

namespace {

// mass_cut over among[0, count) with a first level of bins (bin(p): kBuckets
// of them, non-decreasing along the order), then the radix cut by `key` in
// the bin that holds the crossing.
template <class Bin, class Key>
MassCut binned_mass_cut(const float* w, const uint32_t* among, size_t count, double target, Bin bin,
                        Key key, const Digits& digits, uint32_t* scratch) {
  static thread_local uint32_t cnt[kBuckets];
  static thread_local double mass[kBuckets];
  std::fill(cnt, cnt + kBuckets, 0u);
  std::fill(mass, mass + kBuckets, 0.0);
  const auto at = [among](size_t i) {
    return among != nullptr ? among[i] : static_cast<uint32_t>(i);
  };
  for (size_t i = 0; i < count; ++i) {
    const uint32_t p = at(i);
    const size_t b = bin(p);
    ++cnt[b];
    mass[b] += w[p];
  }
  double before = 0.0;
  size_t rank = 0, b = 0;
  for (; b < kBuckets; ++b) {
    if (cnt[b] == 0) continue;
    if (before + mass[b] >= target) break;
    before += mass[b];
    rank += cnt[b];
  }
  if (b == kBuckets) return {0, 0, false, 0.0};
  size_t n = 0;
  for (size_t i = 0; i < count; ++i) {
    const uint32_t p = at(i);
    scratch[n] = p;
    n += bin(p) == b;
  }
  return radix_mass_cut(n, w, target, key, digits, scratch, scratch, 0, before, rank);
}

}  // namespace

MassCut mass_cut_binned(const float* g, const float* w, const uint32_t* among, size_t count,
                        double target, float top, float scale, uint32_t* scratch) {
  // Bins by (top - g) * scale: rounded operations, so non-decreasing along
  // the order (equal logits share a bin). Summed bin by bin, each bin in
  // position order (as the radix cut: exact under mass_cut's condition).
  const auto bin = [g, top, scale](uint32_t p) {
    const float d = (top - g[p]) * scale;
    return d < static_cast<float>(kBuckets - 1) ? static_cast<size_t>(d) : kBuckets - 1;
  };
  return binned_mass_cut(w, among, count, target, bin, KeyOfLogit{g}, kDigits32, scratch);
}

MassCut mass_cut_by_key_binned(const double* key, const float* w, const uint32_t* among,
                               size_t count, double target, double scale, uint32_t* scratch) {
  const auto bin = [key, scale](uint32_t p) {
    const double d = key[p] * scale;
    return d < static_cast<double>(kBuckets - 1) ? static_cast<size_t>(d) : kBuckets - 1;
  };
  return binned_mass_cut(w, among, count, target, bin, KeyOfDouble{key}, kDigits64, scratch);
}

MassCut mass_cut_by_key_among(const double* key, const float* w, const uint32_t* among,
                              size_t count, double target, uint32_t* scratch) {
  if (count == 0) return {0, 0, false, 0.0};
  std::memcpy(scratch, among, count * sizeof(uint32_t));
  return radix_mass_cut(count, w, target, KeyOfDouble{key}, kDigits64, scratch, scratch);
}

MassCut mass_cut_by_key_after(const double* key, const float* w, uint32_t* list, size_t n,
                              double target, double before, size_t rank) {
  if (n == 0) return {0, 0, false, 0.0};
  return radix_mass_cut(n, w, target, KeyOfDouble{key}, kDigits64, list, list, 0, before, rank);
}

MassCut mass_cut_by_key(const double* key, const float* w, size_t m, double target,
                        uint32_t* scratch) {
  return radix_mass_cut(m, w, target, KeyOfDouble{key}, kDigits64, scratch);
}

}  // namespace sel
}  // namespace smx
