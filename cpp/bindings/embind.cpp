// The only file that sees Emscripten's binding layer: thin functions over wasm
// memory. Pointers arrive as byte offsets into the heap; validation and the
// JavaScript idioms live in web/src/api.js and web/src/sampler.js, the
// semantics in the core.
//
// Everything is exported as plain C functions (Module._smx_*), called straight
// from JS, and not through Embind, for two measured reasons:
// - under a CSP without 'unsafe-eval' (DYNAMIC_EXECUTION=0) Embind's generic
//   invoker costs ~310 ns per 8-argument call in Node 20, seven times the whole
//   JavaScript softmax of 3 numbers; a direct wasm export call costs ~30 ns;
// - Embind's runtime (glue and C++ side) weighed 6.2 KB gzip, which put the
//   package over its 40 KiB budget once the Sampler class was bound.
// The Sampler is a C handle (smx_sampler_new / smx_sampler_delete) that
// web/src/sampler.js wraps in a class with a FinalizationRegistry.
#include <emscripten/emscripten.h>

#include <cstdint>

#include "smx/softmax.h"

namespace {

using Ptr = uintptr_t;

template <typename T>
T* at(Ptr p) {
  return reinterpret_cast<T*>(p);
}

smx::Options options(double temperature, int32_t masked) {
  smx::Options o;
  o.temperature = static_cast<float>(temperature);
  o.masked = static_cast<smx::Masked>(masked);
  return o;
}

using Map = smx::Status (*)(const float*, float*, const smx::Layout&, const smx::Options&);

// Returns a Status; the layout comes from (length, shape[0..ndim), axis).
template <Map kFn>
int32_t map(Ptr x, Ptr y, uint32_t length, Ptr shape, uint32_t ndim, int32_t axis,
            double temperature, int32_t masked) {
  smx::Layout l;
  smx::Status s = smx::make_layout(length, at<const int32_t>(shape), ndim, axis, &l);
  if (s == smx::Status::kOk)
    s = kFn(at<const float>(x), at<float>(y), l, options(temperature, masked));
  return static_cast<int32_t>(s);
}

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE int32_t smx_softmax(Ptr x, Ptr y, uint32_t length, Ptr shape, uint32_t ndim,
                                         int32_t axis, double temperature, int32_t masked) {
  return map<smx::softmax>(x, y, length, shape, ndim, axis, temperature, masked);
}

EMSCRIPTEN_KEEPALIVE int32_t smx_log_softmax(Ptr x, Ptr y, uint32_t length, Ptr shape,
                                             uint32_t ndim, int32_t axis, double temperature,
                                             int32_t masked) {
  return map<smx::log_softmax>(x, y, length, shape, ndim, axis, temperature, masked);
}

EMSCRIPTEN_KEEPALIVE int32_t smx_softmax_naive(Ptr x, Ptr y, uint32_t length, Ptr shape,
                                               uint32_t ndim, int32_t axis, double temperature,
                                               int32_t masked) {
  return map<smx::softmax_naive>(x, y, length, shape, ndim, axis, temperature, masked);
}

// y: one double per slice.
EMSCRIPTEN_KEEPALIVE int32_t smx_log_sum_exp(Ptr x, Ptr y, uint32_t length, Ptr shape,
                                             uint32_t ndim, int32_t axis, double temperature) {
  smx::Layout l;
  smx::Status s = smx::make_layout(length, at<const int32_t>(shape), ndim, axis, &l);
  if (s == smx::Status::kOk)
    s = smx::log_sum_exp(at<const float>(x), at<double>(y), l, options(temperature, 0));
  return static_cast<int32_t>(s);
}

// arrays: 5 float arrays of n (scaled, shifted, exps, probs, raw_exps);
// out: max, sum, raw_sum (doubles).
EMSCRIPTEN_KEEPALIVE int32_t smx_softmax_steps(Ptr x, uint32_t n, double temperature,
                                               int32_t masked, Ptr arrays, Ptr out) {
  float* a = at<float>(arrays);
  smx::Steps st{a, a + n, a + 2 * n, a + 3 * n, a + 4 * n, 0, 0, 0};
  const smx::Status s =
      smx::softmax_steps(at<const float>(x), n, options(temperature, masked), &st);
  at<double>(out)[0] = st.max;
  at<double>(out)[1] = st.sum;
  at<double>(out)[2] = st.raw_sum;
  return static_cast<int32_t>(s);
}

EMSCRIPTEN_KEEPALIVE double smx_sigmoid(double z) { return smx::sigmoid(static_cast<float>(z)); }

EMSCRIPTEN_KEEPALIVE uint32_t smx_argmax(Ptr x, uint32_t n) {
  return static_cast<uint32_t>(smx::argmax(at<const float>(x), n));
}

}  // extern "C"

