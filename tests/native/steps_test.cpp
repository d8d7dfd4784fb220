// The steps' bounded paths (thresholds decided on the logits, lane sums with
// an error bound) against their definitions' paths (every probability,
// sequential sums), bit for bit: the same kept candidates, logits and
// temperature, over inputs with several spreads, offsets, ties and
// temperatures (Workspace::bounded false forces the definition's path).
#include "steps/steps.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "candidates.h"
#include "kernels/dispatch.h"
#include "reference.h"
#include "smx/rng.h"
#include "softmax_parts.h"

namespace {

struct Run {
  std::vector<uint32_t> index_out, perm, spare;
  std::vector<float> logit_out, prob, logprob;
  std::vector<double> key;
  std::vector<int32_t> ints;
  smx::Candidates c;
  smx::steps::Workspace w;

  Run(const std::vector<float>& x, float t, size_t min_keep, bool bounded)
      : index_out(x.size()),
        perm(x.size()),
        spare(2 * x.size()),
        logit_out(x.size()),
        prob(x.size()),
        logprob(x.size()),
        key(x.size()),
        ints(4),
        c{nullptr, x.data(), prob.data(), x.size(), t, 0.0, index_out.data(), logit_out.data()},
        w{perm.data(), spare.data(), key.data(), logprob.data(), ints.data(), min_keep, bounded} {}
};

using StepFn = std::function<void(smx::Candidates&, const smx::steps::Workspace&)>;

void expect_same(const std::vector<float>& x, float t, size_t min_keep, const StepFn& step,
                 const std::string& what) {
  Run a(x, t, min_keep, true), b(x, t, min_keep, false);
  step(a.c, a.w);
  step(b.c, b.w);
  ASSERT_EQ(a.c.size, b.c.size) << what;
  ASSERT_EQ(a.c.t, b.c.t) << what;
  for (size_t p = 0; p < a.c.size; ++p) {
    ASSERT_EQ(a.c.at(p), b.c.at(p)) << what << " p=" << p;
    ASSERT_EQ(ref::bits(a.c.logit[p]), ref::bits(b.c.logit[p])) << what << " p=" << p;
  }
}

std::vector<std::vector<float>> inputs() {
  std::vector<std::vector<float>> xs;
  uint32_t seed = 1;
  for (size_t n : {1025, 3000, 20000}) {
    for (double sd : {0.5, 3.0, 10.0}) {
      for (float offset : {0.0f, 500.0f}) {
        auto x = ref::normal(n, sd, seed++);
        for (auto& v : x) v += offset;
        xs.push_back(x);
      }
    }
    auto ties = ref::normal(n, 3.0, seed++);
    for (auto& v : ties) v = std::floor(v);
    xs.push_back(ties);
  }
  xs.push_back(ref::normal(151936, 3.0, seed++));
  return xs;
}

TEST(Steps, BoundedPathsGiveTheDefinitionsCandidates) {
  namespace st = smx::steps;
  const auto xs = inputs();
  size_t cases = 0;
  for (size_t k = 0; k < xs.size(); ++k) {
    const auto& x = xs[k];
    for (float t : {1.0f, 0.7f}) {
      for (size_t min_keep : {1, 50}) {
        const std::string at = "input " + std::to_string(k) + " n=" + std::to_string(x.size()) +
                               " T=" + std::to_string(t) + " min_keep=" + std::to_string(min_keep);
        auto check = [&](const char* name, const StepFn& f) {
          expect_same(x, t, min_keep, f, std::string(name) + ", " + at);
          ++cases;
        };
        for (double m : {0.3, 0.05, 1e-3}) {
          check("min-p", [m](auto& c, auto& w) { st::min_p(c, w, m); });
        }
        for (double e : {3e-4, 1e-6}) {
          check("epsilon", [e](auto& c, auto& w) { st::epsilon_cutoff(c, w, e); });
          check("eta", [e](auto& c, auto& w) { st::eta_cutoff(c, w, e); });
        }
        for (double mu : {5.0, 10.0, 20.0}) {
          check("mirostat 2", [mu, &x](auto& c, auto& w) { st::mirostat(c, w, 2, mu, x.size()); });
        }
        for (double n : {0.5, 1.0, 3.0}) {
          check("top-n-sigma", [n](auto& c, auto& w) { st::top_n_sigma(c, w, n); });
        }
        for (double p : {0.5, 0.9, 0.999}) {
          check("top-p", [p](auto& c, auto& w) { st::top_p(c, w, p); });
        }
        for (double mass : {0.2, 0.9, 0.99}) {
          check("typical", [mass](auto& c, auto& w) { st::typical_p(c, w, mass); });
        }
        for (double th : {0.01, 0.1}) {
          check("xtc", [th](auto& c, auto& w) {
            smx::Pcg32 coin(3u);
            st::xtc(c, w, coin, 1.0, th);
          });
        }
      }
    }
  }
  EXPECT_GT(cases, 1000u);
}

// The one-pass entropy and mean logit (softmax_parts with its dot, which
// dynamic temperature and typical sampling read) against long double, on
// softmax's fast path (T = 1, 256+ entries) and off it: within 2^-20 (1 + the
// mean |x - max| / T), the rounding of float exponentials and differences.
TEST(Steps, OnePassEntropyAndMeanLogitMatchLongDouble) {
  const auto xs = inputs();
  size_t cases = 0;
  double worst = 0.0;
  for (size_t k = 0; k < xs.size(); ++k) {
    const auto& x = xs[k];
    for (float t : {1.0f, 0.7f, 1.3f}) {
      float mm[2];
      smx::dispatch::rminmax(x.size(), x.data(), mm);
      double dot = 0.0;
      std::vector<float> y(x.size());
      const smx::SoftmaxParts parts = smx::softmax_parts(x.data(), x.size(), t, mm, y.data(), &dot);
      ASSERT_EQ(parts.kind, smx::SoftmaxParts::Kind::kScaled) << k;
      long double s = 0, sx = 0, sz = 0;
      for (float v : x) {
        const long double z = (static_cast<long double>(v) - mm[1]) / t;
        const long double e = std::exp(z);
        s += e, sx += e * v, sz += e * z;
      }
      const long double h = std::log(s) - sz / s, mean = sx / s;
      long double abs_z = 0;
      for (float v : x)
        abs_z += std::exp((static_cast<long double>(v) - mm[1]) / t) / s *
                 std::fabs((static_cast<long double>(v) - mm[1]) / t);
      const double bound = 0x1p-20 * (1.0 + static_cast<double>(abs_z));
      const double err = std::fabs(static_cast<double>(parts.entropy(dot) - h));
      worst = std::max(worst, err / bound);
      EXPECT_LE(err, bound) << "input " << k << " T=" << t;
      EXPECT_LE(std::fabs(static_cast<double>(parts.mean_logit(dot) - mean)), bound * t)
          << "input " << k << " T=" << t;
      // The exponentials are softmax_parts' own without the dot.
      std::vector<float> y0(x.size());
      const smx::SoftmaxParts p0 = smx::softmax_parts(x.data(), x.size(), t, mm, y0.data());
      ASSERT_EQ(p0.sum, parts.sum) << k;
      for (size_t i = 0; i < x.size(); i += 61) ASSERT_EQ(ref::bits(y0[i]), ref::bits(y[i]));
      ++cases;
    }
  }
  std::printf("one-pass entropy: worst error %.3f of the bound over %zu cases\n", worst, cases);
  EXPECT_GT(cases, 50u);
}

}  // namespace
