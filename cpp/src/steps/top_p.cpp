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
  if (among == nullptr) {
    return c.retain_if([g, gc, cut](size_t p) { return g[p] > gc || (g[p] == gc && p <= cut); });
  }
  // The same as retain_if over among, one branch-free loop.
  const uint32_t* idx = c.index;
  uint32_t* io = c.index_out;
  float* go = c.logit_out;
  size_t j = 0;
  for (size_t i = 0; i < count; ++i) {
    const uint32_t p = among[i];
    const float v = g[p];
    io[j] = idx != nullptr ? idx[p] : p;
    go[j] = v;
    j += v > gc || (v == gc && p <= cut);
  }
  c.index = io, c.logit = go, c.size = j;
  c.range_known = false;
}

// A logit L such that the entries at or above it likely hold a mass of at
// least `need` (of `total`, in units of c.prob), L as high as that allows:
// the mass below L estimated from a 16th of the positions (64 bins of a quarter
// of t below the max), which samples the many small entries well, two bins of
// room. Only a guess (the caller checks the mass it finds); -Infinity when
// none fits.
float guess_threshold(const Candidates& c, const SoftmaxParts& parts, double total, double need) {
  constexpr int kBins = 64;
  constexpr size_t kStride = 16;
  float mass[kBins] = {};
  const float top = parts.max;
  const float scale = 4.0f / parts.t;
  const float* g = c.logit;
  const float* q = c.prob;
  // The first 64 of every 1024 positions: a 16th of the memory.
  for (size_t j0 = 0; j0 < c.size; j0 += 64 * kStride) {
    const size_t end = std::min(c.size, j0 + 64);
    for (size_t j = j0; j < end; ++j) {
      const float d = (top - g[j]) * scale;
      const int b = d < static_cast<float>(kBins - 1) ? static_cast<int>(d) : kBins - 1;
      mass[b] += q[j];
    }
  }
  // below: the estimated mass of the bins after b.
  double below = 0.0;
  int b = kBins - 1;
  for (; b > 0; --b) {
    const double next = below + static_cast<double>(mass[b]) * kStride;
    if (total - next < need) break;
    below = next;
  }
  if (b >= kBins - 3) return -std::numeric_limits<float>::infinity();
  return top - static_cast<float>(b + 3) / scale;
}

// The cut from bounded sums, over the candidates that can hold it. The
// definition's total is a sequential double sum; a lane sum of the same
// probabilities (fused into the pass that lists the candidates at or above a
// guessed logit) is within (m + 8) 2^-53 of the exact sum, and so is the
// definition's: the target lies in [t_lo, t_hi]. The candidates at or above a
// logit hold the order's prefix down to it, so a cut found among them is the
// cut; when the guess holds too little mass, the candidates at or above lo
// (below which the probabilities cannot add up to total - t_hi) do. Among
// them the mass cut's sums are exact (as the definition's, see top_p), so a
// cut c for t_hi whose mass before it stays below t_lo is the cut for every
// target in between. Only the candidates listed are scaled (into w.logprob,
// compact). false (nothing changed but prob) where that does not hold: the
// definition's code decides.
bool top_p_bounded(Candidates& c, const Workspace& w, double p) {
  const double factor = p - kMassSlack;
  if (!(factor > 0x1p-960)) return false;
  // c.prob: the exponentials (scaled below only where the cut may lie, into q).
  const SoftmaxParts parts = softmax_parts(c.logit, c.size, c.t, c.min_max(), c.prob);
  if (parts.kind != SoftmaxParts::Kind::kScaled) return false;
  const double m = static_cast<double>(c.size);
  const double rough = factor * parts.sum;  // about the target, in units of the exponentials
  float at = guess_threshold(c, parts, parts.sum, rough + 0.05 * (parts.sum - rough));
  size_t count = 0;
  const double total =
      dispatch::raddscaleindexge(c.size, c.prob, parts.inv, c.logit, at, w.perm, &count);
  const double delta = (m + 8.0) * 0x1p-52 * total;
  const double t_lo = factor * (total - delta) * (1.0 - 0x1p-52);
  const double t_hi = factor * (total + delta) * (1.0 + 0x1p-52);
  const double theta = (total - t_hi) * (1.0 - 0x1p-20) / m;
  float lo = -std::numeric_limits<float>::infinity(), hi;
  if (!(theta > 0.0) || !parts.logit_band(theta, &lo, &hi))
    lo = -std::numeric_limits<float>::infinity();
  // The cut lies among the entries at or above a logit L if their mass
  // reaches t_hi: first at the guess, then at lo, which holds it.
  // Compact copies of the listed candidates' logits (in the second half of
  // spare: the cut's scratch is the first) and probabilities: the cut reads
  // sequential memory, positions 0..count standing for w.perm's.
  float* q = w.logprob;
  float* gc = reinterpret_cast<float*>(w.spare + c.size);
  sel::MassCut cut{0, 0, false, 0.0};
  for (;;) {
    for (size_t i = 0; i < count; ++i) gc[i] = c.logit[w.perm[i]], q[i] = c.prob[w.perm[i]];
    dispatch::vscale(count, q, parts.inv, q);
    const float top = parts.max;
    const float scale = 2047.0f / (top - at);
    cut = scale > 0.0f && scale - scale == 0.0f
              ? sel::mass_cut_binned(gc, q, nullptr, count, t_hi, top, scale, w.spare)
              : sel::mass_cut(gc, q, count, t_hi, w.spare);
    if (cut.found || !(at > lo)) break;
    at = lo;
    count = sel::at_least(c.logit, c.size, at, w.perm);
  }
  if (!cut.found || !(q[cut.pos] >= 0x1p-27f) || !(cut.mass - q[cut.pos] < t_lo)) return false;
  cut.pos = w.perm[cut.pos];
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
