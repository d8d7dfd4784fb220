// The sampler's options, declared once.
//
// SMX_SAMPLER_NUMBERS lists every numeric option of smx::SamplerOptions; from
// it come the struct's members and defaults, validate(), the Embind
// value_object that carries the options from JavaScript
// (cpp/bindings/bindings.cpp), and the table that the JavaScript layer reads
// at load time for its unknown-option check, its type and range checks and
// its error messages; the docs test checks the README's and index.d.ts's
// option lists against that table. SMX_SAMPLER_LISTS names the options that
// are not numbers (a seed, token lists, the step order), which the bindings
// carry by other means.
//
// X(js_name, member, type, lo, lo_open, hi, hi_open, default, step, doc):
//   the value v is valid when lo <= v (lo < v if lo_open) and v <= hi (v < hi
//   if hi_open), checked after conversion to `type` (a double that becomes
//   0 or infinite as a float32 is out of range); integer types need an
//   integer. `step` is the step the option belongs to (kNoStep: none, it acts before the steps).
//   `doc` describes the option to a reader of this table; it is not compiled
//   into the module (the README documents the options to users).
#pragma once
#include <cstdint>
#include <limits>

namespace smx {

enum class Step : int32_t {
  kTemperature = 0,
  kTopK = 1,
  kTopP = 2,
  kMinP = 3,
  kTypicalP = 4,
  kTopNSigma = 5,
  kXtc = 6,
  kMirostat = 7,
  kDynatemp = 8,
  kEpsilonCutoff = 9,
  kEtaCutoff = 10,
  kDry = 11,
  kNoRepeatNgram = 12,
};
inline constexpr int kNumSteps = 13;
// The `step` of an option that belongs to no step (it acts before the steps).
inline constexpr Step kNoStep = static_cast<Step>(-1);

// The names of the steps in JavaScript (and in `order`), by Step code.
inline constexpr const char* kStepNames[kNumSteps] = {
    "temperature", "topK",     "topP",          "minP",      "typicalP", "topNSigma",    "xtc",
    "mirostat",    "dynatemp", "epsilonCutoff", "etaCutoff", "dry",      "noRepeatNgram"};

// Hugging Face transformers: its logits processors (no-repeat n-gram) first,
// then its warpers: temperature, top-k, top-p, min-p, typical, epsilon, eta.
// Steps HF lacks sit where llama.cpp puts them relative to those: DRY after the
// processors, dynatemp at the temperature, top-n-sigma before top-k, XTC after
// the truncations, mirostat last.
inline constexpr Step kOrderHf[kNumSteps] = {
    Step::kNoRepeatNgram, Step::kDry,  Step::kTemperature, Step::kDynatemp, Step::kTopNSigma,
    Step::kTopK,          Step::kTopP, Step::kMinP,        Step::kTypicalP, Step::kEpsilonCutoff,
    Step::kEtaCutoff,     Step::kXtc,  Step::kMirostat};
// llama.cpp's default chain (common_params_sampling::samplers): penalties, DRY,
// top-n-sigma, top-k, typical, top-p, min-p, XTC, then temperature (temp_ext:
// dynatemp); mirostat after temperature (common/sampling.cpp). Epsilon and eta
// (not in llama.cpp) follow min-p.
inline constexpr Step kOrderLlamaCpp[kNumSteps] = {
    Step::kNoRepeatNgram, Step::kDry,      Step::kTopNSigma,     Step::kTopK,      Step::kTypicalP,
    Step::kTopP,          Step::kMinP,     Step::kEpsilonCutoff, Step::kEtaCutoff, Step::kXtc,
    Step::kTemperature,   Step::kDynatemp, Step::kMirostat};

namespace option_limits {
inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kU32 = 4294967295.0;
inline constexpr double kI32 = 2147483647.0;
}  // namespace option_limits

// clang-format off
#define SMX_SAMPLER_NUMBERS(X)                                                                     \
  X(temperature, temperature, float, 0, false, kInf, false, 1.0f, Step::kTemperature,              \
    "divides the logits: 0 is greedy (the first maximum), Infinity uniform")                       \
  X(topK, top_k, uint32_t, 0, false, kU32, false, 0, Step::kTopK,                                  \
    "keeps the k most likely tokens (ties: lower index first); 0 = off")                           \
  X(topP, top_p, double, 0, true, 1, false, 1.0, Step::kTopP,                                      \
    "keeps the smallest most-likely set whose mass reaches p; 1 = off")                            \
  X(minP, min_p, double, 0, false, 1, false, 0.0, Step::kMinP,                                     \
    "keeps tokens with p >= minP * p_max; 0 = off")                                                \
  X(typicalP, typical_p, double, 0, true, 1, false, 1.0, Step::kTypicalP,                          \
    "locally typical sampling: the tokens closest to the entropy, mass typicalP; 1 = off")         \
  X(minKeep, min_keep, uint32_t, 1, false, kU32, false, 1, kNoStep,                                \
    "every filter keeps at least this many tokens")                                                \
  X(repetitionPenalty, repetition_penalty, float, 0, true, kInf, true, 1.0f, kNoStep,              \
    "divides a positive logit (multiplies a negative one) of a token seen in the history")         \
  X(frequencyPenalty, frequency_penalty, float, -kInf, true, kInf, true, 0.0f, kNoStep,            \
    "subtracts count * frequencyPenalty from a token's logit")                                     \
  X(presencePenalty, presence_penalty, float, -kInf, true, kInf, true, 0.0f, kNoStep,              \
    "subtracts presencePenalty from the logit of a token seen at least once")                      \
  X(penaltyLastN, penalty_last_n, int32_t, -1, false, kI32, false, 64, kNoStep,                    \
    "how many of the last tokens the penalties look at; -1 = all, 0 = none")                       \
  X(topNSigma, top_n_sigma, double, 0, false, kInf, true, 0.0, Step::kTopNSigma,                   \
    "keeps logits >= max - n * std; 0 = off")                                                      \
  X(xtcProbability, xtc_probability, double, 0, false, 1, false, 0.0, Step::kXtc,                  \
    "XTC: the chance to exclude the top choices; 0 = off")                                         \
  X(xtcThreshold, xtc_threshold, double, 0, false, 1, false, 0.1, Step::kXtc,                      \
    "XTC: tokens with p >= threshold are the top choices (all but the last are excluded)")         \
  X(mirostat, mirostat, int32_t, 0, false, 2, false, 0, Step::kMirostat,                           \
    "mirostat version: 1, 2, or 0 = off")                                                          \
  X(mirostatTau, mirostat_tau, double, 0, false, kInf, true, 5.0, Step::kMirostat,                 \
    "mirostat: the target surprise in bits")                                                       \
  X(mirostatEta, mirostat_eta, double, 0, false, kInf, true, 0.1, Step::kMirostat,                 \
    "mirostat: the learning rate of mu")                                                           \
  X(dynatempRange, dynatemp_range, double, 0, false, kInf, true, 0.0, Step::kDynatemp,             \
    "dynamic temperature in [T - range, T + range] by entropy; 0 = off")                           \
  X(dynatempExponent, dynatemp_exponent, double, 0, false, kInf, true, 1.0, Step::kDynatemp,       \
    "dynamic temperature: the exponent of the normalised entropy")                                 \
  X(epsilonCutoff, epsilon_cutoff, double, 0, false, 1, true, 0.0, Step::kEpsilonCutoff,           \
    "keeps tokens with p >= epsilon; 0 = off")                                                     \
  X(etaCutoff, eta_cutoff, double, 0, false, 1, true, 0.0, Step::kEtaCutoff,                       \
    "keeps tokens with p >= min(eta, sqrt(eta) exp(-entropy)); 0 = off")                           \
  X(dryMultiplier, dry_multiplier, float, 0, false, kInf, true, 0.0f, Step::kDry,                  \
    "DRY: the strength of the repeat penalty; 0 = off")                                            \
  X(dryBase, dry_base, float, 1, false, kInf, true, 1.75f, Step::kDry,                             \
    "DRY: the penalty grows as base^(length - allowed length)")                                    \
  X(dryAllowedLength, dry_allowed_length, int32_t, 0, false, kI32, false, 2, Step::kDry,           \
    "DRY: repeats up to this length are free")                                                     \
  X(dryPenaltyLastN, dry_penalty_last_n, int32_t, -1, false, kI32, false, -1, Step::kDry,          \
    "DRY: how many of the last tokens it looks at; -1 = all, 0 = off")                             \
  X(noRepeatNgramSize, no_repeat_ngram_size, uint32_t, 0, false, kU32, false, 0,                  \
    Step::kNoRepeatNgram,                                                                        \
    "bans every token that would repeat an n-gram of the history; 0 = off")

// X(js_name, kind, step, doc): the options that are not single numbers.
#define SMX_SAMPLER_LISTS(X)                                                                       \
  X(seed, "seed", kNoStep, "a non-negative safe integer or a BigInt < 2^64; random if absent")     \
  X(logitBias, "bias", kNoStep, "{ token: bias } or a Map; -Infinity bans the token")              \
  X(history, "tokens", kNoStep, "tokens already generated, for the penalties, DRY and n-grams")    \
  X(order, "order", kNoStep, "'hf' (default), 'llama.cpp' or a list of step names")                \
  X(drySequenceBreakers, "tokens", Step::kDry, "DRY: tokens that end a repeat")
// clang-format on

struct SamplerOptions {
#define SMX_MEMBER(js, member, type, lo, lo_open, hi, hi_open, def, step, doc) type member = def;
  SMX_SAMPLER_NUMBERS(SMX_MEMBER)
#undef SMX_MEMBER
  // The steps in the order they run: each at most once; every enabled step must be listed.
  Step order[kNumSteps];
  int32_t order_len = kNumSteps;

