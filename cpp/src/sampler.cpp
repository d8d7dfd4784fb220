#include "smx/sampler.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "select.h"
#include "smx/softmax.h"

namespace smx {

template <typename T>
Buffer<T>::~Buffer() {
  std::free(p_);
}

template <typename T>
bool Buffer<T>::reserve(size_t n) {
  if (n <= cap_ && p_ != nullptr) return true;
  if (n > SIZE_MAX / sizeof(T)) return false;
  void* q = std::realloc(p_, (n == 0 ? 1 : n) * sizeof(T));
  if (q == nullptr) return false;
  p_ = static_cast<T*>(q);
  cap_ = n;
  return true;
}

template class Buffer<float>;
template class Buffer<double>;
template class Buffer<uint32_t>;
template class Buffer<int32_t>;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr size_t kSmallRange = 16;

// Position a comes before b: higher logit first, ties by lower position (the
// candidates are in ascending index order, so by lower index).
struct ByLogit {
  const float* g;
  bool operator()(uint32_t a, uint32_t b) const { return g[a] > g[b] || (g[a] == g[b] && a < b); }
};

// Position a comes before b: smaller key first, ties by lower position.
struct ByKey {
  const double* k;
  bool operator()(uint32_t a, uint32_t b) const { return k[a] < k[b] || (k[a] == k[b] && a < b); }
};

template <class Less>
void insertion_sort(uint32_t* a, size_t n, Less less) {
  for (size_t i = 1; i < n; ++i) {
    const uint32_t v = a[i];
    size_t j = i;
    for (; j > 0 && less(v, a[j - 1]); --j) a[j] = a[j - 1];
    a[j] = v;
  }
}

using sel::sift_down;

// Own heapsort: the fallback of the selections past their depth limit.
template <class Less>
void heap_sort(uint32_t* a, size_t n, Less less) {
  for (size_t i = n / 2; i-- > 0;) sift_down(a, i, n, less);
  for (size_t end = n; end > 1; --end) {
    std::swap(a[0], a[end - 1]);
    sift_down(a, 0, end - 1, less);
  }
}

// a[0, k) = positions of the first k of g[0, m) in ByLogit order, as a heap
// whose root a[0] is the k-th. One pass with a cached threshold: fast when
// k << m. 1 <= k <= m.
void heap_select_first(uint32_t* a, size_t m, size_t k, const float* g) {
  const ByLogit less{g};
  for (size_t i = 0; i < k; ++i) a[i] = static_cast<uint32_t>(i);
  for (size_t i = k / 2; i-- > 0;) sift_down(a, i, k, less);
  float threshold = g[a[0]];
  for (size_t p = k; p < m; ++p) {
    if (g[p] > threshold) {  // ties go to the lower position, already in the heap
      a[0] = static_cast<uint32_t>(p);
      sift_down(a, 0, k, less);
      threshold = g[a[0]];
    }
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

struct Cut {
  uint32_t pos;  // the last kept element
  size_t rank;   // how many elements precede it, plus one
};

// The first element c in the order with mass(elements up to c) >= target > 0:
// a quickselect that descends into the side holding the crossing. Masses are
// double sums in a fixed (deterministic) order. If rounding keeps the sum
// below target, the last element of the final range.
template <class Less>
Cut weighted_cut(uint32_t* a, size_t n, const float* w, double target, Less less) {
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
    if (before + w[a[p]] >= target) return {a[p], p + 1};
    before += w[a[p]];
    lo = p + 1;
  }
  if (hi - lo <= kSmallRange) insertion_sort(a + lo, hi - lo, less);
  for (size_t i = lo; i < hi; ++i) {
    before += w[a[i]];
    if (before >= target) return {a[i], i + 1};
  }
  return {a[hi - 1], hi};
}

}  // namespace

SampleStatus Sampler::configure(const SamplerOptions& o) {
  if (!validate(o).ok()) return SampleStatus::kBadOption;
  opts_ = o;
  mu_ = 2.0 * o.mirostat_tau;
  return SampleStatus::kOk;
}

SampleStatus Sampler::set_logit_bias(const uint32_t* index, const float* bias, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const float b = bias[i];
    if (!(b - b == 0.0f || b == -kInf)) return SampleStatus::kBadOption;  // finite or -Infinity
  }
  if (!bias_index_.reserve(count) || !bias_value_.reserve(count)) return SampleStatus::kNoMemory;
  if (count > 0) {
    std::memcpy(bias_index_.data(), index, count * sizeof(uint32_t));
    std::memcpy(bias_value_.data(), bias, count * sizeof(float));
  }
  bias_len_ = count;
  return SampleStatus::kOk;
}

