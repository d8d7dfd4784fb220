#include "candidates.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/dispatch.h"
#include "math_f64.h"
#include "smx/softmax.h"
#include "softmax_parts.h"

namespace smx {

void Candidates::keep_listed(const uint32_t* list, size_t count) {
  const uint32_t* idx = index;
  const float* g = logit;
  uint32_t* io = index_out;
  float* go = logit_out;
  if (idx != nullptr) {
    for (size_t j = 0; j < count; ++j) io[j] = idx[list[j]], go[j] = g[list[j]];
  } else {
    for (size_t j = 0; j < count; ++j) io[j] = list[j], go[j] = g[list[j]];
  }
  index = io, logit = go, size = count;
  range_known = false;
}

void Candidates::keep_only(size_t p) {
  const uint32_t i = at(p);
  const float g = logit[p];
  index_out[0] = i, logit_out[0] = g;
  index = index_out, logit = logit_out, size = 1;
  range[0] = range[1] = g;
  range_known = true;
  t = 1.0f;
}

float* Candidates::writable_logit() {
  if (logit != logit_out) {
    std::memcpy(logit_out, logit, size * sizeof(float));
    logit = logit_out;
  }
  return logit_out;
}

const float* Candidates::min_max() {
  if (!range_known) {
    dispatch::rminmax(size, logit, range);
    range_known = true;
  }
  return range;
}

void Candidates::softmax(bool sum) {
  const SoftmaxParts parts = softmax_parts(logit, size, t, min_max(), prob);
  if (parts.kind == SoftmaxParts::Kind::kScaled) {
    dispatch::vscale(size, prob, parts.inv, prob);
  } else {
    Options so;
    so.temperature = t;
    smx::softmax(logit, prob, Layout{1, size, 1}, so);
  }
  if (!sum) return;
  double s = 0.0;
  for (size_t j = 0; j < size; ++j) s += prob[j];
  total = s;
}

double Candidates::entropy(float* logprob) {
  softmax();
  Options so;
  so.temperature = t;
  log_softmax(logit, logprob, Layout{1, size, 1}, so);
  double h = 0.0;
  for (size_t p = 0; p < size; ++p) {
    if (prob[p] > 0.0f) h -= static_cast<double>(prob[p]) * static_cast<double>(logprob[p]);
  }
  return h;
}

Candidates::Entropy Candidates::entropy_bounded() {
  const SoftmaxParts parts = softmax_parts(logit, size, t, min_max(), prob);
  if (parts.kind != SoftmaxParts::Kind::kScaled) return {0.0, 0.0, false, 0.0, 0.0f, 0.0f};
  const double total_sum = dispatch::raddstorescale(size, prob, parts.inv, prob);
  // log_softmax's sum: the rr2_p6 kernel's (the same as softmax's off its fast path).
  const double sum =
      parts.fast ? dispatch::raddstoreexpminusmax(size, logit, parts.max, t, nullptr) : parts.sum;
  const auto c = static_cast<float>(log_f64(sum));
  const double s = dispatch::rentropy(size, logit, prob, parts.max, t, c);
  // Every term q log q <= 0: sums of m of them, here and in entropy(), are
  // within (m + 8) 2^-53 of the exact sum of their magnitudes.
  const double bound = (static_cast<double>(size) + 16.0) * 0x1p-51 * (s < 0.0 ? -s : s) + 1e-300;
  return {-s, bound, true, total_sum, parts.max, c};
}

Candidates::EntropyEstimate Candidates::entropy_estimate() {
  EntropyEstimate r{0.0, 0.0, false, {}, 0.0, 0.0, 0.0};
  const float* mm = min_max();
  const SoftmaxParts parts = softmax_parts(logit, size, t, mm, prob);
  // (x - max) within the float range: no log-probability is -Infinity.
  if (parts.kind != SoftmaxParts::Kind::kScaled || !(mm[1] - mm[0] <= 0x1p100f)) return r;
  const float rt = t == 1.0f ? 1.0f : 1.0f / t;
  double s[2];
  dispatch::rscaledot(size, prob, parts.inv, logit, parts.max, rt, s);
  const double m = static_cast<double>(size);
  const double q = s[0], a = s[1];  // a <= 0
  // c: log_softmax's float(log(its sum)); its sum is softmax's off the fast
  // path. On it, both sums are within 3 ulp per exp and 7 float additions per
  // lane (partial sums of 8) of their exact values, which differ by the
  // factor exp(shift - max).
  double c, dc = 0.0;
  if (parts.fast) {
    const double rel = ((3.0 + 7.01) * 0x1p-24 + (m + 8.0) * 0x1p-53) * 1.01;
    c = log_f64(parts.sum) +
        (static_cast<double>(parts.nc) * 0x1.62E42FEFA39EFp-1 - static_cast<double>(parts.max));
    dc = 2.02 * rel + 0x1p-23 * (c < 0.0 ? -c : c) + 1e-12;
  } else {
    c = static_cast<float>(log_f64(parts.sum));
  }
  const double ac = (c < 0.0 ? -c : c) + dc;
  // Each log-probability within 2^-22 (|x - max| / t + |c|) of (x - max) / t -
  // c; (x - max) / t here within 3.01 2^-24 of its magnitude; sums of m terms
  // within (m + 8) 2^-53 of the sum of magnitudes, here and in entropy().
  const double rounding = 0x1p-22 + 3.02 * 0x1p-24 + 3.0 * (m + 8.0) * 0x1p-53;
  r.h = c * q - a;
  r.bound = dc * q + rounding * (-a + ac * q) * 1.01 + 1e-300;
  r.ok = r.h == r.h && r.bound - r.bound == 0.0;
  r.parts = parts;
  r.total = q, r.c = c, r.dc = dc;
  return r;
}

size_t Candidates::find(uint32_t i) const {
  if (index == nullptr) return i < size ? i : size;
  const uint32_t* first = index;
  const uint32_t* end = first + size;
  const uint32_t* it = std::lower_bound(first, end, i);
  return it != end && *it == i ? static_cast<size_t>(it - first) : size;
}

size_t Candidates::first_max() {
  const float max = min_max()[1];
  if (max != max) return argmax(logit, size);
  // x == max <=> x > the float below max (no NaN among the logits).
  const float below = std::nextafter(max, -std::numeric_limits<float>::infinity());
  size_t p = 0;
  while (p < size) {
    p += dispatch::findabove(size - p, logit + p, below);
    const size_t end = std::min(p + 16, size);
    for (; p < end; ++p)
      if (logit[p] == max) return p;
  }
  return argmax(logit, size);
}

}  // namespace smx
