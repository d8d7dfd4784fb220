// The golden sampling cases: (scores, options, seed) -> the first 1,000
// sampled indices. tools/make_sampler_golden.cpp writes tests/golden/
// sampler.json from the native build; sampler_test.cpp checks that the file
// still matches it; tests/js/sampler.golden.test.js checks both wasm builds.
//
// Large score vectors are not stored: "hash" scores are
//   h = uint32((i + salt) * 2654435761), x_i = float32(((h >> 8) / 2^24 - 0.5) * scale),
// and -Infinity where (h & 255) < maskedBelow; exact in C++ and in JavaScript.
#pragma once
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "smx/sampler.h"

namespace golden {

struct Hash {
  uint32_t n = 0, salt = 0, masked_below = 0;
  double scale = 1;
};

inline std::vector<float> hash_scores(const Hash& h) {
  std::vector<float> x(h.n);
  for (uint32_t i = 0; i < h.n; ++i) {
    const uint32_t v = (i + h.salt) * 2654435761u;
    x[i] = (v & 255u) < h.masked_below
               ? -std::numeric_limits<float>::infinity()
               : static_cast<float>((static_cast<double>(v >> 8) / 16777216.0 - 0.5) * h.scale);
  }
  return x;
}

struct Case {
  std::string name;
  std::vector<float> values;  // explicit scores, or
  Hash hash;                  // hash scores when values is empty
  smx::SamplerOptions opts;
  std::string order;  // JSON of the order option; "" = default
  std::vector<std::pair<uint32_t, float>> bias;
  std::vector<int32_t> history;
  uint64_t seed = 0;
  bool accept = false;  // accept(token) after each draw
  size_t draws = 1000;