SampleStatus Sampler::accept(const int32_t* tokens, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (tokens[i] < 0) {
      error_index_ = i;
      return SampleStatus::kBadToken;
    }
  }
  const size_t need = history_len_ + count;
  if (!history_.reserve(std::max(need, 2 * history_len_))) return SampleStatus::kNoMemory;
  if (count > 0) std::memcpy(history_.data() + history_len_, tokens, count * sizeof(int32_t));
  history_len_ = need;
  // Keep what the penalties, DRY and no-repeat n-gram can look at (plus
  // slack, so trimming is rare).
  const size_t keep = history_keep();
  if (keep != SIZE_MAX && history_len_ > 2 * keep + 1024) {
    std::memmove(history_.data(), history_.data() + history_len_ - keep, keep * sizeof(int32_t));
    history_len_ = keep;
  }
  return SampleStatus::kOk;
}

SampleStatus Sampler::reserve(size_t n) {
  if (n <= cap_) return SampleStatus::kOk;
  const bool ok = logits_.reserve(n) && cand_.reserve(n) && g_.reserve(n) && q_.reserve(n) &&
                  lq_.reserve(n) && key_.reserve(n) && perm_.reserve(n) && cum_.reserve(n);
  if (!ok) return SampleStatus::kNoMemory;
  cap_ = n;
  return SampleStatus::kOk;
}

SampleStatus Sampler::load(const float* x, size_t n) {
  if (n == 0) return SampleStatus::kEmpty;
  if (n > 0x7FFFFFFFu) return SampleStatus::kBadOption;
  const SampleStatus s = reserve(n);
  if (s != SampleStatus::kOk) return s;
  // Copy and NaN check in blocks without an early exit (vectorizable).
  float* l = logits_.data();
  for (size_t i0 = 0; i0 < n; i0 += 1024) {
    const size_t end = std::min(n, i0 + 1024);
    unsigned nan = 0;
    for (size_t i = i0; i < end; ++i) {
      const float v = x[i];
      l[i] = v;
      nan |= static_cast<unsigned>(v != v);
    }
    if (nan != 0) {
      for (size_t i = i0;; ++i) {
        if (x[i] != x[i]) {
          error_index_ = i;
          return SampleStatus::kNaNScore;
        }
      }
    }
  }
  for (size_t i = 0; i < bias_len_; ++i) {
    const uint32_t j = bias_index_[i];
    if (j >= n) {
      error_index_ = j;
      return SampleStatus::kBadToken;
    }
    logits_[j] = bias_value_[i] == -kInf ? -kInf : logits_[j] + bias_value_[i];
  }
  return apply_penalties(n);
}

SampleStatus Sampler::apply_penalties(size_t n) {
  const SamplerOptions& o = opts_;
  const bool neutral =
      o.repetition_penalty == 1.0f && o.frequency_penalty == 0.0f && o.presence_penalty == 0.0f;
  if (neutral || o.penalty_last_n == 0 || history_len_ == 0) return SampleStatus::kOk;
  size_t w = history_len_;
  if (o.penalty_last_n > 0) w = std::min(w, static_cast<size_t>(o.penalty_last_n));
  if (!perm_.reserve(std::max(w, cap_))) return SampleStatus::kNoMemory;
  uint32_t* win = perm_.data();
  const int32_t* h = history_.data() + history_len_ - w;
  for (size_t i = 0; i < w; ++i) {
    if (static_cast<size_t>(h[i]) >= n) {
      error_index_ = static_cast<size_t>(h[i]);
      return SampleStatus::kBadToken;
    }
    win[i] = static_cast<uint32_t>(h[i]);
  }
  std::sort(win, win + w);  // integers: the result is unique
  for (size_t i = 0; i < w;) {
    size_t j = i;
    while (j < w && win[j] == win[i]) ++j;
    float& l = logits_[win[i]];
    // Penalties move finite scores only: a masked -Infinity stays masked (and
    // -Infinity - (-Infinity) would be NaN when a penalty overflows).
    if (l - l == 0.0f) {
      // A penalty never takes a finite score out of the finite range (an
      // overflow to -Infinity would then meet -Infinity - (-Infinity) = NaN,
      // and +Infinity would share the mass with scores that are +Infinity).
      const float big = std::numeric_limits<float>::max();
      if (o.repetition_penalty != 1.0f) {
        l = l > 0.0f ? l / o.repetition_penalty : l * o.repetition_penalty;
        l = std::min(std::max(l, -big), big);
      }
      l = l - (static_cast<float>(j - i) * o.frequency_penalty + o.presence_penalty);
      l = std::min(std::max(l, -big), big);
    }
    i = j;
  }
  return SampleStatus::kOk;
}

