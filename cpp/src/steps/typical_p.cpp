// Typical sampling (HF TypicalLogitsWarper): with the entropy H = -sum p log p,
// the shortest prefix of the order by |-log p - H| (ties by lower index) whose
// mass reaches the given mass.
#include "select.h"
#include "smx/sampler.h"
#include "steps/steps.h"

namespace smx::steps {

namespace {

// Keeps the candidates up to and including position cut in the order by key.
void keep_through_by_key(Candidates& c, const double* key, size_t cut) {
  const sel::ByKey less{key};
  c.retain_if([less, cut](size_t p) {
    return p == cut || less(static_cast<uint32_t>(p), static_cast<uint32_t>(cut));
  });
}

}  // namespace

void typical_p(Candidates& c, const Workspace& w, double mass) {
  if (mass >= 1.0 || c.size <= 1) return;
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
