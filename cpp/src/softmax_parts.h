// softmax() of one slice taken apart, for the sampler: the parts that decide
// every output (its path, max, shift, sum and scale), so that a caller can
// fuse its own work into the last pass, or compute single outputs without
// computing them all. prob_of(x_i) is softmax's output for x_i, bit for bit.
#pragma once
#include <cstddef>

namespace smx {

struct SoftmaxParts {
  // kScaled: every output is exp_of(x_i) * inv. kOther: a slice softmax
  // treats otherwise (NaN, all -Infinity, +Infinity entries, T = 0 or
  // Infinity, the fast path's one-hot rounding): call softmax() itself.
  enum class Kind { kScaled, kOther };
  Kind kind = Kind::kOther;
  bool fast = false;      // the T = 1 fast path: exp(x - nc ln 2), lanes below 2^-126 masked
  bool tempered = false;  // the T != 1 path of 256+ entries (exp_tempered)
  bool mask = false;      // the fast or tempered path's mask
  float nc = 0.0f, max = 0.0f, t = 1.0f;
  double sum = 0.0;  // the kernel's sum of the exponentials
  float inv = 0.0f;  // float(1 / sum)

  // The exponential the kernel computes for x (x from the slice).
  float exp_of(float x) const;
  float prob_of(float x) const { return exp_of(x) * inv; }

  // From the dot of softmax_parts (kScaled): the mean logit sum p_i x_i, and
  // the entropy -sum p_i log p_i = log(sum / e_max) - (mean - max) / t, e_max
  // the exponential of the max entry (exp_of(max)), in double: one pass, no
  // logarithm per entry.
  double mean_logit(double dot) const { return static_cast<double>(max) + dot / sum; }
  double entropy(double dot) const;

  // Logits lo <= hi such that prob_of(x) >= theta for every x >= hi and
  // prob_of(x) < theta for every x < lo (kScaled only): the entries in [lo, hi)
  // need prob_of. From exp's error bound (2.5 ulp) and the rounding of (x - max)
  // / t, of the scale and of the product. false when theta is too small (or not
  // a number) to bound this way: near the subnormal range or the masked lanes.
  bool logit_band(double theta, float* lo, float* hi) const;
};

// The parts of softmax(x[0, n)) at temperature t > 0 (n >= 1). min_max: x's
// minimum and maximum when the caller knows them (else one pass finds them).
// y (if not null) receives the exponentials, so that scaling y by inv gives
// softmax's output. dot (if not null) receives the sum of y_i (x_i - max) in
// the same pass (the raddstoreexpdot kernel): with sum, the mean logit and the
// entropy of the distribution (mean_logit(), entropy()).
SoftmaxParts softmax_parts(const float* x, size_t n, float t, const float* min_max, float* y,
                           double* dot = nullptr);

}  // namespace smx
