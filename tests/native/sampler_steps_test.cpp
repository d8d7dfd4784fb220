// The further sampler steps (top-n-sigma, XTC, mirostat v1 / v2, dynamic
// temperature, epsilon and eta cutoffs, DRY, no-repeat n-gram) against an
// independent double-precision, sort-based reference written here from the
// published definitions (llama.cpp src/llama-sampling.cpp, Hugging Face
// transformers' EpsilonLogitsWarper, EtaLogitsWarper, NoRepeatNGramLogitsProcessor);
// hand-worked cases (DRY: llama.cpp's tests/test-sampling.cpp test_dry cases);
// mirostat's mu step by step; chi-square of the random steps; the golden file
// tests/golden/sampler_steps.json; option errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sampler_steps_golden.h"
#include "smx/sampler.h"

namespace {

using smx::SamplerOptions;
using smx::SampleStatus;
using smx::Step;
constexpr float kInf = std::numeric_limits<float>::infinity();

// ---------------------------------------------------------------------------
// Reference. Candidates are token indices (ascending), logits l are doubles
// over the vocabulary, t the temperature applied so far. "The order": logit
// descending, ties by lower index.
struct Ref {
  SamplerOptions o;
  std::vector<int32_t> history;
  std::vector<int32_t> breakers;
  uint64_t seed = 1;  // for XTC's coin: Pcg32(seed, stream 55), documented
  double mu = NAN;    // mirostat's mu; NAN = 2 tau

  struct Result {
    std::vector<double> probs;
    bool ambiguous = false;
    bool all_banned = false;
    bool xtc_fired = false;
  };

