// smx::Sampler: the pipeline of one call (scores -> bias and penalties ->
// candidates -> steps -> draw) and the sampler's state (options, PRNGs,
// history, mirostat's mu). The steps are in steps/, selection in select.h.
#include "smx/sampler.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "candidates.h"
#include "draw.h"
#include "kernels/dispatch.h"
#include "select.h"
#include "smx/softmax.h"
#include "softmax_parts.h"
#include "steps/steps.h"
#include "token_mask.h"

namespace smx {

template <typename T>
Buffer<T>::~Buffer() {
  std::free(p_);
}

template <typename T>
bool Buffer<T>::reserve(size_t n) {
  if (n <= cap_ && p_ != nullptr) return true;
  if (n > SIZE_MAX / sizeof(T)) return false;
  // malloc and copy rather than realloc: the same effect, and the module
  // links no realloc (~300 bytes gzip of wasm).
  T* q = static_cast<T*>(std::malloc((n == 0 ? 1 : n) * sizeof(T)));
  if (q == nullptr) return false;
  if (p_ != nullptr) std::memcpy(q, p_, cap_ * sizeof(T));
  std::free(p_);
  p_ = q;
  cap_ = n;
  return true;
}

template class Buffer<float>;
template class Buffer<double>;
template class Buffer<uint32_t>;
template class Buffer<int32_t>;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
// The draw over more candidates than kBlockDrawMin reads blocks of kDrawBlock
// (see finish()).
constexpr size_t kDrawBlock = 256;
constexpr size_t kBlockDrawMin = 4096;

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
    if (!((b == b && b - b == 0.0f) || b == -kInf)) return SampleStatus::kBadOption;
  }
  if (!bias_index_.reserve(count) || !bias_value_.reserve(count)) return SampleStatus::kNoMemory;
  if (count > 0) {
    std::memcpy(bias_index_.data(), index, count * sizeof(uint32_t));
    std::memcpy(bias_value_.data(), bias, count * sizeof(float));
  }
  bias_len_ = count;
  return SampleStatus::kOk;
}

void Sampler::reset(uint64_t s) {
  seed(s);
  clear_history();
  mu_ = 2.0 * opts_.mirostat_tau;
}