void Sampler::softmax_candidates() {
  Options so;
  so.temperature = t_;
  softmax(g_.data(), q_.data(), Layout{1, m_, 1}, so);
  double total = 0.0;
  for (size_t j = 0; j < m_; ++j) total += q_[j];
  total_ = total;
}

// Keeps the candidates at positions p with key(p) <= key(cut) in the order,
// in ascending index order.
void Sampler::keep_first(size_t cut, bool by_key) {
  size_t j = 0;
  if (by_key) {
    const ByKey less{key_.data()};
    for (size_t p = 0; p < m_; ++p) {
      if (p == cut || less(static_cast<uint32_t>(p), static_cast<uint32_t>(cut))) {
        cand_[j] = cand_[p];
        g_[j++] = g_[p];
      }
    }
  } else {
    const float gc = g_[cut];
    for (size_t p = 0; p < m_; ++p) {
      if (g_[p] > gc || (g_[p] == gc && p <= cut)) {
        cand_[j] = cand_[p];
        g_[j++] = g_[p];
      }
    }
  }
  m_ = j;
}

void Sampler::top_k(uint32_t k) {
  const size_t kk = std::max<size_t>(k, opts_.min_keep);
  if (k == 0 || kk >= m_) return;
  // The first kk positions, ascending (a threshold scan or a radix select on
  // the raw logits: no exp), then gathered in place (a[j] >= j).
  uint32_t* a = perm_.data();
  sel::first_k(g_.data(), m_, kk, a, reinterpret_cast<uint32_t*>(cum_.data()));
  for (size_t j = 0; j < kk; ++j) {
    cand_[j] = cand_[a[j]];
    g_[j] = g_[a[j]];
  }
  m_ = kk;
}

void Sampler::top_p(double p) {
  if (p >= 1.0 || m_ <= 1) return;
  uint32_t* a = perm_.data();
  // O(m) radix cut by mass. Its double sums run in another order than the
  // sorted cumulative sum below, but they are exact (so equal) when every
  // probability up to the cut is a float >= 2^-29 (a multiple of 2^-52, sums
  // < 2); q is non-decreasing in the logit within a few ulp, so q[cut] >=
  // 2^-27 vouches for the whole prefix. Otherwise the code below decides.
  // total_ is the index-order sum softmax_candidates() gives, computed in the
  // cut's first pass.
  if (m_ > 1024) {
    Options so;
    so.temperature = t_;
    softmax(g_.data(), q_.data(), Layout{1, m_, 1}, so);
    const sel::TopPCut c = sel::top_p_cut(g_.data(), q_.data(), m_, p - kMassSlack, a,
                                          reinterpret_cast<uint32_t*>(cum_.data()));
    total_ = c.total;
    if (!((p - kMassSlack) * total_ > 0.0)) return top_k(1);
    if (c.cut.found && q_[c.cut.pos] >= 0x1p-27f) {
      if (c.cut.rank < opts_.min_keep) return top_k(opts_.min_keep);
      // keep_first(c.cut.pos, false), over the superset a[0, s_len) only.
      const size_t cut = c.cut.pos;
      const float gc = g_[cut];
      size_t j = 0;
      for (size_t i = 0; i < c.s_len; ++i) {
        const size_t q = a[i];
        if (g_[q] > gc || (g_[q] == gc && q <= cut)) {
          cand_[j] = cand_[q];
          g_[j++] = g_[q];
        }
      }
      m_ = j;
      return;
    }
  } else {
    softmax_candidates();
  }
  const double target = (p - kMassSlack) * total_;
  if (!(target > 0.0)) return top_k(1);
  const ByLogit by_logit{g_.data()};
  // Peaked distributions: the cut is among the first few; try growing prefixes.
  for (size_t k = 64; k * 16 <= m_; k *= 8) {
    heap_select_first(a, m_, k, g_.data());
    heap_sort(a, k, by_logit);
    double cum = 0.0;
    for (size_t j = 0; j < k; ++j) {
      cum += q_[a[j]];
      if (cum >= target) {
        if (j + 1 < opts_.min_keep) return top_k(opts_.min_keep);
        return keep_first(a[j], false);
      }
    }
  }
  for (size_t i = 0; i < m_; ++i) a[i] = static_cast<uint32_t>(i);
  const Cut c = weighted_cut(a, m_, q_.data(), target, by_logit);
  if (c.rank < opts_.min_keep) return top_k(opts_.min_keep);
  keep_first(c.pos, false);
}

