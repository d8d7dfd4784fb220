// XTC, "exclude top choices" (llama.cpp): with probability `probability`,
// remove every candidate above the least likely one whose probability reaches
// `threshold`.
#include "select.h"
#include "softmax_parts.h"
#include "steps/steps.h"

namespace smx::steps {

void xtc(Candidates& c, const Workspace& w, Pcg32& coin, double probability, double threshold) {
  if (probability <= 0.0 || threshold > 0.5 || c.size < 2) return;
  const double chance = coin.next_double();
  if (chance > probability) return;
  // The entries with p >= threshold (a prefix of the order: p grows with the
  // logit), decided by their logits where they can (softmax_parts.h).
  const SoftmaxParts parts = softmax_parts(c.logit, c.size, c.t, c.min_max(), nullptr);
  float lo, hi;
  const bool band = w.bounded && parts.logit_band(threshold, &lo, &hi);
  if (!band) c.softmax();
  const float* g = c.logit;
  const float* q = c.prob;
  const auto above = [&](size_t p) {
    if (!band) return static_cast<double>(q[p]) >= threshold;
    return g[p] >= hi || (g[p] >= lo && static_cast<double>(parts.prob_of(g[p])) >= threshold);
  };
  // `last`: the lowest logit among them, ties by higher index.
  const size_t count = band ? sel::at_least(g, c.size, lo, w.perm) : c.size;
  size_t n_above = 0, last = 0;
  for (size_t i = 0; i < count; ++i) {
    const size_t p = band ? w.perm[i] : i;
    if (above(p)) {
      if (n_above == 0 || g[p] <= g[last]) last = p;
      ++n_above;
    }
  }
  if (n_above < 2 || c.size - (n_above - 1) < w.min_keep) return;
  c.retain_if([&above, last](size_t p) { return p == last || !above(p); });
}

}  // namespace smx::steps