// ============================================================================
// Sampler: a handle over smx::Sampler. Arrays are byte offsets into wasm
// memory, staged by web/src/sampler.js, which validates every argument first;
// the core validates again and returns a SampleStatus.
// ============================================================================
#include <cstdlib>
#include <new>

#include "smx/sampler.h"

namespace {

// The options of issue 8 arrive as one Float64Array staged by web/src/sampler.js
// (too many for one call's argument list): extra[0..kExtraLen) in this order,
// then extra[kExtraLen..kExtraLen + breakers) the DRY sequence breakers.
enum Extra : int {
  kTopNSigma,
  kXtcProbability,
  kXtcThreshold,
  kMirostat,
  kMirostatTau,
  kMirostatEta,
  kDynatempRange,
  kDynatempExponent,
  kEpsilonCutoff,
  kEtaCutoff,
  kDryMultiplier,
  kDryBase,
  kDryAllowedLength,
  kDryPenaltyLastN,
  kNoRepeatNgramSize,
  kDryBreakers,
  kExtraLen
};

// v as an integer in [lo, hi] (false for NaN, fractions, out of range).
template <typename T>
bool to_int(double v, double lo, double hi, T* out) {
  if (!(v >= lo && v <= hi) || v != static_cast<double>(static_cast<int64_t>(v))) return false;
  *out = static_cast<T>(v);
  return true;
}

class SamplerBinding {
 public:
  // The options of smx::SamplerOptions, in that order; order[0..order_len)
  // holds int32 step codes (smx::Step); extra: see Extra (0 = all defaults).
  // Returns a SampleStatus.
  int32_t configure(double temperature, uint32_t top_k, double top_p, double min_p,
                    double typical_p, uint32_t min_keep, double repetition_penalty,
                    double frequency_penalty, double presence_penalty, int32_t penalty_last_n,
                    Ptr order, int32_t order_len, Ptr extra) {
    smx::SamplerOptions o;
    o.temperature = static_cast<float>(temperature);
    o.top_k = top_k, o.top_p = top_p, o.min_p = min_p, o.typical_p = typical_p,
    o.min_keep = min_keep;
    o.repetition_penalty = static_cast<float>(repetition_penalty);
    o.frequency_penalty = static_cast<float>(frequency_penalty);
    o.presence_penalty = static_cast<float>(presence_penalty);
    o.penalty_last_n = penalty_last_n;
    if (order_len < 0 || order_len > smx::kNumSteps) return status(smx::SampleStatus::kBadOption);
    o.order_len = order_len;
    for (int32_t i = 0; i < order_len; ++i)
      o.order[i] = static_cast<smx::Step>(at<const int32_t>(order)[i]);
    uint32_t breakers = 0;
    if (extra != 0) {
      const double* e = at<const double>(extra);
      o.top_n_sigma = e[kTopNSigma], o.xtc_probability = e[kXtcProbability];
      o.xtc_threshold = e[kXtcThreshold], o.mirostat_tau = e[kMirostatTau];
      o.mirostat_eta = e[kMirostatEta], o.dynatemp_range = e[kDynatempRange];
      o.dynatemp_exponent = e[kDynatempExponent], o.epsilon_cutoff = e[kEpsilonCutoff];
      o.eta_cutoff = e[kEtaCutoff];
      o.dry_multiplier = static_cast<float>(e[kDryMultiplier]);
      o.dry_base = static_cast<float>(e[kDryBase]);
      const bool ints = to_int(e[kMirostat], 0, 2, &o.mirostat) &&
                        to_int(e[kDryAllowedLength], 0, 2147483647.0, &o.dry_allowed_length) &&
                        to_int(e[kDryPenaltyLastN], -1, 2147483647.0, &o.dry_penalty_last_n) &&
                        to_int(e[kNoRepeatNgramSize], 0, 4294967295.0, &o.no_repeat_ngram_size) &&
                        to_int(e[kDryBreakers], 0, 268435456.0, &breakers);
      if (!ints) return status(smx::SampleStatus::kBadOption);
    }
    if (!smx::validate(o).ok()) return status(smx::SampleStatus::kBadOption);
    int32_t* ids = nullptr;
    if (breakers > 0) {
      ids = static_cast<int32_t*>(std::malloc(breakers * sizeof(int32_t)));
      if (ids == nullptr) return status(smx::SampleStatus::kNoMemory);
      const double* b = at<const double>(extra) + kExtraLen;
      for (uint32_t i = 0; i < breakers; ++i) {
        if (!to_int(b[i], 0, 2147483647.0, &ids[i])) {
          std::free(ids);
          return status(smx::SampleStatus::kBadOption);
        }
      }
    }
    smx::SampleStatus sb = s_.set_dry_breakers(ids, breakers);
    std::free(ids);
    if (sb != smx::SampleStatus::kOk) return status(sb);
    return status(s_.configure(o));
  }
  int32_t setLogitBias(Ptr index, Ptr bias, uint32_t count) {
    return status(s_.set_logit_bias(at<const uint32_t>(index), at<const float>(bias), count));
  }
  // The 64-bit seed as two uint32 halves.
  void seed(uint32_t lo, uint32_t hi) { s_.seed((static_cast<uint64_t>(hi) << 32) | lo); }
  // seed, clear the history, mirostat's mu = 2 tau.
  void reset(uint32_t lo, uint32_t hi) { s_.reset((static_cast<uint64_t>(hi) << 32) | lo); }
  double mirostatMu() const { return s_.mirostat_mu(); }
  int32_t accept(Ptr tokens, uint32_t count) {
    return status(s_.accept(at<const int32_t>(tokens), count));
  }
  void clearHistory() { s_.clear_history(); }
  // The index (>= 0), or -SampleStatus.
  int32_t sample(Ptr x, uint32_t n) {
    int32_t t = 0;
    const smx::SampleStatus st = s_.sample(at<const float>(x), n, &t);
    return st == smx::SampleStatus::kOk ? t : -status(st);
  }
  int32_t sampleMany(Ptr x, uint32_t n, uint32_t count, Ptr out) {
    return status(s_.sample_many(at<const float>(x), n, count, at<int32_t>(out)));
  }
  int32_t sampleBatch(Ptr x, uint32_t rows, uint32_t n, Ptr out) {
    return status(s_.sample_batch(at<const float>(x), rows, n, at<int32_t>(out)));
  }
  int32_t probs(Ptr x, uint32_t n, Ptr out) {
    return status(s_.probs(at<const float>(x), n, at<float>(out)));
  }
  int32_t logprobs(Ptr x, uint32_t n, uint32_t k, Ptr index, Ptr before, Ptr after) {
    return status(s_.logprobs(at<const float>(x), n, k, at<int32_t>(index), at<float>(before),
                              at<float>(after)));
  }
  double errorIndex() const { return static_cast<double>(s_.error_index()); }

