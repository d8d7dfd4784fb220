// The steps that keep the candidates at or above a threshold: min-p (HF
// MinPLogitsWarper, llama.cpp min-p), top-n-sigma (llama.cpp), the epsilon and
// eta cutoffs (HF EpsilonLogitsWarper, EtaLogitsWarper).
#include <algorithm>
#include <cmath>
#include <limits>

#include "math_f64.h"
#include "smx/sampler.h"
#include "steps/steps.h"

namespace smx::steps {

void min_p(Candidates& c, const Workspace& w, double m) {
  if (m <= 0.0 || c.size <= 1) return;
  c.softmax();
  float pmax = 0.0f;
  for (size_t j = 0; j < c.size; ++j) pmax = std::max(pmax, c.prob[j]);
  const double threshold = m * static_cast<double>(pmax) * (1.0 - kMassSlack);
  const float* q = c.prob;
  keep_at_least_min(c, w,
                    [q, threshold](size_t p) { return static_cast<double>(q[p]) >= threshold; });
}

// Scale-free, so the temperature applied so far does not matter.
void top_n_sigma(Candidates& c, const Workspace& w, double n) {
  if (!(n > 0.0) || c.size <= 1) return;
  const float* g = c.logit;
  double mx = -std::numeric_limits<double>::infinity(), sum = 0.0;
  for (size_t p = 0; p < c.size; ++p) {
    mx = std::max(mx, static_cast<double>(g[p]));
    sum += g[p];
  }
  const double mean = sum / static_cast<double>(c.size);
  double acc = 0.0;
  for (size_t p = 0; p < c.size; ++p) {
    const double d = static_cast<double>(g[p]) - mean;
    acc += d * d;
  }
  const double threshold = mx - n * std::sqrt(acc / static_cast<double>(c.size));
  keep_at_least_min(c, w,
                    [g, threshold](size_t p) { return !(static_cast<double>(g[p]) < threshold); });
}

void epsilon_cutoff(Candidates& c, const Workspace& w, double e) {
  if (!(e > 0.0) || c.size <= 1) return;
  c.softmax();
  const float* q = c.prob;
  keep_at_least_min(c, w, [q, e](size_t p) { return !(static_cast<double>(q[p]) < e); });
}

void eta_cutoff(Candidates& c, const Workspace& w, double e) {
  if (!(e > 0.0) || c.size <= 1) return;
  const double h = c.entropy(w.logprob);
  const double threshold = std::min(e, std::sqrt(e) * exp_f64(-h));
  const float* q = c.prob;
  keep_at_least_min(c, w,
                    [q, threshold](size_t p) { return !(static_cast<double>(q[p]) < threshold); });
}

}  // namespace smx::steps