void Sampler::min_p(double mp) {
  if (mp <= 0.0 || m_ <= 1) return;
  softmax_candidates();
  float qmax = 0.0f;
  for (size_t j = 0; j < m_; ++j) qmax = std::max(qmax, q_[j]);
  const double threshold = mp * static_cast<double>(qmax) * (1.0 - kMassSlack);
  size_t kept = 0;
  for (size_t j = 0; j < m_; ++j) kept += static_cast<double>(q_[j]) >= threshold;
  if (kept < opts_.min_keep) return top_k(opts_.min_keep);
  size_t j = 0;
  for (size_t p = 0; p < m_; ++p) {
    if (static_cast<double>(q_[p]) >= threshold) {
      cand_[j] = cand_[p];
      g_[j++] = g_[p];
    }
  }
  m_ = j;
}

void Sampler::typical_p(double mass) {
  if (mass >= 1.0 || m_ <= 1) return;
  const double h = entropy();  // also sets q_, lq_ and total_
  for (size_t j = 0; j < m_; ++j) {
    const double d = -static_cast<double>(lq_[j]) - h;
    key_[j] = d < 0.0 ? -d : d;
  }
  const double target = (mass - kMassSlack) * total_;
  if (!(target > 0.0)) return top_k(1);
  uint32_t* a = perm_.data();
  // O(m) radix cut, used when its sums are exact (see top_p): every key is a
  // number and every probability up to the cut is 0 or a float >= 2^-29.
  if (m_ > 1024) {
    const sel::MassCut c = sel::mass_cut_by_key(key_.data(), q_.data(), m_, target, a);
    if (c.found) {
      const double kc = key_[c.pos];
      unsigned bad = 0;
      for (size_t j = 0; j < m_; ++j) {
        const double kj = key_[j];
        const bool in = kj < kc || (kj == kc && j <= c.pos);
        bad |= static_cast<unsigned>(kj != kj) |
               static_cast<unsigned>(in && q_[j] != 0.0f && q_[j] < 0x1p-29f);
      }
      if (bad == 0) {
        if (c.rank < opts_.min_keep) return top_k(opts_.min_keep);
        return keep_first(c.pos, true);
      }
    }
  }
  for (size_t i = 0; i < m_; ++i) a[i] = static_cast<uint32_t>(i);
  const Cut c = weighted_cut(a, m_, q_.data(), target, ByKey{key_.data()});
  if (c.rank < opts_.min_keep) return top_k(opts_.min_keep);
  keep_first(c.pos, true);
}

