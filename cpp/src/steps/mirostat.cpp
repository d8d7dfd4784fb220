// Mirostat (llama.cpp llama_sampler_mirostat, v1 with m = kMirostatM and
// n_vocab = the call's vocabulary, and llama_sampler_mirostat_v2). The state
// mu is the sampler's; mirostat_next_mu updates it after a draw.
#include <algorithm>
#include <limits>

#include "math_f64.h"
#include "smx/sampler.h"
#include "steps/steps.h"

namespace smx::steps {

namespace {
constexpr double kLn2 = 0x1.62E42FEFA39EFp-1;
}  // namespace

void mirostat(Candidates& c, const Workspace& w, int version, double mu, size_t vocab) {
  if (version == 0 || c.size <= 1) return;
  // v2: keep -log2 p <= mu, i.e. p >= 2^-mu.
  if (version == 2) return keep_prob_at_least(c, w, exp_f64(-mu * kLn2));
  c.softmax();
  const float* q = c.prob;
  // v1: the m most likely in the order (insertion into a sorted array of m).
  uint32_t top[kMirostatM];
  const size_t mm = std::min<size_t>(kMirostatM, c.size);
  size_t n = 0;
  const float* g = c.logit;
  for (size_t p = 0; p < c.size; ++p) {
    if (n == mm && !(g[p] > g[top[n - 1]])) continue;  // ties: the earlier position stays first
    size_t i = n < mm ? n++ : n - 1;
    for (; i > 0 && g[p] > g[top[i - 1]]; --i) top[i] = top[i - 1];
    top[i] = static_cast<uint32_t>(p);
  }
  // s_hat: least squares of log(p_i / p_{i+1}) on t_i = log((i + 2) / (i + 1)).
  double sum_ti_bi = 0.0, sum_ti_sq = 0.0;
  for (size_t i = 0; i + 1 < mm; ++i) {
    const double ti = log_f64(static_cast<double>(i + 2) / static_cast<double>(i + 1));
    const float a = g[top[i]], b = g[top[i + 1]];
    const double bi =
        (a - a == 0.0f && b - b == 0.0f)
            ? (static_cast<double>(a) - static_cast<double>(b)) / static_cast<double>(c.t)
            : log_f64(static_cast<double>(q[top[i]]) / static_cast<double>(q[top[i + 1]]));
    sum_ti_bi += ti * bi;
    sum_ti_sq += ti * ti;
  }
  const double s_hat = sum_ti_bi / sum_ti_sq;
  const double eps_hat = s_hat - 1.0;
  const double base =
      (eps_hat * pow_f64(2.0, mu)) / (1.0 - pow_f64(static_cast<double>(vocab), -eps_hat));
  const double k = pow_f64(base, 1.0 / s_hat);
  size_t kk = 1;
  if (k >= static_cast<double>(c.size))
    kk = c.size;
  else if (k >= 1.0)
    kk = static_cast<size_t>(k);  // int(k), at least 1 (NaN too)
  top_k(c, w, kk);
}

double mirostat_next_mu(double mu, double tau, double eta, double p) {
  const double surprise = p > 0.0 ? -log_f64(p) / kLn2 : std::numeric_limits<double>::infinity();
  return mu - eta * (surprise - tau);
}

}  // namespace smx::steps
