// The sampler's steps, each a function over the candidates (candidates.h),
// with the semantics of the engine it follows (documented in
// cpp/include/smx/sampler.h and README.md). A step narrows the candidates or
// sets their temperature; a step that is off (its option at the neutral value)
// changes nothing and draws no random number. Every step but the hard bans
// keeps at least Workspace::min_keep candidates (or all when fewer remain).
//
// Same rules as the rest of the core: no exceptions, no aborts, no libm beyond
// sqrt, floor, ldexp and nextafter (exact by IEEE 754): logarithms and
// exponentials are own code (math_f64.h), so the same seed gives the same
// indices natively and in both wasm builds.
#pragma once
#include <cstddef>
#include <cstdint>

#include "candidates.h"
#include "smx/rng.h"
#include "smx/sampler.h"

namespace smx::steps {

// Scratch the steps share, each array with room for the vocabulary (spare:
// twice that; ints: for three times the history, plus one), reserved before
// the steps run.
struct Workspace {
  uint32_t* perm;
  uint32_t* spare;
  double* key;
  float* logprob;
  int32_t* ints;
  size_t min_keep;
  // false: every step takes its definition's path (sequential sums, every
  // probability); the bounded paths must give the same result (tested).
  bool bounded = true;
};

// The tokens accepted so far, oldest first.
struct History {
  const int32_t* tokens;
  size_t len;
};

// temperature.cpp: T' = t; t = 0 keeps the first maximum alone (greedy), t =
// +Infinity makes the candidates equally likely.
void temperature(Candidates& c, float t);
// llama.cpp temp_ext with range > 0: T' = lo + (hi - lo) (H / log m)^exponent
// from the entropy H at the temperature so far; T' <= 0 is greedy.
void dynamic_temperature(Candidates& c, const Workspace& w, float t, double range, double exponent);

// top_k.cpp: the first max(k, min_keep) candidates in the order (k = 0: off).
void top_k(Candidates& c, const Workspace& w, size_t k);

// top_p.cpp: the shortest prefix of the order whose mass reaches p.
void top_p(Candidates& c, const Workspace& w, double p);

// typical_p.cpp: the shortest prefix of the order by |-log p - H| whose mass
// reaches mass.
void typical_p(Candidates& c, const Workspace& w, double mass);

// thresholds.cpp: the steps that keep the candidates at or above a threshold.
// p >= m * p_max (within a relative kMassSlack).
void min_p(Candidates& c, const Workspace& w, double m);
// logit >= max - n * std (population std of the logits, double precision).
void top_n_sigma(Candidates& c, const Workspace& w, double n);
// p >= e.
void epsilon_cutoff(Candidates& c, const Workspace& w, double e);
// p >= min(e, sqrt(e) exp(-H)).
void eta_cutoff(Candidates& c, const Workspace& w, double e);
// The candidates for which keep(p) holds; if fewer than min_keep would
// remain, the first min_keep in the order.
template <class Keep>
void keep_at_least_min(Candidates& c, const Workspace& w, Keep keep) {
  size_t kept = 0;
  for (size_t p = 0; p < c.size; ++p) kept += keep(p) ? 1u : 0u;
  if (kept == c.size) return;
  if (kept < w.min_keep) return top_k(c, w, w.min_keep);
  c.retain_if(keep);
}

// The candidates whose probability (softmax's output at the temperature so
// far) is >= theta, at least min_keep: decided by their logits where the
// rounding of every probability on either side is known (softmax_parts.h),
// by the probability itself near the threshold; all positions when the
// logits cannot decide (theta near the subnormal range).
void keep_prob_at_least(Candidates& c, const Workspace& w, double theta);

// xtc.cpp: llama.cpp XTC, its coin drawn from `coin`.
void xtc(Candidates& c, const Workspace& w, Pcg32& coin, double probability, double threshold);

// mirostat.cpp: llama.cpp mirostat (version 1 with m = kMirostatM over a
// vocabulary of `vocab`) and mirostat_v2, at the state mu.
void mirostat(Candidates& c, const Workspace& w, int version, double mu, size_t vocab);
// mu after drawing an entry of probability p: mu - eta (-log2 p - tau).
double mirostat_next_mu(double mu, double tau, double eta, double p);

// dry.cpp: llama.cpp DRY over the history, single-token sequence breakers
// (sorted, unique).
void dry(Candidates& c, const Workspace& w, const SamplerOptions& o, History h,
         const int32_t* breakers, size_t breakers_len);

// no_repeat_ngram.cpp: HF NoRepeatNGramLogitsProcessor over the whole history.
// A hard ban (min_keep does not apply); false, and the candidates untouched,
// when it would ban every candidate.
bool no_repeat_ngram(Candidates& c, const Workspace& w, size_t n, History h);

// penalties.cpp: over the logits of the whole vocabulary, before the
// candidates exist. Each returns false, with *bad the offending token, when a
// token is >= n.
// logits[index[i]] += bias[i] (a bias of -Infinity sets -Infinity).
bool apply_logit_bias(float* logits, size_t n, const uint32_t* index, const float* bias,
                      size_t count, size_t* bad);
// Whether apply_penalties would change anything.
bool penalties_active(const SamplerOptions& o, size_t history_len);
// Repetition, frequency and presence penalties over the last penalty_last_n
// tokens of h; scratch has room for that window.
bool apply_penalties(float* logits, size_t n, const SamplerOptions& o, History h, uint32_t* scratch,
                     size_t* bad);

}  // namespace smx::steps
