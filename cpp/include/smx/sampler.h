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
//  0. token mask (optional, per call): mask_words(n) words, token i allowed when
//     bit (i & 31) of mask[i >> 5] is set (the layout of XGrammar and
//     llguidance). A forbidden entry is -Infinity from here on, whatever its
//     score (it is not read, not even for NaN); so neither the bias nor
//     min_keep can bring it back. A mask that allows no token -> kEmptyMask.
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
//       (ties by lower index) whose mass reaches m, and at least the first
//       min_keep of that order (HF, llama.cpp). As -log p_i - H =
//       (mu - g_i) / T with mu = sum p_i g_i, the mean logit, the key is
//       |g_i - mu| in double, mu from the softmax pass's own sums (S = sum e_i
//       and D = sum e_i (g_i - max), mu = max + D / S); the mass to reach is m
//       times S * float(1 / S).
//     The further steps (each off by default, each a no-op when off: no PRNG
//     output, no change):
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
//       hi = T + r, H the entropy at the temperature so far (T = 1 unless a
//       step before set it) over the m candidates (m >= 2), from the softmax
//       pass's own sums: H = log(S / e_max) - D / (S T) with S and D as for
//       typical_p and e_max the pass's exponential of the max entry (1, or
//       near 1 on the T = 1 fast path); T' <= 0 is greedy. With r > 0 the
//       temperature step does nothing.
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
// Draft verification (verify_draft): speculative sampling (Leviathan et al.
// 2023, Chen et al. 2023) against this sampler's chain. For j = 0 .. k-1:
// p_j = the final distribution of one call on target row j (mask row j; the
// history as it is: drafted tokens reach the penalties only through accept()),
// x = draft[j], q = draft_probs[j][x]; u = next_double(); x is accepted when
// u * q < p_j(x) (probability min(1, p_j(x) / q); at T = 0, exactly when x is
// the greedy choice). At the first rejection one more u' = next_double()
// draws from r(i) = max(0, p_j(i) - q_j(i)) (double, the inverse CDF in index
// order as in 6.; if r has no mass, which only rounding allows, from p_j) and
// the call ends. If all k are accepted, one draw (6.) from p_k. Mirostat's mu
// follows every emitted token as after a draw. The checks come first (draft
// tokens < n, every draft entry in [0, 1], each draft row's sum within
// kDraftSumSlack of 1), so an error never depends on the stream.
//
// Code: cpp/src/sampler.cpp is the pipeline above; each step is a function
// over the candidates (cpp/src/candidates.h) in cpp/src/steps/.
//
// Cost per call: O(n); nothing sorts the vocabulary (cpp/src/select.h), and
// the candidates read the scores in place until a step removes an entry (one
// min/max pass also finds NaN and masked entries). Top-k with k <= 256 and
// k <= n / 16 is one 16-wide threshold scan with a k-entry heap, on the raw
// scores when no bias or penalty applies and top-k is the first active step;
// larger k use a radix select on order-preserving keys. Where the definition
// above sums in index order (the total, the entropy, top-n-sigma's moments,
// the draw's cumulative sums) the steps use lane sums with a proven error
// bound and thresholds on the logits taken from softmax's own error bounds
// (cpp/src/softmax_parts.h), and compute the definition's sums only where
// the bound leaves the answer open: the same results, bit for bit, at about
// the cost of one softmax pass (tests/native/steps_test.cpp and draw_test.cpp
// compare the two paths). Top-p and typical cut by radix mass histograms over
// the candidates that can hold the cut (for typical, a band of logits around
// mu); when their sums could round differently from the sorted cumulative sum
// (a probability < 2^-29 in the prefix), growing prefixes, then a
// mass-weighted quickselect decide.
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
  kEmptyMask = 7,  // the token mask allows no token (of row / position error_index())
  kBadDraft = 8,   // draft_probs[error_index()] is not in [0, 1] (or NaN)
  kDraftSum = 9,   // draft_probs row error_index() does not sum to 1 (kDraftSumSlack)
};

// The words of a token mask over n tokens: ceil(n / 32).
inline constexpr size_t mask_words(size_t n) { return (n + 31) / 32; }
// In place: x[i] = -Infinity where the token mask (mask_words(n) words) forbids
// i (one pass of the vbitmask kernel). Returns how many of the n it allows.
size_t apply_token_bitmask(float* x, size_t n, const uint32_t* mask);

// The PCG32 stream of XTC's coin (the draws use Pcg32::kDefaultStream, 54).
inline constexpr uint64_t kXtcStream = 55;
// Mirostat v1's m (llama.cpp common/sampling.cpp passes 100).
inline constexpr int kMirostatM = 100;
// Tolerance of "the mass reaches p" and of min-p's comparison.
inline constexpr double kMassSlack = 1e-6;
// How far a draft distribution's sum may be from 1 (float32 rounding, with room).
inline constexpr double kDraftSumSlack = 1e-3;

