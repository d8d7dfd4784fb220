// The sampler steps of issue 8, each with the semantics of the engine it
// follows (documented in cpp/include/smx/sampler.h and README.md):
//   top-n-sigma, XTC, mirostat v1 / v2, dynamic temperature (llama.cpp's
//   src/llama-sampling.cpp and common/sampling.cpp), epsilon and eta cutoffs,
//   no-repeat n-gram (Hugging Face transformers' EpsilonLogitsWarper,
//   EtaLogitsWarper, NoRepeatNGramLogitsProcessor), DRY (llama.cpp, with
//   sequence breakers given as single token ids).
//
// Same rules as sampler.cpp: no exceptions, no aborts, no libm beyond sqrt and
// ldexp (both exact by IEEE 754): logarithms and exponentials are own code,
// so the same seed gives the same indices natively and in both wasm builds.
// Every scratch buffer is reserved before the steps run (prepare_checked);
// a step reports a failure through step_status_.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "smx/sampler.h"
#include "smx/softmax.h"

namespace smx {

namespace {

constexpr double kInfD = std::numeric_limits<double>::infinity();
constexpr double kLn2 = 0x1.62E42FEFA39EFp-1;

// e^x without libm: x = k ln 2 + r, |r| <= ln 2 / 2, e^r by its Taylor series
// to r^20 / 20! (below 1e-28), then an exact scaling by 2^k.
double exp_f64(double x) {
  if (x != x) return x;
  if (x > 709.782712893384) return kInfD;
  if (x < -745.1332191019412) return 0.0;
  const double k = std::floor(x * 1.4426950408889634 + 0.5);
  const double r = (x - k * 0x1.62E42FEE00000p-1) - k * 0x1.A39EF35793C76p-33;  // fdlibm ln2 hi, lo
  double s = 1.0;
  for (int j = 20; j >= 1; --j) s = 1.0 + s * r / j;
  return std::ldexp(s, static_cast<int>(k));
}

// x^y for x >= 0 (NaN for x < 0), as exp(y log x) with the limits of pow.
double pow_f64(double x, double y) {
  if (x != x || y != y || x < 0) return std::numeric_limits<double>::quiet_NaN();
  if (y == 0) return 1.0;
  if (x == 0) return y > 0 ? 0.0 : kInfD;
  if (x == kInfD) return y > 0 ? kInfD : 0.0;
  if (x == 1) return 1.0;
  return exp_f64(y * log_f64(x));
}

// base^e for an integer e >= 0 by squaring: IEEE multiplications only.
double pow_int(double base, int e) {
  double r = 1.0;
  while (e > 0) {
    if (e & 1) r *= base;
    base *= base;
    e >>= 1;
  }
  return r;
}

}  // namespace

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
  // Non-negative: sorted as uint32 (one std::sort instantiation in the core).
  auto* u = reinterpret_cast<uint32_t*>(b);
  std::sort(u, u + count);
  dry_breakers_len_ = static_cast<size_t>(std::unique(u, u + count) - u);
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

SampleStatus Sampler::prepare_checked(const float* x, size_t n) {
  n_ = n;
  step_status_ = SampleStatus::kOk;
  const SamplerOptions& o = opts_;
  if (n > 0 && n <= 0x7FFFFFFFu) {
    const bool keyed = o.top_n_sigma > 0.0 || o.mirostat != 0 || o.epsilon_cutoff > 0.0 ||
                       o.eta_cutoff > 0.0 || o.dry_multiplier > 0.0f;
    if (keyed && !ex_d_.reserve(n)) return SampleStatus::kNoMemory;
    const bool hist = o.dry_multiplier > 0.0f || o.no_repeat_ngram_size > 0;
    if (hist && !ex_i_.reserve(3 * history_len_ + 1)) return SampleStatus::kNoMemory;
  }
  const SampleStatus s = prepare(x, n);
  return s != SampleStatus::kOk ? s : step_status_;
}

// Keeps the candidates whose key is not below threshold (a NaN threshold keeps
// all); if fewer than min_keep would remain, the first min_keep in the order.
void Sampler::keep_where_not_below(const double* key, double threshold) {
  size_t kept = 0;
  for (size_t p = 0; p < m_; ++p) kept += !(key[p] < threshold);
  if (kept == m_) return;
  if (kept < opts_.min_keep) return top_k(opts_.min_keep);
  size_t j = 0;
  for (size_t p = 0; p < m_; ++p) {
    if (!(key[p] < threshold)) {
      cand_[j] = cand_[p];
      g_[j++] = g_[p];
    }
  }
  m_ = j;
}

// llama.cpp top_n_sigma: remove logit < max - n * std (mean and population std
// over the candidates' logits). Scale-free, so the temperature applied so far
// does not matter.
void Sampler::top_n_sigma() {
  const double nn = opts_.top_n_sigma;
  if (!(nn > 0.0) || m_ <= 1) return;
  double mx = -kInfD, sum = 0.0;
  for (size_t p = 0; p < m_; ++p) {
    const double g = g_[p];
    mx = std::max(mx, g);
    sum += g;
  }
  const double mean = sum / static_cast<double>(m_);
  double acc = 0.0;
  for (size_t p = 0; p < m_; ++p) {
    const double d = static_cast<double>(g_[p]) - mean;
    acc += d * d;
  }
  const double sd = std::sqrt(acc / static_cast<double>(m_));
  double* key = ex_d_.data();
  for (size_t p = 0; p < m_; ++p) key[p] = g_[p];
  keep_where_not_below(key, mx - nn * sd);
}

// llama.cpp XTC: with probability xtc_probability, remove every entry above
// the least likely one whose probability reaches xtc_threshold.
void Sampler::xtc() {
  const double pr = opts_.xtc_probability, th = opts_.xtc_threshold;
  if (pr <= 0.0 || th > 0.5 || m_ < 2) return;
  const double chance = xtc_rng_.next_double();
  if (chance > pr) return;
  softmax_candidates();
  // The entries with p >= th are a prefix of the order (p grows with the
  // logit); `last` is its last element: the lowest logit, ties by higher index.
  size_t above = 0, last = 0;
  for (size_t p = 0; p < m_; ++p) {
    if (static_cast<double>(q_[p]) >= th) {
      if (above == 0 || g_[p] <= g_[last]) last = p;
      ++above;
    }
  }
  if (above < 2 || m_ - (above - 1) < opts_.min_keep) return;  // pos_last > 0, min_keep
  size_t j = 0;
  for (size_t p = 0; p < m_; ++p) {
    if (p == last || !(static_cast<double>(q_[p]) >= th)) {
      cand_[j] = cand_[p];
      g_[j++] = g_[p];
    }
  }
  m_ = j;
}

// llama.cpp mirostat (v1, m = 100, n_vocab = n) and mirostat_v2; mu is
// updated after the draw (mirostat_update).
void Sampler::mirostat() {
  const int32_t v = opts_.mirostat;
  if (v == 0 || m_ <= 1) return;
  softmax_candidates();
  if (v == 2) {  // keep -log2 p <= mu, i.e. p >= 2^-mu
    double* key = ex_d_.data();
    for (size_t p = 0; p < m_; ++p) key[p] = q_[p];
    return keep_where_not_below(key, exp_f64(-mu_ * kLn2));
  }
  // v1: the m most likely in the order (insertion into a sorted array of m).
  uint32_t top[kMirostatM];
  const size_t mm = std::min<size_t>(kMirostatM, m_);
  size_t c = 0;
  const float* g = g_.data();
  for (size_t p = 0; p < m_; ++p) {
    if (c == mm && !(g[p] > g[top[c - 1]])) continue;  // ties: the earlier position stays first
    size_t i = c < mm ? c++ : c - 1;
    for (; i > 0 && g[p] > g[top[i - 1]]; --i) top[i] = top[i - 1];
    top[i] = static_cast<uint32_t>(p);
  }
  // s_hat: least squares of log(p_i / p_{i+1}) on t_i = log((i + 2) / (i + 1)).
  double sum_ti_bi = 0.0, sum_ti_sq = 0.0;
  for (size_t i = 0; i + 1 < mm; ++i) {
    const double ti = log_f64(static_cast<double>(i + 2) / static_cast<double>(i + 1));
    const float a = g[top[i]], b = g[top[i + 1]];
    const double bi =
        (a - a == 0.0f && b - b == 0.0f)
            ? (static_cast<double>(a) - static_cast<double>(b)) / static_cast<double>(t_)
            : log_f64(static_cast<double>(q_[top[i]]) / static_cast<double>(q_[top[i + 1]]));
    sum_ti_bi += ti * bi;
    sum_ti_sq += ti * ti;
  }
  const double s_hat = sum_ti_bi / sum_ti_sq;
  const double eps_hat = s_hat - 1.0;
  const double base =
      (eps_hat * pow_f64(2.0, mu_)) / (1.0 - pow_f64(static_cast<double>(n_), -eps_hat));
  const double k = pow_f64(base, 1.0 / s_hat);
  size_t kk = 1;
  if (k >= static_cast<double>(m_))
    kk = m_;
  else if (k >= 1.0)
    kk = static_cast<size_t>(k);  // int(k), at least 1 (NaN too)
  top_k(static_cast<uint32_t>(kk));
}

// H = -sum p log p of the candidates at the temperature so far (q_ and lq_
// from the core's softmax and log-softmax, as typical_p); sets q_.
double Sampler::entropy() {
  softmax_candidates();
  Options so;
  so.temperature = t_;
  log_softmax(g_.data(), lq_.data(), Layout{1, m_, 1}, so);
  double h = 0.0;
  for (size_t p = 0; p < m_; ++p) {
    if (q_[p] > 0.0f) h -= static_cast<double>(q_[p]) * static_cast<double>(lq_[p]);
  }
  return h;
}

void Sampler::mirostat_update(size_t pos) {
  const double p = static_cast<double>(q_[pos]) / total_;
  const double surprise = p > 0.0 ? -log_f64(p) / kLn2 : kInfD;
  mu_ -= opts_.mirostat_eta * (surprise - opts_.mirostat_tau);
}

// llama.cpp temp_ext with dynatemp_range > 0: the temperature from the
// normalised entropy of the candidates at T' = 1.
void Sampler::dynatemp() {
  const double r = opts_.dynatemp_range;
  if (!(r > 0.0) || m_ <= 1) return;
  const double t = opts_.temperature;
  const double lo = std::max(0.0, t - r), hi = t + r;
  const double norm = entropy() / log_f64(static_cast<double>(m_));
  const auto dyn = static_cast<float>(lo + (hi - lo) * pow_f64(norm, opts_.dynatemp_exponent));
  if (!(dyn > 0.0f)) {  // greedy, as llama.cpp's temp <= 0
    const size_t a = argmax(g_.data(), m_);
    cand_[0] = cand_[a];
    g_[0] = g_[a];
    m_ = 1;
    t_ = 1.0f;
    return;
  }
  t_ = dyn;
}

// HF EpsilonLogitsWarper: remove p < epsilon (min_tokens_to_keep = min_keep).
void Sampler::epsilon_cutoff() {
  const double e = opts_.epsilon_cutoff;
  if (!(e > 0.0) || m_ <= 1) return;
  softmax_candidates();
  double* key = ex_d_.data();
  for (size_t p = 0; p < m_; ++p) key[p] = q_[p];
  keep_where_not_below(key, e);
}

// HF EtaLogitsWarper: remove p < min(eta, sqrt(eta) exp(-H)).
void Sampler::eta_cutoff() {
  const double e = opts_.eta_cutoff;
  if (!(e > 0.0) || m_ <= 1) return;
  const double h = entropy();
  double* key = ex_d_.data();
  for (size_t p = 0; p < m_; ++p) key[p] = q_[p];
  keep_where_not_below(key, std::min(e, std::sqrt(e) * exp_f64(-h)));
}

// llama.cpp DRY (llama_sampler_dry_apply) with single-token sequence breakers.
void Sampler::dry() {
  const SamplerOptions& o = opts_;
  if (o.dry_multiplier == 0.0f || o.dry_base < 1.0f || o.dry_penalty_last_n == 0) return;
  size_t len = history_len_;
  if (o.dry_penalty_last_n > 0) len = std::min(len, static_cast<size_t>(o.dry_penalty_last_n));
  const auto allowed = static_cast<size_t>(o.dry_allowed_length);
  if (len <= allowed) return;
  const int32_t* h = history_.data() + history_len_ - len;  // the window, oldest first
  auto rat = [&](size_t i) { return h[len - 1 - i]; };      // i-th from the end
  const int32_t* br = dry_breakers_.data();
  auto breaker = [&](int32_t t) { return std::binary_search(br, br + dry_breakers_len_, t); };
  // 1. The most recent breaker limits the repeat length.
  size_t rep_limit = len;
  for (size_t i = 0; i < len; ++i) {
    if (breaker(rat(i))) {
      rep_limit = i;
      break;
    }
  }
  if (rep_limit < allowed) return;
  // 2. z[k] = the longest common prefix of the reversed window and its suffix
  //    from k (Z-algorithm): the length of the repeat that ends k tokens back.
  int32_t* z = ex_i_.data();
  z[0] = static_cast<int32_t>(len);
  for (size_t k = 1, lt = 0, rt = 0; k < len; ++k) {  // box [lt, rt)
    size_t n = 0;
    if (k < rt) n = std::min(rt - k, static_cast<size_t>(z[k - lt]));
    while (k + n < len && rat(n) == rat(k + n)) ++n;
    z[k] = static_cast<int32_t>(n);
    if (k + n > rt) lt = k, rt = k + n;
  }
  // 3. The token after each repeat of length >= allowed would extend it.
  uint32_t* tok = reinterpret_cast<uint32_t*>(ex_i_.data() + len);
  int32_t* rep = ex_i_.data() + 2 * len;
  size_t pairs = 0;
  for (size_t k = 1; k < len; ++k) {
    const size_t n = std::min(static_cast<size_t>(z[k]), rep_limit);
    if (n >= allowed) {
      tok[pairs] = static_cast<uint32_t>(rat(k - 1));
      rep[pairs++] = static_cast<int32_t>(n);
    }
  }
  if (pairs == 0) return;
  // 4. Per candidate the longest such repeat (ex_d_ by position, touched
  //    entries only), then logit -= multiplier * base^min(len - allowed, max_exponent).
  const float kFloatMaxLog = 88.7228391f;
  int max_exponent = 0;
  if (o.dry_base > 1.000001f)
    max_exponent = static_cast<int>(kFloatMaxLog / static_cast<float>(log_f64(o.dry_base)));
  const uint32_t* first = cand_.data();
  const uint32_t* end = first + m_;
  double* best = ex_d_.data();
  auto pos = [&](uint32_t t) -> size_t {
    const uint32_t* it = std::lower_bound(first, end, t);
    return it != end && *it == t ? static_cast<size_t>(it - first) : m_;
  };
  for (size_t i = 0; i < pairs; ++i) {
    const size_t p = pos(tok[i]);
    if (p < m_) best[p] = -1.0;
  }
  for (size_t i = 0; i < pairs; ++i) {
    const size_t p = pos(tok[i]);
    if (p < m_) best[p] = std::max(best[p], static_cast<double>(rep[i]));
  }
  const float lowest = std::numeric_limits<float>::lowest();
  for (size_t i = 0; i < pairs; ++i) {
    const size_t p = pos(tok[i]);
    if (p == m_ || best[p] < 0.0) continue;
    const auto n = static_cast<size_t>(best[p]);
    best[p] = -1.0;  // once per candidate
    if (breaker(static_cast<int32_t>(tok[i]))) continue;
    size_t e = n - allowed;
    if (max_exponent > 0 && e > static_cast<size_t>(max_exponent))
      e = static_cast<size_t>(max_exponent);
    const auto penalty = static_cast<float>(
        static_cast<double>(o.dry_multiplier) *
        pow_int(static_cast<double>(o.dry_base), static_cast<int>(std::min<size_t>(e, 1u << 30))));
    // At the temperature applied so far: the scaled logit drops by penalty.
    const float lowered = g_[p] - penalty * t_;
    g_[p] = lowered < lowest ? lowest : lowered;
  }
}

// HF NoRepeatNGramLogitsProcessor over the whole history.
void Sampler::no_repeat_ngram() {
  const size_t s = opts_.no_repeat_ngram_size;
  const size_t len = history_len_;
  if (s == 0 || len < s) return;  // HF: nothing before the first s-gram
  const int32_t* h = history_.data();
  const size_t pre = s - 1;
  const int32_t* prefix = h + len - pre;  // the last s - 1 tokens
  int32_t* banned = ex_i_.data();
  size_t b = 0;
  for (size_t i = 0; i + s <= len; ++i) {
    if (std::equal(h + i, h + i + pre, prefix)) banned[b++] = h[i + pre];
  }
  if (b == 0) return;
  auto* ub = reinterpret_cast<uint32_t*>(banned);  // tokens are >= 0
  std::sort(ub, ub + b);
  b = static_cast<size_t>(std::unique(ub, ub + b) - ub);
  size_t j = 0, k = 0;
  for (size_t p = 0; p < m_; ++p) {
    while (k < b && static_cast<uint32_t>(banned[k]) < cand_[p]) ++k;
    if (k < b && static_cast<uint32_t>(banned[k]) == cand_[p]) continue;
    ++j;
  }
  if (j == 0) {  // every candidate banned: kAllMasked, the candidates untouched
    step_status_ = SampleStatus::kAllMasked;
    return;
  }
  j = 0, k = 0;
  for (size_t p = 0; p < m_; ++p) {
    while (k < b && static_cast<uint32_t>(banned[k]) < cand_[p]) ++k;
    if (k < b && static_cast<uint32_t>(banned[k]) == cand_[p]) continue;
    cand_[j] = cand_[p];
    g_[j++] = g_[p];
  }
  m_ = j;
}

}  // namespace smx
