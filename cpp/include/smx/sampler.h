// smx::Sampler: seeded token sampling from a vector of scores (logits), with
// the filters of Hugging Face transformers and llama.cpp, without sorting the
// vocabulary.
//
// Plain C++17. No function throws or aborts: each returns a SampleStatus, and
// after any error the sampler keeps working. Probabilities come from the core's
// softmax / log_softmax (own exp, fixed summation order), selection is own code
// with a strict total order, and the PRNG is smx::Pcg32, so one seed and one
// input give the same indices natively and in both wasm builds.
//
// One call (sample, sample_many, probs, logprobs, one row of sample_batch):
//  1. logits = scores; NaN -> kNaNScore (error_index() names it), n == 0 -> kEmpty.
//  2. logit bias: logits[i] += bias (a bias of -Infinity sets -Infinity: a ban).
//  3. penalties over the last penalty_last_n tokens of the history (each token
//     counted c times): repetition (CTRL / llama.cpp / HF): if c > 0, a positive
//     logit is divided by the penalty and a negative one multiplied; then
//     frequency and presence (OpenAI): logit -= c * frequency + (c > 0) * presence.
//  4. candidates: the entries whose logit is not -Infinity (none -> kAllMasked),
//     in ascending index order. p_i = softmax(logit / T') over the candidates,
//     where T' = 1 until the temperature step.
//  5. the steps of `order`, each keeping a subset of the candidates (at least
//     min_keep of them, or all when fewer remain). "The order" of candidates
//     below is by decreasing logit, ties by lower index (a strict total order).
//     - temperature T: T' = T. T = 0 keeps only the first maximum (greedy);
//       T = +Infinity makes the candidates equally likely.
//     - top_k k (0 = off): the first max(k, min_keep) candidates in the order.
//     - top_p p (1 = off): the shortest prefix of the order whose mass reaches p
//       (the entry that crosses p included; HF TopPLogitsWarper, llama.cpp
//       top-p). "Reaches" allows kMassSlack for float32 rounding.
//     - min_p m (0 = off): p_i >= m * p_max (HF MinPLogitsWarper, llama.cpp
//       min-p), within a relative kMassSlack.
//     - typical_p m (1 = off): HF TypicalLogitsWarper: with entropy
//       H = -sum p log p, the shortest prefix of the order by |-log p_i - H|
//       (ties by lower index) whose mass reaches m.
//     The steps of issue 8 (cpp/src/sampler_extra.cpp; each off by default,
//     each a no-op when off: no PRNG output, no change):
//     - top_n_sigma n (0 = off): llama.cpp top-n-sigma: keeps g >= max - n * std
//       over the candidates' logits (population std, double precision).
//     - xtc (xtc_probability pr, xtc_threshold th): llama.cpp XTC. If pr > 0,
//       th <= 0.5 and m >= 2, one uniform u from the sampler's XTC stream
//       (Pcg32(seed, kXtcStream)); if u <= pr, of the entries with p >= th
//       (a prefix of the order) all but the last are removed, provided that at
//       least two reach th and at least min_keep remain (else no change).
//     - mirostat (1 or 2; tau, eta; state mu = 2 tau after configure / reset):
//       llama.cpp mirostat (v1 with m = 100 and n_vocab = n) and mirostat_v2:
//       v1 keeps the first k in the order with k from the Zipf estimate s_hat,
//       v2 keeps p_i with -log2 p_i <= mu (at least the first). After every
//       draw (sample, each of sample_many's, each row of sample_batch; not
//       probs / logprobs) mu -= eta * (-log2 p(drawn) - tau), p in the final
//       distribution.
//     - dynatemp (dynatemp_range r > 0, dynatemp_exponent e): llama.cpp
//       temp_ext: T' = lo + (hi - lo) (H / log m)^e, lo = max(0, T - r),
//       hi = T + r, H the entropy at T' = 1 over the m candidates (m >= 2);
//       T' <= 0 is greedy. With r > 0 the temperature step does nothing.
//     - epsilon_cutoff e (0 = off): HF EpsilonLogitsWarper: keeps p_i >= e.
//     - eta_cutoff e (0 = off): HF EtaLogitsWarper: keeps p_i >= min(e,
//       sqrt(e) exp(-H)).
//     - dry (dry_multiplier > 0): llama.cpp DRY over the last
//       dry_penalty_last_n accepted tokens (-1 = all), sequence breakers as
//       single token ids: logit -= multiplier * base^(len - allowed_length) for
//       a token that would extend a repeat of len >= allowed_length; the logit
//       is lowered at the current temperature (subtracts penalty * T') and
//       never below the lowest finite float.
//     - no_repeat_ngram n (0 = off): HF NoRepeatNGramLogitsProcessor over the
//       whole history: removes every token that would complete an n-gram
//       already in it. A hard ban: min_keep does not apply; banning every
//       candidate is kAllMasked.
//     Every other step keeps at least min_keep (as above).
//  6. draw: u = Pcg32::next_double() (two outputs); the inverse CDF over the
//     kept candidates in ascending index order: the first whose cumulative
//     probability (a double sum in index order) exceeds u * total.
//
// Cost per call: O(n); nothing sorts the vocabulary (cpp/src/select.h). Top-k
// with k <= 256 and k <= n / 16 is one 16-wide threshold scan with a k-entry
// heap, on the raw scores when no bias or penalty applies and top-k is the
// first active step (no copy, no exp); larger k use a radix select on
// order-preserving keys. Top-p and typical cut by 2048-bucket mass histograms,
// refined inside the crossing bucket; when their sums could round differently
// from the sorted cumulative sum (a probability < 2^-29 in the prefix), the
// previous code (growing prefixes, then a mass-weighted quickselect) decides.
#pragma once
#include <cstddef>
#include <cstdint>

