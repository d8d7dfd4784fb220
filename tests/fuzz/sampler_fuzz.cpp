// libFuzzer target of smx::Sampler: bytes -> options (temperature,
// top-k, top-p, min-p, typical-p, min_keep, penalties, step order), logit bias,
// history, seed and scores rich in NaN, +-Infinity, denormals and +-FLT_MAX.
// Invariants, not just "no crash":
//   - configure: kBadOption for every option out of range, and then no change;
//   - every call returns the same status (probs, sample, sample_many, logprobs);
//     kEmpty iff n == 0, kNaNScore names a NaN score, kBadToken names a bias
//     index >= n; with no bias and no penalties, kAllMasked iff all are -Infinity;
//   - probs: each in [0, 1], the sum 1 within 1e-5, 0 for a -Infinity score
//     without bias; at most max(top_k, min_keep) entries > 0; T = 0 without bias
//     or penalties puts 1 on the first maximum;
//   - every sampled index is one whose final probability (probs) is > 0;
//   - determinism per seed: two samplers with one seed draw the same indices, a
//     reseed replays them, sample_many(k) == k calls of sample, probs twice the
//     same bits;
//   - logprobs: distinct indices in [0, n), log-probabilities <= 0, -Infinity
//     after only where probs is 0.
//   - token masks (a mask derived from a hash of the input: words all clear,
//     all set, random, sparse; sometimes none allowed): a masked call has the
//     status, probs bits and index of the call on the scores with -Infinity
//     where the mask forbids (kEmptyMask when it allows none), and draws an
//     allowed index;
//   - verify_draft (k = 0..4 rows from the scores, draft rows valid or broken:
//     zeros, NaN, negative, > 1, a sum off 1, draft tokens past n; masks per
//     row): the error the checks name (kBadToken, kBadDraft, kDraftSum with
//     their index), else accepted <= k, the accepted tokens are the draft's,
//     every emitted token has probability > 0 in its row's distribution, and
//     one seed gives one result.
// Build: CXX=clang++ cmake -S . -B build-fuzz -DSMX_FUZZ=ON; run: tests/fuzz/run.sh.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "fuzz_reader.h"
#include "smx/sampler.h"

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kMax = std::numeric_limits<float>::max();
constexpr size_t kMaxScores = 2048;

float score(Reader& r) {
  const uint8_t tag = r.byte();
  switch (tag % 16) {
    case 0:
      return kNaN;
    case 1:
      return kInf;
    case 2:
    case 3:
      return -kInf;
    case 4:
      return std::numeric_limits<float>::denorm_min();
    case 5:
      return kMax;
    case 6:
      return -kMax;
    case 7:
      return 0.0f;
    case 8:
      return -0.0f;
    case 9:
    case 10:
    case 11:
    case 12:
      return static_cast<float>(static_cast<int>(r.byte()) - 128) / 8.0f;
    default:
      return r.raw();
  }
}

float temperature(Reader& r) {
  static const float kT[] = {1,  1,      0,    kInf,   0.5f, 2,     kNaN,
                             -1, 1e-45f, kMax, 1e-30f, 0.7f, -0.0f, 1.5f};
  const uint8_t b = r.byte() % 16;
  return b < 14 ? kT[b] : r.raw();
}

double unit(Reader& r, double off) {  // a probability-like option, sometimes out of range
  static const double kP[] = {0.9, 0.5,  0.1,          1e-9,     0.0, 1.0,
                              1.5, -0.1, std::nan(""), 0.999999, 0.05};
  const uint8_t b = r.byte();
  return b < 128 ? off : kP[b % 11];
}

[[noreturn]] void fail(const char* what, double got, double expected) {
  std::fprintf(stderr, "INVARIANT BROKEN: %s: got %.9g, expected %.9g\n", what, got, expected);
  std::abort();
}
#define CHECK(cond, what, got, expected)    \
  do {                                      \
    if (!(cond)) fail(what, got, expected); \
  } while (0)

