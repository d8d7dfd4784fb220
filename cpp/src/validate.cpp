// validate(): every option of SamplerOptions in range, and an order that holds
// every enabled step once.
#include <limits>

#include "smx/sampler.h"

namespace smx {

namespace {

bool finite(float v) { return v == v && v - v == 0.0f; }
bool finite_d(double v) { return v == v && v - v == 0.0; }
bool in01(double v) { return v >= 0.0 && v <= 1.0; }

bool steps_valid(const SamplerOptions& o) {
  if (o.order_len < 0 || o.order_len > kNumSteps) return false;
  bool seen[kNumSteps] = {};
  for (int i = 0; i < o.order_len; ++i) {
    const auto s = static_cast<int32_t>(o.order[i]);
    if (s < 0 || s >= kNumSteps || seen[s]) return false;
    seen[s] = true;
  }
  // With dynatemp on, the dynatemp step applies the temperature.
  const bool enabled[kNumSteps] = {o.temperature != 1.0f && !(o.dynatemp_range > 0.0),
                                   o.top_k != 0,
                                   o.top_p<1.0, o.min_p> 0.0,
                                   o.typical_p<1.0, o.top_n_sigma> 0.0,
                                   o.xtc_probability > 0.0,
                                   o.mirostat != 0,
                                   o.dynatemp_range > 0.0,
                                   o.epsilon_cutoff > 0.0,
                                   o.eta_cutoff > 0.0,
                                   o.dry_multiplier > 0.0f,
                                   o.no_repeat_ngram_size > 0};
  for (int s = 0; s < kNumSteps; ++s)
    if (enabled[s] && !seen[s]) return false;
  return true;
}

bool further_steps_valid(const SamplerOptions& o) {
  const bool dry_ok = o.dry_multiplier >= 0.0f && finite_d(o.dry_multiplier) &&
                      o.dry_base >= 1.0f && finite_d(o.dry_base) && o.dry_allowed_length >= 0 &&
                      o.dry_penalty_last_n >= -1;
  const bool dyn_ok = o.dynatemp_range >= 0.0 && finite_d(o.dynatemp_range) &&
                      o.dynatemp_exponent >= 0.0 && finite_d(o.dynatemp_exponent) &&
                      (o.dynatemp_range == 0.0 || finite_d(o.temperature));
  return o.top_n_sigma >= 0.0 && finite_d(o.top_n_sigma) && in01(o.xtc_probability) &&
         in01(o.xtc_threshold) && o.mirostat >= 0 && o.mirostat <= 2 && o.mirostat_tau >= 0.0 &&
         finite_d(o.mirostat_tau) && o.mirostat_eta >= 0.0 && finite_d(o.mirostat_eta) &&
         o.epsilon_cutoff >= 0.0 && o.epsilon_cutoff < 1.0 && o.eta_cutoff >= 0.0 &&
         o.eta_cutoff < 1.0 && dry_ok && dyn_ok;
}

}  // namespace

SampleStatus validate(const SamplerOptions& o) {
  const bool ok = o.temperature >= 0.0f && o.top_p > 0.0 && o.top_p <= 1.0 && o.min_p >= 0.0 &&
                  o.min_p <= 1.0 && o.typical_p > 0.0 && o.typical_p <= 1.0 && o.min_keep >= 1 &&
                  o.repetition_penalty > 0.0f && finite(o.repetition_penalty) &&
                  finite(o.frequency_penalty) && finite(o.presence_penalty) &&
                  o.penalty_last_n >= -1 && further_steps_valid(o) && steps_valid(o);
  return ok ? SampleStatus::kOk : SampleStatus::kBadOption;
}

}  // namespace smx
