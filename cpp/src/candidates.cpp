#include "candidates.h"

#include <algorithm>

#include "smx/softmax.h"

namespace smx {

void Candidates::softmax(bool sum) {
  Options so;
  so.temperature = t;
  smx::softmax(logit, prob, Layout{1, size, 1}, so);
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

size_t Candidates::find(uint32_t i) const {
  const uint32_t* first = index;
  const uint32_t* end = first + size;
  const uint32_t* it = std::lower_bound(first, end, i);
  return it != end && *it == i ? static_cast<size_t>(it - first) : size;
}

}  // namespace smx