bool out_of_range(const smx::SamplerOptions& o) {
  return !(o.temperature >= 0.0f) || !(o.top_p > 0.0 && o.top_p <= 1.0) ||
         !(o.min_p >= 0.0 && o.min_p <= 1.0) || !(o.typical_p > 0.0 && o.typical_p <= 1.0) ||
         o.min_keep < 1 || !(o.repetition_penalty > 0.0f) || !std::isfinite(o.repetition_penalty) ||
         !std::isfinite(o.frequency_penalty) || !std::isfinite(o.presence_penalty) ||
         o.penalty_last_n < -1;
}

bool duplicate_step(const smx::SamplerOptions& o) {
  bool seen[smx::kNumSteps] = {};
  for (int i = 0; i < o.order_len; ++i) {
    const int s = static_cast<int>(o.order[i]);
    if (s < 0 || s >= smx::kNumSteps || seen[s]) return true;
    seen[s] = true;
  }
  return false;
}

uint64_t mix(uint64_t& h) {  // splitmix64
  uint64_t z = (h += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// A token mask of `words` words from h: patterns per word, sometimes all clear.
std::vector<uint32_t> fuzz_mask(uint64_t& h, size_t words) {
  std::vector<uint32_t> m(words + 1);
  const bool none = mix(h) % 8 == 0;
  for (auto& w : m) {
    const uint64_t v = mix(h);
    switch (v % 4) {
      case 0:
        w = 0;
        break;
      case 1:
        w = 0xFFFFFFFFu;
        break;
      case 2:
        w = static_cast<uint32_t>(v >> 32);
        break;
      default:
        w = static_cast<uint32_t>(v >> 32) & static_cast<uint32_t>(mix(h)) &
            static_cast<uint32_t>(mix(h));
    }
    if (none) w = 0;
  }
  return m;
}

bool allows(const uint32_t* m, size_t i) { return (m[i >> 5] >> (i & 31)) & 1u; }

struct Setup {
  const smx::SamplerOptions& o;
  const std::vector<uint32_t>& bias_index;
  const std::vector<float>& bias_value;
  const std::vector<int32_t>& history;
  uint64_t seed;
  void apply(smx::Sampler& s) const {
    s.configure(o);
    s.set_logit_bias(bias_index.data(), bias_value.data(), bias_index.size());
    s.accept(history.data(), history.size());
    s.seed(seed);
  }
};

void check_mask(const Setup& setup, const std::vector<float>& x, uint64_t h) {
  const size_t n = x.size();
  const std::vector<uint32_t> m = fuzz_mask(h, smx::mask_words(n));
  std::vector<float> xm(x);
  bool any = false;
  for (size_t i = 0; i < n; ++i) {
    if (!allows(m.data(), i)) xm[i] = -kInf;
    any = any || allows(m.data(), i);
  }
  smx::Sampler c, d;
  setup.apply(c);
  setup.apply(d);
  std::vector<float> pc(n + 1), pd(n + 1);
  const smx::SampleStatus sc = c.probs(x.data(), n, pc.data(), m.data());
  const smx::SampleStatus sd = d.probs(xm.data(), n, pd.data());
  if (n > 0 && !any) {
    CHECK(sc == smx::SampleStatus::kEmptyMask, "a mask that allows nothing: kEmptyMask",
          static_cast<int>(sc), 7);
    return;
  }
  CHECK(sc == sd, "masked status == status on -Infinity scores", static_cast<int>(sc),
        static_cast<int>(sd));
  if (sc == smx::SampleStatus::kNaNScore)
    CHECK(c.error_index() == d.error_index() && allows(m.data(), c.error_index()),
          "kNaNScore names an allowed NaN", c.error_index(), d.error_index());
  if (sc != smx::SampleStatus::kOk) return;
  CHECK(std::memcmp(pc.data(), pd.data(), n * 4) == 0, "masked probs == probs on -Infinity", 0, 0);
  int32_t tc = -1, td = -2;
  CHECK(c.sample(x.data(), n, &tc, m.data()) == smx::SampleStatus::kOk, "masked sample ok", 0, 0);
  d.sample(xm.data(), n, &td);
  CHECK(tc == td && allows(m.data(), static_cast<size_t>(tc)),
        "masked sample == sample on -Infinity, allowed", tc, td);
}

void check_draft(const Setup& setup, const std::vector<float>& x, uint64_t h) {
  const size_t n = x.size();
  const size_t k = mix(h) % 5;
  std::vector<float> target((k + 1) * n), q(k * n);
  for (size_t j = 0; j <= k; ++j)
    for (size_t i = 0; i < n; ++i) target[j * n + i] = x[(i + j) % n];
  // Draft rows: normalised weights, some zero; then maybe one broken entry or row.
  for (size_t j = 0; j < k; ++j) {
    double sum = 0;
    std::vector<double> w(n);
    for (auto& v : w) {
      const uint64_t r = mix(h);
      v = r % 4 == 0 ? 0.0 : static_cast<double>(r >> 40);
      sum += v;
    }
    for (size_t i = 0; i < n; ++i)
      q[j * n + i] = sum > 0 ? static_cast<float>(w[i] / sum) : (i == 0 ? 1.0f : 0.0f);
  }
  const uint64_t broken = mix(h) % 16;
  if (k > 0 && n > 0 && broken < 4) {
    static const float kBad[] = {kNaN, -0.25f, 1.5f, kInf};
    q[mix(h) % (k * n)] = kBad[broken];
  } else if (k > 0 && broken == 4) {
    for (size_t i = 0; i < n; ++i) q[(k - 1) * n + i] *= 1.5f;
  }
  std::vector<int32_t> draft(k);
  for (auto& t : draft) t = static_cast<int32_t>(mix(h) % (n + (mix(h) % 8 == 0 ? 3 : 0) + 1));
  const bool masked = mix(h) % 2 == 0;
  std::vector<uint32_t> m;
  for (size_t j = 0; j <= k && masked; ++j) {
    auto row = fuzz_mask(h, smx::mask_words(n));
    row.pop_back();
    m.insert(m.end(), row.begin(), row.end());
  }
  m.push_back(0);
  smx::Sampler c, d;
  setup.apply(c);
  setup.apply(d);
  std::vector<int32_t> out(k + 1, -1), out_d(k + 1, -2);
  size_t acc = 99, acc_d = 98;
  const uint32_t* mp = masked ? m.data() : nullptr;
  const smx::SampleStatus s =
      c.verify_draft(draft.data(), q.data(), k, target.data(), n, out.data(), &acc, mp);
  const smx::SampleStatus sd =
      d.verify_draft(draft.data(), q.data(), k, target.data(), n, out_d.data(), &acc_d, mp);
  CHECK(s == sd, "verify_draft deterministic status", static_cast<int>(s), static_cast<int>(sd));
  if (n == 0) {
    CHECK(s == smx::SampleStatus::kEmpty, "verify_draft: no vocabulary is kEmpty",
          static_cast<int>(s), 1);
    return;
  }
  // The checks that come before any draw, in their order.
  size_t bad_token = k, bad_entry = k * n, bad_sum = k;
  for (size_t j = 0; j < k && bad_token == k; ++j)
    if (draft[j] < 0 || static_cast<size_t>(draft[j]) >= n) bad_token = j;
  for (size_t i = 0; i < k * n && bad_entry == k * n; ++i)
    if (!(q[i] >= 0.0f && q[i] <= 1.0f)) bad_entry = i;
  for (size_t j = 0; j < k && bad_sum == k; ++j) {
    double sum = 0;
    for (size_t i = 0; i < n; ++i) sum += q[j * n + i];
    if (!(std::fabs(sum - 1.0) <= smx::kDraftSumSlack * 0.999)) bad_sum = j;
  }
  if (bad_token < k) {
    CHECK(s == smx::SampleStatus::kBadToken && c.error_index() == bad_token,
          "a draft token past n: kBadToken naming it", c.error_index(), bad_token);
    return;
  }
  if (bad_entry < k * n) {
    CHECK(s == smx::SampleStatus::kBadDraft && c.error_index() == bad_entry,
          "a draft entry outside [0, 1]: kBadDraft naming it", c.error_index(), bad_entry);
    return;
  }
  if (bad_sum < k && s == smx::SampleStatus::kDraftSum) return;
  CHECK(s != smx::SampleStatus::kBadDraft && s != smx::SampleStatus::kDraftSum,
        "valid draft rows pass the checks", static_cast<int>(s), 0);
  if (s != smx::SampleStatus::kOk) return;
  CHECK(acc <= k && acc == acc_d, "accepted <= k, deterministic", acc, acc_d);
  const smx::SamplerOptions& o = setup.o;
  const bool stateless = !(o.xtc_probability > 0.0) && o.mirostat == 0;
  for (size_t j = 0; j <= acc; ++j) {
    CHECK(out[j] == out_d[j] && out[j] >= 0 && static_cast<size_t>(out[j]) < n,
          "emitted tokens in range, deterministic", out[j], out_d[j]);
    if (j < acc) CHECK(out[j] == draft[j], "accepted tokens are the draft's", out[j], draft[j]);
    if (!stateless) continue;
    smx::Sampler e;
    setup.apply(e);
    std::vector<float> p(n);
    CHECK(e.probs(target.data() + j * n, n, p.data(),
                  masked ? m.data() + j * smx::mask_words(n) : nullptr) == smx::SampleStatus::kOk,
          "an emitted row has a distribution", j, 0);
    CHECK(p[out[j]] > 0.0f, "an emitted token has probability > 0 in its row", p[out[j]], 0);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader r{data, size};
  smx::SamplerOptions o;
  o.temperature = temperature(r);
  const uint8_t k = r.byte();
  o.top_k = k < 160 ? 0 : k < 250 ? k % 12 : (k == 250 ? 0xFFFFFFFFu : 1u << (k - 240));
  o.top_p = unit(r, 1.0);
  o.min_p = unit(r, 0.0);
  o.typical_p = unit(r, 1.0);
  const uint8_t mk = r.byte();
  o.min_keep = mk < 200 ? 1 : mk % 5;
  const uint8_t pen = r.byte();
  if (pen >= 128) {
    static const float kRep[] = {1.0f, 1.3f, 0.5f, 0.0f, -1.0f, kInf, kNaN, kMax};
    static const float kAdd[] = {0.0f, 0.5f, -2.0f, kMax, -kMax, kInf, kNaN, 1e-45f};
    o.repetition_penalty = kRep[pen & 7];
    o.frequency_penalty = kAdd[(pen >> 3) & 7];
    o.presence_penalty = kAdd[r.byte() & 7];
    static const int32_t kLast[] = {64, -1, 0, 1, 3, -2, 1 << 30, 8};
    o.penalty_last_n = kLast[r.byte() & 7];
  }
  const uint8_t ord = r.byte();
  if (ord >= 200 && ord < 228) {
    std::copy(smx::kOrderLlamaCpp, smx::kOrderLlamaCpp + smx::kNumSteps, o.order);
  } else if (ord >= 228) {  // an explicit list, maybe short or with duplicates
    o.order_len = ord % 6;
    for (int i = 0; i < o.order_len; ++i)
      o.order[i] = static_cast<smx::Step>(r.byte() % smx::kNumSteps);
  }
  uint64_t seed = r.u32();
  seed |= static_cast<uint64_t>(r.u32()) << 32;

  // Logit bias and history.
  const size_t nbias = r.byte() % 8 < 6 ? 0 : r.byte() % 4;
  std::vector<uint32_t> bias_index(nbias);
  std::vector<float> bias_value(nbias);
  for (size_t i = 0; i < nbias; ++i) {
    bias_index[i] = r.byte() % 40;
    static const float kBias[] = {-kInf, 5.0f, -5.0f, kMax, -kMax, 0.0f, kInf, kNaN};
    bias_value[i] = kBias[r.byte() & 7];
  }
  const size_t nhist = r.byte() % 4 == 0 ? r.byte() % 10 : 0;
  std::vector<int32_t> history(nhist);
  for (auto& t : history) t = static_cast<int32_t>(r.byte() % 48) - 2;  // some negative

  std::vector<float> x;
  while (r.n > 0 && x.size() < kMaxScores) x.push_back(score(r));
  const size_t n = x.size();

  // configure: kBadOption when out of range, and then the options stay.
  smx::Sampler a, b;
  const smx::SampleStatus cs = a.configure(o);
  if (out_of_range(o) || duplicate_step(o))
    CHECK(cs == smx::SampleStatus::kBadOption, "configure rejects an option out of range",
          static_cast<int>(cs), 4);
  if (cs != smx::SampleStatus::kOk) {
    CHECK(a.options().temperature == 1.0f && a.options().top_k == 0,
          "a failed configure changes nothing", a.options().temperature, 1);
    return 0;
  }
  CHECK(b.configure(o) == cs, "configure deterministic", 0, 0);
  bool bias_ok = true;
  for (float v : bias_value) bias_ok = bias_ok && (std::isfinite(v) || v == -kInf);
  const smx::SampleStatus bs = a.set_logit_bias(bias_index.data(), bias_value.data(), nbias);
  CHECK((bs == smx::SampleStatus::kOk) == bias_ok,
        "set_logit_bias accepts finite or -Infinity only", static_cast<int>(bs), 0);
  b.set_logit_bias(bias_index.data(), bias_value.data(), nbias);
  const bool bias_applied = bs == smx::SampleStatus::kOk && nbias > 0;
  bool hist_ok = true;
  for (int32_t t : history) hist_ok = hist_ok && t >= 0;
  const smx::SampleStatus hs = a.accept(history.data(), nhist);
  CHECK((hs == smx::SampleStatus::kOk) == hist_ok, "accept rejects negative tokens",
        static_cast<int>(hs), 0);
  b.accept(history.data(), nhist);
  a.seed(seed);
  b.seed(seed);

  {  // token masks and draft verification, with fresh samplers of the same setup
    uint64_t h = 0xCBF29CE484222325ull;
    for (size_t i = 0; i < size; ++i) h = (h ^ data[i]) * 0x100000001B3ull;
    const Setup setup{o, bias_index, bias_value, history, seed};
    if (bs == smx::SampleStatus::kOk) {
      check_mask(setup, x, h);
      check_draft(setup, x, h);
    }
  }

  // probs, twice: the same status and bits.
  std::vector<float> p(n + 1), p2(n + 1);
  const smx::SampleStatus ps = a.probs(x.data(), n, p.data());
  const smx::SampleStatus ps2 = a.probs(x.data(), n, p2.data());
  CHECK(ps == ps2, "probs status deterministic", static_cast<int>(ps), static_cast<int>(ps2));

  // The status, where it is known without the sampler.
  bool has_nan = false, all_masked = true;
  for (float v : x) has_nan = has_nan || v != v, all_masked = all_masked && v == -kInf;
  const bool neutral_penalties =
      a.options().penalty_last_n == 0 || !hist_ok || nhist == 0 ||
      (o.repetition_penalty == 1.0f && o.frequency_penalty == 0.0f && o.presence_penalty == 0.0f);
  const bool plain = !bias_applied && neutral_penalties;
  if (n == 0) CHECK(ps == smx::SampleStatus::kEmpty, "no scores: kEmpty", static_cast<int>(ps), 1);
  if (ps == smx::SampleStatus::kEmpty) CHECK(n == 0, "kEmpty only for no scores", n, 0);
  if (n > 0 && has_nan)
    CHECK(ps == smx::SampleStatus::kNaNScore || ps == smx::SampleStatus::kBadToken,
          "a NaN score is an error", static_cast<int>(ps), 3);
  if (ps == smx::SampleStatus::kNaNScore)
    CHECK(a.error_index() < n && x[a.error_index()] != x[a.error_index()],
          "kNaNScore names a NaN score", a.error_index(), 0);
  if (ps == smx::SampleStatus::kBadToken)
    CHECK(a.error_index() >= n, "kBadToken names a token >= n", a.error_index(), n);
  if (n > 0 && !has_nan && plain)
    CHECK(ps == (all_masked ? smx::SampleStatus::kAllMasked : smx::SampleStatus::kOk),
          "status of plain scores", static_cast<int>(ps), all_masked ? 2 : 0);
  CHECK(ps != smx::SampleStatus::kBadOption && ps != smx::SampleStatus::kNoMemory,
        "no kBadOption / kNoMemory for small valid input", static_cast<int>(ps), 0);

  // sample / sample_many / logprobs return the same status.
  int32_t one = -1;
  const smx::SampleStatus ss = a.sample(x.data(), n, &one);
  CHECK(ss == ps, "sample status == probs status", static_cast<int>(ss), static_cast<int>(ps));
  if (ps != smx::SampleStatus::kOk) return 0;

  CHECK(std::memcmp(p.data(), p2.data(), n * 4) == 0, "probs deterministic", 0, 0);
  double sum = 0;
  size_t positive = 0;
  for (size_t i = 0; i < n; ++i) {
    CHECK(p[i] >= 0.0f && p[i] <= 1.0f, "probs in [0, 1]", p[i], 0.5);
    if (!bias_applied && x[i] == -kInf) CHECK(p[i] == 0.0f, "-Infinity score gets 0", p[i], 0);
    sum += p[i];
    positive += p[i] > 0.0f;
  }
  CHECK(std::fabs(sum - 1.0) <= 1e-5, "probs sum to 1", sum, 1.0);
  if (o.top_k > 0) {
    const double cap = std::max<double>(o.top_k, a.options().min_keep);
    CHECK(positive <= cap, "top_k keeps at most max(k, min_keep)", positive, cap);
  }
  if (o.temperature == 0.0f && plain && o.typical_p == 1.0) {  // typical may drop the max
    size_t first = 0;
    for (size_t i = 1; i < n; ++i)
      if (x[i] > x[first]) first = i;
    CHECK(p[first] == 1.0f, "T = 0: all mass on the first maximum", p[first], 1.0);
  }

  // Sampled indices have probability > 0; a and b (same seed) agree.
  CHECK(one >= 0 && static_cast<size_t>(one) < n && p[one] > 0.0f, "sampled index has probs > 0",
        one, 0);
  int32_t one_b = -1;
  b.probs(x.data(), n, p2.data());  // no draw: b stays in step with a
  b.sample(x.data(), n, &one_b);
  CHECK(one == one_b, "same seed, same index", one_b, one);
  const size_t count = 1 + r.byte() % 16;  // bytes are used up: count is 1
  std::vector<int32_t> many(count + 8), singles(count + 8);
  CHECK(a.sample_many(x.data(), n, count + 8, many.data()) == smx::SampleStatus::kOk,
        "sample_many ok", 0, 0);
  for (size_t i = 0; i < count + 8; ++i) {
    CHECK(b.sample(x.data(), n, &singles[i]) == smx::SampleStatus::kOk, "sample ok", 0, 0);
    CHECK(many[i] >= 0 && static_cast<size_t>(many[i]) < n && p[many[i]] > 0.0f,
          "sample_many index has probs > 0", many[i], 0);
  }
  CHECK(many == singles, "sample_many(k) == k samples (same seed)", 0, 0);
  a.seed(seed);
  int32_t replay = -1;
  a.sample(x.data(), n, &replay);
  CHECK(replay == one, "reseed replays the first index", replay, one);

  // logprobs of the top k.
  const size_t kk = std::min<size_t>(n, 5);
  std::vector<int32_t> idx(kk + 1);
  std::vector<float> before(kk + 1), after(kk + 1);
  CHECK(a.logprobs(x.data(), n, kk, idx.data(), before.data(), after.data()) ==
            smx::SampleStatus::kOk,
        "logprobs ok", 0, 0);
  for (size_t j = 0; j < kk; ++j) {
    CHECK(idx[j] >= 0 && static_cast<size_t>(idx[j]) < n, "logprobs index in range", idx[j], n);
    for (size_t i = 0; i < j; ++i)
      CHECK(idx[i] != idx[j], "logprobs indices distinct", idx[j], idx[i]);
    CHECK(!(before[j] > 0.0f) && !(after[j] > 0.0f), "log-probabilities <= 0", before[j], after[j]);
    if (after[j] == -kInf)
      CHECK(p[idx[j]] == 0.0f, "after -Infinity only where probs is 0", p[idx[j]], 0);
    if (plain && j > 0)
      CHECK(x[idx[j - 1]] >= x[idx[j]], "logprobs by decreasing score", x[idx[j]], x[idx[j - 1]]);
  }
  return 0;
}
