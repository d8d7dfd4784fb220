// The entries still in the running during one sampler call, as the steps see
// them: their vocabulary indices (ascending), their logits, their
// probabilities, and how many there are. A view: until a step removes an
// entry or writes a logit, it reads the caller's scores in place (index is
// then null: position p is vocabulary index p); retain_if and the writers put
// their results into buffers the sampler owns (sized for the vocabulary).
#pragma once
#include <cstddef>
#include <cstdint>

#include "softmax_parts.h"

namespace smx {

struct Candidates {
  const uint32_t* index;          // [size] vocabulary indices, ascending; null: the identity
  const float* logit;             // [size] their logits (scores after bias, penalties and DRY)
  float* prob;                    // [size] softmax(logit / t), valid after softmax()
  size_t size;                    // the kept count
  float t = 1.0f;                 // the temperature applied so far
  double total = 0.0;             // the double sum of prob in index order, set by softmax()
  uint32_t* index_out;            // where retain_if writes indices (room for size entries)
  float* logit_out;               // where retain_if and writable_logit() put logits
  float range[2] = {0.0f, 0.0f};  // min and max of logit, when range_known
  bool range_known = false;

  // The vocabulary index at position p.
  uint32_t at(size_t p) const { return index != nullptr ? index[p] : static_cast<uint32_t>(p); }

  // Keeps the positions p for which keep(p) holds, in order: keep is called once
  // per position, ascending, and may read logit[p] (not yet moved; what it
  // reads at other positions it must take before). With `among` (ascending
  // positions, `count` of them, a superset of the kept ones) only those are
  // visited. prob is stale afterwards until softmax().
  template <class Keep>
  void retain_if(Keep keep, const uint32_t* among = nullptr, size_t count = 0) {
    const uint32_t* idx = index;
    const float* g = logit;
    uint32_t* io = index_out;
    float* go = logit_out;
    size_t j = 0;
    const auto visit = [&](size_t p) {
      if (keep(p)) {
        io[j] = idx != nullptr ? idx[p] : static_cast<uint32_t>(p);
        go[j++] = g[p];
      }
    };
    if (among == nullptr) {
      for (size_t p = 0; p < size; ++p) visit(p);
    } else {
      for (size_t i = 0; i < count; ++i) visit(among[i]);
    }
    index = io, logit = go, size = j;
    range_known = false;
  }

  // Keeps the positions list[0, count) (ascending) alone: retain_if with a
  // list of exactly the kept positions, one branch-free loop.
  void keep_listed(const uint32_t* list, size_t count);

  // Keeps position p alone at temperature 1 (greedy).
  void keep_only(size_t p);

  // The logits, writable: copied into logit_out first if they are not there.
  float* writable_logit();

  // prob = the core's softmax of logit at temperature t; total = their double
  // sum in index order (unless sum is false: then total is left as it is).
  void softmax(bool sum = true);

  // softmax(), logprob = the core's log_softmax of logit at temperature t, and
  // returns the entropy H = -sum p log p over the entries with p > 0.
  double entropy(float* logprob);

  // The entropy at temperature t from one exp pass that stores nothing
  // (softmax_parts' dot, SoftmaxParts::entropy); where softmax treats the
  // candidates otherwise (+Infinity entries, a one-hot rounding), entropy()'s.
  // *parts receives the pass's parts.
  double entropy_one_pass(float* logprob, SoftmaxParts* parts);

  // The position of vocabulary index i, or size if i is not a candidate.
  size_t find(uint32_t i) const;

  // The first position of the maximum logit.
  size_t first_max();

  // The min and max of logit (known, or found by one pass and remembered).
  const float* min_max();
};

}  // namespace smx