  Result run(const std::vector<float>& x) const {
    Result r;
    std::vector<double> l(x.begin(), x.end());
    std::vector<size_t> cand;
    for (size_t i = 0; i < x.size(); ++i)
      if (l[i] != -INFINITY) cand.push_back(i);
    double t = 1;
    const double mu_now = std::isnan(mu) ? 2 * o.mirostat_tau : mu;
    smx::Pcg32 coin(seed, 55);
    const size_t min_keep = o.min_keep;
    auto probs = [&](const std::vector<size_t>& c) {
      double m = -INFINITY;
      for (size_t i : c) m = std::max(m, l[i]);
      std::vector<double> p(c.size());
      double s = 0;
      for (size_t j = 0; j < c.size(); ++j) s += p[j] = std::exp((l[c[j]] - m) / t);
      for (auto& v : p) v /= s;
      return p;
    };
    auto by_logit = [&](std::vector<size_t> c) {
      std::sort(c.begin(), c.end(),
                [&](size_t a, size_t b) { return l[a] > l[b] || (l[a] == l[b] && a < b); });
      return c;
    };
    auto prefix = [&](const std::vector<size_t>& sorted, size_t k) {  // the first k, ascending
      std::vector<size_t> c(sorted.begin(), sorted.begin() + std::min(k, sorted.size()));
      std::sort(c.begin(), c.end());
      return c;
    };
    // Keep where keep[j]; fewer than min_keep: the first min_keep in the order.
    auto keep_or_min = [&](const std::vector<bool>& keep) {
      std::vector<size_t> kept;
      for (size_t j = 0; j < cand.size(); ++j)
        if (keep[j]) kept.push_back(cand[j]);
      cand =
          kept.size() >= std::min(min_keep, cand.size()) ? kept : prefix(by_logit(cand), min_keep);
    };
    auto near = [&](double a, double b, double rel) {
      return std::fabs(a - b) <= rel * std::max(1.0, std::fabs(b));
    };
    auto entropy = [&](const std::vector<double>& p) {
      double h = 0;
      for (double v : p)
        if (v > 0) h -= v * std::log(v);
      return h;
    };
    for (int s = 0; s < o.order_len; ++s) {
      switch (o.order[s]) {
        case Step::kTemperature:
          if (o.dynatemp_range > 0) break;
          if (o.temperature == 0)
            cand = {by_logit(cand)[0]};
          else
            t = o.temperature;
          break;
        case Step::kTopK:
          if (o.top_k > 0) cand = prefix(by_logit(cand), std::max<size_t>(o.top_k, min_keep));
          break;
        case Step::kTopNSigma: {  // llama.cpp: logit < max - n * std is removed
          if (o.top_n_sigma <= 0 || cand.size() <= 1) break;
          double mx = -INFINITY, sum = 0;
          for (size_t i : cand) mx = std::max(mx, l[i]), sum += l[i];
          const double mean = sum / cand.size();
          double acc = 0;
          for (size_t i : cand) acc += (l[i] - mean) * (l[i] - mean);
          const double thr = mx - o.top_n_sigma * std::sqrt(acc / cand.size());
          std::vector<bool> keep;
          for (size_t i : cand) {
            if (near(l[i], thr, 1e-9)) r.ambiguous = true;
            keep.push_back(!(l[i] < thr));
          }
          keep_or_min(keep);
          break;
        }
        case Step::kXtc: {  // llama.cpp llama_sampler_xtc_apply
          if (o.xtc_probability <= 0 || o.xtc_threshold > 0.5 || cand.size() < 2) break;
          if (coin.next_double() > o.xtc_probability) break;
          r.xtc_fired = true;
          const auto sorted = by_logit(cand);
          const auto ps = probs(sorted);
          size_t pos_last = 0;
          for (size_t i = 0; i < ps.size(); ++i) {
            if (near(ps[i], o.xtc_threshold, 1e-5)) r.ambiguous = true;
            if (ps[i] >= o.xtc_threshold)
              pos_last = i;
            else
              break;
          }
          if (sorted.size() - pos_last >= min_keep && pos_last > 0) {
            cand.assign(sorted.begin() + pos_last, sorted.end());
            std::sort(cand.begin(), cand.end());
          }
          break;
        }
        case Step::kMirostat: {
          if (o.mirostat == 0 || cand.size() <= 1) break;
          const auto sorted = by_logit(cand);
          const auto ps = probs(sorted);
          if (o.mirostat == 2) {  // llama_sampler_mirostat_v2_apply
            std::vector<bool> keep;
            for (size_t j = 0; j < cand.size(); ++j) {
              const double pj = probs(cand)[j];
              if (near(-std::log2(pj), mu_now, 1e-6)) r.ambiguous = true;
              keep.push_back(!(-std::log2(pj) > mu_now));
            }
            keep_or_min(keep);
            break;
          }
          // llama_sampler_mirostat_apply, m = 100, n_vocab = x.size()
          double sum_ti_bi = 0, sum_ti_sq = 0;
          for (size_t i = 0; i < size_t(smx::kMirostatM - 1) && i < ps.size() - 1; ++i) {
            const double ti = std::log(double(i + 2) / double(i + 1));
            const double bi = std::log(ps[i] / ps[i + 1]);
            sum_ti_bi += ti * bi;
            sum_ti_sq += ti * ti;
          }
          const double s_hat = sum_ti_bi / sum_ti_sq;
          const double eps_hat = s_hat - 1;
          const double k =
              std::pow((eps_hat * std::pow(2, mu_now)) / (1 - std::pow(double(x.size()), -eps_hat)),
                       1 / s_hat);
          if (k >= 1 && k < cand.size() && std::fabs(k - std::round(k)) < 1e-6 * k)
            r.ambiguous = true;
          const size_t kk = k >= cand.size() ? cand.size() : k >= 1 ? size_t(k) : 1;
          cand = prefix(sorted, std::max(kk, min_keep));
          break;
        }
        case Step::kDynatemp: {  // llama_sampler_temp_ext_apply, delta > 0
          if (o.dynatemp_range <= 0 || cand.size() <= 1) break;
          const double lo = std::max(0.0, double(o.temperature) - o.dynatemp_range);
          const double hi = double(o.temperature) + o.dynatemp_range;
          const double norm = entropy(probs(cand)) / std::log(double(cand.size()));
          const double dyn = lo + (hi - lo) * std::pow(norm, o.dynatemp_exponent);
          if (float(dyn) <= 0) {
            cand = {by_logit(cand)[0]};
            t = 1;
          } else {
            t = dyn;
          }
          break;
        }
        case Step::kEpsilonCutoff:
        case Step::kEtaCutoff: {  // HF: probabilities < epsilon (eta) are removed
          const bool eps = o.order[s] == Step::kEpsilonCutoff;
          const double e = eps ? o.epsilon_cutoff : o.eta_cutoff;
          if (e <= 0 || cand.size() <= 1) break;
          const auto ps = probs(cand);
          const double cut = eps ? e : std::min(e, std::sqrt(e) * std::exp(-entropy(ps)));
          std::vector<bool> keep;
          for (double p : ps) {
            if (near(p, cut, 1e-5)) r.ambiguous = true;
            keep.push_back(!(p < cut));
          }
          keep_or_min(keep);
          break;
        }
        case Step::kDry: {  // llama_sampler_dry_apply, written from its definition (no Z-algorithm)
          if (o.dry_multiplier == 0 || o.dry_base < 1 || o.dry_penalty_last_n == 0) break;
          const size_t L = o.dry_penalty_last_n < 0
                               ? history.size()
                               : std::min<size_t>(history.size(), o.dry_penalty_last_n);
          const size_t allowed = o.dry_allowed_length;
          if (L <= allowed) break;
          const std::vector<int32_t> w(history.end() - L, history.end());
          const std::set<int32_t> br(breakers.begin(), breakers.end());
          size_t rep_limit = L;
          for (size_t i = 0; i < L; ++i)
            if (br.count(w[L - 1 - i])) {
              rep_limit = i;
              break;
            }
          if (rep_limit < allowed) break;
          std::map<int32_t, size_t> best;       // token -> longest repeat it would extend
          for (size_t e = 0; e + 1 < L; ++e) {  // an earlier occurrence ending at w[e]
            size_t n = 0;
            while (n <= e && w[e - n] == w[L - 1 - n]) ++n;
            n = std::min(n, rep_limit);
            if (n >= allowed) best[w[e + 1]] = std::max(best[w[e + 1]], n);
          }
          int max_exp = 0;
          if (o.dry_base > 1.000001f)
            max_exp = static_cast<int>(88.7228391f / std::log(o.dry_base));
          for (const auto& [tok, n] : best) {
            if (br.count(tok) || !std::binary_search(cand.begin(), cand.end(), size_t(tok)))
              continue;
            size_t ex = n - allowed;
            if (max_exp > 0 && ex > size_t(max_exp)) ex = max_exp;
            l[tok] -= double(o.dry_multiplier) * std::pow(double(o.dry_base), double(ex)) * t;
            l[tok] = std::max(l[tok], double(std::numeric_limits<float>::lowest()));
          }
          break;
        }
        case Step::kNoRepeatNgram: {  // HF _get_ngrams / _get_generated_ngrams
          const size_t n = o.no_repeat_ngram_size;
          if (n == 0 || history.size() + 1 < n) break;
          std::map<std::vector<int32_t>, std::vector<int32_t>> grams;
          for (size_t i = 0; i + n <= history.size(); ++i)
            grams[std::vector<int32_t>(history.begin() + i, history.begin() + i + n - 1)].push_back(
                history[i + n - 1]);
          const std::vector<int32_t> key(history.end() - (n - 1), history.end());
          const auto it = grams.find(key);
          if (it == grams.end()) break;
          std::vector<size_t> kept;
          for (size_t i : cand)
            if (std::find(it->second.begin(), it->second.end(), int32_t(i)) == it->second.end())
              kept.push_back(i);
          if (kept.empty())
            r.all_banned = true;
          else
            cand = kept;
          break;
        }
        case Step::kTopP:
        case Step::kMinP:
        case Step::kTypicalP:  // covered by sampler_test.cpp; off here
          EXPECT_TRUE(o.top_p == 1 && o.min_p == 0 && o.typical_p == 1);
          break;
      }
    }
    const auto ps = probs(cand);
    r.probs.assign(x.size(), 0.0);
    for (size_t j = 0; j < cand.size(); ++j) r.probs[cand[j]] = ps[j];
    return r;
  }
};

smx::Sampler make(const Ref& ref) {
  smx::Sampler s;
  EXPECT_EQ(s.configure(ref.o), SampleStatus::kOk);
  EXPECT_EQ(s.set_dry_breakers(ref.breakers.data(), ref.breakers.size()), SampleStatus::kOk);
  EXPECT_EQ(s.accept(ref.history.data(), ref.history.size()), SampleStatus::kOk);
  s.seed(ref.seed);
  return s;
}

std::vector<float> probs_of(smx::Sampler& s, const std::vector<float>& x) {
  std::vector<float> p(x.size());
  EXPECT_EQ(s.probs(x.data(), x.size(), p.data()), SampleStatus::kOk);
  return p;
}

std::vector<float> probs_of(const SamplerOptions& o, const std::vector<float>& x,
                            const std::vector<int32_t>& history = {},
                            const std::vector<int32_t>& breakers = {}) {
  Ref ref;
  ref.o = o, ref.history = history, ref.breakers = breakers;
  auto s = make(ref);
  return probs_of(s, x);
}

void expect_matches(const std::vector<float>& p, const std::vector<double>& r,
                    const std::string& what) {
  double sum = 0;
  for (size_t i = 0; i < r.size(); ++i) {
    if (r[i] == 0 || p[i] == 0) {
      ASSERT_TRUE(p[i] == 0 && r[i] < 1e-37)
          << what << " i=" << i << " ours " << p[i] << " ref " << r[i];
    }
    ASSERT_NEAR(p[i], r[i], 2e-6 + 2e-5 * r[i]) << what << " i=" << i;
    sum += p[i];
  }
  EXPECT_NEAR(sum, 1.0, 1e-5) << what;
}

std::vector<size_t> support(const std::vector<float>& p) {
  std::vector<size_t> s;
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i] > 0) s.push_back(i);
  return s;
}