#include "smx/rng.h"
#include "smx/sampler_options.h"

namespace smx {

enum class SampleStatus : int32_t {
  kOk = 0,
  kEmpty = 1,      // no scores
  kAllMasked = 2,  // every entry is -Infinity after bias and penalties
  kNaNScore = 3,   // scores[error_index()] is NaN
  kBadOption = 4,  // an option out of range (the JS layer names it first)
  kBadToken = 5,   // a logit-bias index or history token error_index() >= n
  kNoMemory = 6,   // a scratch buffer could not be allocated
};

// The PCG32 stream of XTC's coin (the draws use Pcg32::kDefaultStream, 54).
inline constexpr uint64_t kXtcStream = 55;
// Mirostat v1's m (llama.cpp common/sampling.cpp passes 100).
inline constexpr int kMirostatM = 100;
// Tolerance of "the mass reaches p" and of min-p's comparison.
inline constexpr double kMassSlack = 1e-6;

template <typename T>
class Buffer {  // malloc-backed, so that a failed allocation is a status
 public:
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept : p_(o.p_), cap_(o.cap_) { o.p_ = nullptr, o.cap_ = 0; }
  Buffer& operator=(Buffer&&) = delete;
  ~Buffer();
  bool reserve(size_t n);  // keeps the contents
  T* data() { return p_; }
  T& operator[](size_t i) { return p_[i]; }

 private:
  T* p_ = nullptr;
  size_t cap_ = 0;
};

class Sampler {
 public:
  Sampler() = default;

  // Replaces the options (kBadOption, and no change, when validate fails).
  SampleStatus configure(const SamplerOptions& o);
  // index[0..count) -> additive bias; biases are finite or -Infinity.
  SampleStatus set_logit_bias(const uint32_t* index, const float* bias, size_t count);
  // Reseeds the PRNGs: Pcg32(seed, Pcg32::kDefaultStream) for the draws,
  // Pcg32(seed, kXtcStream) for XTC's coin.
  void seed(uint64_t seed) {
    rng_.seed(seed);
    xtc_rng_.seed(seed, kXtcStream);
  }
  // seed(s), clear_history(), and mirostat's mu = 2 tau.
  void reset(uint64_t seed);
  // DRY's sequence breakers: token ids that end a repeat (replaces the set).
  SampleStatus set_dry_breakers(const int32_t* tokens, size_t count);
  // Mirostat's state mu (2 tau after configure and reset).
  double mirostat_mu() const { return mu_; }
  // Appends tokens to the history the penalties look at.
  SampleStatus accept(const int32_t* tokens, size_t count);
  void clear_history() { history_len_ = 0; }

