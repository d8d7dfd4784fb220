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
//  6. draw: u = Pcg32::next_double() (two outputs); the inverse CDF over the
//     kept candidates in ascending index order: the first whose cumulative
//     probability (a double sum in index order) exceeds u * total.
//
// Cost per call: O(n) expected; nothing sorts the vocabulary. Top-k with
// k <= n / 16 is one pass with a k-entry heap, else quickselect on positions
// (median of three, a heapsort fallback past a depth limit). Top-p first tries
// the 64, 512, 4096, ... most likely entries (heap selection, then a sort of
// those few); if their mass falls short, it and typical find the crossing entry
// by a mass-weighted quickselect.
#pragma once
#include <cstddef>
#include <cstdint>

#include "smx/rng.h"

namespace smx {

enum class SampleStatus : int32_t {
  kOk = 0,
  kEmpty = 1,       // no scores
  kAllMasked = 2,   // every entry is -Infinity after bias and penalties
  kNaNScore = 3,    // scores[error_index()] is NaN
  kBadOption = 4,   // an option out of range (the JS layer names it first)
  kBadToken = 5,    // a logit-bias index or history token error_index() >= n
  kNoMemory = 6,    // a scratch buffer could not be allocated
};

enum class Step : int32_t { kTemperature = 0, kTopK = 1, kTopP = 2, kMinP = 3, kTypicalP = 4 };
inline constexpr int kNumSteps = 5;
// Hugging Face transformers: temperature, then top-k, top-p, min-p, typical.
inline constexpr Step kOrderHf[kNumSteps] = {Step::kTemperature, Step::kTopK, Step::kTopP,
                                             Step::kMinP, Step::kTypicalP};
// llama.cpp's default chain: top-k, typical, top-p, min-p, then temperature.
inline constexpr Step kOrderLlamaCpp[kNumSteps] = {Step::kTopK, Step::kTypicalP, Step::kTopP,
                                                   Step::kMinP, Step::kTemperature};
// Tolerance of "the mass reaches p" and of min-p's comparison.
inline constexpr double kMassSlack = 1e-6;

struct SamplerOptions {
  float temperature = 1.0f;  // >= 0 or +Infinity
  uint32_t top_k = 0;        // 0 = off
  double top_p = 1.0;        // (0, 1]
  double min_p = 0.0;        // [0, 1]
  double typical_p = 1.0;    // (0, 1]
  uint32_t min_keep = 1;     // >= 1
  float repetition_penalty = 1.0f;  // > 0, finite
  float frequency_penalty = 0.0f;   // finite
  float presence_penalty = 0.0f;    // finite
  int32_t penalty_last_n = 64;      // -1 = the whole history, 0 = no penalties
  Step order[kNumSteps] = {Step::kTemperature, Step::kTopK, Step::kTopP, Step::kMinP,
                           Step::kTypicalP};
  int32_t order_len = kNumSteps;  // each step at most once; enabled steps required
};

// kOk when every option is in range and `order` holds every enabled step once.
SampleStatus validate(const SamplerOptions& o);

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
  // Reseeds the PRNG: Pcg32(seed, Pcg32::kDefaultStream).
  void seed(uint64_t seed) { rng_.seed(seed); }
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
};

}  // namespace smx
