// The temperature steps: the fixed temperature, and llama.cpp's dynamic
// temperature (temp_ext) from the normalised entropy of the candidates.
#include <algorithm>
#include <cmath>
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

namespace {

// T' for an entropy h: lo + (hi - lo) (h / log m)^exponent, in double.
double dynamic_t(double h, double lo, double hi, double log_m, double exponent) {
  return lo + (hi - lo) * pow_f64(h / log_m, exponent);
}

// The float T' every entropy in [h - bound, h + bound] rounds to, when that is
// one float with room to spare (T' moves with the entropy by far less than a
// float's spacing, and rounding noise in pow is far below the room); NaN if not.
float dynamic_t_bounded(const Candidates::Entropy& b, double lo, double hi, double log_m,
                        double exponent) {
  const double d1 = dynamic_t(b.h - b.bound, lo, hi, log_m, exponent);
  const double d2 = dynamic_t(b.h + b.bound, lo, hi, log_m, exponent);
  const auto f = static_cast<float>(d1);
  if (static_cast<float>(d2) != f || !(f - f == 0.0f)) return NAN;
  const double up = std::nextafter(f, INFINITY), down = std::nextafter(f, -INFINITY);
  const double room = 0x1p-30 * (f < 0.0f ? -f : f) + 1e-300;
  const double a = std::min(d1, d2), z = std::max(d1, d2);
  if (!(a > (static_cast<double>(f) + down) / 2.0 + room) ||
      !(z < (static_cast<double>(f) + up) / 2.0 - room))
    return NAN;
  return f;
}

}  // namespace

void dynamic_temperature(Candidates& c, const Workspace& w, float t, double range,
                         double exponent) {
  if (!(range > 0.0) || c.size <= 1) return;
  const double lo = std::max(0.0, static_cast<double>(t) - range);
  const double hi = static_cast<double>(t) + range;
  const double log_m = log_f64(static_cast<double>(c.size));
  float dyn = NAN;
  if (w.bounded && c.size > 1024) {
    const Candidates::Entropy b = c.entropy_bounded();
    if (b.ok) dyn = dynamic_t_bounded(b, lo, hi, log_m, exponent);
  }
  if (dyn != dyn)
    dyn = static_cast<float>(dynamic_t(c.entropy(w.logprob), lo, hi, log_m, exponent));
  if (!(dyn > 0.0f)) return c.keep_only(c.first_max());  // as llama.cpp's temp <= 0
  c.t = dyn;
}

}  // namespace smx::steps