void set_order(SamplerOptions& o, std::initializer_list<Step> steps) {
  o.order_len = 0;
  for (Step s : steps) o.order[o.order_len++] = s;
}

std::vector<float> logs(std::initializer_list<double> p) {
  std::vector<float> x;
  for (double v : p) x.push_back(static_cast<float>(std::log(v)));
  return x;
}

// ---------------------------------------------------------------------------
// Random inputs, random subsets of the new steps, both presets and shuffled
// orders, against the reference.
TEST(SamplerSteps, EveryStepMatchesTheReferenceOnRandomInputs) {
  std::mt19937 gen(8080);
  std::normal_distribution<double> normal(0, 1);
  std::uniform_real_distribution<double> unif(0, 1);
  const size_t sizes[] = {1, 2, 3, 5, 10, 17, 64, 100, 333, 1000, 3000};
  int checked = 0, skipped = 0, banned = 0, fired = 0;
  int per_step[smx::kNumSteps] = {};
  for (int iter = 0; iter < 3000; ++iter) {
    const size_t n = sizes[iter % 11];
    const double sigma = unif(gen) < 0.5 ? 1 : 3;
    const bool ties = unif(gen) < 0.3, masks = unif(gen) < 0.3;
    std::vector<float> x(n);
    for (auto& v : x) {
      v = static_cast<float>(normal(gen) * sigma);
      if (ties) v = static_cast<float>(std::round(v * 2) / 2);
      if (masks && unif(gen) < 0.3) v = -kInf;
    }
    if (masks) x[gen() % n] = static_cast<float>(normal(gen));
    Ref ref;
    SamplerOptions& o = ref.o;
    ref.seed = gen();
    if (unif(gen) < 0.4) o.temperature = std::vector<float>{0.5f, 0.8f, 1.5f}[gen() % 3];
    if (unif(gen) < 0.2) o.top_k = 1 + gen() % (n + 2);
    if (unif(gen) < 0.35) o.top_n_sigma = 0.2 + 3 * unif(gen);
    if (unif(gen) < 0.35)
      o.xtc_probability = unif(gen) < 0.5 ? 1.0 : unif(gen), o.xtc_threshold = 0.6 * unif(gen);
    if (unif(gen) < 0.3) o.mirostat = 1 + gen() % 2, o.mirostat_tau = 0.5 + 6 * unif(gen);
    if (unif(gen) < 0.3) o.dynatemp_range = 1.5 * unif(gen), o.dynatemp_exponent = 3 * unif(gen);
    if (unif(gen) < 0.3) o.epsilon_cutoff = 0.2 * unif(gen) * unif(gen);
    if (unif(gen) < 0.3) o.eta_cutoff = 0.3 * unif(gen) * unif(gen);
    if (unif(gen) < 0.35) {
      o.dry_multiplier = static_cast<float>(0.1 + 2 * unif(gen));
      o.dry_base = static_cast<float>(1 + 2 * unif(gen));
      o.dry_allowed_length = gen() % 4;
      o.dry_penalty_last_n = std::vector<int32_t>{-1, 5, 12, 40}[gen() % 4];
      if (unif(gen) < 0.5) ref.breakers = {int32_t(gen() % 6)};
    }
    if (unif(gen) < 0.3) o.no_repeat_ngram_size = 1 + gen() % 4;
    if (unif(gen) < 0.3) o.min_keep = 1 + gen() % 5;
    // A history over a few tokens, so that repeats and n-grams occur.
    const size_t hl = gen() % 40;
    const size_t alpha = std::min<size_t>(n, 2 + gen() % 6);
    for (size_t i = 0; i < hl; ++i) ref.history.push_back(static_cast<int32_t>(gen() % alpha));
    const int ord = gen() % 3;
    if (ord == 1) std::copy(smx::kOrderLlamaCpp, smx::kOrderLlamaCpp + smx::kNumSteps, o.order);
    if (ord == 2) std::shuffle(o.order, o.order + smx::kNumSteps, gen);
    ASSERT_TRUE(smx::validate(o).ok()) << iter;
    for (int s = 0; s < smx::kNumSteps; ++s) {
      const bool on[] = {o.temperature != 1,
                         o.top_k > 0,
                         false,
                         false,
                         false,
                         o.top_n_sigma > 0,
                         o.xtc_probability > 0,
                         o.mirostat != 0,
                         o.dynatemp_range > 0,
                         o.epsilon_cutoff > 0,
                         o.eta_cutoff > 0,
                         o.dry_multiplier > 0,
                         o.no_repeat_ngram_size > 0};
      per_step[s] += on[s];
    }
    const Ref::Result rr = ref.run(x);
    smx::Sampler s = make(ref);
    std::vector<float> p(n);
    const SampleStatus st = s.probs(x.data(), n, p.data());
    if (rr.all_banned) {
      EXPECT_EQ(st, SampleStatus::kAllMasked) << iter;
      ++banned;
      continue;
    }
    if (rr.ambiguous) {
      ++skipped;
      continue;
    }
    ASSERT_EQ(st, SampleStatus::kOk) << iter;
    expect_matches(p, rr.probs, "iter " + std::to_string(iter) + " n=" + std::to_string(n));
    if (HasFatalFailure()) return;
    // probs() shows what the next sample() draws from (XTC's coin included).
    int32_t t = -1;
    ASSERT_EQ(s.sample(x.data(), n, &t), SampleStatus::kOk);
    ASSERT_GT(p[t], 0) << iter;
    fired += rr.xtc_fired;
    ++checked;
  }
  EXPECT_GT(checked, 2500);
  EXPECT_GT(banned, 10);
  EXPECT_GT(fired, 300);
  for (int s = 5; s < smx::kNumSteps; ++s) EXPECT_GT(per_step[s], 600) << s;
  std::printf(
      "reference cases: %d checked, %d skipped within rounding of a cut, %d all banned, XTC fired "
      "%d\n",
      checked, skipped, banned, fired);
}