struct Candidates;  // cpp/src/candidates.h

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

  // Each call takes an optional token mask (null: none) of mask_words(n) words
  // (per row: rows * mask_words(n) words, row r at r * mask_words(n)).

  // One index drawn from the distribution of probs().
  SampleStatus sample(const float* x, size_t n, int32_t* out, const uint32_t* mask = nullptr);
  // count indices from the same distribution (computed once).
  SampleStatus sample_many(const float* x, size_t n, size_t count, int32_t* out,
                           const uint32_t* mask = nullptr);
  // x is [rows, n]; one index per row, rows in order, one draw each.
  SampleStatus sample_batch(const float* x, size_t rows, size_t n, int32_t* out,
                            const uint32_t* mask = nullptr);
  // The distribution sample() draws from: out[0..n), 0 for removed entries.
  SampleStatus probs(const float* x, size_t n, float* out, const uint32_t* mask = nullptr);
  // The k = min(k, n) most likely entries after bias and penalties (T = 1,
  // order: decreasing logit, ties by lower index), with their log-probabilities
  // there (before) and in the final distribution (after; -Infinity if removed).
  SampleStatus logprobs(const float* x, size_t n, size_t k, int32_t* index, float* before,
                        float* after, const uint32_t* mask = nullptr);
  // Speculative sampling (above): draft[0, k) drawn from draft_probs [k, n],
  // target the target's logits [k + 1, n] (mask: k + 1 rows). out[0 ..
  // *accepted] receives the accepted tokens and one more (*accepted + 1 tokens).
  SampleStatus verify_draft(const int32_t* draft, const float* draft_probs, size_t k,
                            const float* target, size_t n, int32_t* out, size_t* accepted,
                            const uint32_t* mask = nullptr);

  // The offending score index (kNaNScore) or token (kBadToken) of the last error.
  size_t error_index() const { return error_index_; }
  const SamplerOptions& options() const { return opts_; }

 private:
  SampleStatus prepare(const float* x, size_t n, const uint32_t* mask);
  SampleStatus reserve(size_t n);
  SampleStatus load(const float* x, size_t n, const uint32_t* mask);
  SampleStatus check_draft(const int32_t* draft, const float* draft_probs, size_t k, size_t n);
  int32_t draw_residual(const float* q);
  SampleStatus scores_in(const float* x, size_t n, const float** src, float* min_max);
  bool top_k_first(const float* x, size_t n, SampleStatus* status);
  void run_steps(int skip, const float* min_max);
  void finish(Candidates& c);
  void exact_sums();
  int32_t draw();
  size_t history_keep() const;

  SamplerOptions opts_;
  Pcg32 rng_;
  Pcg32 xtc_rng_{0, kXtcStream};  // XTC's coin
  double mu_ = 10.0;              // mirostat: 2 tau
  Buffer<uint32_t> bias_index_;
  Buffer<float> bias_value_;
  size_t bias_len_ = 0;
  Buffer<int32_t> history_;
  size_t history_len_ = 0;
  Buffer<int32_t> dry_breakers_;  // sorted, unique
  size_t dry_breakers_len_ = 0;
  size_t error_index_ = 0;

  // Per call, sized for the vocabulary (cap_ entries).
  size_t cap_ = 0;
  size_t n_ = 0;                                  // the vocabulary size of the call
  const uint32_t* mask_ = nullptr;                // the token mask of the call (null: none)
  SampleStatus step_status_ = SampleStatus::kOk;  // set by a step (kAllMasked)
  Buffer<float> logits_;                          // scores after bias and penalties
  // The candidates (cpp/src/candidates.h): size_ of them, at temperature t_,
  // with their indices (null: the identity) and logits (in index_ and logit_,
  // or the caller's scores, or logits_).
  Buffer<uint32_t> index_;
  Buffer<float> logit_;
  const uint32_t* cand_index_ = nullptr;
  const float* cand_logit_ = nullptr;
  Buffer<float> prob_;  // the final distribution over the candidates
  size_t size_ = 0;
  float t_ = 1.0f;
  // The draw: exact_ (cum_ holds the cumulative sums in index order, total_
  // their total), or block_ holds approximate prefix sums of blocks of prob_.
  bool exact_ = false;
  double total_ = 0.0;
  Buffer<double> block_;
  // Scratch of the steps (cpp/src/steps/steps.h: Workspace).
  Buffer<float> logprob_;
  Buffer<double> key_;
  Buffer<uint32_t> perm_;
  Buffer<double> cum_;    // cumulative probabilities for the draw (and selection scratch)
  Buffer<int32_t> ints_;  // DRY's Z array and repeats, banned n-gram tokens
};

}  // namespace smx