SampleStatus Sampler::set_dry_breakers(const int32_t* tokens, size_t count) {
  for (size_t i = 0; i < count; ++i) {
    if (tokens[i] < 0) {
      error_index_ = i;
      return SampleStatus::kBadToken;
    }
  }
  if (!dry_breakers_.reserve(count)) return SampleStatus::kNoMemory;
  int32_t* b = dry_breakers_.data();
  if (count > 0) std::memcpy(b, tokens, count * sizeof(int32_t));
  // Non-negative: sorted as uint32.
  auto* u = reinterpret_cast<uint32_t*>(b);
  sel::sort_indices(u, count);
  dry_breakers_len_ = static_cast<size_t>(std::unique(u, u + count) - u);
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

// How much history the penalties, DRY and no-repeat n-gram can read
// (SIZE_MAX: all of it); accept() trims the rest.
size_t Sampler::history_keep() const {
  const SamplerOptions& o = opts_;
  if (o.no_repeat_ngram_size > 0) return SIZE_MAX;
  size_t keep = o.penalty_last_n < 0 ? SIZE_MAX : static_cast<size_t>(o.penalty_last_n);
  if (o.dry_multiplier > 0.0f) {
    keep = std::max(
        keep, o.dry_penalty_last_n < 0 ? SIZE_MAX : static_cast<size_t>(o.dry_penalty_last_n));
  }
  return keep;
}

SampleStatus Sampler::reserve(size_t n) {
  if (n <= cap_) return SampleStatus::kOk;
  const bool ok = logits_.reserve(n) && index_.reserve(n) && logit_.reserve(n) &&
                  prob_.reserve(n) && logprob_.reserve(n) && key_.reserve(n) && perm_.reserve(n) &&
                  cum_.reserve(n) && block_.reserve(n / kDrawBlock + 2);
  if (!ok) return SampleStatus::kNoMemory;
  cap_ = n;
  return SampleStatus::kOk;
}

// logits_ = scores, masked (NaN -> kNaNScore), then the logit bias and the penalties.
SampleStatus Sampler::load(const float* x, size_t n, const uint32_t* mask) {
  mask_ = mask;
  if (n == 0) return SampleStatus::kEmpty;
  if (n > 0x7FFFFFFFu) return SampleStatus::kBadOption;
  const SampleStatus s = reserve(n);
  if (s != SampleStatus::kOk) return s;
  float* l = logits_.data();
  if (mask != nullptr) {
    if (dispatch::vbitmask(n, x, mask, l) == 0) return SampleStatus::kEmptyMask;
    x = l;
  }
  // Copy and NaN check in blocks without an early exit (vectorizable).
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
  if (!steps::apply_logit_bias(l, n, bias_index_.data(), bias_value_.data(), bias_len_,
                               &error_index_))
    return SampleStatus::kBadToken;
  if (!steps::penalties_active(opts_, history_len_)) return SampleStatus::kOk;
  size_t window = history_len_;
  if (opts_.penalty_last_n > 0)
    window = std::min(window, static_cast<size_t>(opts_.penalty_last_n));
  if (!perm_.reserve(std::max(window, cap_))) return SampleStatus::kNoMemory;
  if (!steps::apply_penalties(l, n, opts_, {history_.data(), history_len_}, perm_.data(),
                              &error_index_))
    return SampleStatus::kBadToken;
  return SampleStatus::kOk;
}

// Runs the steps of the order over the candidates, but the one at `skip`.
// min_max: the candidates' min and max logit when known.
void Sampler::run_steps(int skip, const float* min_max) {
  const SamplerOptions& o = opts_;
  Candidates c{cand_index_, cand_logit_, prob_.data(),  size_,
               t_,          0.0,         index_.data(), logit_.data()};
  if (min_max != nullptr) {
    c.range[0] = min_max[0], c.range[1] = min_max[1];
    c.range_known = true;
  }
  const steps::Workspace w{perm_.data(), reinterpret_cast<uint32_t*>(cum_.data()),
                           key_.data(),  logprob_.data(),
                           ints_.data(), o.min_keep};
  const steps::History h{history_.data(), history_len_};
  for (int i = 0; i < o.order_len; ++i) {
    if (i == skip) continue;
    switch (o.order[i]) {
      case Step::kTemperature:
        if (!(o.dynatemp_range > 0.0)) steps::temperature(c, o.temperature);  // else dynatemp's
        break;
      case Step::kTopK:
        steps::top_k(c, w, o.top_k);
        break;
      case Step::kTopP:
        steps::top_p(c, w, o.top_p);
        break;
      case Step::kMinP:
        steps::min_p(c, w, o.min_p);
        break;
      case Step::kTypicalP:
        steps::typical_p(c, w, o.typical_p);
        break;
      case Step::kTopNSigma:
        steps::top_n_sigma(c, w, o.top_n_sigma);
        break;
      case Step::kXtc:
        steps::xtc(c, w, xtc_rng_, o.xtc_probability, o.xtc_threshold);
        break;
      case Step::kMirostat:
        steps::mirostat(c, w, o.mirostat, mu_, n_);
        break;
      case Step::kDynatemp:
        steps::dynamic_temperature(c, w, o.temperature, o.dynatemp_range, o.dynatemp_exponent);
        break;
      case Step::kEpsilonCutoff:
        steps::epsilon_cutoff(c, w, o.epsilon_cutoff);
        break;
      case Step::kEtaCutoff:
        steps::eta_cutoff(c, w, o.eta_cutoff);
        break;
      case Step::kDry:
        steps::dry(c, w, o, h, dry_breakers_.data(), dry_breakers_len_);
        break;
      case Step::kNoRepeatNgram:
        // Every candidate banned: kAllMasked, the candidates untouched (the
        // other steps still run, so XTC's coin moves as in any call).
        if (!steps::no_repeat_ngram(c, w, o.no_repeat_ngram_size, h))
          step_status_ = SampleStatus::kAllMasked;
        break;
    }
  }
  cand_index_ = c.index, cand_logit_ = c.logit, size_ = c.size, t_ = c.t;
  finish(c);
}

// The draw's distribution: prob_ over the final candidates. Up to
// kBlockDrawMin of them (or with mirostat, whose update reads total_), also
// their cumulative sums in index order (cum_) and total (total_): the draw's
// definition. Beyond, the scaling pass also sums blocks of kDrawBlock
// (block_[b] = the mass before block b, approximately) for draw().
void Sampler::finish(Candidates& c) {
  exact_ = false;
  const SoftmaxParts parts = softmax_parts(c.logit, c.size, c.t, c.min_max(), prob_.data());
  if (parts.kind != SoftmaxParts::Kind::kScaled || c.size <= kBlockDrawMin || opts_.mirostat != 0) {
    if (parts.kind == SoftmaxParts::Kind::kScaled) {
      dispatch::vscale(c.size, prob_.data(), parts.inv, prob_.data());
    } else {
      Options so;
      so.temperature = c.t;
      softmax(c.logit, prob_.data(), Layout{1, c.size, 1}, so);
    }
    return exact_sums();
  }
  float* q = prob_.data();
  double before = 0.0;
  size_t b = 0;
  for (size_t j = 0; j < c.size; j += kDrawBlock, ++b) {
    block_[b] = before;
    before += dispatch::raddstorescale(std::min(kDrawBlock, c.size - j), q + j, parts.inv, q + j);
  }
  block_[b] = before;
}

void Sampler::exact_sums() {
  total_ = cumulative_sums(prob_.data(), size_, cum_.data());
  exact_ = true;
}

// The fast path: no bias, no penalties, and the first step past those that are
// off or only set the temperature is a small top-k. One read of x (a threshold
// scan that also finds NaN), no copy of the vocabulary, no exp before the cut:
// the same candidates as the general path. False when it does not apply.
bool Sampler::top_k_first(const float* x, size_t n, SampleStatus* status) {
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
  if (!(first < o.order_len && o.order[first] == Step::kTopK && o.top_k != 0 && bias_len_ == 0 &&
        !steps::penalties_active(o, history_len_) && kk <= 256 && kk * 16 <= n && n <= 0x7FFFFFFFu))
    return false;
  *status = reserve(n);
  if (*status != SampleStatus::kOk) return true;
  uint32_t* a = perm_.data();
  const size_t nan =
      mask_ == nullptr ? sel::first_k_scan(x, n, kk, a) : first_k_scan_masked(x, n, kk, mask_, a);
  if (nan == n + 1) return false;  // fewer than kk allowed: the general path
  if (nan != n) {
    error_index_ = nan;
    *status = SampleStatus::kNaNScore;
    return true;
  }
  for (size_t j = 0; j < kk; ++j) {
    if (x[a[j]] == -kInf) return false;  // fewer than kk candidates: the general path
  }
  for (size_t j = 0; j < kk; ++j) {
    index_[j] = a[j];
    logit_[j] = x[a[j]];
  }
  cand_index_ = index_.data(), cand_logit_ = logit_.data();
  size_ = kk;
  t_ = 1.0f;
  run_steps(first, nullptr);
  *status = SampleStatus::kOk;
  return true;
}

// The scores after bias and penalties, checked: *src is x itself when neither
// applies (no copy), else logits_; min_max receives their min and max.
SampleStatus Sampler::scores_in(const float* x, size_t n, const float** src, float* min_max) {
  if (n == 0) return SampleStatus::kEmpty;
  if (n > 0x7FFFFFFFu) return SampleStatus::kBadOption;
  const SampleStatus s = reserve(n);
  if (s != SampleStatus::kOk) return s;
  float* l = logits_.data();
  if (mask_ != nullptr) {  // the forbidden entries -Infinity, before anything reads them
    if (dispatch::vbitmask(n, x, mask_, l) == 0) return SampleStatus::kEmptyMask;
    x = l;
  }
  dispatch::rminmax(n, x, min_max);
  if (min_max[1] != min_max[1]) {  // a NaN: the first one
    for (size_t i = 0;; ++i) {
      if (x[i] != x[i]) {
        error_index_ = i;
        return SampleStatus::kNaNScore;
      }
    }
  }
  *src = x;
  if (bias_len_ == 0 && !steps::penalties_active(opts_, history_len_)) return SampleStatus::kOk;
  if (x != l) std::memcpy(l, x, n * sizeof(float));
  if (!steps::apply_logit_bias(l, n, bias_index_.data(), bias_value_.data(), bias_len_,
                               &error_index_))
    return SampleStatus::kBadToken;
  if (steps::penalties_active(opts_, history_len_)) {
    size_t window = history_len_;
    if (opts_.penalty_last_n > 0)
      window = std::min(window, static_cast<size_t>(opts_.penalty_last_n));
    if (!perm_.reserve(std::max(window, cap_))) return SampleStatus::kNoMemory;
    if (!steps::apply_penalties(l, n, opts_, {history_.data(), history_len_}, perm_.data(),
                                &error_index_))
      return SampleStatus::kBadToken;
  }
  *src = l;
  dispatch::rminmax(n, l, min_max);
  return SampleStatus::kOk;
}

SampleStatus Sampler::prepare(const float* x, size_t n, const uint32_t* mask) {
  n_ = n;
  mask_ = mask;
  step_status_ = SampleStatus::kOk;
  const SamplerOptions& o = opts_;
  if (n > 0 && n <= 0x7FFFFFFFu && (o.dry_multiplier > 0.0f || o.no_repeat_ngram_size > 0) &&
      !ints_.reserve(3 * history_len_ + 1))
    return SampleStatus::kNoMemory;
  SampleStatus s = SampleStatus::kOk;
  if (top_k_first(x, n, &s)) return s != SampleStatus::kOk ? s : step_status_;
  const float* l = nullptr;
  float mm[2];
  s = scores_in(x, n, &l, mm);
  if (s != SampleStatus::kOk) return s;
  t_ = 1.0f;
  if (mm[0] != -kInf) {  // nothing masked: the candidates are the scores themselves
    cand_index_ = nullptr, cand_logit_ = l, size_ = n;
    run_steps(-1, mm);
  } else {  // every entry that is not -Infinity, ascending (a masked call: the allowed ones)
    const size_t m = dispatch::indexge(n, l, -std::numeric_limits<float>::max(), index_.data());
    for (size_t j = 0; j < m; ++j) logit_[j] = l[index_[j]];
    if (m == 0) return SampleStatus::kAllMasked;
    cand_index_ = index_.data(), cand_logit_ = logit_.data(), size_ = m;
    run_steps(-1, nullptr);
  }
  return step_status_;
}

// One index from the final distribution (draw.h): from the block sums when
// they decide, else from the exact cumulative sums.
int32_t Sampler::draw() {
  const double u = rng_.next_double();
  size_t lo = exact_ ? size_ : draw_from_blocks(prob_.data(), size_, block_.data(), kDrawBlock, u);
  if (lo == size_) {
    if (!exact_) exact_sums();
    lo = draw_exact(prob_.data(), cum_.data(), size_, u, total_);
  }
  if (opts_.mirostat != 0) {
    mu_ = steps::mirostat_next_mu(mu_, opts_.mirostat_tau, opts_.mirostat_eta,
                                  static_cast<double>(prob_[lo]) / total_);
  }
  return static_cast<int32_t>(cand_index_ != nullptr ? cand_index_[lo] : lo);
}

SampleStatus Sampler::sample(const float* x, size_t n, int32_t* out, const uint32_t* mask) {
  return sample_many(x, n, 1, out, mask);
}

SampleStatus Sampler::sample_many(const float* x, size_t n, size_t count, int32_t* out,
                                  const uint32_t* mask) {
  const SampleStatus s = prepare(x, n, mask);
  if (s != SampleStatus::kOk) return s;
  for (size_t i = 0; i < count; ++i) out[i] = draw();
  return SampleStatus::kOk;
}

SampleStatus Sampler::sample_batch(const float* x, size_t rows, size_t n, int32_t* out,
                                   const uint32_t* mask) {
  for (size_t r = 0; r < rows; ++r) {
    const SampleStatus s =
        prepare(x + r * n, n, mask != nullptr ? mask + r * mask_words(n) : nullptr);
    if (s != SampleStatus::kOk) {
      if (s == SampleStatus::kNaNScore) error_index_ += r * n;
      if (s == SampleStatus::kEmptyMask) error_index_ = r;
      return s;
    }
    out[r] = draw();
  }
  return SampleStatus::kOk;
}

SampleStatus Sampler::probs(const float* x, size_t n, float* out, const uint32_t* mask) {
  const Pcg32 xtc_state = xtc_rng_;  // probs() shows what the next sample() draws from
  const SampleStatus s = prepare(x, n, mask);
  xtc_rng_ = xtc_state;
  if (s != SampleStatus::kOk) return s;
  if (cand_index_ == nullptr) {
    std::memcpy(out, prob_.data(), n * sizeof(float));
  } else {
    for (size_t i = 0; i < n; ++i) out[i] = 0.0f;
    for (size_t j = 0; j < size_; ++j) out[cand_index_[j]] = prob_[j];
  }
  return SampleStatus::kOk;
}

SampleStatus Sampler::logprobs(const float* x, size_t n, size_t k, int32_t* index, float* before,
                               float* after, const uint32_t* mask) {
  SampleStatus s = load(x, n, mask);
  if (s != SampleStatus::kOk) return s;
  bool any = false;
  for (size_t i = 0; i < n && !any; ++i) any = logits_[i] != -kInf;
  if (!any) return SampleStatus::kAllMasked;
  k = std::min(k, n);
  // Before: log_softmax of the processed logits at T = 1, over the vocabulary.
  uint32_t* a = perm_.data();
  for (size_t i = 0; i < n; ++i) a[i] = static_cast<uint32_t>(i);
  sel::sort_first_k(a, n, k, logits_.data());
  for (size_t j = 0; j < k; ++j) index[j] = static_cast<int32_t>(a[j]);
  log_softmax(logits_.data(), logprob_.data(), Layout{1, n, 1}, Options{});
  for (size_t j = 0; j < k; ++j) before[j] = logprob_[a[j]];
  // After: the final distribution (XTC's coin as the next sample() sees it).
  const Pcg32 xtc_state = xtc_rng_;
  s = prepare(x, n, mask);
  xtc_rng_ = xtc_state;
  if (s != SampleStatus::kOk) return s;
  Options so;
  so.temperature = t_;
  log_softmax(cand_logit_, logprob_.data(), Layout{1, size_, 1}, so);
  const Candidates c{cand_index_, cand_logit_, prob_.data(), size_, t_, 0.0, nullptr, nullptr};
  for (size_t j = 0; j < k; ++j) {
    const size_t p = c.find(static_cast<uint32_t>(index[j]));
    after[j] = p < size_ ? logprob_[p] : -kInf;
  }
  return SampleStatus::kOk;
}

}  // namespace smx