// ---------------------------------------------------------------------------
TEST(SamplerSteps, TopNSigmaHandWorked) {
  // mean 2, population std sqrt(2): n = 1 keeps logits >= 4 - 1.414 = 2.586.
  SamplerOptions o;
  o.top_n_sigma = 1;
  EXPECT_EQ(support(probs_of(o, {0, 1, 2, 3, 4})), (std::vector<size_t>{3, 4}));
  o.top_n_sigma = 2;  // >= 1.17
  EXPECT_EQ(support(probs_of(o, {0, 1, 2, 3, 4})), (std::vector<size_t>{2, 3, 4}));
  // Masked entries are not in the statistics.
  EXPECT_EQ(support(probs_of(o, {-kInf, 0, 1, -kInf, 2, 3, 4})), (std::vector<size_t>{4, 5, 6}));
  // Ties at the maximum: n small keeps all of them; min-keep tops up by lower index.
  o.top_n_sigma = 0.01;
  EXPECT_EQ(support(probs_of(o, {5, 1, 5, 0, 5})), (std::vector<size_t>{0, 2, 4}));
  o.min_keep = 4;
  EXPECT_EQ(support(probs_of(o, {5, 1, 5, 0, 5})), (std::vector<size_t>{0, 1, 2, 4}));
  // Scale-free: the temperature before it does not change the set.
  SamplerOptions a;
  a.top_n_sigma = 1.3, a.temperature = 0.37f;
  SamplerOptions b = a;
  std::copy(smx::kOrderLlamaCpp, smx::kOrderLlamaCpp + smx::kNumSteps, b.order);
  const std::vector<float> x = {0.3f, 2.2f, -1, 1.7f, 0.9f, 2.5f, -0.4f};
  EXPECT_EQ(support(probs_of(a, x)), support(probs_of(b, x)));
  // All equal: std 0, everything stays.
  EXPECT_EQ(support(probs_of(o, {2, 2, 2})).size(), 3u);
}

// llama.cpp tests/test-sampling.cpp: test_xtc (probability 0.99 there, 1 here:
// the coin is ours) and test_top_n_sigma, the kept tokens and their renormalised
// probabilities.
TEST(SamplerSteps, LlamaCppXtcAndTopNSigmaCases) {
  const auto x = logs({0.4, 0.3, 0.2, 0.1});
  auto xtc = [&](double th) {
    SamplerOptions o;
    o.xtc_probability = 1, o.xtc_threshold = th;
    return support(probs_of(o, x));
  };
  EXPECT_EQ(xtc(0.09), (std::vector<size_t>{3}));
  EXPECT_EQ(xtc(0.19), (std::vector<size_t>{2, 3}));
  EXPECT_EQ(xtc(0.29), (std::vector<size_t>{1, 2, 3}));
  EXPECT_EQ(xtc(0.39), (std::vector<size_t>{0, 1, 2, 3}));  // "XTC should not"
  const auto y = logs({0.1, 0.2, 0.3, 0.4});
  auto sigma = [&](double n) {
    SamplerOptions o;
    o.top_n_sigma = n;
    return probs_of(o, y);
  };
  const auto p1 = sigma(1);
  const std::vector<double> e1 = {0, 0, 0.428571, 0.571429};
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(p1[i], e1[i], 1e-6) << i;
  const auto p0 = sigma(0), p3 = sigma(3);  // 0 is off (llama.cpp PR #13345); 3 keeps all
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(p0[i], 0.1 * (i + 1), 1e-6);
    EXPECT_NEAR(p3[i], 0.1 * (i + 1), 1e-6);
  }
}

TEST(SamplerSteps, XtcThresholdSemanticsAndProbabilities) {
  const auto x = logs({0.4, 0.3, 0.2, 0.1});
  SamplerOptions o;
  o.xtc_probability = 1;
  auto p_of = [&](double th, uint32_t min_keep = 1) {
    SamplerOptions q = o;
    q.xtc_threshold = th, q.min_keep = min_keep;
    return probs_of(q, x);
  };
  // Every entry reaches 0.09: all but the least likely above it (0.1) go.
  EXPECT_EQ(support(p_of(0.09)), (std::vector<size_t>{3}));
  // 0.4, 0.3, 0.2 reach 0.19: the last of them (0.2) and 0.1 stay.
  auto p = p_of(0.19);
  EXPECT_EQ(support(p), (std::vector<size_t>{2, 3}));
  EXPECT_NEAR(p[2], 2.0 / 3, 1e-6);
  // Only one entry reaches it, or none: nothing goes.
  EXPECT_EQ(support(p_of(0.35)).size(), 4u);
  EXPECT_EQ(support(p_of(0.45)).size(), 4u);
  // Threshold > 0.5: off.
  EXPECT_EQ(support(p_of(0.51)).size(), 4u);
  // min-keep 3 would be broken (2 remain): nothing goes; min-keep 2 is fine.
  EXPECT_EQ(support(p_of(0.19, 3)).size(), 4u);
  EXPECT_EQ(support(p_of(0.19, 2)), (std::vector<size_t>{2, 3}));
  // Ties at the threshold: of the tied entries the one last in the order (the highest index) stays.
  o.xtc_threshold = 0.2;
  EXPECT_EQ(support(probs_of(o, logs({0.2, 0.2, 0.2, 0.2, 0.2}))), (std::vector<size_t>{4}));
  // Probability 0: never; the coin is not drawn.
  o.xtc_probability = 0;
  EXPECT_EQ(support(probs_of(o, x)).size(), 4u);
}