void Sampler::run_step(Step s) {
  switch (s) {
    case Step::kTemperature: {
      if (opts_.dynatemp_range > 0.0) return;  // the dynatemp step applies it
      const float t = opts_.temperature;
      if (t == 0.0f) {
        const size_t a = argmax(g_.data(), m_);
        cand_[0] = cand_[a];
        g_[0] = g_[a];
        m_ = 1;
        t_ = 1.0f;
      } else if (t == kInf) {
        for (size_t j = 0; j < m_; ++j) g_[j] = 0.0f;
        t_ = 1.0f;
      } else {
        t_ = t;
      }
      return;
    }
    case Step::kTopK:
      return top_k(opts_.top_k);
    case Step::kTopP:
      return top_p(opts_.top_p);
    case Step::kMinP:
      return min_p(opts_.min_p);
    case Step::kTypicalP:
      return typical_p(opts_.typical_p);
    case Step::kTopNSigma:
      return top_n_sigma();
    case Step::kXtc:
      return xtc();
    case Step::kMirostat:
      return mirostat();
    case Step::kDynatemp:
      return dynatemp();
    case Step::kEpsilonCutoff:
      return epsilon_cutoff();
    case Step::kEtaCutoff:
      return eta_cutoff();
    case Step::kDry:
      return dry();
    case Step::kNoRepeatNgram:
      return no_repeat_ngram();
  }
}

void Sampler::finish() {
  softmax_candidates();
  double c = 0.0;
  for (size_t j = 0; j < m_; ++j) cum_[j] = c += q_[j];
  total_ = c;
}

SampleStatus Sampler::prepare(const float* x, size_t n) {
  // Fast path: no bias, no penalties, and the first step past those that are
  // off or only set the temperature is a small top-k. One read of x (a
  // threshold scan that also finds NaN), no copy of the vocabulary, no exp
  // before the cut: the same candidates as the general path below.
  const SamplerOptions& o = opts_;
  const auto passive = [&o](Step st) {
    switch (st) {
      case Step::kTemperature:
        return o.temperature != 0.0f && o.temperature != kInf;
      case Step::kNoRepeatNgram:
        return !(o.no_repeat_ngram_size > 0);
      case Step::kDry:
        return !(o.dry_multiplier > 0.0f);
      case Step::kDynatemp:
        return !(o.dynatemp_range > 0.0);
      case Step::kTopNSigma:
        return !(o.top_n_sigma > 0.0);
      default:
        return false;
    }
  };
  int first = 0;
  while (first < o.order_len && passive(o.order[first])) ++first;
  const size_t kk = std::max<size_t>(o.top_k, o.min_keep);
  const bool penalties = !(o.repetition_penalty == 1.0f && o.frequency_penalty == 0.0f &&
                           o.presence_penalty == 0.0f) &&
                         o.penalty_last_n != 0 && history_len_ != 0;
  if (first < o.order_len && o.order[first] == Step::kTopK && o.top_k != 0 && bias_len_ == 0 &&
      !penalties && kk <= 256 && kk * 16 <= n && n <= 0x7FFFFFFFu) {
    const SampleStatus r = reserve(n);
    if (r != SampleStatus::kOk) return r;
    uint32_t* a = perm_.data();
    const size_t nan = sel::first_k_scan(x, n, kk, a);
    if (nan != n) {
      error_index_ = nan;
      return SampleStatus::kNaNScore;
    }
    bool masked = false;
    for (size_t j = 0; j < kk; ++j) masked |= x[a[j]] == -kInf;
    if (!masked) {  // else fewer than kk candidates: the general path
      for (size_t j = 0; j < kk; ++j) {
        cand_[j] = a[j];
        g_[j] = x[a[j]];
      }
      m_ = kk;
      t_ = 1.0f;
      for (int i = 0; i < o.order_len; ++i) {
        if (i != first) run_step(o.order[i]);
      }
      finish();
      return SampleStatus::kOk;
    }
  }
  const SampleStatus s = load(x, n);
  if (s != SampleStatus::kOk) return s;
  const float* l = logits_.data();
  size_t masked = 0;
  for (size_t i = 0; i < n; ++i) masked += l[i] == -kInf;
  if (masked == 0) {
    std::memcpy(g_.data(), l, n * sizeof(float));
    uint32_t* c = cand_.data();
    for (size_t i = 0; i < n; ++i) c[i] = static_cast<uint32_t>(i);
    m_ = n;
  } else {
    m_ = 0;
    for (size_t i = 0; i < n; ++i) {
      if (l[i] != -kInf) {
        cand_[m_] = static_cast<uint32_t>(i);
        g_[m_++] = l[i];
      }
    }
  }
  if (m_ == 0) return SampleStatus::kAllMasked;
  t_ = 1.0f;
  for (int i = 0; i < opts_.order_len; ++i) run_step(opts_.order[i]);
  finish();
  return SampleStatus::kOk;
}