 private:
  static int32_t status(smx::SampleStatus s) { return static_cast<int32_t>(s); }
  smx::Sampler s_;
};

int32_t live_samplers = 0;

}  // namespace

extern "C" {

// A new sampler, or 0 when memory is exhausted.
EMSCRIPTEN_KEEPALIVE Ptr smx_sampler_new() {
  auto* s = new (std::nothrow) SamplerBinding();
  if (s != nullptr) ++live_samplers;
  return reinterpret_cast<Ptr>(s);
}
EMSCRIPTEN_KEEPALIVE void smx_sampler_delete(Ptr s) {
  if (s == 0) return;
  delete at<SamplerBinding>(s);
  --live_samplers;
}
// How many samplers exist (for leak tests).
EMSCRIPTEN_KEEPALIVE int32_t smx_sampler_live() { return live_samplers; }

EMSCRIPTEN_KEEPALIVE int32_t smx_sampler_configure(Ptr s, double temperature, uint32_t top_k,
                                                   double top_p, double min_p, double typical_p,
                                                   uint32_t min_keep, double repetition_penalty,
                                                   double frequency_penalty,
                                                   double presence_penalty, int32_t penalty_last_n,
                                                   Ptr order, int32_t order_len, Ptr extra) {
  return at<SamplerBinding>(s)->configure(temperature, top_k, top_p, min_p, typical_p, min_keep,
                                          repetition_penalty, frequency_penalty, presence_penalty,
                                          penalty_last_n, order, order_len, extra);
}
EMSCRIPTEN_KEEPALIVE int32_t smx_sampler_set_logit_bias(Ptr s, Ptr index, Ptr bias,
                                                        uint32_t count) {
  return at<SamplerBinding>(s)->setLogitBias(index, bias, count);
}
EMSCRIPTEN_KEEPALIVE void smx_sampler_seed(Ptr s, uint32_t lo, uint32_t hi) {
  at<SamplerBinding>(s)->seed(lo, hi);
}
EMSCRIPTEN_KEEPALIVE int32_t smx_sampler_accept(Ptr s, Ptr tokens, uint32_t count) {
  return at<SamplerBinding>(s)->accept(tokens, count);
}
EMSCRIPTEN_KEEPALIVE void smx_sampler_clear_history(Ptr s) {
  at<SamplerBinding>(s)->clearHistory();
}
EMSCRIPTEN_KEEPALIVE void smx_sampler_reset(Ptr s, uint32_t lo, uint32_t hi) {
  at<SamplerBinding>(s)->reset(lo, hi);
}
EMSCRIPTEN_KEEPALIVE double smx_sampler_mirostat_mu(Ptr s) {
  return at<SamplerBinding>(s)->mirostatMu();
}
EMSCRIPTEN_KEEPALIVE int32_t smx_sampler_sample(Ptr s, Ptr x, uint32_t n) {
  return at<SamplerBinding>(s)->sample(x, n);
}
EMSCRIPTEN_KEEPALIVE int32_t smx_sampler_sample_many(Ptr s, Ptr x, uint32_t n, uint32_t count,
                                                     Ptr out) {
  return at<SamplerBinding>(s)->sampleMany(x, n, count, out);
}
EMSCRIPTEN_KEEPALIVE int32_t smx_sampler_sample_batch(Ptr s, Ptr x, uint32_t rows, uint32_t n,
                                                      Ptr out) {
  return at<SamplerBinding>(s)->sampleBatch(x, rows, n, out);
}
EMSCRIPTEN_KEEPALIVE int32_t smx_sampler_probs(Ptr s, Ptr x, uint32_t n, Ptr out) {
  return at<SamplerBinding>(s)->probs(x, n, out);
}
EMSCRIPTEN_KEEPALIVE int32_t smx_sampler_logprobs(Ptr s, Ptr x, uint32_t n, uint32_t k, Ptr index,
                                                  Ptr before, Ptr after) {
  return at<SamplerBinding>(s)->logprobs(x, n, k, index, before, after);
}
EMSCRIPTEN_KEEPALIVE double smx_sampler_error_index(Ptr s) {
  return at<SamplerBinding>(s)->errorIndex();
}

}  // extern "C"