TEST(SamplerSteps, XtcCoinIsItsOwnStreamAndProbsShowsTheNextDraw) {
  const auto x = logs({0.35, 0.3, 0.2, 0.1, 0.05});
  Ref ref;
  ref.o.xtc_probability = 0.4, ref.o.xtc_threshold = 0.15, ref.seed = 99;
  smx::Sampler s = make(ref);
  smx::Pcg32 main(99), coin(99, smx::kXtcStream);
  int fired = 0;
  const int calls = 2000;
  for (int i = 0; i < calls; ++i) {
    const auto p = probs_of(s, x);  // does not advance the coin
    const bool fire = coin.next_double() <= 0.4;
    fired += fire;
    EXPECT_EQ(support(p),
              fire ? (std::vector<size_t>{2, 3, 4}) : (std::vector<size_t>{0, 1, 2, 3, 4}))
        << i;
    int32_t t = -1;
    ASSERT_EQ(s.sample(x.data(), x.size(), &t), SampleStatus::kOk);
    // The draw: u from the main stream, inverse CDF over p in index order.
    const double u = main.next_double();
    double cum = 0, tot = 0;
    for (float v : p) tot += v;
    int32_t expect = -1;
    for (size_t j = 0; j < p.size() && expect < 0; ++j)
      if ((cum += p[j]) > u * tot) expect = static_cast<int32_t>(j);
    ASSERT_EQ(t, expect) << i;
  }
  // 2000 coins at 0.4: mean 800, sd 21.9; 5 sd.
  EXPECT_NEAR(fired, 800, 110);
  // reset() restarts the coin too.
  s.reset(99);
  smx::Pcg32 coin2(99, smx::kXtcStream);
  for (int i = 0; i < 50; ++i) {
    const bool fire = coin2.next_double() <= 0.4;
    EXPECT_EQ(support(probs_of(s, x)).size(), fire ? 3u : 5u);
    int32_t t;
    s.sample(x.data(), x.size(), &t);
  }
}

TEST(SamplerSteps, MirostatMuStepByStep) {
  std::vector<float> zipf(300);
  for (size_t i = 0; i < zipf.size(); ++i)
    zipf[(i * 7) % 300] = static_cast<float>(-1.2 * std::log(i + 1.0));
  for (int v : {1, 2}) {
    Ref ref;
    ref.o.mirostat = v, ref.o.mirostat_tau = 3, ref.o.mirostat_eta = 0.15, ref.o.temperature = 0.9f;
    ref.seed = 4242;
    smx::Sampler s = make(ref);
    EXPECT_EQ(s.mirostat_mu(), 6.0);
    double mu = 6.0;
    int distinct_k = 0;
    size_t last_k = 0;
    for (int step = 0; step < 200; ++step) {
      ref.mu = mu;
      const auto rr = ref.run(zipf);
      const auto p = probs_of(s, zipf);
      EXPECT_EQ(s.mirostat_mu(), mu) << "probs() must not move mu";
      if (!rr.ambiguous)
        expect_matches(p, rr.probs, "v" + std::to_string(v) + " step " + std::to_string(step));
      if (HasFatalFailure()) return;
      const size_t k = support(p).size();
      distinct_k += k != last_k, last_k = k;
      int32_t t = -1;
      ASSERT_EQ(s.sample(zipf.data(), zipf.size(), &t), SampleStatus::kOk);
      ASSERT_GT(p[t], 0);
      // mu -= eta * (-log2 p(t) - tau), p(t) in the distribution drawn from.
      const double expected = mu - 0.15 * (-std::log2(static_cast<double>(p[t])) - 3);
      ASSERT_NEAR(s.mirostat_mu(), expected, 1e-6) << "v" << v << " step " << step;
      mu = s.mirostat_mu();
    }
    EXPECT_GT(distinct_k, 5) << "the truncation follows mu";
    // Over 200 steps the mean surprise settles near tau: mu stays bounded.
    EXPECT_GT(mu, 0);
    EXPECT_LT(mu, 12);
    // sample_many: each draw updates mu, all from the distribution of the call's start.
    const double before = s.mirostat_mu();
    const auto p = probs_of(s, zipf);
    std::vector<int32_t> d(10);
    ASSERT_EQ(s.sample_many(zipf.data(), zipf.size(), d.size(), d.data()), SampleStatus::kOk);
    double m = before;
    for (int32_t t : d) m -= 0.15 * (-std::log2(static_cast<double>(p[t])) - 3);
    EXPECT_NEAR(s.mirostat_mu(), m, 1e-6);
    // reset() restores mu = 2 tau.
    s.reset(1);
    EXPECT_EQ(s.mirostat_mu(), 6.0);
  }
}

TEST(SamplerSteps, MirostatV2KeepsAtLeastTheMostLikely) {
  SamplerOptions o;
  o.mirostat = 2, o.mirostat_tau = 0;  // mu = 0: nothing has surprise <= 0 except p = 1
  EXPECT_EQ(support(probs_of(o, {1, 3, 3, 2})), (std::vector<size_t>{1}));
  o.min_keep = 3;
  EXPECT_EQ(support(probs_of(o, {1, 3, 3, 2})), (std::vector<size_t>{1, 2, 3}));
  // mu = 2: keeps p >= 1/4.
  o.min_keep = 1, o.mirostat_tau = 1;
  EXPECT_EQ(support(probs_of(o, logs({0.4, 0.3, 0.2, 0.1}))), (std::vector<size_t>{0, 1}));
}

