// The temperature steps: the fixed temperature, and llama.cpp's dynamic
// temperature (temp_ext) from the normalised entropy of the candidates.
#include <algorithm>
#include <cmath>
#include <limits>

#include "math_f64.h"
#include "smx/softmax.h"
#include "softmax_parts.h"
#include "steps/steps.h"

namespace smx::steps {

void temperature(Candidates& c, float t) {
  if (t == 0.0f) return c.keep_only(c.first_max());
  if (t == std::numeric_limits<float>::infinity()) {
    float* g = c.writable_logit();
    for (size_t j = 0; j < c.size; ++j) g[j] = 0.0f;
    c.range[0] = c.range[1] = 0.0f;
    c.range_known = true;
    c.t = 1.0f;
    return;
  }
  c.t = t;
}

namespace {

// T' for an entropy h: lo + (hi - lo) (h / log m)^exponent, in double.
double dynamic_t(double h, double lo, double hi, double log_m, double exponent) {
  return lo + (hi - lo) * pow_f64(h / log_m, exponent);
}

}  // namespace

void dynamic_temperature(Candidates& c, const Workspace& w, float t, double range,
                         double exponent) {
  if (!(range > 0.0) || c.size <= 1) return;
  const double lo = std::max(0.0, static_cast<double>(t) - range);
  const double hi = static_cast<double>(t) + range;
  const double log_m = log_f64(static_cast<double>(c.size));
  // The distribution at T' is computed after: the entropy's pass stores nothing.
  SoftmaxParts parts;
  const double h = c.entropy_one_pass(w.logprob, &parts);
  const auto dyn = static_cast<float>(dynamic_t(h, lo, hi, log_m, exponent));
  if (!(dyn > 0.0f)) return c.keep_only(c.first_max());  // as llama.cpp's temp <= 0
  c.t = dyn;
}

}  // namespace smx::steps
