// Typical sampling (HF TypicalLogitsWarper): with the entropy H = -sum p log p,
// the shortest prefix of the order by |-log p - H| (ties by lower index) whose
// mass reaches the given mass.
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernels/dispatch.h"
#include "kernels/kernels.h"
#include "select.h"
#include "smx/sampler.h"
#include "steps/steps.h"

namespace smx::steps {

namespace {

// Keeps the candidates up to and including position cut in the order by key
// (over the ascending superset `among` when given).
void keep_through_by_key(Candidates& c, const double* key, size_t cut,
                         const uint32_t* among = nullptr, size_t count = 0) {
  const sel::ByKey less{key};
  c.retain_if(
      [less, cut](size_t p) {
        return p == cut || less(static_cast<uint32_t>(p), static_cast<uint32_t>(cut));
      },
      among, count);
}

// The cut from a bounded entropy and total (Candidates::entropy_bounded): keys
// at the lane-sum entropy h, the radix cut by key for the highest target the
// bounds allow. It is the definition's cut for every entropy and target the
// bounds allow when the keys outside the kept set stay above every key inside
// it (a gap wider than the keys can move), and no candidate that may come last
// in the kept set could be dropped without the mass falling below the lowest
// target; else false (prob and the scratch changed only), and the definition's
// code decides.
bool typical_bounded(Candidates& c, const Workspace& w, double mass) {
  const double factor = mass - kMassSlack;
  if (!(factor > 0x1p-960)) return false;
  const Candidates::Entropy e = c.entropy_bounded();
  if (!e.ok) return false;
  const size_t m = c.size;
  float* lq = w.logprob;
  dispatch::vlogsoftmax(m, c.logit, e.max, c.t, e.log_sum, lq);
  const double dt = (static_cast<double>(m) + 8.0) * 0x1p-52 * e.total;
  const double t_lo = factor * (e.total - dt) * (1.0 - 0x1p-52);
  const double t_hi = factor * (e.total + dt) * (1.0 + 0x1p-52);
  // Keys, and 64 bins of key by mass (with each bin's least and greatest key):
  // the bins from 0 whose mass reaches t_hi (with room for the rounding of the
  // sums) hold the cut, so only the keys up to their greatest need the radix cut.
  constexpr int kBins = 64;
  double* key = w.key;
  const float* q = c.prob;
  double bin_mass[kBins] = {}, least[kBins], most[kBins];
  for (int b = 0; b < kBins; ++b)
    least[b] = std::numeric_limits<double>::infinity(), most[b] = -1.0;
  const double reach = e.h + 8.0;  // bins cover keys up to this; beyond: the last bin
  const double scale = kBins / reach;
  unsigned nan = 0;
  for (size_t j = 0; j < m; ++j) {
    const double d = -static_cast<double>(lq[j]) - e.h;
    const double kj = d < 0.0 ? -d : d;
    key[j] = kj;
    nan |= static_cast<unsigned>(kj != kj);
    const double f = kj * scale;
    const int b = f < kBins - 1 ? static_cast<int>(f) : kBins - 1;
    bin_mass[b] += q[j];
    least[b] = std::min(least[b], kj);
    most[b] = std::max(most[b], kj);
  }
  if (nan != 0) return false;
  double cum = 0.0, r = -1.0;
  int last = kBins - 1;
  const double room = (static_cast<double>(m) + 64.0) * 0x1p-52 * e.total;
  for (int b = 0; b < kBins; ++b) {
    cum += bin_mass[b];
    r = std::max(r, most[b]);
    if (cum >= t_hi + room) {
      last = b;
      break;
    }
  }
  if (last == kBins - 1) r = std::numeric_limits<double>::infinity();
  // The least key of the bins beyond: every key outside the survivors.
  double beyond = std::numeric_limits<double>::infinity();
  for (int b = last + 1; b < kBins; ++b) beyond = std::min(beyond, least[b]);
  uint32_t* among = w.perm;
  size_t count = 0;
  for (size_t j = 0; j < m; ++j) {
    among[count] = static_cast<uint32_t>(j);
    count += key[j] <= r;
  }
  const sel::MassCut cut = sel::mass_cut_by_key_among(key, q, among, count, t_hi, w.spare);
  if (!cut.found) return false;
  const double kc = key[cut.pos];
  const float lc = lq[cut.pos];
  // A key moves by at most the entropy's bound plus the rounding of d - H.
  // Keys within twice that of the cut's may change places with it, unless
  // they have its log-probability (then they stay equal, in index order).
  const double move = e.bound + 0x1p-51 * (kc + e.bound) + 1e-300;
  const double near = 2.0 * move + 0x1p-50 * kc;
  if (!(beyond > kc + near + 0x1p-51 * beyond)) return false;
  float last_q = q[cut.pos];  // the least p that may come last
  unsigned bad = 0;
  for (size_t i = 0; i < count; ++i) {
    const size_t j = among[i];
    const double kj = key[j];
    const bool in = kj < kc || (kj == kc && j <= cut.pos);
    bad |= static_cast<unsigned>(in && q[j] != 0.0f && q[j] < 0x1p-29f);
    if (kj - kc <= near + 0x1p-51 * kj && kc - kj <= near) {
      bad |= static_cast<unsigned>(lq[j] != lc);
      if (in) last_q = std::min(last_q, q[j]);
    }
  }
  if (bad != 0) return false;
  if (!(cut.mass - static_cast<double>(last_q) < t_lo)) return false;
  if (cut.rank < w.min_keep) {
    top_k(c, w, w.min_keep);
  } else {
    keep_through_by_key(c, key, cut.pos, among, count);
  }
  return true;
}

// The cut from the entropy estimate (Candidates::entropy_estimate): the
// definition's keys |-log p - H| vary with H (within the estimate's bound)
// and with log_softmax's c (known within dc on softmax's fast path). Keys at
// a mid-point H and c cut by mass over the candidates at or above a logit
// (guessed from a sample of the keys' mass, then lower); the kept set I is
// the definition's when, over every H and c allowed, every key in I stays
// below every key outside it (those below the logit: bounded by the logit's
// own), every probability in I is 0 or >= 2^-29 (exact sums) and I's mass
// reaches the highest target while dropping any entry that may come last
// falls below the lowest. Else false (nothing changed but prob and the
// scratch), and the tight entropy or the definition decides.
bool typical_estimated(Candidates& c, const Workspace& w, double mass) {
  const double factor = mass - kMassSlack;
  if (!(factor > 0x1p-960)) return false;
  const Candidates::EntropyEstimate e = c.entropy_estimate();
  if (!e.ok) return false;
  const SoftmaxParts& parts = e.parts;
  const size_t m = c.size;
  const double dt = (static_cast<double>(m) + 8.0) * 0x1p-52 * e.total;
  const double t_lo = factor * (e.total - dt) * (1.0 - 0x1p-52);
  const double t_hi = factor * (e.total + dt) * (1.0 + 0x1p-52);
  const double h_hi = e.h + e.bound;
  // c's floats: [c_lo, c_hi], and one for the mid-point keys.
  auto c_lo = static_cast<float>(e.c - e.dc), c_hi = static_cast<float>(e.c + e.dc);
  if (static_cast<double>(c_lo) > e.c - e.dc) c_lo = std::nextafter(c_lo, -INFINITY);
  if (static_cast<double>(c_hi) < e.c + e.dc) c_hi = std::nextafter(c_hi, INFINITY);
  const auto c_mid = std::min(c_hi, std::max(c_lo, static_cast<float>(e.c)));
  const float max = parts.max, t = parts.t;
  const float* g = c.logit;
  // The guess: from a 16th of the positions, 64 bins of key by mass; the keys
  // whose estimated mass (the total less the mass of the bins beyond, which
  // the many small entries sample well) reaches the target, and two bins of room.
  constexpr int kBins = 64;
  constexpr size_t kStride = 16;
  constexpr double kWidth = 0.125;
  float bin_mass[kBins] = {};
  {
    const auto r = static_cast<float>(1.0 / (kWidth * t));
    const auto o = static_cast<float>((e.h - c_mid) / kWidth);
    for (size_t j0 = 0; j0 < m; j0 += 64 * kStride) {  // the first 64 of every 1024
      const size_t end = std::min(m, j0 + 64);
      for (size_t j = j0; j < end; ++j) {
        const float k = std::fabs((g[j] - max) * r + o);  // about the key / kWidth
        bin_mass[k < kBins - 1 ? static_cast<int>(k) : kBins - 1] += c.prob[j];
      }
    }
  }
  const double need = (t_hi + 0.05 * (e.total - t_hi)) / static_cast<double>(parts.inv);
  double beyond = 0.0;
  int b = kBins - 1;
  for (; b > 0; --b) {
    const double next = beyond + static_cast<double>(bin_mass[b]) * kStride;
    if (parts.sum - next < need) break;
    beyond = next;
  }
  double reach = (b + 5) * kWidth;  // the keys the candidates must cover
  float* q = w.logprob;
  double* key = w.key;
  uint32_t* among = w.perm;
  // Every definition's key within width of its key here (at e.h and c_mid):
  // the entropy's bound, c's, and the rounding of log_softmax's two
  // operations at another c (2^-22 of |l| and c's spread) and of the keys.
  const double dc = std::max(static_cast<double>(c_mid) - c_lo, static_cast<double>(c_hi) - c_mid);
  for (int attempt = 0; attempt < 2; ++attempt) {
    // Every x below `at` has a log-probability of at most l_out, so a key
    // of at least k_out (when l_out + H <= 0); none when at <= the min.
    const double x_at = static_cast<double>(max) +
                        static_cast<double>(t) * (static_cast<double>(c_lo) - h_hi - reach);
    float at = -INFINITY;
    double k_out = INFINITY;
    if (x_at > static_cast<double>(c.range[0])) {
      at = static_cast<float>(x_at);
      const float l_out = kernels::log_softmax_at(std::nextafter(at, -INFINITY), max, t, c_lo);
      k_out = static_cast<double>(l_out) + h_hi > 0.0
                  ? 0.0
                  : (-static_cast<double>(l_out) - h_hi) * (1.0 - 0x1p-51);
    }
    const size_t count = sel::at_least(g, m, at, among);
    // Compact copies (sequential from here on): log-probabilities at c_mid
    // by the vector kernel (in the second half of spare: the cut's scratch is
    // the first), probabilities, keys.
    float* lq = reinterpret_cast<float*>(w.spare + m);
    for (size_t i = 0; i < count; ++i) lq[i] = g[among[i]], q[i] = c.prob[among[i]];
    dispatch::vlogsoftmax(count, lq, max, t, c_mid, lq);
    dispatch::vscale(count, q, parts.inv, q);
    float l_abs = 0.0f;
    double k_max = 0.0;
    for (size_t i = 0; i < count; ++i) {
      const float l = lq[i];
      const double d = -static_cast<double>(l) - e.h;
      const double k = d < 0.0 ? -d : d;
      key[i] = k;
      l_abs = std::max(l_abs, l < 0.0f ? -l : l);
      k_max = std::max(k_max, k);
    }
    const double width =
        e.bound + dc + (dc > 0.0 ? 0x1p-22 * 1.01 * (static_cast<double>(l_abs) + 2.0 * dc) : 0.0) +
        0x1p-50 * (k_max + e.bound + dc) + 1e-300;
    const double scale = 2047.0 / k_max;
    const sel::MassCut cut =
        scale - scale == 0.0
            ? sel::mass_cut_by_key_binned(key, q, nullptr, count, t_hi, scale, w.spare)
            : sel::mass_cut_by_key(key, q, count, t_hi, w.spare);
    const double kc = cut.found ? key[cut.pos] : 0.0;
    if (!cut.found || !(k_out > kc + width)) {
      // Too few candidates: cover the keys up to the cut's, with room.
      reach = std::max(reach + 1.0, kc + 0.5);
      continue;
    }
    // I, the kept set: keys below kc (ties: up to the cut's position). Every
    // key outside I must stay above every key inside; the entries of I that
    // may come last are those within 2 width of kc.
    double out_lo = k_out - width;
    float last_q = q[cut.pos];
    unsigned bad = 0;
    for (size_t i = 0; i < count; ++i) {
      const double k = key[i];
      if (k < kc || (k == kc && i <= cut.pos)) {
        bad |= static_cast<unsigned>(q[i] != 0.0f && q[i] < 0x1p-29f);
        if (k >= kc - 2.0 * width) last_q = std::min(last_q, q[i]);
      } else {
        out_lo = std::min(out_lo, k);
      }
    }
    if (bad != 0 || !(out_lo - width > kc + width)) return false;
    if (!(cut.mass - static_cast<double>(last_q) < t_lo)) return false;
    if (cut.rank < w.min_keep) {
      top_k(c, w, w.min_keep);
      return true;
    }
    // Keep I: one compaction over the candidates (Candidates::keep_listed's
    // loop, deciding as it goes).
    const uint32_t* idx = c.index;
    uint32_t* io = c.index_out;
    float* go = c.logit_out;
    size_t kept = 0;
    for (size_t i = 0; i < count; ++i) {
      const uint32_t p = among[i];
      io[kept] = idx != nullptr ? idx[p] : p;
      go[kept] = g[p];
      kept += key[i] < kc || (key[i] == kc && i <= cut.pos);
    }
    c.index = io, c.logit = go, c.size = kept;
    c.range_known = false;
    return true;
  }
  return false;
}

}  // namespace

void typical_p(Candidates& c, const Workspace& w, double mass) {
  if (mass >= 1.0 || c.size <= 1) return;
  if (w.bounded && c.size > 1024 && (typical_estimated(c, w, mass) || typical_bounded(c, w, mass)))
    return;
  const double h = c.entropy(w.logprob);
  double* key = w.key;
  for (size_t j = 0; j < c.size; ++j) {
    const double d = -static_cast<double>(w.logprob[j]) - h;
    key[j] = d < 0.0 ? -d : d;
  }
  const double target = (mass - kMassSlack) * c.total;
  if (!(target > 0.0)) return top_k(c, w, 1);
  uint32_t* a = w.perm;
  // O(m) radix cut, used when its sums are exact (see top_p): every key is a
  // number and every probability up to the cut is 0 or a float >= 2^-29.
  if (c.size > 1024) {
    const sel::MassCut cut = sel::mass_cut_by_key(key, c.prob, c.size, target, a);
    if (cut.found) {
      const double kc = key[cut.pos];
      unsigned bad = 0;
      for (size_t j = 0; j < c.size; ++j) {
        const double kj = key[j];
        const bool in = kj < kc || (kj == kc && j <= cut.pos);
        bad |= static_cast<unsigned>(kj != kj) |
               static_cast<unsigned>(in && c.prob[j] != 0.0f && c.prob[j] < 0x1p-29f);
      }
      if (bad == 0) {
        if (cut.rank < w.min_keep) return top_k(c, w, w.min_keep);
        return keep_through_by_key(c, key, cut.pos);
      }
    }
  }
  for (size_t i = 0; i < c.size; ++i) a[i] = static_cast<uint32_t>(i);
  const sel::MassCut cut = sel::weighted_cut_by_key(a, c.size, c.prob, target, key);
  if (cut.rank < w.min_keep) return top_k(c, w, w.min_keep);
  keep_through_by_key(c, key, cut.pos);
}

}  // namespace smx::steps
