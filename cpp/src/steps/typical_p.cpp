// Typical sampling (HF TypicalLogitsWarper): with the entropy H = -sum p log p,
// the shortest prefix of the order by |-log p - H| (ties by lower index) whose
// mass reaches the given mass. With p = exp((x - s) / T) / S, -log p - H =
// (mu - x) / T for mu = sum p x, the mean logit: the order is that of |x - mu|,
// a band of logits around the mean. mu comes from the exp pass itself (the
// raddstoreexpdot kernel), so the step needs one exp pass and no logarithm
// per entry; the key of x is |x - mu| in double.
#include <algorithm>
#include <cmath>
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

// Keeps the first k candidates in the order by key (all when k >= size): a
// cut by count, every weight 1 (w.logprob as scratch).
void keep_first_by_key(Candidates& c, const Workspace& w, const double* key, size_t k) {
  if (k >= c.size) return;
  uint32_t* a = w.perm;
  float* ones = w.logprob;
  for (size_t i = 0; i < c.size; ++i) a[i] = static_cast<uint32_t>(i), ones[i] = 1.0f;
  const sel::MassCut cut = sel::weighted_cut_by_key(a, c.size, ones, static_cast<double>(k), key);
  keep_through_by_key(c, key, cut.pos);
}

// The definition's cut by comparisons (sums in the order by key) over every
// candidate, with keys and probabilities in key and c.prob; at least the first
// min_keep of the order by key (HF, llama.cpp), the first alone when the
// target is 0.
void cut_by_key(Candidates& c, const Workspace& w, const double* key, double target) {
  const size_t least = std::max<size_t>(w.min_keep, 1);
  if (!(target > 0.0)) return keep_first_by_key(c, w, key, least);
  uint32_t* a = w.perm;
  for (size_t i = 0; i < c.size; ++i) a[i] = static_cast<uint32_t>(i);
  const sel::MassCut cut = sel::weighted_cut_by_key(a, c.size, c.prob, target, key);
  if (cut.rank < least) return keep_first_by_key(c, w, key, least);
  keep_through_by_key(c, key, cut.pos);
}