TEST(SamplerSteps, DynatempHandWorked) {
  // Uniform candidates: normalised entropy 1, T' = T + range; then top-p sees that temperature.
  const std::vector<float> x = {0, 0, 0, 0};
  SamplerOptions o;
  o.temperature = 1, o.dynatemp_range = 0.5;
  EXPECT_EQ(support(probs_of(o, x)).size(), 4u);
  // Entropy 0 (the second entry underflows) with T - range <= 0: T' = 0, greedy.
  o.temperature = 0.3f, o.dynatemp_range = 0.4;
  EXPECT_EQ(support(probs_of(o, {0, -1000, -2000})), (std::vector<size_t>{0}));
  // Exponent 0: always T + range. [2, 1, 0] at T' = 1.5.
  o.temperature = 1, o.dynatemp_range = 0.5, o.dynatemp_exponent = 0;
  const auto p = probs_of(o, {2, 1, 0});
  const double z = 1 + std::exp(-1 / 1.5) + std::exp(-2 / 1.5);
  EXPECT_NEAR(p[0], 1 / z, 1e-6);
  // With dynatemp on, the temperature step does nothing: order need not hold 'temperature'.
  o.temperature = 0.7f;
  set_order(o, {Step::kDynatemp});
  EXPECT_TRUE(smx::validate(o).ok());
  set_order(o, {Step::kTemperature});
  EXPECT_FALSE(smx::validate(o).ok());
  // It needs a finite temperature.
  SamplerOptions bad;
  bad.dynatemp_range = 0.5, bad.temperature = kInf;
  EXPECT_FALSE(smx::validate(bad).ok());
}

TEST(SamplerSteps, EpsilonAndEtaHandWorked) {
  const auto x = logs({0.4, 0.3, 0.2, 0.1});
  SamplerOptions o;
  o.epsilon_cutoff = 0.15;
  EXPECT_EQ(support(probs_of(o, x)), (std::vector<size_t>{0, 1, 2}));
  o.epsilon_cutoff = 0.5;  // nothing reaches it: min_tokens_to_keep (1) most likely
  EXPECT_EQ(support(probs_of(o, x)), (std::vector<size_t>{0}));
  o.min_keep = 2;
  EXPECT_EQ(support(probs_of(o, x)), (std::vector<size_t>{0, 1}));
  // Eta: H = 1.2799, sqrt(0.2) e^-H = 0.1243 < 0.2: 0.1 goes.
  SamplerOptions e;
  e.eta_cutoff = 0.2;
  EXPECT_EQ(support(probs_of(e, x)), (std::vector<size_t>{0, 1, 2}));
  e.eta_cutoff = 0.05;  // min(0.05, 0.0622) = 0.05: all stay
  EXPECT_EQ(support(probs_of(e, x)).size(), 4u);
}

// llama.cpp tests/test-sampling.cpp, test_dry(probs, last_tokens, expected,
// multiplier, base, allowed_length, penalty_last_n, breakers): the expected
// probabilities there are sorted; here they are by token.
TEST(SamplerSteps, DryLlamaCppCases) {
  auto dry = [](std::vector<double> p, std::vector<int32_t> hist, float mult, float base,
                int32_t allowed, int32_t last_n, std::vector<int32_t> breakers) {
    SamplerOptions o;
    o.dry_multiplier = mult, o.dry_base = base, o.dry_allowed_length = allowed,
    o.dry_penalty_last_n = last_n;
    std::vector<float> x;
    for (double v : p) x.push_back(static_cast<float>(std::log(v)));
    return probs_of(o, x, hist, breakers);
  };
  auto expect = [](const std::vector<float>& got, std::vector<double> want) {
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
  };
  expect(dry({0.25, 0.25, 0.25, 0.25}, {0, 1}, 1.0f, 1.1f, 2, 4, {}), {0.25, 0.25, 0.25, 0.25});
  expect(dry({0.25, 0.25, 0.25, 0.25}, {0, 1, 2, 0, 1}, 1.0f, 1.1f, 2, 5, {}),
         {0.296923, 0.296923, 0.109232, 0.296923});
  expect(dry({0.2, 0.2, 0.2, 0.2, 0.2}, {0, 1, 3, 4, 0, 1}, 1.0f, 1.1f, 2, 6, {{3}}),
         {0.2, 0.2, 0.2, 0.2, 0.2});
  expect(dry({0.2, 0.2, 0.2, 0.2, 0.2}, {0, 1, 2, 0, 1}, 2.0f, 1.1f, 2, 5, {}),
         {0.241818, 0.241818, 0.032727, 0.241818, 0.241818});
  expect(dry({0.2, 0.2, 0.2, 0.2, 0.2}, {0, 1, 2, 3, 4, 0, 1}, 1.0f, 1.1f, 4, 7, {}),
         {0.2, 0.2, 0.2, 0.2, 0.2});
}

TEST(SamplerSteps, DryHandWorkedRepeatLengthsBreakersAndClamp) {
  // llama.cpp's comment: "a b c c b c y a b c", repeat counts 0 0 3 1 0 2 0 0 0 0:
  // c would extend a repeat of 3, y one of 2, b one of 1 (below allowed 2).
  const std::vector<int32_t> h = {0, 1, 2, 2, 1, 2, 3, 0, 1, 2};  // a=0 b=1 c=2 y=3
  SamplerOptions o;
  o.dry_multiplier = 0.5f, o.dry_base = 2, o.dry_allowed_length = 2;
  const auto p = probs_of(o, {0, 0, 0, 0, 0}, h);
  const double l[] = {0, 0, -0.5 * 2, -0.5, 0};  // c: 0.5 * 2^(3-2), y: 0.5 * 2^0
  double z = 0;
  for (double v : l) z += std::exp(v);
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(p[i], std::exp(l[i]) / z, 1e-6) << i;
  // The last token a breaker: rep_limit 0 < allowed, no penalty.
  EXPECT_EQ(probs_of(o, {0, 0, 0, 0, 0}, h, {2}), std::vector<float>(5, 0.2f));
  // A breaker earlier limits the repeat: "a b | a b" (| = 4): the repeat of a b
  // would reach back over the breaker; capped at 2 still penalises a.
  const auto q = probs_of(o, {0, 0, 0, 0, 0}, {0, 1, 0, 1, 4, 0, 1}, {4});
  EXPECT_LT(q[0], q[2]);
  // Penalties scale with the temperature applied before (llama.cpp: on scaled logits).
  SamplerOptions t = o;
  t.temperature = 0.5f;
  set_order(t, {Step::kTemperature, Step::kDry});
  const auto pt = probs_of(t, {0, 0, 0, 0, 0}, h);
  EXPECT_NEAR(pt[2] / pt[0], std::exp(-1.0), 1e-5);
  // Huge repeats: the exponent is clamped at 88.72 / ln(base) (127 for base 2),
  // the logit stays finite (lowest float), the others keep the mass.
  std::vector<int32_t> rep(400, 1);
  SamplerOptions c;
  c.dry_multiplier = 1e10f, c.dry_base = 2, c.dry_allowed_length = 2;
  const auto pc = probs_of(c, {0, 0, 0}, rep);
  EXPECT_EQ(pc[1], 0.0f);
  EXPECT_NEAR(pc[0], 0.5, 1e-6);
  // History tokens outside the vocabulary simply match no candidate.
  EXPECT_EQ(support(probs_of(o, {0, 0, 0}, {7, 9, 7, 9, 7, 9})).size(), 3u);
}