  // One index drawn from the distribution of probs().
  SampleStatus sample(const float* x, size_t n, int32_t* out);
  // count indices from the same distribution (computed once).
  SampleStatus sample_many(const float* x, size_t n, size_t count, int32_t* out);
  // x is [rows, n]; one index per row, rows in order, one draw each.
  SampleStatus sample_batch(const float* x, size_t rows, size_t n, int32_t* out);
  // The distribution sample() draws from: out[0..n), 0 for removed entries.
  SampleStatus probs(const float* x, size_t n, float* out);
  // The k = min(k, n) most likely entries after bias and penalties (T = 1,
  // order: decreasing logit, ties by lower index), with their log-probabilities
  // there (before) and in the final distribution (after; -Infinity if removed).
  SampleStatus logprobs(const float* x, size_t n, size_t k, int32_t* index, float* before,
                        float* after);

  // The offending score index (kNaNScore) or token (kBadToken) of the last error.
  size_t error_index() const { return error_index_; }
  const SamplerOptions& options() const { return opts_; }

 private:
  SampleStatus prepare(const float* x, size_t n);
  SampleStatus reserve(size_t n);
  SampleStatus load(const float* x, size_t n);
  SampleStatus apply_penalties(size_t n);
  void run_step(Step s);
  void softmax_candidates();
  void keep_first(size_t cut_pos, bool by_key);
  void top_k(uint32_t k);
  void top_p(double p);
  void min_p(double m);
  void typical_p(double m);
  void finish();
  int32_t draw();
  // sampler_extra.cpp: the steps of issue 8 and their plumbing.
  SampleStatus prepare_checked(const float* x, size_t n);
  size_t history_keep() const;
  void keep_where_not_below(const double* key, double threshold);
  void top_n_sigma();
  void xtc();
  void mirostat();
  void mirostat_update(size_t pos);
  double entropy();
  void dynatemp();
  void epsilon_cutoff();
  void eta_cutoff();
  void dry();
  void no_repeat_ngram();

  SamplerOptions opts_;
  Pcg32 rng_;
  Buffer<uint32_t> bias_index_;
  Buffer<float> bias_value_;
  size_t bias_len_ = 0;
  Buffer<int32_t> history_;
  size_t history_len_ = 0;
  size_t error_index_ = 0;

  // Per call, sized for n.
  size_t cap_ = 0;
  Buffer<float> logits_;   // scores after bias and penalties
  Buffer<uint32_t> cand_;  // candidate indices, ascending
  size_t m_ = 0;           // number of candidates
  float t_ = 1.0f;         // the temperature applied so far
  Buffer<float> g_;        // logits of the candidates (by position)
  Buffer<float> q_;        // their probabilities
  Buffer<float> lq_;       // their log-probabilities (typical, logprobs)
  Buffer<double> key_;     // typical: |-log p - H| by position
  Buffer<uint32_t> perm_;  // selection scratch: positions
  Buffer<double> cum_;     // cumulative probabilities for the draw
  double total_ = 0.0;

  // Issue 8 (sampler_extra.cpp).
  Pcg32 xtc_rng_{0, kXtcStream};
  double mu_ = 10.0;              // mirostat: 2 tau
  Buffer<int32_t> dry_breakers_;  // sorted, unique
  size_t dry_breakers_len_ = 0;
  size_t n_ = 0;                                  // the vocabulary size of the call
  SampleStatus step_status_ = SampleStatus::kOk;  // set by a step (kAllMasked, kNoMemory)
  Buffer<int32_t> ex_i_;                          // scratch: DRY's Z array, banned tokens
  Buffer<double> ex_d_;                           // scratch: keys by position
};

}  // namespace smx
