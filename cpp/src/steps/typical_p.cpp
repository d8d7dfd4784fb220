// Typical sampling (HF TypicalLogitsWarper): with the entropy H = -sum p log p,
// the shortest prefix of the order by |-log p - H| (ties by lower index) whose
// mass reaches the given mass.
#include <algorithm>
#include <limits>

#include "kernels/dispatch.h"
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

}  // namespace

void typical_p(Candidates& c, const Workspace& w, double mass) {
  if (mass >= 1.0 || c.size <= 1) return;
  if (w.bounded && c.size > 1024 && typical_bounded(c, w, mass)) return;
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
