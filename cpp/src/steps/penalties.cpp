// What changes the logits of the whole vocabulary before the candidates exist:
// the logit bias, and the repetition (CTRL / llama.cpp / HF), frequency and
// presence (OpenAI) penalties over the recent history.
#include <algorithm>
#include <limits>

#include "select.h"
#include "steps/steps.h"

namespace smx::steps {

bool apply_logit_bias(float* logits, size_t n, const uint32_t* index, const float* bias,
                      size_t count, size_t* bad) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  for (size_t i = 0; i < count; ++i) {
    const uint32_t j = index[i];
    if (j >= n) {
      *bad = j;
      return false;
    }
    logits[j] = bias[i] == -kInf ? -kInf : logits[j] + bias[i];
  }
  return true;
}

bool penalties_active(const SamplerOptions& o, size_t history_len) {
  const bool neutral =
      o.repetition_penalty == 1.0f && o.frequency_penalty == 0.0f && o.presence_penalty == 0.0f;
  return !neutral && o.penalty_last_n != 0 && history_len != 0;
}

bool apply_penalties(float* logits, size_t n, const SamplerOptions& o, History hist,
                     uint32_t* scratch, size_t* bad) {
  if (!penalties_active(o, hist.len)) return true;
  size_t w = hist.len;
  if (o.penalty_last_n > 0) w = std::min(w, static_cast<size_t>(o.penalty_last_n));
  uint32_t* win = scratch;
  const int32_t* h = hist.tokens + hist.len - w;
  for (size_t i = 0; i < w; ++i) {
    if (static_cast<size_t>(h[i]) >= n) {
      *bad = static_cast<size_t>(h[i]);
      return false;
    }
    win[i] = static_cast<uint32_t>(h[i]);
  }
  sel::sort_indices(win, w);  // integers: the result is unique
  const float big = std::numeric_limits<float>::max();
  for (size_t i = 0; i < w;) {
    size_t j = i;
    while (j < w && win[j] == win[i]) ++j;
    float& l = logits[win[i]];
    // Penalties move finite scores only: a masked -Infinity stays masked (and
    // -Infinity - (-Infinity) would be NaN when a penalty overflows).
    if (l - l == 0.0f) {
      // A penalty never takes a finite score out of the finite range (an
      // overflow to -Infinity would then meet -Infinity - (-Infinity) = NaN,
      // and +Infinity would share the mass with scores that are +Infinity).
      if (o.repetition_penalty != 1.0f) {
        l = l > 0.0f ? l / o.repetition_penalty : l * o.repetition_penalty;
        l = std::min(std::max(l, -big), big);
      }
      l = l - (static_cast<float>(j - i) * o.frequency_penalty + o.presence_penalty);
      l = std::min(std::max(l, -big), big);
    }
    i = j;
  }
  return true;
}

}  // namespace smx::steps
