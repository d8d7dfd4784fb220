// DRY, "don't repeat yourself" (llama.cpp llama_sampler_dry_apply), with the
// sequence breakers given as single token ids: lowers the logit of each token
// that would extend a repeat of the recent history.
#include <algorithm>
#include <limits>

#include "math_f64.h"
#include "steps/steps.h"

namespace smx::steps {

void dry(Candidates& c, const Workspace& w, const SamplerOptions& o, History hist,
         const int32_t* breakers, size_t breakers_len) {
  if (o.dry_multiplier == 0.0f || o.dry_base < 1.0f || o.dry_penalty_last_n == 0) return;
  size_t len = hist.len;
  if (o.dry_penalty_last_n > 0) len = std::min(len, static_cast<size_t>(o.dry_penalty_last_n));
  const auto allowed = static_cast<size_t>(o.dry_allowed_length);
  if (len <= allowed) return;
  const int32_t* h = hist.tokens + hist.len - len;      // the window, oldest first
  auto rat = [&](size_t i) { return h[len - 1 - i]; };  // i-th from the end
  auto breaker = [&](int32_t t) {
    return std::binary_search(breakers, breakers + breakers_len, t);
  };
  // 1. The most recent breaker limits the repeat length.
  size_t rep_limit = len;
  for (size_t i = 0; i < len; ++i) {
    if (breaker(rat(i))) {
      rep_limit = i;
      break;
    }
  }
  if (rep_limit < allowed) return;
  // 2. z[k] = the longest common prefix of the reversed window and its suffix
  //    from k (Z-algorithm): the length of the repeat that ends k tokens back.
  int32_t* z = w.ints;
  z[0] = static_cast<int32_t>(len);
  for (size_t k = 1, lt = 0, rt = 0; k < len; ++k) {  // box [lt, rt)
    size_t n = 0;
    if (k < rt) n = std::min(rt - k, static_cast<size_t>(z[k - lt]));
    while (k + n < len && rat(n) == rat(k + n)) ++n;
    z[k] = static_cast<int32_t>(n);
    if (k + n > rt) lt = k, rt = k + n;
  }
  // 3. The token after each repeat of length >= allowed would extend it.
  uint32_t* tok = reinterpret_cast<uint32_t*>(w.ints + len);
  int32_t* rep = w.ints + 2 * len;
  size_t pairs = 0;
  for (size_t k = 1; k < len; ++k) {
    const size_t n = std::min(static_cast<size_t>(z[k]), rep_limit);
    if (n >= allowed) {
      tok[pairs] = static_cast<uint32_t>(rat(k - 1));
      rep[pairs++] = static_cast<int32_t>(n);
    }
  }
  if (pairs == 0) return;
  // 4. Per candidate the longest such repeat (w.key by position, touched
  //    entries only), then logit -= multiplier * base^min(len - allowed, max_exponent).
  const float kFloatMaxLog = 88.7228391f;
  int max_exponent = 0;
  if (o.dry_base > 1.000001f)
    max_exponent = static_cast<int>(kFloatMaxLog / static_cast<float>(log_f64(o.dry_base)));
  double* best = w.key;
  for (size_t i = 0; i < pairs; ++i) {
    const size_t p = c.find(tok[i]);
    if (p < c.size) best[p] = -1.0;
  }
  for (size_t i = 0; i < pairs; ++i) {
    const size_t p = c.find(tok[i]);
    if (p < c.size) best[p] = std::max(best[p], static_cast<double>(rep[i]));
  }
  const float lowest = std::numeric_limits<float>::lowest();
  float* g = nullptr;  // the logits, made writable at the first penalty
  for (size_t i = 0; i < pairs; ++i) {
    const size_t p = c.find(tok[i]);
    if (p == c.size || best[p] < 0.0) continue;
    const auto n = static_cast<size_t>(best[p]);
    best[p] = -1.0;  // once per candidate
    if (breaker(static_cast<int32_t>(tok[i]))) continue;
    size_t e = n - allowed;
    if (max_exponent > 0 && e > static_cast<size_t>(max_exponent))
      e = static_cast<size_t>(max_exponent);
    const auto penalty = static_cast<float>(
        static_cast<double>(o.dry_multiplier) *
        pow_int(static_cast<double>(o.dry_base), static_cast<int>(std::min<size_t>(e, 1u << 30))));
    // At the temperature applied so far: the scaled logit drops by penalty.
    if (g == nullptr) g = c.writable_logit(), c.range_known = false;
    const float lowered = g[p] - penalty * c.t;
    g[p] = lowered < lowest ? lowest : lowered;
  }
}

}  // namespace smx::steps