int32_t Sampler::draw() {
  const double target = rng_.next_double() * total_;
  size_t lo = 0, hi = m_;
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (cum_[mid] > target)
      hi = mid;
    else
      lo = mid + 1;
  }
  if (lo == m_) {  // u * total rounded up to total: the last entry with mass
    lo = m_ - 1;
    while (lo > 0 && q_[lo] == 0.0f) --lo;
  }
  if (opts_.mirostat != 0) mirostat_update(lo);
  return static_cast<int32_t>(cand_[lo]);
}

SampleStatus Sampler::sample(const float* x, size_t n, int32_t* out) {
  return sample_many(x, n, 1, out);
}

SampleStatus Sampler::sample_many(const float* x, size_t n, size_t count, int32_t* out) {
  const SampleStatus s = prepare_checked(x, n);
  if (s != SampleStatus::kOk) return s;
  for (size_t i = 0; i < count; ++i) out[i] = draw();
  return SampleStatus::kOk;
}

SampleStatus Sampler::sample_batch(const float* x, size_t rows, size_t n, int32_t* out) {
  for (size_t r = 0; r < rows; ++r) {
    const SampleStatus s = prepare_checked(x + r * n, n);
    if (s != SampleStatus::kOk) {
      if (s == SampleStatus::kNaNScore) error_index_ += r * n;
      return s;
    }
    out[r] = draw();
  }
  return SampleStatus::kOk;
}

SampleStatus Sampler::probs(const float* x, size_t n, float* out) {
  const Pcg32 xtc_state = xtc_rng_;  // probs() shows what the next sample() draws from
  const SampleStatus s = prepare_checked(x, n);
  xtc_rng_ = xtc_state;
  if (s != SampleStatus::kOk) return s;
  for (size_t i = 0; i < n; ++i) out[i] = 0.0f;
  for (size_t j = 0; j < m_; ++j) out[cand_[j]] = q_[j];
  return SampleStatus::kOk;
}

SampleStatus Sampler::logprobs(const float* x, size_t n, size_t k, int32_t* index, float* before,
                               float* after) {
  SampleStatus s = load(x, n);
  if (s != SampleStatus::kOk) return s;
  bool any = false;
  for (size_t i = 0; i < n && !any; ++i) any = logits_[i] != -kInf;
  if (!any) return SampleStatus::kAllMasked;
  k = std::min(k, n);
  // Before: log_softmax of the processed logits at T = 1, over the vocabulary.
  uint32_t* a = perm_.data();
  for (size_t i = 0; i < n; ++i) a[i] = static_cast<uint32_t>(i);
  const ByLogit by_logit{logits_.data()};
  if (k > 0) {
    select_first(a, n, k, by_logit);
    heap_sort(a, k, by_logit);
  }
  for (size_t j = 0; j < k; ++j) index[j] = static_cast<int32_t>(a[j]);
  log_softmax(logits_.data(), lq_.data(), Layout{1, n, 1}, Options{});
  for (size_t j = 0; j < k; ++j) before[j] = lq_[a[j]];
  // After: the final distribution (XTC's coin as the next sample() sees it).
  const Pcg32 xtc_state = xtc_rng_;
  s = prepare_checked(x, n);
  xtc_rng_ = xtc_state;
  if (s != SampleStatus::kOk) return s;
  Options so;
  so.temperature = t_;
  log_softmax(g_.data(), lq_.data(), Layout{1, m_, 1}, so);
  for (size_t j = 0; j < k; ++j) {
    const uint32_t* first = cand_.data();
    const uint32_t* end = first + m_;
    const uint32_t* it = std::lower_bound(first, end, static_cast<uint32_t>(index[j]));
    after[j] = it != end && *it == static_cast<uint32_t>(index[j]) ? lq_[it - first] : -kInf;
  }
  return SampleStatus::kOk;
}

}  // namespace smx