TEST(SamplerSteps, NoRepeatNgramBansAndAllBanned) {
  const std::vector<int32_t> h = {1, 2, 3, 1, 2};
  const std::vector<float> x = {0, 0, 0, 0, 0};
  SamplerOptions o;
  o.no_repeat_ngram_size = 3;  // prefix (1, 2) was followed by 3
  EXPECT_EQ(support(probs_of(o, x, h)), (std::vector<size_t>{0, 1, 2, 4}));
  o.no_repeat_ngram_size = 2;  // prefix (2): followed by 3
  EXPECT_EQ(support(probs_of(o, x, h)), (std::vector<size_t>{0, 1, 2, 4}));
  o.no_repeat_ngram_size = 1;  // every token seen is banned
  EXPECT_EQ(support(probs_of(o, x, h)), (std::vector<size_t>{0, 4}));
  o.no_repeat_ngram_size = 4;  // (3, 1, 2) never continued
  EXPECT_EQ(support(probs_of(o, x, h)).size(), 5u);
  o.no_repeat_ngram_size = 6;  // longer than the history
  EXPECT_EQ(support(probs_of(o, x, h)).size(), 5u);
  // min-keep does not undo a ban.
  o.no_repeat_ngram_size = 1, o.min_keep = 5;
  EXPECT_EQ(support(probs_of(o, x, h)), (std::vector<size_t>{0, 4}));
  // Every candidate banned: kAllMasked, and the sampler keeps working.
  SamplerOptions a;
  a.no_repeat_ngram_size = 1;
  Ref ref;
  ref.o = a, ref.history = {1, 2};
  smx::Sampler s = make(ref);
  const std::vector<float> y = {-kInf, 0, 0};
  int32_t t = -1;
  EXPECT_EQ(s.sample(y.data(), y.size(), &t), SampleStatus::kAllMasked);
  const std::vector<float> z = {0, 0, 0};
  ASSERT_EQ(s.sample(z.data(), z.size(), &t), SampleStatus::kOk);
  EXPECT_EQ(t, 0);
  // The whole history is kept while no-repeat is on (penaltyLastN does not trim it).
  SamplerOptions k;
  k.no_repeat_ngram_size = 2, k.penalty_last_n = 4, k.repetition_penalty = 1.1f;
  std::vector<int32_t> long_h = {7, 3};
  for (int i = 0; i < 5000; ++i) long_h.push_back(5);
  long_h.push_back(7);
  std::vector<float> w(8, 0);
  EXPECT_EQ(probs_of(k, w, long_h)[3], 0.0f);  // 7 was followed by 3, 5000 tokens ago
}

// ---------------------------------------------------------------------------
// Chi-square (as sampler_test.cpp: pooled bins below 5 expected, critical
// value the 0.9999 quantile by Wilson-Hilferty; false-alarm rate 1e-4 per test).
double wilson_hilferty_9999(double df) {
  const double z = 3.719016;
  const double a = 2 / (9 * df);
  return df * std::pow(1 - a + z * std::sqrt(a), 3);
}

struct Fit {
  double chi2, crit, df;
};

Fit chi_square(const std::vector<double>& expected_p, const std::vector<double>& count,
               double draws) {
  double chi2 = 0, pool_e = 0, pool_o = 0;
  int bins = 0;
  for (size_t i = 0; i < expected_p.size(); ++i) {
    if (expected_p[i] == 0) {
      EXPECT_EQ(count[i], 0) << "drew entry " << i << " of probability 0";
      continue;
    }
    const double e = draws * expected_p[i];
    if (e < 5) {
      pool_e += e, pool_o += count[i];
      continue;
    }
    chi2 += (count[i] - e) * (count[i] - e) / e;
    ++bins;
  }
  if (pool_e > 0) chi2 += (pool_o - pool_e) * (pool_o - pool_e) / pool_e, ++bins;
  const double df = std::max(bins - 1, 1);
  return {chi2, wilson_hilferty_9999(df), df};
}

std::vector<float> normal_scores(size_t n, double sigma, uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> d(0, sigma);
  std::vector<float> x(n);
  for (auto& v : x) v = static_cast<float>(d(gen));
  return x;
}

