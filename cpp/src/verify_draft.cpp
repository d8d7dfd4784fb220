// Sampler::verify_draft: speculative sampling against the sampler's own chain
// (smx/sampler.h documents the rule and the use of the stream).
#include <algorithm>

#include "candidates.h"
#include "draw.h"
#include "kernels/dispatch.h"
#include "smx/sampler.h"
#include "steps/steps.h"

namespace smx {

// Every check of verify_draft that does not need the target: the draft tokens
// in [0, n), every draft entry in [0, 1], each row's sum within
// kDraftSumSlack of 1.
SampleStatus Sampler::check_draft(const int32_t* draft, const float* q, size_t k, size_t n) {
  for (size_t j = 0; j < k; ++j) {
    if (draft[j] < 0 || static_cast<size_t>(draft[j]) >= n) {
      error_index_ = j;
      return SampleStatus::kBadToken;
    }
  }
  float* scratch = logprob_.data();
  for (size_t j = 0; j < k; ++j) {
    const float* row = q + j * n;
    float mm[2];
    dispatch::rminmax(n, row, mm);
    if (!(mm[0] >= 0.0f && mm[1] <= 1.0f)) {  // NaN fails too
      size_t i = 0;
      while (row[i] >= 0.0f && row[i] <= 1.0f) ++i;
      error_index_ = j * n + i;
      return SampleStatus::kBadDraft;
    }
    const double sum = dispatch::raddstorescale(n, row, 1.0f, scratch);
    if (!(sum >= 1.0 - kDraftSumSlack && sum <= 1.0 + kDraftSumSlack)) {
      error_index_ = j;
      return SampleStatus::kDraftSum;
    }
  }
  return SampleStatus::kOk;
}

// After a rejection: one u, the inverse CDF of r(i) = max(0, p(i) - q(i)) over
// the candidates in index order (double sums in cum_); from p when r has no mass.
int32_t Sampler::draw_residual(const float* q) {
  const double u = rng_.next_double();
  const Candidates c{cand_index_, cand_logit_, prob_.data(), size_, t_, 0.0, nullptr, nullptr};
  double* cum = cum_.data();
  double r = 0.0;
  for (size_t i = 0; i < size_; ++i) {
    const double d = static_cast<double>(prob_[i]) / total_ - static_cast<double>(q[c.at(i)]);
    r += d > 0.0 ? d : 0.0;
    cum[i] = r;
  }
  size_t lo = size_;
  if (r > 0.0) {
    lo = static_cast<size_t>(std::upper_bound(cum, cum + size_, u * r) - cum);
    if (lo == size_) {  // u * r rounded up to r: the last position with mass
      lo = size_ - 1;
      while (lo > 0 && cum[lo] == cum[lo - 1]) --lo;
    }
  } else {
    exact_sums();
    lo = draw_exact(prob_.data(), cum, size_, u, total_);
  }
  if (opts_.mirostat != 0) {
    mu_ = steps::mirostat_next_mu(mu_, opts_.mirostat_tau, opts_.mirostat_eta,
                                  static_cast<double>(prob_[lo]) / total_);
  }
  return static_cast<int32_t>(c.at(lo));
}

SampleStatus Sampler::verify_draft(const int32_t* draft, const float* q, size_t k,
                                   const float* target, size_t n, int32_t* out, size_t* accepted,
                                   const uint32_t* mask) {
  *accepted = 0;
  if (n == 0) return SampleStatus::kEmpty;
  if (n > 0x7FFFFFFFu) return SampleStatus::kBadOption;
  SampleStatus s = reserve(n);
  if (s != SampleStatus::kOk) return s;
  s = check_draft(draft, q, k, n);
  if (s != SampleStatus::kOk) return s;
  const auto row_mask = [&](size_t j) {
    return mask != nullptr ? mask + j * mask_words(n) : nullptr;
  };
  const auto fail = [&](SampleStatus st, size_t j) {
    if (st == SampleStatus::kNaNScore) error_index_ += j * n;
    if (st == SampleStatus::kEmptyMask || st == SampleStatus::kAllMasked) error_index_ = j;
    return st;
  };
  for (size_t j = 0; j < k; ++j) {
    s = prepare(target + j * n, n, row_mask(j));
    if (s != SampleStatus::kOk) return fail(s, j);
    exact_sums();
    const Candidates c{cand_index_, cand_logit_, prob_.data(), size_, t_, 0.0, nullptr, nullptr};
    const uint32_t x = static_cast<uint32_t>(draft[j]);
    const size_t pos = c.find(x);
    const double p = pos < size_ ? static_cast<double>(prob_[pos]) / total_ : 0.0;
    const double u = rng_.next_double();
    if (u * static_cast<double>(q[j * n + x]) < p) {
      out[j] = draft[j];
      if (opts_.mirostat != 0)
        mu_ = steps::mirostat_next_mu(mu_, opts_.mirostat_tau, opts_.mirostat_eta, p);
      continue;
    }
    out[j] = draw_residual(q + j * n);
    *accepted = j;
    return SampleStatus::kOk;
  }
  s = prepare(target + k * n, n, row_mask(k));
  if (s != SampleStatus::kOk) return fail(s, k);
  out[k] = draw();
  *accepted = k;
  return SampleStatus::kOk;
}

}  // namespace smx
