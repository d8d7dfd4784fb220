// The golden sampling cases of the further steps (top-n-sigma, XTC,
// mirostat, dynatemp, epsilon, eta, DRY, no-repeat n-gram): (scores, options,
// seed) -> the first 1,000 sampled indices. tools/make_sampler_steps_golden.cpp
// writes tests/golden/sampler_steps.json from the native build;
// sampler_steps_test.cpp checks that the file still matches it;
// tests/js/sampler.steps.test.js checks both wasm builds. Scores: explicit or
// the hash formula of sampler_golden.h.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "sampler_golden.h"

namespace golden_steps {

struct Case {
  std::string name;
  std::vector<float> values;  // explicit scores, or
  golden::Hash hash;          // hash scores when values is empty
  smx::SamplerOptions opts;
  std::string order;  // JSON of the order option; "" = default
  std::vector<int32_t> history;
  std::vector<int32_t> breakers;  // drySequenceBreakers
  uint64_t seed = 0;
  bool accept = false;  // accept(token) after each draw
  size_t draws = 1000;

  std::vector<float> scores() const { return values.empty() ? golden::hash_scores(hash) : values; }
};

inline smx::SamplerOptions with(void (*edit)(smx::SamplerOptions&)) {
  smx::SamplerOptions o;
  edit(o);
  return o;
}

inline void preset(smx::SamplerOptions& o, const smx::Step (&steps)[smx::kNumSteps]) {
  for (int i = 0; i < smx::kNumSteps; ++i) o.order[i] = steps[i];
  o.order_len = smx::kNumSteps;
}

inline std::vector<Case> cases() {
  using smx::Step;
  std::vector<Case> c;
  const std::vector<float> peaked = {3.0f,  2.9f,  2.8f,  2.5f,  2.4f,  1.0f, 0.5f,  0.0f,
                                     -0.5f, -1.0f, -1.5f, -2.0f, 2.45f, 2.8f, -3.0f, 0.25f};
  c.push_back({"top-n-sigma 1.0, 32000 logits, T 0.8",
               {},
               {32000, 21, 0, 16},
               with([](auto& o) { o.top_n_sigma = 1.0, o.temperature = 0.8f; }),
               "",
               {},
               {},
               17});
  c.push_back({"top-n-sigma 2.5 with masks, llama.cpp order",
               {},
               {5000, 22, 40, 10},
               with([](auto& o) {
                 o.top_n_sigma = 2.5, o.temperature = 1.2f;
                 preset(o, smx::kOrderLlamaCpp);
               }),
               "\"llama.cpp\"",
               {},
               {},
               18});
  c.push_back({"XTC probability 0.5, threshold 0.08 (ties)",
               peaked,
               {},
               with([](auto& o) { o.xtc_probability = 0.5, o.xtc_threshold = 0.08; }),
               "",
               {},
               {},
               19});
  c.push_back(
      {"XTC probability 1, threshold 0.002, 151936 logits, min-keep 3",
       {},
       {151936, 23, 0, 24},
       with([](auto& o) { o.xtc_probability = 1.0, o.xtc_threshold = 0.002, o.min_keep = 3; }),
       "",
       {},
       {},
       (1ull << 33) + 7});
  std::vector<float> zipf(400);  // Zipf(1.1) in a scrambled order (157 is prime to 400)
  for (size_t i = 0; i < zipf.size(); ++i)
    zipf[(i * 157) % 400] = static_cast<float>(-1.1 * std::log(i + 1.0));
  c.push_back({"mirostat 1, tau 3, eta 0.1, Zipf(1.1) over 400, accepted",
               zipf,
               {},
               with([](auto& o) { o.mirostat = 1, o.mirostat_tau = 3, o.mirostat_eta = 0.1; }),
               "",
               {},
               {},
               30,
               true});
  c.push_back({"mirostat 1, tau 5, eta 0.1, 32000 logits, accepted",
               {},
               {32000, 24, 0, 14},
               with([](auto& o) { o.mirostat = 1, o.mirostat_tau = 5, o.mirostat_eta = 0.1; }),
               "",
               {},
               {},
               20,
               true});
  c.push_back({"mirostat 2, tau 3, eta 0.2, T 0.9, 128256 logits, llama.cpp order",
               {},
               {128256, 25, 0, 18},
               with([](auto& o) {
                 o.mirostat = 2, o.mirostat_tau = 3, o.mirostat_eta = 0.2, o.temperature = 0.9f;
                 preset(o, smx::kOrderLlamaCpp);
               }),
               "\"llama.cpp\"",
               {},
               {},
               21});
  c.push_back({"dynatemp T 1, range 0.5, exponent 1, 5000 logits",
               {},
               {5000, 26, 0, 8},
               with([](auto& o) { o.dynatemp_range = 0.5, o.temperature = 1.0f; }),
               "",
               {},
               {},
               22});
  c.push_back({"dynatemp T 0.7, range 0.6, exponent 2, top-k 50, llama.cpp order",
               {},
               {32000, 27, 0, 12},
               with([](auto& o) {
                 o.dynatemp_range = 0.6, o.dynatemp_exponent = 2, o.temperature = 0.7f,
                 o.top_k = 50;
                 preset(o, smx::kOrderLlamaCpp);
               }),
               "\"llama.cpp\"",
               {},
               {},
               23});
  c.push_back({"epsilon 1e-4, 50000 logits",
               {},
               {50000, 28, 0, 12},
               with([](auto& o) { o.epsilon_cutoff = 1e-4; }),
               "",
               {},
               {},
               24});
  c.push_back({"eta 1e-3, 50000 logits, min-keep 2",
               {},
               {50000, 29, 0, 12},
               with([](auto& o) { o.eta_cutoff = 1e-3, o.min_keep = 2; }),
               "",
               {},
               {},
               25});
  c.push_back({"DRY 0.8 / 1.75 / 2 / all, breakers [0, 7], 40 tokens, accepted",
               {},
               {40, 30, 0, 3},
               with([](auto& o) { o.dry_multiplier = 0.8f; }),
               "",
               {1, 2, 3, 4, 1, 2, 3},
               {0, 7},
               26,
               true});
  c.push_back({"DRY 2 / 1.1 / 1 / last 32, 40 tokens, accepted",
               {},
               {40, 31, 0, 3},
               with([](auto& o) {
                 o.dry_multiplier = 2.0f, o.dry_base = 1.1f, o.dry_allowed_length = 1,
                 o.dry_penalty_last_n = 32;
               }),
               "",
               {},
               {},
               27,
               true});
  c.push_back({"no-repeat 3-gram, 100 tokens, accepted",
               {},
               {100, 32, 0, 4},
               with([](auto& o) { o.no_repeat_ngram_size = 3; }),
               "",
               {5, 6, 7, 5, 6},
               {},
               28,
               true});
  c.push_back({"every step on, llama.cpp order, 32000 logits, accepted",
               {},
               {32000, 33, 0, 14},
               with([](auto& o) {
                 o.temperature = 0.9f, o.top_k = 200, o.top_p = 0.95, o.min_p = 0.01;
                 o.top_n_sigma = 2.0, o.xtc_probability = 0.3, o.xtc_threshold = 0.05;
                 o.mirostat = 2, o.mirostat_tau = 4, o.dynatemp_range = 0.3,
                 o.epsilon_cutoff = 1e-4;
                 o.eta_cutoff = 1e-4, o.dry_multiplier = 0.8f, o.no_repeat_ngram_size = 4;
                 o.repetition_penalty = 1.1f;
                 preset(o, smx::kOrderLlamaCpp);
               }),
               "\"llama.cpp\"",
               {},
               {13, 0},
               29,
               true});
  c.push_back({"explicit order [dry, xtc, temperature, topNSigma, mirostat]",
               {},
               {2000, 34, 0, 10},
               with([](auto& o) {
                 o.dry_multiplier = 1.0f, o.xtc_probability = 0.7, o.xtc_threshold = 0.02;
                 o.temperature = 1.3f, o.top_n_sigma = 1.5, o.mirostat = 1, o.mirostat_tau = 4;
                 golden::set_order(o, {Step::kDry, Step::kXtc, Step::kTemperature, Step::kTopNSigma,
                                       Step::kMirostat});
               }),
               "[\"dry\", \"xtc\", \"temperature\", \"topNSigma\", \"mirostat\"]",
               {},
               {},
               0xFFFFFFFFull,
               true});
  return c;
}

// The first c.draws indices, as sample() gives them one call at a time.
inline std::vector<int32_t> run(const Case& c) {
  smx::Sampler s;
  if (s.configure(c.opts) != smx::SampleStatus::kOk) return {};
  if (s.set_dry_breakers(c.breakers.data(), c.breakers.size()) != smx::SampleStatus::kOk) return {};
  s.accept(c.history.data(), c.history.size());
  s.seed(c.seed);
  const std::vector<float> x = c.scores();
  std::vector<int32_t> out(c.draws);
  for (auto& t : out) {
    if (s.sample(x.data(), x.size(), &t) != smx::SampleStatus::kOk) return {};
    if (c.accept) s.accept(&t, 1);
  }
  return out;
}

inline std::string options_json(const Case& c) {
  std::vector<std::string> f = golden::changed_options_json(c.opts);
  auto add = [&](const char* k, const std::string& v) {
    f.push_back(std::string("\"") + k + "\": " + v);
  };
  auto ints = [](const std::vector<int32_t>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
  };
  if (!c.breakers.empty()) add("drySequenceBreakers", ints(c.breakers));
  if (!c.order.empty()) add("order", c.order);
  if (!c.history.empty()) add("history", ints(c.history));
  std::string s = "{";
  for (size_t i = 0; i < f.size(); ++i) s += (i ? ", " : "") + f[i];
  return s + "}";
}

// The whole golden file, byte for byte (its "about" line is the text the file
// was written with; the sequences, not the words, are what must not move).
inline std::string json() {
  return golden::cases_json(
      "softmax-wasm golden sequences of the sampler steps beyond the basic filters, written by "
      "tests/native/tools/make_sampler_steps_golden.cpp from the native build; hash scores: see "
      "tests/native/sampler_golden.h",
      cases(), options_json, run);
}

}  // namespace golden_steps