TEST(SamplerSteps, ChiSquareOfXtcOverSampleCalls) {
  // Each sample() call: with probability 0.3 the XTC distribution, else the
  // plain one; 1e5 calls against that mixture.
  const auto x = normal_scores(60, 1.2, 31);
  SamplerOptions on;
  on.xtc_probability = 1, on.xtc_threshold = 0.03, on.temperature = 0.8f;
  SamplerOptions off = on;
  off.xtc_probability = 0;
  const auto p_on = probs_of(on, x), p_off = probs_of(off, x);
  ASSERT_LT(support(p_on).size(), support(p_off).size());
  SamplerOptions o = on;
  o.xtc_probability = 0.3;
  Ref ref;
  ref.o = o, ref.seed = 777;
  smx::Sampler s = make(ref);
  const int draws = 100000;
  std::vector<double> count(x.size(), 0), mix(x.size());
  for (size_t i = 0; i < x.size(); ++i) mix[i] = 0.7 * p_off[i] + 0.3 * p_on[i];
  for (int i = 0; i < draws; ++i) {
    int32_t t = -1;
    ASSERT_EQ(s.sample(x.data(), x.size(), &t), SampleStatus::kOk);
    count[t] += 1;
  }
  const Fit f = chi_square(mix, count, draws);
  std::printf("  XTC p=0.3 mixture: chi2 %.2f df %.0f critical %.2f\n", f.chi2, f.df, f.crit);
  EXPECT_LT(f.chi2, f.crit);
  // And sample_many draws from probs() (one coin for the call).
  int fired = 0;
  for (uint64_t seed : {5u, 6u, 7u, 8u, 9u, 10u, 11u, 12u}) {
    ref.seed = seed;
    smx::Sampler m = make(ref);
    const auto p = probs_of(m, x);
    std::vector<int32_t> d(draws);
    ASSERT_EQ(m.sample_many(x.data(), x.size(), d.size(), d.data()), SampleStatus::kOk);
    std::vector<double> c(x.size(), 0), pd(p.begin(), p.end());
    for (int32_t t : d) c[t] += 1;
    const Fit g = chi_square(pd, c, draws);
    std::printf("  XTC sample_many seed %d (%s): chi2 %.2f df %.0f critical %.2f\n", int(seed),
                support(p).size() < support(p_off).size() ? "fired" : "not fired", g.chi2, g.df,
                g.crit);
    EXPECT_LT(g.chi2, g.crit);
    fired += support(p).size() < support(p_off).size();
  }
  EXPECT_GT(fired, 0);
  EXPECT_LT(fired, 8);
}

TEST(SamplerSteps, ChiSquareOfMirostatDraws) {
  std::vector<float> zipf(2000);
  for (size_t i = 0; i < zipf.size(); ++i)
    zipf[(i * 13) % 2000] = static_cast<float>(-1.1 * std::log(i + 1.0));
  for (int v : {1, 2}) {
    Ref ref;
    ref.o.mirostat = v, ref.o.mirostat_tau = 6, ref.seed = 500 + v;
    smx::Sampler s = make(ref);
    const auto p = probs_of(s, zipf);  // the distribution of the call's start (mu = 12)
    ASSERT_GT(support(p).size(), 20u);
    const int draws = 100000;
    std::vector<int32_t> d(draws);
    ASSERT_EQ(s.sample_many(zipf.data(), zipf.size(), d.size(), d.data()), SampleStatus::kOk);
    std::vector<double> c(zipf.size(), 0), pd(p.begin(), p.end());
    for (int32_t t : d) c[t] += 1;
    const Fit f = chi_square(pd, c, draws);
    std::printf("  mirostat v%d: chi2 %.2f df %.0f critical %.2f (kept %zu)\n", v, f.chi2, f.df,
                f.crit, support(p).size());
    EXPECT_LT(f.chi2, f.crit);
  }
}

// ---------------------------------------------------------------------------
TEST(SamplerSteps, BadOptionsAreStatuses) {
  for (auto edit : std::vector<void (*)(SamplerOptions&)>{
           [](SamplerOptions& o) { o.top_n_sigma = -1; },
           [](SamplerOptions& o) { o.top_n_sigma = NAN; },
           [](SamplerOptions& o) { o.top_n_sigma = INFINITY; },
           [](SamplerOptions& o) { o.xtc_probability = 1.5; },
           [](SamplerOptions& o) { o.xtc_probability = -0.1; },
           [](SamplerOptions& o) { o.xtc_threshold = NAN; },
           [](SamplerOptions& o) { o.mirostat = 3; },
           [](SamplerOptions& o) { o.mirostat = -1; },
           [](SamplerOptions& o) { o.mirostat_tau = -1; },
           [](SamplerOptions& o) { o.mirostat_eta = INFINITY; },
           [](SamplerOptions& o) { o.dynatemp_range = -0.5; },
           [](SamplerOptions& o) { o.dynatemp_exponent = -1; },
           [](SamplerOptions& o) { o.epsilon_cutoff = 1; },
           [](SamplerOptions& o) { o.eta_cutoff = -0.1; },
           [](SamplerOptions& o) { o.dry_multiplier = -1; },
           [](SamplerOptions& o) { o.dry_multiplier = INFINITY; },
           [](SamplerOptions& o) { o.dry_base = 0.5f; },
           [](SamplerOptions& o) { o.dry_allowed_length = -1; },
           [](SamplerOptions& o) { o.dry_penalty_last_n = -2; },
           [](SamplerOptions& o) { o.xtc_probability = 0.5, o.order_len = 5; },
           [](SamplerOptions& o) { o.mirostat = 1, set_order(o, {Step::kTemperature}); }}) {
    SamplerOptions o;
    edit(o);
    EXPECT_FALSE(smx::validate(o).ok());
    smx::Sampler s;
    EXPECT_EQ(s.configure(o), SampleStatus::kBadOption);
  }
  smx::Sampler s;
  const int32_t neg[] = {3, -1};
  EXPECT_EQ(s.set_dry_breakers(neg, 2), SampleStatus::kBadToken);
  EXPECT_EQ(s.error_index(), 1u);
  // The presets hold every step once.
  for (const auto* preset : {smx::kOrderHf, smx::kOrderLlamaCpp}) {
    std::set<int> seen;
    for (int i = 0; i < smx::kNumSteps; ++i) seen.insert(static_cast<int>(preset[i]));
    EXPECT_EQ(seen.size(), size_t(smx::kNumSteps));
  }
}

TEST(SamplerSteps, GoldenFileMatchesTheNativeBuild) {
  std::ifstream f(std::string(SMX_GOLDEN_DIR) + "/sampler_steps.json", std::ios::binary);
  ASSERT_TRUE(f.good()) << "tests/golden/sampler_steps.json missing: run make_sampler_steps_golden";
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_TRUE(ss.str() == golden_steps::json()) << "tests/golden/sampler_steps.json differs from "
                                                   "the native build; if the change is intended, "
                                                   "regenerate it with make_sampler_steps_golden";
  for (const auto& c : golden_steps::cases())
    EXPECT_EQ(golden_steps::run(c).size(), c.draws) << c.name;
}

}  // namespace
