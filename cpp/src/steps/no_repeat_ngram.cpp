// No-repeat n-gram (HF NoRepeatNGramLogitsProcessor) over the whole history:
// bans every token that would complete an n-gram already in it.
#include <algorithm>

#include "select.h"
#include "steps/steps.h"

namespace smx::steps {

bool no_repeat_ngram(Candidates& c, const Workspace& w, size_t s, History hist) {
  const size_t len = hist.len;
  if (s == 0 || len < s) return true;  // HF: nothing before the first s-gram
  const int32_t* h = hist.tokens;
  const size_t pre = s - 1;
  const int32_t* prefix = h + len - pre;               // the last s - 1 tokens
  auto* banned = reinterpret_cast<uint32_t*>(w.ints);  // tokens are >= 0
  size_t b = 0;
  for (size_t i = 0; i + s <= len; ++i) {
    if (std::equal(h + i, h + i + pre, prefix)) banned[b++] = static_cast<uint32_t>(h[i + pre]);
  }
  if (b == 0) return true;
  sel::sort_indices(banned, b);
  b = static_cast<size_t>(std::unique(banned, banned + b) - banned);
  // Both lists ascend: one merge pass per copy of `allowed` (called in
  // ascending order of p, as retain_if does).
  const auto allowed = [&c, banned, b, k = size_t{0}](size_t p) mutable {
    while (k < b && banned[k] < c.at(p)) ++k;
    return !(k < b && banned[k] == c.at(p));
  };
  auto count = allowed;
  size_t kept = 0;
  for (size_t p = 0; p < c.size; ++p) kept += count(p) ? 1u : 0u;
  if (kept == 0) return false;  // every candidate banned: the candidates untouched
  c.retain_if(allowed);
  return true;
}

}  // namespace smx::steps
