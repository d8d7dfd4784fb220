// The option table (cpp/include/smx/sampler_options.h) as data, and the one
// validate() that every way into a sampler goes through.
#include "smx/sampler_options.h"

namespace smx {

namespace {

using namespace option_limits;

constexpr OptionType type_of(float*) { return OptionType::kFloat32; }
constexpr OptionType type_of(double*) { return OptionType::kFloat64; }
constexpr OptionType type_of(uint32_t*) { return OptionType::kUint32; }
constexpr OptionType type_of(int32_t*) { return OptionType::kInt32; }

template <typename T>
bool in_range(T value, const OptionInfo& r) {
  const double v = static_cast<double>(value);  // exact for every type in the table
  if (v != v) return false;
  const bool lo_ok = r.lo_open ? v > r.lo : v >= r.lo;
  const bool hi_ok = r.hi_open ? v < r.hi : v <= r.hi;
  return lo_ok && hi_ok;
}

}  // namespace

const OptionInfo kOptionInfo[kNumOptions] = {
#define SMX_ROW(js, member, type, lo, lo_open, hi, hi_open, def, step, doc) \
  {#js, type_of(static_cast<type*>(nullptr)), lo, hi, lo_open, hi_open, def, step},
    SMX_SAMPLER_NUMBERS(SMX_ROW)
#undef SMX_ROW
};

const ListOptionInfo kListOptionInfo[kNumListOptions] = {
#define SMX_ROW(js, kind, step, doc) {#js, kind, step},
    SMX_SAMPLER_LISTS(SMX_ROW)
#undef SMX_ROW
};

bool step_enabled(const SamplerOptions& o, Step step) {
  switch (step) {
    // With dynatemp on, the dynatemp step applies the temperature.
    case Step::kTemperature:
      return o.temperature != 1.0f && !(o.dynatemp_range > 0.0);
    case Step::kTopK:
      return o.top_k != 0;
    case Step::kTopP:
      return o.top_p < 1.0;
    case Step::kMinP:
      return o.min_p > 0.0;
    case Step::kTypicalP:
      return o.typical_p < 1.0;
    case Step::kTopNSigma:
      return o.top_n_sigma > 0.0;
    case Step::kXtc:
      return o.xtc_probability > 0.0;
    case Step::kMirostat:
      return o.mirostat != 0;
    case Step::kDynatemp:
      return o.dynatemp_range > 0.0;
    case Step::kEpsilonCutoff:
      return o.epsilon_cutoff > 0.0;
    case Step::kEtaCutoff:
      return o.eta_cutoff > 0.0;
    case Step::kDry:
      return o.dry_multiplier > 0.0f;
    case Step::kNoRepeatNgram:
      return o.no_repeat_ngram_size > 0;
  }
  return false;
}

OptionCheck validate(const SamplerOptions& o) {
  OptionCheck c;
#define SMX_CHECK(js, member, ...)                                        \
  if (!in_range(o.member, kOptionInfo[static_cast<int>(OptionId::js)])) { \
    c.kind = OptionCheck::kOutOfRange;                                    \
    c.option = static_cast<int32_t>(OptionId::js);                        \
    return c;                                                             \
  }
  SMX_SAMPLER_NUMBERS(SMX_CHECK)
#undef SMX_CHECK
  if (o.dynatemp_range > 0.0 && !(o.temperature < static_cast<float>(kInf))) {
    c.kind = OptionCheck::kNeedsFiniteT;
    return c;
  }
  if (o.order_len < 0 || o.order_len > kNumSteps) {
    c.kind = OptionCheck::kBadOrder;
    return c;
  }
  bool seen[kNumSteps] = {};
  for (int i = 0; i < o.order_len; ++i) {
    const auto s = static_cast<int32_t>(o.order[i]);
    if (s < 0 || s >= kNumSteps || seen[s]) {
      c.kind = OptionCheck::kBadOrder;
      return c;
    }
    seen[s] = true;
  }
  for (int s = 0; s < kNumSteps; ++s) {
    if (step_enabled(o, static_cast<Step>(s)) && !seen[s]) {
      c.kind = OptionCheck::kMissingStep;
      c.step = s;
      return c;
    }
  }
  return c;
}

}  // namespace smx
