// The steps that keep the candidates at or above a threshold: min-p (HF
// MinPLogitsWarper, llama.cpp min-p), top-n-sigma (llama.cpp), the epsilon and
// eta cutoffs (HF EpsilonLogitsWarper, EtaLogitsWarper).
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/dispatch.h"
#include "math_f64.h"
#include "select.h"
#include "smx/sampler.h"
#include "softmax_parts.h"
#include "steps/steps.h"

namespace smx::steps {

namespace {

void keep_prob_at_least(Candidates& c, const Workspace& w, const SoftmaxParts& parts,
                        double theta) {
  float lo, hi;
  if (!w.bounded || !parts.logit_band(theta, &lo, &hi)) {
    c.softmax();
    const float* q = c.prob;
    return keep_at_least_min(c, w,
                             [q, theta](size_t p) { return !(static_cast<double>(q[p]) < theta); });
  }
  const float* g = c.logit;
  const auto keep = [g, lo, hi, &parts, theta](size_t p) {
    return g[p] >= hi || (g[p] >= lo && !(static_cast<double>(parts.prob_of(g[p])) < theta));
  };
  const size_t count = sel::at_least(g, c.size, lo, w.perm);
  size_t kept = 0;
  for (size_t i = 0; i < count; ++i) kept += keep(w.perm[i]) ? 1u : 0u;
  if (kept == c.size) return;
  if (kept < w.min_keep) return top_k(c, w, w.min_keep);
  c.retain_if(keep, w.perm, count);
}

}  // namespace

void keep_prob_at_least(Candidates& c, const Workspace& w, double theta) {
  keep_prob_at_least(c, w, softmax_parts(c.logit, c.size, c.t, c.min_max(), nullptr), theta);
}

void min_p(Candidates& c, const Workspace& w, double m) {
  if (m <= 0.0 || c.size <= 1) return;
  // p_max: the largest probability, among the entries that may come near the
  // top entry's (the rounding of exp is not monotonic to the last bit).
  const SoftmaxParts parts = softmax_parts(c.logit, c.size, c.t, c.min_max(), nullptr);
  float lo, hi;
  const float top = parts.kind == SoftmaxParts::Kind::kScaled ? parts.prob_of(parts.max) : 0.0f;
  if (!w.bounded || !parts.logit_band(static_cast<double>(top) * (1.0 - 0x1p-16), &lo, &hi)) {
    c.softmax();
    float pmax = 0.0f;
    for (size_t j = 0; j < c.size; ++j) pmax = std::max(pmax, c.prob[j]);
    const double threshold = m * static_cast<double>(pmax) * (1.0 - kMassSlack);
    const float* q = c.prob;
    return keep_at_least_min(
        c, w, [q, threshold](size_t p) { return static_cast<double>(q[p]) >= threshold; });
  }
  float pmax = 0.0f;
  const size_t count = sel::at_least(c.logit, c.size, lo, w.perm);
  for (size_t i = 0; i < count; ++i) pmax = std::max(pmax, parts.prob_of(c.logit[w.perm[i]]));
  keep_prob_at_least(c, w, parts, m * static_cast<double>(pmax) * (1.0 - kMassSlack));
}

namespace {

// logit >= max - n * sd, with the mean and the variance sums in index order as
// the definition (sequential double sums).
void top_n_sigma_exact(Candidates& c, const Workspace& w, double n) {
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

}  // namespace

// Scale-free, so the temperature applied so far does not matter. The mean and
// variance come from one pass of lane sums (rsumsqdiff, about the max) whose
// error is bounded; where no logit lies within that bound of the threshold,
// the definition's sequential sums give the same kept set.
void top_n_sigma(Candidates& c, const Workspace& w, double n) {
  if (!(n > 0.0) || c.size <= 1) return;
  const float* mm = c.min_max();
  const double mx = mm[1], m = static_cast<double>(c.size);
  if (!(mx - mx == 0.0) || !(static_cast<double>(mm[0]) - mm[0] == 0.0) || c.size < 64 ||
      !w.bounded)
    return top_n_sigma_exact(c, w, n);
  double s[2];
  dispatch::rsumsqdiff(c.size, c.logit, mx, s);
  const double d1 = s[0] / m, v2 = s[1] / m;
  const double var = std::max(0.0, v2 - d1 * d1);
  const double sd = std::sqrt(var);
  // Bounds: sums of m terms within (m + 8) 2^-53 of exact, here and in the
  // definition; the definition's mean within that of the true mean, which
  // adds its square to the variance; roundings of the few operations after.
  const double gamma = (m + 8.0) * 0x1p-53;
  const double delta =
      gamma * (std::max(std::fabs(mx), std::fabs(static_cast<double>(mm[0]))) + 1.0);
  const double e_var = (6.0 * gamma + 0x1p-50) * v2 + delta * delta;
  const double e_sd = (sd > 0.0 ? e_var / sd : std::sqrt(e_var)) + 0x1p-50 * sd;
  const double threshold = mx - n * sd;
  const double margin = 4.0 * (n * e_sd + 0x1p-51 * (std::fabs(mx) + n * sd)) + 1e-300;
  float lo = static_cast<float>(threshold - margin), hi = static_cast<float>(threshold + margin);
  if (static_cast<double>(lo) > threshold - margin) lo = std::nextafter(lo, -INFINITY);
  if (static_cast<double>(hi) < threshold + margin) hi = std::nextafter(hi, INFINITY);
  // Undecided: a logit in [lo, hi).
  const size_t count = sel::at_least(c.logit, c.size, lo, w.perm);
  const float* g = c.logit;
  size_t kept = 0;
  for (size_t i = 0; i < count; ++i) {
    const float v = g[w.perm[i]];
    if (v < hi) return top_n_sigma_exact(c, w, n);
    ++kept;
  }
  if (kept == c.size) return;
  if (kept < w.min_keep) return top_k(c, w, w.min_keep);
  c.retain_if([](size_t) { return true; }, w.perm, count);
}

void epsilon_cutoff(Candidates& c, const Workspace& w, double e) {
  if (!(e > 0.0) || c.size <= 1) return;
  keep_prob_at_least(c, w, e);
}

void eta_cutoff(Candidates& c, const Workspace& w, double e) {
  if (!(e > 0.0) || c.size <= 1) return;
  // The entropy from the softmax pass's own sums (as typical and dynatemp);
  // keep_prob_at_least decides from softmax's outputs where that pass does not apply.
  SoftmaxParts parts;
  const double h = c.entropy_one_pass(w.logprob, &parts);
  keep_prob_at_least(c, w, parts, std::min(e, std::sqrt(e) * exp_f64(-h)));
}

}  // namespace smx::steps