  SamplerOptions() {
    for (int i = 0; i < kNumSteps; ++i) order[i] = kOrderHf[i];  // the default preset
  }
};

// The numeric options by index, in SMX_SAMPLER_NUMBERS order.
enum class OptionId : int32_t {
#define SMX_ID(js, ...) js,
  SMX_SAMPLER_NUMBERS(SMX_ID)
#undef SMX_ID
};
inline constexpr int kNumOptions = 0
#define SMX_COUNT(...) +1
    SMX_SAMPLER_NUMBERS(SMX_COUNT)
#undef SMX_COUNT
    ;

// One row of the table, for the bindings.
enum class OptionType : int32_t { kFloat32 = 0, kFloat64 = 1, kUint32 = 2, kInt32 = 3 };
struct OptionInfo {
  const char* name;  // the JavaScript name
  OptionType type;
  double lo, hi;
  bool lo_open, hi_open;
  double default_value;
  Step step;
};
extern const OptionInfo kOptionInfo[kNumOptions];

// The options that are not numbers (SMX_SAMPLER_LISTS).
struct ListOptionInfo {
  const char* name;
  const char* kind;  // "seed", "bias", "tokens", "order"
  Step step;
};
inline constexpr int kNumListOptions = 0
#define SMX_COUNT(...) +1
    SMX_SAMPLER_LISTS(SMX_COUNT)
#undef SMX_COUNT
    ;
extern const ListOptionInfo kListOptionInfo[kNumListOptions];

// Whether `step` changes anything with these options (a step that is off is a no-op).
bool step_enabled(const SamplerOptions& o, Step step);

// What validate() found.
struct OptionCheck {
  enum Kind : int32_t {
    kOk = 0,
    kOutOfRange = 1,    // option `option` is out of its range (after conversion)
    kBadOrder = 2,      // order_len out of range, an unknown step, or a step twice
    kMissingStep = 3,   // step `step` is enabled but not in the order
    kNeedsFiniteT = 4,  // dynatempRange > 0 with an infinite temperature
  } kind = kOk;
  int32_t option = -1;  // an OptionId (kOutOfRange)
  int32_t step = -1;    // a Step (kMissingStep)
  bool ok() const { return kind == kOk; }
};
OptionCheck validate(const SamplerOptions& o);

}  // namespace smx
