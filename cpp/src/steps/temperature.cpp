// The temperature steps: the fixed temperature, and llama.cpp's dynamic
// temperature (temp_ext) from the normalised entropy of the candidates.
#include <algorithm>
#include <limits>

#include "math_f64.h"
#include "smx/softmax.h"
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

void dynamic_temperature(Candidates& c, const Workspace& w, float t, double range,
                         double exponent) {
  if (!(range > 0.0) || c.size <= 1) return;
  const double lo = std::max(0.0, static_cast<double>(t) - range);
  const double hi = static_cast<double>(t) + range;
  const double norm = c.entropy(w.logprob) / log_f64(static_cast<double>(c.size));
  const auto dyn = static_cast<float>(lo + (hi - lo) * pow_f64(norm, exponent));
  if (!(dyn > 0.0f)) return c.keep_only(c.first_max());  // as llama.cpp's temp <= 0
  c.t = dyn;
}

}  // namespace smx::steps