// The same cut over a band of logits x >= lo around mu: 64 bins of |x - mu|
// by mass over a 32nd of the positions guess the band; the cut by key runs
// over dense copies of the candidates in it. It is the
// definition's cut when every key outside the band (at least mu - lo) lies
// above the cut's and the sums are exact (every probability in the band 0
// or >= 2^-29); a band too narrow is widened. Else false (nothing changed but
// the scratch), and the definition decides. c.prob holds the exponentials.
bool typical_band(Candidates& c, const Workspace& w, const SoftmaxParts& parts, double mu,
                  double target) {
  const size_t m = c.size;
  const float* g = c.logit;
  const float* e = c.prob;
  constexpr int kBins = 64;
  constexpr size_t kStride = 32;
  const double width = 0.125 * static_cast<double>(parts.t);
  float bin_mass[kBins] = {};
  {
    const auto mu_f = static_cast<float>(mu);
    const auto r = static_cast<float>(1.0 / width);
    // Most sampled entries lie beyond the last bin: their mass goes to four
    // running sums, not through one memory cell (a chain of additions).
    float far[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    for (size_t j0 = 0; j0 < m; j0 += 64 * kStride) {  // the first 64 of every 2048
      const size_t end = std::min(m, j0 + 64);
      for (size_t j = j0; j < end; ++j) {
        const float k = std::fabs(g[j] - mu_f) * r;
        if (k < kBins - 1) {
          bin_mass[static_cast<int>(k)] += e[j];
        } else {
          far[j & 3] += e[j];
        }
      }
    }
    bin_mass[kBins - 1] = (far[0] + far[1]) + (far[2] + far[3]);
  }
  // The band's mass estimated as the total less the sampled mass of the bins
  // beyond (their many small entries sample well, the few large ones near mu
  // do not), with 5% of the rest as room.
  const double total = parts.sum, need = (target + 0.05 * (1.0 - target)) * total;
  double beyond = 0.0;
  int b = kBins - 1;
  for (; b > 0; --b) {
    const double next = beyond + static_cast<double>(bin_mass[b]) * kStride;
    if (total - next < need) break;
    beyond = next;
  }
  double reach = (b + 5) * width;
  // Dense copies of the band (sequential from here on): keys, probabilities
  // and logits in position order, and the mass of bins of key (kBuckets of
  // them, non-decreasing along the order). The bins before the one where the
  // mass reaches the target are kept whole; the radix cut by key resolves that bin.
  constexpr size_t kBuckets = 2048;
  double* key = w.key;
  float* q = w.logprob;
  uint32_t* among = w.perm;
  auto* gx = reinterpret_cast<float*>(w.spare + m);  // the first half: the bin's list
  uint32_t cnt[kBuckets];
  double bin_sum[kBuckets];
  for (int attempt = 0; attempt < 3; ++attempt, reach += 16.0 * width) {
    float lo =
        attempt == 2 ? -std::numeric_limits<float>::infinity() : static_cast<float>(mu - reach);
    if (static_cast<double>(lo) > mu - reach) lo = std::nextafter(lo, -INFINITY);
    const size_t count = sel::at_least(g, m, lo, among);
    const double top = std::max(mu - static_cast<double>(lo), static_cast<double>(parts.max) - mu);
    double scale = (kBuckets - 1) / top;
    if (!(scale - scale == 0.0)) scale = 1.0;  // the band at mu alone, or unbounded: one bin
    const auto bin = [scale](double k) {
      const double f = k * scale;
      return f < static_cast<double>(kBuckets - 1) ? static_cast<size_t>(f) : kBuckets - 1;
    };
    std::fill(cnt, cnt + kBuckets, 0u);
    std::fill(bin_sum, bin_sum + kBuckets, 0.0);
    // The sums are exact when every probability up to the cut is 0 or >= 2^-29:
    // checked over the whole band (a superset).
    unsigned bad = 0;
    for (size_t i = 0; i < count; ++i) {
      const uint32_t p = among[i];
      const float x = g[p];
      const double d = static_cast<double>(x) - mu;
      const double k = d < 0.0 ? -d : d;
      const float v = e[p] * parts.inv;
      const size_t b = bin(k);
      key[i] = k, q[i] = v, gx[i] = x;
      ++cnt[b];
      bin_sum[b] += v;
      bad |= static_cast<unsigned>(v != 0.0f && v < 0x1p-29f);
    }
    if (bad != 0) return false;
    double before = 0.0;
    size_t rank = 0, b = 0;
    for (; b < kBuckets; ++b) {
      if (cnt[b] == 0) continue;
      if (before + bin_sum[b] >= target) break;
      before += bin_sum[b];
      rank += cnt[b];
    }
    if (b == kBuckets) continue;  // the band's mass falls short
    uint32_t* list = w.spare;
    size_t n = 0;
    for (size_t i = 0; i < count; ++i) {
      list[n] = static_cast<uint32_t>(i);
      n += bin(key[i]) == b;
    }
    const sel::MassCut cut = sel::mass_cut_by_key_after(key, q, list, n, target, before, rank);
    if (!cut.found) continue;
    const double kc = key[cut.pos];
    if (!(kc < mu - static_cast<double>(lo))) continue;  // a key outside may come first
    if (cut.rank < w.min_keep) return false;  // the first min_keep by key: the definition's path
    // Keep the prefix: one compaction of the band (Candidates::keep_listed's loop).
    const uint32_t* idx = c.index;
    uint32_t* io = c.index_out;
    float* go = c.logit_out;
    size_t kept = 0;
    for (size_t i = 0; i < count; ++i) {
      const uint32_t p = among[i];
      io[kept] = idx != nullptr ? idx[p] : p;
      go[kept] = gx[i];
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
  double dot = 0.0;
  const SoftmaxParts parts = softmax_parts(c.logit, c.size, c.t, c.min_max(), c.prob, &dot);
  double* key = w.key;
  if (parts.kind != SoftmaxParts::Kind::kScaled) {
    // Softmax treats these candidates otherwise (+Infinity entries, a one-hot
    // rounding): keys from its probabilities and log-probabilities.
    const double h = c.entropy(w.logprob);
    for (size_t j = 0; j < c.size; ++j) {
      const double d = -static_cast<double>(w.logprob[j]) - h;
      key[j] = d < 0.0 ? -d : d;
    }
    return cut_by_key(c, w, key, (mass - kMassSlack) * c.total);
  }
  const double mu = parts.mean_logit(dot);
  // The mass to reach: of the probabilities' sum, taken as the kernel's sum
  // of the exponentials times the scale.
  const double target = (mass - kMassSlack) * parts.sum * static_cast<double>(parts.inv);
  if (target > 0.0 && w.bounded && c.size > 1024 && typical_band(c, w, parts, mu, target)) return;
  for (size_t j = 0; j < c.size; ++j) {
    const double d = static_cast<double>(c.logit[j]) - mu;
    key[j] = d < 0.0 ? -d : d;
  }
  dispatch::vscale(c.size, c.prob, parts.inv, c.prob);
  cut_by_key(c, w, key, target);
}

}  // namespace smx::steps
