// Top-p (nucleus): the shortest prefix of the order whose mass reaches p, the
// entry that crosses p included (HF TopPLogitsWarper, llama.cpp top-p).
#include "select.h"
#include "smx/sampler.h"
#include "steps/steps.h"

namespace smx::steps {

namespace {

// Keeps the candidates up to and including position cut in the order (over
// the ascending superset `among` when given).
void keep_through(Candidates& c, size_t cut, const uint32_t* among = nullptr, size_t count = 0) {
  const float* g = c.logit;
  const float gc = g[cut];
  c.retain_if([g, gc, cut](size_t p) { return g[p] > gc || (g[p] == gc && p <= cut); }, among,
              count);
}

}  // namespace

void top_p(Candidates& c, const Workspace& w, double p) {
  if (p >= 1.0 || c.size <= 1) return;
  uint32_t* a = w.perm;
  // O(m) radix cut by mass. Its double sums run in another order than the
  // sorted cumulative sum below, but they are exact (so equal) when every
  // probability up to the cut is a float >= 2^-29 (a multiple of 2^-52, sums
  // < 2); prob is non-decreasing in the logit within a few ulp, so prob[cut] >=
  // 2^-27 vouches for the whole prefix. Otherwise the code below decides. The
  // cut's first pass also gives the total (the index-order sum).
  if (c.size > 1024) {
    c.softmax(false);
    const sel::TopPCut r = sel::top_p_cut(c.logit, c.prob, c.size, p - kMassSlack, a, w.spare);
    c.total = r.total;
    if (!((p - kMassSlack) * c.total > 0.0)) return top_k(c, w, 1);
    if (r.cut.found && c.prob[r.cut.pos] >= 0x1p-27f) {
      if (r.cut.rank < w.min_keep) return top_k(c, w, w.min_keep);
      return keep_through(c, r.cut.pos, a, r.s_len);
    }
  } else {
    c.softmax();
  }
  const double target = (p - kMassSlack) * c.total;
  if (!(target > 0.0)) return top_k(c, w, 1);
  // Peaked distributions: the cut is among the first few; try growing prefixes.
  for (size_t k = 64; k * 16 <= c.size; k *= 8) {
    sel::first_k_sorted(c.logit, c.size, k, a);
    double cum = 0.0;
    for (size_t j = 0; j < k; ++j) {
      cum += c.prob[a[j]];
      if (cum >= target) {
        if (j + 1 < w.min_keep) return top_k(c, w, w.min_keep);
        return keep_through(c, a[j]);
      }
    }
  }
  for (size_t i = 0; i < c.size; ++i) a[i] = static_cast<uint32_t>(i);
  const sel::MassCut cut = sel::weighted_cut(a, c.size, c.prob, target, c.logit);
  if (cut.rank < w.min_keep) return top_k(c, w, w.min_keep);
  keep_through(c, cut.pos);
}

}  // namespace smx::steps
