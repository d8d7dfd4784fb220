// XTC, "exclude top choices" (llama.cpp): with probability `probability`,
// remove every candidate above the least likely one whose probability reaches
// `threshold`.
#include "steps/steps.h"

namespace smx::steps {

void xtc(Candidates& c, const Workspace& w, Pcg32& coin, double probability, double threshold) {
  if (probability <= 0.0 || threshold > 0.5 || c.size < 2) return;
  const double chance = coin.next_double();
  if (chance > probability) return;
  c.softmax();
  // The entries with p >= threshold are a prefix of the order (p grows with
  // the logit); `last` is its last element: the lowest logit, ties by higher
  // index.
  const float* q = c.prob;
  size_t above = 0, last = 0;
  for (size_t p = 0; p < c.size; ++p) {
    if (static_cast<double>(q[p]) >= threshold) {
      if (above == 0 || c.logit[p] <= c.logit[last]) last = p;
      ++above;
    }
  }
  if (above < 2 || c.size - (above - 1) < w.min_keep) return;
  c.retain_if([q, last, threshold](size_t p) {
    return p == last || !(static_cast<double>(q[p]) >= threshold);
  });
}

}  // namespace smx::steps