  std::vector<float> scores() const { return values.empty() ? hash_scores(hash) : values; }
};

inline smx::SamplerOptions with(void (*edit)(smx::SamplerOptions&)) {
  smx::SamplerOptions o;
  edit(o);
  return o;
}

inline void set_order(smx::SamplerOptions& o, std::initializer_list<smx::Step> steps) {
  o.order_len = 0;
  for (smx::Step s : steps) o.order[o.order_len++] = s;
}

inline std::vector<Case> cases() {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  using smx::Step;
  std::vector<Case> c;
  c.push_back({"course [2, 1, 0]", {2, 1, 0}, {}, {}, "", {}, {}, 42});
  c.push_back({"[2, 1, 0] at T = 0.5",
               {2, 1, 0},
               {},
               with([](auto& o) { o.temperature = 0.5f; }),
               "",
               {},
               {},
               7});
  c.push_back({"32000 logits, T 0.8, top-k 40, top-p 0.95, 64-bit seed",
               {},
               {32000, 1, 0, 16},
               with([](auto& o) { o.temperature = 0.8f, o.top_k = 40, o.top_p = 0.95; }),
               "",
               {},
               {},
               (1ull << 40) + 5});
  c.push_back({"151936 logits, T 0.8, top-p 0.95",
               {},
               {151936, 2, 0, 20},
               with([](auto& o) { o.temperature = 0.8f, o.top_p = 0.95; }),
               "",
               {},
               {},
               123});
  c.push_back(
      {"128256 logits, llama.cpp order, top-k 50, typical 0.9, min-p 0.05, T 1.3",
       {},
       {128256, 3, 8, 18},
       with([](auto& o) {
         o.temperature = 1.3f, o.top_k = 50, o.typical_p = 0.9, o.min_p = 0.05;
         set_order(o, {Step::kTopK, Step::kTypicalP, Step::kTopP, Step::kMinP, Step::kTemperature});
       }),
       "\"llama.cpp\"",
       {},
       {},
       99});
  c.push_back({"ties and masks, min-p 0.1",
               {1, 3, -kInf, 3, 0.5f, 2, 2, -kInf, 3, -1, 0, 2.5f, -kInf, 1, 1, 3, -2, 0, 2, 1},
               {},
               with([](auto& o) { o.min_p = 0.1; }),
               "",
               {},
               {},
               5});
  c.push_back({"penalties over accepted tokens",
               {},
               {5000, 4, 0, 6},
               with([](auto& o) {
                 o.repetition_penalty = 1.3f, o.frequency_penalty = 0.5f, o.presence_penalty = 0.4f;
                 o.penalty_last_n = 32, o.top_k = 200;
               }),
               "",
               {},
               {17, 17, 4000},
               11,
               true});
  c.push_back({"logit bias",
               {},
               {1000, 5, 0, 8},
               with([](auto& o) { o.temperature = 1.2f; }),
               "",
               {{3, 5.0f}, {10, -kInf}, {999, 2.5f}},
               {},
               3});
  c.push_back({"T = Infinity with masks",
               {},
               {100, 6, 64, 4},
               with([](auto& o) { o.temperature = kInf; }),
               "",
               {},
               {},
               8});
  c.push_back({"explicit order [topK, temperature, topP], max uint32 seed",
               {},
               {2000, 7, 0, 12},
               with([](auto& o) {
                 o.top_k = 100, o.temperature = 0.6f, o.top_p = 0.8;
                 set_order(o, {Step::kTopK, Step::kTemperature, Step::kTopP});
               }),
               "[\"topK\", \"temperature\", \"topP\"]",
               {},
               {},
               0xFFFFFFFFull});
  c.push_back(
      {"greedy", {}, {1000, 8, 0, 10}, with([](auto& o) { o.temperature = 0.0f; }), "", {}, {}, 1});
  c.push_back({"typical 0.5 with min-keep 3",
               {},
               {300, 9, 20, 6},
               with([](auto& o) { o.typical_p = 0.5, o.min_keep = 3; }),
               "",
               {},
               {},
               2024});
  return c;
}

// The first c.draws indices, as sample() gives them one call at a time.
inline std::vector<int32_t> run(const Case& c) {
  smx::Sampler s;
  if (s.configure(c.opts) != smx::SampleStatus::kOk) return {};
  std::vector<uint32_t> idx;
  std::vector<float> val;
  for (const auto& b : c.bias) idx.push_back(b.first), val.push_back(b.second);
  s.set_logit_bias(idx.data(), val.data(), idx.size());
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

inline std::string num(double v, bool single) {
  if (v == std::numeric_limits<double>::infinity()) return "\"Infinity\"";
  if (v == -std::numeric_limits<double>::infinity()) return "\"-Infinity\"";
  char b[40];
  std::snprintf(b, sizeof b, single ? "%.9g" : "%.17g", v);
  return b;
}

// The numeric options that differ from the defaults, as JSON fields in the
// option table's order (float32 options with 9 digits, float64 with 17).
inline std::vector<std::string> changed_options_json(const smx::SamplerOptions& o) {
  const smx::SamplerOptions d;
  std::vector<std::string> f;
  auto text = [](auto v) {
    using T = decltype(v);
    if constexpr (std::is_same_v<T, float>) return num(v, true);
    if constexpr (std::is_same_v<T, double>) return num(v, false);
    if constexpr (std::is_integral_v<T>) return std::to_string(v);
  };
#define SMX_FIELD(js, member, ...) \
  if (o.member != d.member) f.push_back(std::string("\"" #js "\": ") + text(o.member));
  SMX_SAMPLER_NUMBERS(SMX_FIELD)
#undef SMX_FIELD
  return f;
}

inline std::string options_json(const Case& c) {
  std::vector<std::string> f = changed_options_json(c.opts);
  auto add = [&](const char* k, const std::string& v) {
    f.push_back(std::string("\"") + k + "\": " + v);
  };
  if (!c.order.empty()) add("order", c.order);
  if (!c.bias.empty()) {
    std::string b = "{";
    for (const auto& e : c.bias)
      b += (b.size() > 1 ? ", \"" : "\"") + std::to_string(e.first) + "\": " + num(e.second, true);
    add("logitBias", b + "}");
  }
  if (!c.history.empty()) {
    std::string h = "[";
    for (int32_t t : c.history) h += (h.size() > 1 ? ", " : "") + std::to_string(t);
    add("history", h + "]");
  }
  std::string s = "{";
  for (size_t i = 0; i < f.size(); ++i) s += (i ? ", " : "") + f[i];
  return s + "}";
}

// A golden file's text, byte for byte, for any list of cases that have a name,
// literal values or hash scores, a seed and an accept flag; options_json and
// run say how a case's options read and what it draws.
template <typename Case, typename OptionsJson, typename Run>
std::string cases_json(const std::string& about, const std::vector<Case>& all,
                       OptionsJson options_json, Run run) {
  std::string s = "{\n  \"about\": \"" + about + "\",\n  \"cases\": [\n";
  for (size_t k = 0; k < all.size(); ++k) {
    const Case& c = all[k];
    s += "    {\n      \"name\": \"" + c.name + "\",\n      \"scores\": ";
    if (c.values.empty()) {
      s += "{\"hash\": {\"n\": " + std::to_string(c.hash.n) +
           ", \"salt\": " + std::to_string(c.hash.salt) +
           ", \"maskedBelow\": " + std::to_string(c.hash.masked_below) +
           ", \"scale\": " + num(c.hash.scale, false) + "}}";
    } else {
      s += "[";
      for (size_t i = 0; i < c.values.size(); ++i) s += (i ? ", " : "") + num(c.values[i], true);
      s += "]";
    }
    s += ",\n      \"options\": " + options_json(c) + ",\n      \"seed\": \"" +
         std::to_string(c.seed) + "\",\n      \"accept\": " + (c.accept ? "true" : "false") +
         ",\n      \"draws\": [";
    const auto d = run(c);
    for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
    s += "]\n    }" + std::string(k + 1 < all.size() ? "," : "") + "\n";
  }
  return s + "  ]\n}\n";
}

// The whole golden file, byte for byte.
inline std::string json() {
  return cases_json(
      "softmax-wasm sampler golden sequences, written by "
      "tests/native/tools/make_sampler_golden.cpp from the native build; hash scores: see "
      "tests/native/sampler_golden.h",
      cases(), options_json, run);
}

}  // namespace golden
