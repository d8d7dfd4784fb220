// The option table: the struct's defaults, the table's rows and validate()
// agree, and every range is checked after the conversion to the member's type.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "smx/sampler.h"

namespace {

using smx::kNumOptions;
using smx::kOptionInfo;
using smx::OptionCheck;
using smx::OptionId;
using smx::SamplerOptions;

constexpr float kInfF = std::numeric_limits<float>::infinity();

int id(OptionId o) { return static_cast<int>(o); }

TEST(SamplerOptions, DefaultsAreValidAndMatchTheTable) {
  const SamplerOptions o;
  EXPECT_TRUE(smx::validate(o).ok());
  // Each row's default is the struct member's default.
  int i = 0;
#define SMX_DEFAULT(js, member, ...)                                             \
  EXPECT_EQ(static_cast<double>(o.member), kOptionInfo[i].default_value) << #js; \
  EXPECT_STREQ(kOptionInfo[i].name, #js);                                        \
  ++i;
  SMX_SAMPLER_NUMBERS(SMX_DEFAULT)
#undef SMX_DEFAULT
  EXPECT_EQ(i, kNumOptions);
}

TEST(SamplerOptions, NoStepIsEnabledByDefault) {
  const SamplerOptions o;
  for (int s = 0; s < smx::kNumSteps; ++s)
    EXPECT_FALSE(smx::step_enabled(o, static_cast<smx::Step>(s))) << s;
}

TEST(SamplerOptions, OutOfRangeNamesTheOption) {
  struct Case {
    void (*edit)(SamplerOptions&);
    OptionId expect;
  };
  const Case cases[] = {
      {[](SamplerOptions& o) { o.temperature = -1.0f; }, OptionId::temperature},
      {[](SamplerOptions& o) { o.temperature = std::nanf(""); }, OptionId::temperature},
      {[](SamplerOptions& o) { o.top_p = 0.0; }, OptionId::topP},
      {[](SamplerOptions& o) { o.top_p = 1.5; }, OptionId::topP},
      {[](SamplerOptions& o) { o.min_p = -0.1; }, OptionId::minP},
      {[](SamplerOptions& o) { o.min_keep = 0; }, OptionId::minKeep},
      // What a double of 1e-46 or 1e39 becomes as a float32: 0 and Infinity.
      {[](SamplerOptions& o) { o.repetition_penalty = static_cast<float>(1e-46); },
       OptionId::repetitionPenalty},
      {[](SamplerOptions& o) { o.repetition_penalty = kInfF; }, OptionId::repetitionPenalty},
      {[](SamplerOptions& o) { o.frequency_penalty = kInfF; }, OptionId::frequencyPenalty},
      {[](SamplerOptions& o) { o.presence_penalty = -kInfF; }, OptionId::presencePenalty},
      {[](SamplerOptions& o) { o.penalty_last_n = -2; }, OptionId::penaltyLastN},
      {[](SamplerOptions& o) { o.mirostat = 3; }, OptionId::mirostat},
      {[](SamplerOptions& o) { o.epsilon_cutoff = 1.0; }, OptionId::epsilonCutoff},
      {[](SamplerOptions& o) { o.dry_base = 0.5f; }, OptionId::dryBase},
      {[](SamplerOptions& o) { o.dry_multiplier = kInfF; }, OptionId::dryMultiplier},
      {[](SamplerOptions& o) { o.top_n_sigma = std::numeric_limits<double>::infinity(); },
       OptionId::topNSigma},
  };
  for (const Case& c : cases) {
    SamplerOptions o;
    c.edit(o);
    const OptionCheck r = smx::validate(o);
    EXPECT_EQ(r.kind, OptionCheck::kOutOfRange) << kOptionInfo[id(c.expect)].name;
    EXPECT_EQ(r.option, id(c.expect)) << kOptionInfo[id(c.expect)].name;
  }
}

TEST(SamplerOptions, BoundsThemselves) {
  SamplerOptions o;
  o.temperature = kInfF;  // the uniform limit: allowed
  o.top_p = 1.0;
  o.min_p = 1.0;
  o.xtc_threshold = 0.0;
  EXPECT_TRUE(smx::validate(o).ok());
  o.temperature = 0.0f;  // greedy: allowed
  EXPECT_TRUE(smx::validate(o).ok());
}

TEST(SamplerOptions, OrderChecks) {
  SamplerOptions o;
  o.top_k = 5;
  o.order_len = 1;
  o.order[0] = smx::Step::kTopP;
  OptionCheck r = smx::validate(o);
  EXPECT_EQ(r.kind, OptionCheck::kMissingStep);
  EXPECT_EQ(r.step, static_cast<int>(smx::Step::kTopK));
  o.order_len = 2;
  o.order[1] = smx::Step::kTopP;  // twice
  EXPECT_EQ(smx::validate(o).kind, OptionCheck::kBadOrder);
  o.order[1] = static_cast<smx::Step>(13);  // unknown
  EXPECT_EQ(smx::validate(o).kind, OptionCheck::kBadOrder);
  o.order[1] = smx::Step::kTopK;
  EXPECT_TRUE(smx::validate(o).ok());
  o.order_len = 14;
  EXPECT_EQ(smx::validate(o).kind, OptionCheck::kBadOrder);
}

TEST(SamplerOptions, DynatempNeedsAFiniteTemperature) {
  SamplerOptions o;
  o.dynatemp_range = 0.5;
  o.temperature = kInfF;
  EXPECT_EQ(smx::validate(o).kind, OptionCheck::kNeedsFiniteT);
  o.temperature = 0.7f;
  EXPECT_TRUE(smx::validate(o).ok());
}

TEST(SamplerOptions, PresetsListEveryStepOnce) {
  for (const smx::Step* order : {smx::kOrderHf, smx::kOrderLlamaCpp}) {
    bool seen[smx::kNumSteps] = {};
    for (int i = 0; i < smx::kNumSteps; ++i) {
      const int s = static_cast<int>(order[i]);
      ASSERT_GE(s, 0);
      ASSERT_LT(s, smx::kNumSteps);
      EXPECT_FALSE(seen[s]);
      seen[s] = true;
    }
  }
  // The struct's default order is the HF preset.
  const SamplerOptions o;
  EXPECT_EQ(std::memcmp(o.order, smx::kOrderHf, sizeof o.order), 0);
}

}  // namespace
