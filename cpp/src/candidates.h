// The entries still in the running during one sampler call, as the steps see
// them: their vocabulary indices (ascending), their logits, their
// probabilities, and how many there are. A view over buffers the sampler owns
// (sized for the vocabulary); the steps (steps/steps.h) narrow it.
#pragma once
#include <cstddef>
#include <cstdint>

namespace smx {

struct Candidates {
  uint32_t* index;     // [size] vocabulary indices, ascending
  float* logit;        // [size] their logits (scores after bias, penalties and DRY)
  float* prob;         // [size] softmax(logit / t), valid after softmax()
  size_t size;         // the kept count
  float t = 1.0f;      // the temperature applied so far
  double total = 0.0;  // the double sum of prob in index order, set by softmax()

  // Keeps the positions p for which keep(p) holds, in order: keep is called once
  // per position, ascending, and may read logit[p] (not yet moved; what it
  // reads at other positions it must take before). With
  // `among` (ascending positions, `count` of them, a superset of the kept ones)
  // only those are visited. prob is stale afterwards until softmax().
  template <class Keep>
  void retain_if(Keep keep, const uint32_t* among = nullptr, size_t count = 0) {
    size_t j = 0;
    if (among == nullptr) {
      for (size_t p = 0; p < size; ++p) {
        if (keep(p)) index[j] = index[p], logit[j++] = logit[p];
      }
    } else {
      for (size_t i = 0; i < count; ++i) {
        const size_t p = among[i];
        if (keep(p)) index[j] = index[p], logit[j++] = logit[p];
      }
    }
    size = j;
  }

  // Keeps position p alone at temperature 1 (greedy).
  void keep_only(size_t p) {
    index[0] = index[p], logit[0] = logit[p];
    size = 1;
    t = 1.0f;
  }

  // prob = the core's softmax of logit at temperature t; total = their double
  // sum in index order (unless sum is false: then total is left as it is).
  void softmax(bool sum = true);

  // softmax(), logprob = the core's log_softmax of logit at temperature t, and
  // returns the entropy H = -sum p log p over the entries with p > 0.
  double entropy(float* logprob);

  // The position of vocabulary index i, or size if i is not a candidate.
  size_t find(uint32_t i) const;
};

}  // namespace smx
