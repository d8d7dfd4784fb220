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

double Candidates::entropy_one_pass(float* logprob, SoftmaxParts* parts) {
  double dot = 0.0;
  *parts = softmax_parts(logit, size, t, min_max(), nullptr, &dot);
  return parts->kind == SoftmaxParts::Kind::kScaled ? parts->entropy(dot) : entropy(logprob);
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
