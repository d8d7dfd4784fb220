// Top-p (nucleus): the shortest prefix of the order whose mass reaches p, the
// entry that crosses p included (HF TopPLogitsWarper, llama.cpp top-p).
#include <algorithm>
#include <limits>

#include "kernels/dispatch.h"
#include "select.h"
#include "smx/sampler.h"
#include "softmax_parts.h"
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

// Narrows the positions among[0, count) (all with logit >= lo) to those at or
// above a logit L whose entries have a mass of at least `need`: 64 bins of
// logit below the max by mass; L = the least logit of the top bins whose mass
// (double sums, within count 2^-52 of the total of exact) reaches need.
size_t narrow(const Candidates& c, uint32_t* among, size_t count, float lo, double need) {
  constexpr int kBins = 64;
  const double top = c.range[1];
  if (count < 2048 || !(lo > -std::numeric_limits<float>::infinity()) || !(top > lo)) return count;
  const double scale = kBins / (top - static_cast<double>(lo));
  double mass[kBins] = {};
  float least[kBins];
  for (float& v : least) v = std::numeric_limits<float>::infinity();
  const float* g = c.logit;
  for (size_t i = 0; i < count; ++i) {
    const uint32_t p = among[i];
    const double d = (top - static_cast<double>(g[p])) * scale;
    const int b = d < 1.0 ? 0 : d >= kBins - 1 ? kBins - 1 : static_cast<int>(d);
    mass[b] += c.prob[p];
    least[b] = std::min(least[b], g[p]);
  }
  double cum = 0.0;
  float bound = lo;
  float low = std::numeric_limits<float>::infinity();
  for (int b = 0; b < kBins; ++b) {
    cum += mass[b];
    low = std::min(low, least[b]);
    if (cum >= need) {
      bound = low;
      break;
    }
  }
  if (!(bound > lo)) return count;
  size_t j = 0;
  for (size_t i = 0; i < count; ++i) {
    among[j] = among[i];
    j += g[among[i]] >= bound;
  }
  return j;
}

// The cut from bounded sums, over the candidates that can hold it. The
// definition's total is a sequential double sum; a lane sum of the same
// probabilities (fused into the scaling pass) is within (m + 8) 2^-53 of the
// exact sum, and so is the definition's: the target lies in [t_lo, t_hi]. The
// candidates below a logit whose probabilities cannot add up to total - t_hi
// cannot hold the cut; among the others the radix cut's masses are exact (as
// the definition's, see top_p), so a cut c for t_hi whose mass before it stays
// below t_lo is the cut for every target in between. false (nothing changed
// but prob) where that does not hold: the definition's code decides.
bool top_p_bounded(Candidates& c, const Workspace& w, double p) {
  const double factor = p - kMassSlack;
  if (!(factor > 0x1p-960)) return false;
  const SoftmaxParts parts = softmax_parts(c.logit, c.size, c.t, c.min_max(), c.prob);
  if (parts.kind != SoftmaxParts::Kind::kScaled) return false;
  const double total = dispatch::raddstorescale(c.size, c.prob, parts.inv, c.prob);
  const double m = static_cast<double>(c.size);
  const double delta = (m + 8.0) * 0x1p-52 * total;
  const double t_lo = factor * (total - delta) * (1.0 - 0x1p-52);
  const double t_hi = factor * (total + delta) * (1.0 + 0x1p-52);
  const double theta = (total - t_hi) * (1.0 - 0x1p-20) / m;
  float lo = -std::numeric_limits<float>::infinity(), hi;
  if (!(theta > 0.0) || !parts.logit_band(theta, &lo, &hi))
    lo = -std::numeric_limits<float>::infinity();
  size_t count = sel::at_least(c.logit, c.size, lo, w.perm);
  count =
      narrow(c, w.perm, count, lo, t_hi + (static_cast<double>(count) + 64.0) * 0x1p-52 * total);
  const sel::MassCut cut = sel::mass_cut_among(c.logit, c.prob, w.perm, count, t_hi, w.spare);
  if (!cut.found || !(c.prob[cut.pos] >= 0x1p-27f) || !(cut.mass - c.prob[cut.pos] < t_lo))
    return false;
  if (cut.rank < w.min_keep) {
    top_k(c, w, w.min_keep);
  } else {
    keep_through(c, cut.pos, w.perm, count);
  }
  return true;
}

}  // namespace

void top_p(Candidates& c, const Workspace& w, double p) {
  if (p >= 1.0 || c.size <= 1) return;
  if (w.bounded && c.size > 1024 && top_p_bounded(c, w, p)) return;
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
