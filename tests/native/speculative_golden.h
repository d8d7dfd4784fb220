// Golden sequences of token masks and draft verification: (scores, mask,
// options, seed) -> draws, and (target rows, draft rows, draft tokens, options,
// seed) -> verify_draft's results, round after round.
// tools/make_speculative_golden.cpp writes tests/golden/speculative.json from
// the native build; speculative_golden_test.cpp checks that the file still
// matches it; tests/js/speculative.golden.test.js and tests/browser/run.mjs
// replay it in both wasm builds.
//
// Hash scores as in sampler_golden.h. Hash masks over n tokens: word w is
//   uint32((w + salt) * 2246822519) & uint32((w + salt + 1) * 3266489917),
// with bit 0 of word 0 set (about a quarter of the tokens allowed).
// Verification rows: target row j = hash scores (n, salt + j, scale); draft
// row j = the core's softmax of (target row j + hash scores (n, draftSalt + j,
// 0, 1)) in float32; the draft tokens of round r at position j: the draft
// row's argmax when (r + j) % 3 != 2, else uint32((r * 31 + j) * 2654435761) % n.
#pragma once
#include <string>
#include <vector>

#include "sampler_golden.h"
#include "smx/sampler.h"
#include "smx/softmax.h"

namespace golden_spec {

inline std::vector<uint32_t> hash_mask(uint32_t n, uint32_t salt) {
  std::vector<uint32_t> m(smx::mask_words(n));
  for (uint32_t w = 0; w < m.size(); ++w)
    m[w] = ((w + salt) * 2246822519u) & ((w + salt + 1) * 3266489917u);
  m[0] |= 1u;
  return m;
}

struct Masked {
  std::string name;
  golden::Hash hash;
  uint32_t mask_salt;
  smx::SamplerOptions opts;
  uint64_t seed;
  size_t draws = 300;
};

struct Verify {
  std::string name;
  uint32_t n, salt, draft_salt;
  double scale;
  uint32_t k;
  smx::SamplerOptions opts;
  uint64_t seed;
  uint32_t mask_salt = 0;  // 0: no mask; else row j's mask is hash_mask(n, mask_salt + j)
  size_t rounds = 100;
};

inline smx::SamplerOptions opt(void (*edit)(smx::SamplerOptions&)) { return golden::with(edit); }

inline std::vector<Masked> masked_cases() {
  return {
      {"32000 logits, top-k 40 (the fast path)",
       {32000, 3, 0, 16},
       11,
       opt([](smx::SamplerOptions& o) { o.top_k = 40; }),
       7},
      {"32000 logits, T 0.8, top-p 0.9",
       {32000, 5, 0, 12},
       12,
       opt([](smx::SamplerOptions& o) { o.temperature = 0.8f, o.top_p = 0.9; }),
       8},
      {"151936 logits, 5% -Infinity, top-k 40, T 0.7",
       {151936, 9, 13, 14},
       13,
       opt([](smx::SamplerOptions& o) { o.top_k = 40, o.temperature = 0.7f; }),
       9},
      {"1000 logits, min-p 0.05, min-keep 20",
       {1000, 17, 0, 8},
       14,
       opt([](smx::SamplerOptions& o) { o.min_p = 0.05, o.min_keep = 20; }),
       10},
  };
}

inline std::vector<Verify> verify_cases() {
  return {
      {"k 4, 1000 logits, T 1", 1000, 100, 200, 8, 4, smx::SamplerOptions{}, 21},
      {"k 4, 32000 logits, T 0.8, top-k 40, top-p 0.95", 32000, 300, 400, 12, 4,
       opt([](smx::SamplerOptions& o) { o.temperature = 0.8f, o.top_k = 40, o.top_p = 0.95; }), 22},
      {"k 2, 1000 logits, T 0 (greedy)", 1000, 500, 600, 8, 2,
       opt([](smx::SamplerOptions& o) { o.temperature = 0; }), 23},
      {"k 3, 1000 logits, masks per position, min-p 0.02", 1000, 700, 800, 6, 3,
       opt([](smx::SamplerOptions& o) { o.min_p = 0.02; }), 24, 30},
  };
}

inline std::vector<int32_t> run_masked(const Masked& c) {
  smx::Sampler s;
  if (s.configure(c.opts) != smx::SampleStatus::kOk) return {};
  s.seed(c.seed);
  const auto x = golden::hash_scores(c.hash);
  const auto m = hash_mask(c.hash.n, c.mask_salt);
  std::vector<int32_t> out(c.draws);
  for (auto& t : out)
    if (s.sample(x.data(), x.size(), &t, m.data()) != smx::SampleStatus::kOk) return {};
  return out;
}

// The rows of a verification case: target (k + 1) x n, draft k x n, masks (k + 1) rows.
struct Rows {
  std::vector<float> target, draft;
  std::vector<uint32_t> mask;
};

inline Rows rows_of(const Verify& c) {
  Rows r;
  for (uint32_t j = 0; j <= c.k; ++j) {
    const auto t = golden::hash_scores({c.n, c.salt + j, 0, c.scale});
    r.target.insert(r.target.end(), t.begin(), t.end());
    if (c.mask_salt != 0) {
      const auto m = hash_mask(c.n, c.mask_salt + j);
      r.mask.insert(r.mask.end(), m.begin(), m.end());
    }
    if (j == c.k) break;
    auto d = golden::hash_scores({c.n, c.draft_salt + j, 0, 1});
    for (uint32_t i = 0; i < c.n; ++i) d[i] = t[i] + d[i];
    std::vector<float> q(c.n);
    smx::softmax(d.data(), q.data(), smx::Layout{1, c.n, 1}, smx::Options{});
    r.draft.insert(r.draft.end(), q.begin(), q.end());
  }
  return r;
}

// Per round: accepted, then the accepted + 1 tokens.
inline std::vector<int32_t> run_verify(const Verify& c) {
  smx::Sampler s;
  if (s.configure(c.opts) != smx::SampleStatus::kOk) return {};
  s.seed(c.seed);
  const Rows r = rows_of(c);
  std::vector<int32_t> res, draft(c.k), out(c.k + 1);
  for (size_t round = 0; round < c.rounds; ++round) {
    for (uint32_t j = 0; j < c.k; ++j) {
      const float* q = r.draft.data() + static_cast<size_t>(j) * c.n;
      draft[j] =
          (round + j) % 3 != 2
              ? static_cast<int32_t>(smx::argmax(q, c.n))
              : static_cast<int32_t>(static_cast<uint32_t>((round * 31 + j) * 2654435761u) % c.n);
    }
    size_t a = 0;
    if (s.verify_draft(draft.data(), r.draft.data(), c.k, r.target.data(), c.n, out.data(), &a,
                       c.mask_salt != 0 ? r.mask.data() : nullptr) != smx::SampleStatus::kOk)
      return {};
    res.push_back(static_cast<int32_t>(a));
    res.insert(res.end(), out.begin(), out.begin() + static_cast<long>(a) + 1);
  }
  return res;
}

inline std::string list(const std::vector<int32_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s + "]";
}

inline std::string options_of(const smx::SamplerOptions& o) {
  golden::Case c;
  c.opts = o;
  return golden::options_json(c);
}

inline std::string json() {
  std::string s =
      "{\n  \"about\": \"softmax-wasm golden sequences of token masks and draft verification, "
      "written by tests/native/tools/make_speculative_golden.cpp from the native build; hash "
      "scores, masks and rows: see tests/native/speculative_golden.h\",\n  \"masked\": [\n";
  const auto ms = masked_cases();
  for (size_t i = 0; i < ms.size(); ++i) {
    const Masked& c = ms[i];
    s += "    {\"name\": \"" + c.name +
         "\", \"scores\": {\"hash\": {\"n\": " + std::to_string(c.hash.n) +
         ", \"salt\": " + std::to_string(c.hash.salt) +
         ", \"maskedBelow\": " + std::to_string(c.hash.masked_below) +
         ", \"scale\": " + golden::num(c.hash.scale, false) +
         "}}, \"maskSalt\": " + std::to_string(c.mask_salt) +
         ", \"options\": " + options_of(c.opts) + ", \"seed\": \"" + std::to_string(c.seed) +
         "\",\n     \"draws\": " + list(run_masked(c)) + "}" + (i + 1 < ms.size() ? "," : "") +
         "\n";
  }
  s += "  ],\n  \"verify\": [\n";
  const auto vs = verify_cases();
  for (size_t i = 0; i < vs.size(); ++i) {
    const Verify& c = vs[i];
    s += "    {\"name\": \"" + c.name + "\", \"n\": " + std::to_string(c.n) +
         ", \"salt\": " + std::to_string(c.salt) +
         ", \"draftSalt\": " + std::to_string(c.draft_salt) +
         ", \"scale\": " + golden::num(c.scale, false) + ", \"k\": " + std::to_string(c.k) +
         ", \"maskSalt\": " + std::to_string(c.mask_salt) +
         ", \"rounds\": " + std::to_string(c.rounds) + ", \"options\": " + options_of(c.opts) +
         ", \"seed\": \"" + std::to_string(c.seed) +
         "\",\n     \"results\": " + list(run_verify(c)) + "}" + (i + 1 < vs.size() ? "," : "") +
         "\n";
  }
  return s + "  ]\n}\n";
}

}  // namespace golden_spec
