// Top-k: the first k candidates in the order (decreasing logit, ties by lower
// index), found without sorting (select.h) and without exp.
#include <algorithm>

#include "select.h"
#include "steps/steps.h"

namespace smx::steps {

void top_k(Candidates& c, const Workspace& w, size_t k) {
  const size_t kk = std::max(k, w.min_keep);
  if (k == 0 || kk >= c.size) return;
  sel::first_k(c.logit, c.size, kk, w.perm, w.spare);
  c.retain_if([](size_t) { return true; }, w.perm, kk);
}

}  // namespace smx::steps
