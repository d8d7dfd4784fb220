#include "smx/softmax.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "kernels/dispatch.h"
#include "math_f64.h"
#include "softmax_parts.h"

namespace smx {
namespace {

using dispatch::raddstoreexpminusc;
using dispatch::raddstoreexpminusmax;
using dispatch::raddstoreexptempered;
using dispatch::rmax;
using dispatch::rminmax;
using dispatch::vlogsoftmax;
using dispatch::vscale;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

void fill(float* y, size_t n, float v) {
  for (size_t i = 0; i < n; ++i) y[i] = v;
}

// What decides a slice before any exp is taken.
enum class Case { kNormal, kNaN, kAllMasked, kShare, kUniform };

// kShare: the mass goes equally to the entries equal to `max` (T = 0, or +Inf
// entries); kUniform: equally to the entries that are not -Inf (T = +Inf).
Case classify(float max, float t) {
  if (max != max) return Case::kNaN;
  if (max == -kInf) return Case::kAllMasked;
  if (t == kInf) return Case::kUniform;
  if (max == kInf || t == 0.0f) return Case::kShare;
  return Case::kNormal;
}

// Marks the entries that get mass in the kShare / kUniform cases; returns their count.
size_t count_kept(const float* x, size_t n, float max, Case c) {
  size_t k = 0;
  for (size_t i = 0; i < n; ++i) k += c == Case::kShare ? x[i] == max : x[i] != -kInf;
  return k;
}
bool kept(float x, float max, Case c) { return c == Case::kShare ? x == max : x != -kInf; }

Status masked_fill(float* y, size_t n, Masked policy, bool log) {
  switch (policy) {
    case Masked::kNaN:
      fill(y, n, kNaN);
      break;
    case Masked::kZeros:
      fill(y, n, log ? -kInf : 0.0f);
      break;
    case Masked::kUniform:
      fill(y, n,
           log ? static_cast<float>(-log_f64(static_cast<double>(n)))
               : static_cast<float>(1.0 / static_cast<double>(n)));
      break;
    case Masked::kThrow:
      return Status::kAllMasked;
  }
  return Status::kOk;
}

// Softmax at T = 1 of a slice of 256+ entries with |max| <= 1024, the fast
// path: the shift is c, the multiple of ln 2 nearest max, which the kernel
// subtracts without rounding and without TwoSum. Returns false (nothing
// written) where it does not apply. y may be x: nothing reads x after the
// kernel. The entries equal to max get their share g / sum rounded once (g =
// their exp); this only matters, and is only done, for a slice dominated by
// its maximum (the others adding less than 2^-24 of it), where it keeps a
// one-hot result exactly 1.
constexpr size_t kFastPathMin = 256;
bool fast_softmax(const float* x, size_t n, float min, float max, float* y) {
  if (n < kFastPathMin || !(max >= -1024.0f && max <= 1024.0f)) return false;
  const float nc = kernels::exp_shift_for(max);
  const bool mask = !(min >= max - 80.0f);  // some lane may fall below 2^-126
  const double sum = raddstoreexpminusc(n, x, nc, mask, y);
  const float g = kernels::exp_minus_shift(max, nc);
  const auto inv = static_cast<float>(1.0 / sum);
  if (sum > static_cast<double>(g) * (1.0 + 0x1p-24)) {
    vscale(n, y, inv, y);
    return true;
  }
  const auto top = static_cast<float>(static_cast<double>(g) / sum);
  for (size_t i = 0; i < n; ++i) y[i] = y[i] == g ? top : y[i] * inv;
  return true;
}

// The tempered path, softmax at T != 1 of 256+ entries (exp_tempered): x -
// max rounded to float32 (exact near the max), a multiplication by 1 / T as a
// float pair and the fast path's polynomial. |max| <= 2^100 (a finite x - max
// never overflows) and T in [2^-64, 2^64] (1 / T a normal float).
bool tempered_applies(size_t n, float max, float t) {
  return n >= kFastPathMin && t != 1.0f && t >= 0x1p-64f && t <= 0x1p64f && max >= -0x1p100f &&
         max <= 0x1p100f;
}
// Its mask: needed unless every entry is finite with (x - max) / T >= -80.
bool tempered_mask(float min, float max, float t) {
  return !(static_cast<double>(min) >= static_cast<double>(max) - 80.0 * static_cast<double>(t));
}

// The sum of exp((x - max) / t) over a slice (min: its minimum, or -Infinity
// when unknown), by the tempered kernel where it applies, else the exact one;
// y (if not null) receives the exponentials.
double exp_sum(const float* x, size_t n, float min, float max, float t, float* y) {
  return tempered_applies(n, max, t)
             ? raddstoreexptempered(n, x, max, t, tempered_mask(min, max, t), y)
             : raddstoreexpminusmax(n, x, max, t, y);
}

// softmax (log false) or log-softmax (log true) of one contiguous slice. The
// exact path subtracts max by TwoSum, so that the largest entry's exp is
// exactly 1 and its probability 1 / sum is rounded once; so is the tempered
// path's (x - max is 0 there).
Status softmax_slice(const float* x, float* y, size_t n, const Options& o, bool log) {
  float mm[2];
  rminmax(n, x, mm);
  const float max = mm[1];
  const Case c = classify(max, o.temperature);
  switch (c) {
    case Case::kNaN:
      fill(y, n, kNaN);
      return Status::kOk;
    case Case::kAllMasked:
      return masked_fill(y, n, o.masked, log);
    case Case::kShare:
    case Case::kUniform: {
      const auto k = static_cast<double>(count_kept(x, n, max, c));
      const auto share = static_cast<float>(log ? -log_f64(k) : 1.0 / k);
      const float none = log ? -kInf : 0.0f;
      for (size_t i = 0; i < n; ++i) y[i] = kept(x[i], max, c) ? share : none;
      return Status::kOk;
    }
    case Case::kNormal:
      break;
  }
  double sum = 0.0;
  if (log) {
    sum = exp_sum(x, n, mm[0], max, o.temperature, nullptr);
    vlogsoftmax(n, x, max, o.temperature, static_cast<float>(log_f64(sum)), y);
    return Status::kOk;
  }
  if (o.temperature == 1.0f && fast_softmax(x, n, mm[0], max, y)) return Status::kOk;
  sum = exp_sum(x, n, mm[0], max, o.temperature, y);
  vscale(n, y, static_cast<float>(1.0 / sum), y);
  return Status::kOk;
}

double log_sum_exp_slice(const float* x, size_t n, const Options& o) {
  if (n == 0) return -std::numeric_limits<double>::infinity();
  const float max = rmax(n, x);
  const Case c = classify(max, o.temperature);
  switch (c) {
    case Case::kNaN:
      return kNaN;
    case Case::kAllMasked:
      return -kInf;
    case Case::kUniform:
      return log_f64(static_cast<double>(count_kept(x, n, max, c)));
    case Case::kShare:
      if (max == kInf) return kInf;
      // T -> 0: (1/T) max + log(#maxima) diverges unless max == 0.
      if (max > 0.0f) return kInf;
      if (max < 0.0f) return -kInf;
      return log_f64(static_cast<double>(count_kept(x, n, max, c)));
    case Case::kNormal:
      break;
  }
  const double sum = exp_sum(x, n, -kInf, max, o.temperature, nullptr);
  return static_cast<double>(max) / static_cast<double>(o.temperature) + log_f64(sum);
}

Status naive_slice(const float* x, float* y, size_t n, const Options& o) {
  float sum = 0.0f;
  for (size_t i = 0; i < n; ++i) {
    y[i] = kernels::exp_f32(o.temperature == 1.0f ? x[i] : x[i] / o.temperature);
    sum += y[i];
  }
  for (size_t i = 0; i < n; ++i) y[i] = y[i] / sum;
  return Status::kOk;
}

bool valid(const Options& o) { return o.temperature >= 0.0f; }  // false for NaN

// Calls slice(in, out, n, index) for each slice of the layout, in order;
// index = outer * inner + inner position. Strided slices go through one
// contiguous scratch copy (gathered, and scattered back when y != nullptr).
template <typename SliceFn>
Status for_each_slice(const float* x, float* y, const Layout& l, SliceFn slice) {
  // No slice at all (a zero dimension outside the axis): no scratch either, or
  // shape [2^28, 0] along axis 0 would allocate 1 GiB for an empty tensor.
  if (l.outer == 0 || l.inner == 0) return Status::kOk;
  if (l.inner == 1) {
    for (size_t o = 0; o < l.outer; ++o) {
      const Status s = slice(x + o * l.n, y == nullptr ? nullptr : y + o * l.n, l.n, o);
      if (s != Status::kOk) return s;
    }
    return Status::kOk;
  }
  auto* buf = static_cast<float*>(std::malloc((l.n == 0 ? 1 : l.n) * sizeof(float)));
  if (buf == nullptr) return Status::kNoMemory;
  Status s = Status::kOk;
  for (size_t o = 0; o < l.outer && s == Status::kOk; ++o) {
    for (size_t in = 0; in < l.inner && s == Status::kOk; ++in) {
      const size_t base = o * l.n * l.inner + in;
      for (size_t i = 0; i < l.n; ++i) buf[i] = x[base + i * l.inner];
      s = slice(buf, y == nullptr ? nullptr : buf, l.n, o * l.inner + in);
      if (y != nullptr)
        for (size_t i = 0; i < l.n; ++i) y[base + i * l.inner] = buf[i];
    }
  }
  std::free(buf);
  return s;
}

template <typename SliceFn>
Status map_slices(const float* x, float* y, const Layout& l, const Options& o, SliceFn slice) {
  if (!valid(o)) return Status::kBadTemperature;
  if (l.n == 0) return Status::kOk;
  return for_each_slice(
      x, y, l, [&](const float* a, float* b, size_t n, size_t) { return slice(a, b, n, o); });
}

}  // namespace

Status make_layout(size_t length, const int32_t* shape, size_t ndim, int32_t axis, Layout* out) {
  if (ndim == 0) {
    if (axis != 0 && axis != -1) return Status::kBadAxis;
    *out = Layout{1, length, 1};
    return Status::kOk;
  }
  const auto nd = static_cast<int64_t>(ndim);
  const int64_t a = axis < 0 ? int64_t{axis} + nd : int64_t{axis};
  if (a < 0 || a >= nd) return Status::kBadAxis;
  bool has_zero = false;
  for (size_t d = 0; d < ndim; ++d) {
    if (shape[d] < 0) return Status::kBadShape;
    has_zero = has_zero || shape[d] == 0;
  }
  Layout l{1, 1, 1};
  size_t total = 1;
  for (size_t d = 0; d < ndim; ++d) {
    const auto dim = static_cast<size_t>(shape[d]);
    if (!has_zero && total > length / dim) return Status::kBadShape;  // no overflow below
    total *= dim;
    if (static_cast<int64_t>(d) < a)
      l.outer *= dim;
    else if (static_cast<int64_t>(d) == a)
      l.n = dim;
    else
      l.inner *= dim;
  }
  if (total != length) return Status::kBadShape;
  *out = l;
  return Status::kOk;
}

Status softmax(const float* x, float* y, const Layout& l, const Options& o) {
  return map_slices(x, y, l, o, [](const float* a, float* b, size_t n, const Options& opt) {
    return softmax_slice(a, b, n, opt, false);
  });
}

Status log_softmax(const float* x, float* y, const Layout& l, const Options& o) {
  return map_slices(x, y, l, o, [](const float* a, float* b, size_t n, const Options& opt) {
    return softmax_slice(a, b, n, opt, true);
  });
}

Status softmax_naive(const float* x, float* y, const Layout& l, const Options& o) {
  return map_slices(x, y, l, o, naive_slice);
}

Status log_sum_exp(const float* x, double* y, const Layout& l, const Options& o) {
  if (!valid(o)) return Status::kBadTemperature;
  return for_each_slice(x, nullptr, l, [&](const float* a, float*, size_t n, size_t index) {
    y[index] = log_sum_exp_slice(a, n, o);
    return Status::kOk;
  });
}

namespace {
Status stable_steps(const float* x, size_t n, const Options& o, Steps* st);
}  // namespace

Status softmax_steps(const float* x, size_t n, const Options& o, Steps* st) {
  if (!valid(o)) return Status::kBadTemperature;
  st->max = -kInf;
  st->sum = st->raw_sum = 0;
  if (n == 0) return Status::kOk;
  const Status s = stable_steps(x, n, o, st);
  for (size_t i = 0; i < n; ++i) st->raw_sum += st->raw_exps[i] = kernels::exp_f32(st->scaled[i]);
  return s;
}

namespace {
Status stable_steps(const float* x, size_t n, const Options& o, Steps* st) {
  const float raw_max = rmax(n, x);
  const Case c = classify(raw_max, o.temperature);
  if (c == Case::kAllMasked || c == Case::kNaN) {
    const float v = c == Case::kNaN ? kNaN : -kInf;
    fill(st->scaled, n, v), fill(st->shifted, n, v),
        fill(st->exps, n, c == Case::kNaN ? kNaN : 0.0f);
    st->max = v;
    st->sum = c == Case::kNaN ? kNaN : 0.0;
    return masked_fill(st->probs, n, c == Case::kNaN ? Masked::kNaN : o.masked, false);
  }
  if (c == Case::kShare || c == Case::kUniform) {
    // The limit: the entries that share the mass sit at 0 after the shift.
    for (size_t i = 0; i < n; ++i) {
      const bool k = kept(x[i], raw_max, c);
      st->scaled[i] = st->shifted[i] = k ? 0.0f : -kInf;
      st->exps[i] = k ? 1.0f : 0.0f;
      st->sum += st->exps[i];
    }
    st->max = 0.0f;
    vscale(n, st->exps, static_cast<float>(1.0 / st->sum), st->probs);
    return Status::kOk;
  }
  const float t = o.temperature;
  for (size_t i = 0; i < n; ++i) st->scaled[i] = t == 1.0f ? x[i] : x[i] / t;
  st->max = rmax(n, st->scaled);
  // shifted, exps and probs from x and its max, exactly as softmax computes
  // them: x / T overflows for finite x and small T (2 / 1e-45, 1e38 / 0.5),
  // and scaled - max would then be Infinity - Infinity = NaN.
  for (size_t i = 0; i < n; ++i) st->shifted[i] = t == 1.0f ? x[i] - raw_max : (x[i] - raw_max) / t;
  st->sum = raddstoreexpminusmax(n, x, raw_max, t, st->exps);
  // probs are softmax's own bits, whichever path softmax takes: for 256+
  // entries the fast path (within 2.5 ulp of exps / sum) or the tempered path
  // (within |shifted| 2^-23 relative plus 3 ulp: it rounds (x - max) / T its
  // own way); elsewhere exps * float(1 / sum).
  return softmax_slice(x, st->probs, n, o, false);
}
}  // namespace

float SoftmaxParts::exp_of(float x) const {
  if (fast) return kernels::exp_minus_shift(x, nc, mask);
  return tempered ? kernels::exp_tempered_at(x, max, t, mask)
                  : kernels::exp_minus_max_at(x, max, t);
}

double SoftmaxParts::entropy(double dot) const {
  // log p_i = log(e_i / S) with e_i / e_max = exp((x_i - max) / t): relative
  // to the max entry's own exponential, so that its rounding (the fast path's
  // shift leaves it != 1) does not enter H, which is then accurate relative to
  // itself when one entry holds nearly all the mass (H near 0).
  const double top = exp_of(max);
  return log_f64(sum / top) - dot / sum / static_cast<double>(t);
}

bool SoftmaxParts::logit_band(double theta, float* lo, float* hi) const {
  if (kind != Kind::kScaled || !(theta > 0.0) || !(theta <= 1.0)) return false;
  // q = float(e * inv) with e = exp(z) (1 + d), z = (x - s) / t: q >= theta
  // about where z = L = log(theta sum). |d| <= (2 |z| + 4) 2^-24 (exp's 2.5
  // ulp and z's roundings: one on the exact path, two on the tempered path);
  // inv and the product add 2^-24 each: 2 eps covers them with room. Beyond
  // L +- 2 eps every rounding agrees.
  const double l = log_f64(theta) + log_f64(sum);
  if (!(l > -80.0) || !(l < 80.0)) return false;
  const double eps = (l < 0.0 ? -l : l) * 0x1p-23 + 0x1p-19;
  const double s = fast ? static_cast<double>(nc) * 0x1.62E42FEFA39EFp-1 : static_cast<double>(max);
  const double x_lo = s + static_cast<double>(t) * (l - 2.0 * eps);
  const double x_hi = s + static_cast<double>(t) * (l + 2.0 * eps);
  // Floats outward: lo <= x_lo, hi >= x_hi.
  float a = static_cast<float>(x_lo), b = static_cast<float>(x_hi);
  if (static_cast<double>(a) > x_lo) a = std::nextafter(a, -kInf);
  if (static_cast<double>(b) < x_hi) b = std::nextafter(b, kInf);
  if (!(a - a == 0.0f) || !(b - b == 0.0f)) return false;
  *lo = a, *hi = b;
  return true;
}

SoftmaxParts softmax_parts(const float* x, size_t n, float t, const float* min_max, float* y,
                           double* dot) {
  SoftmaxParts p;
  float mm[2];
  if (min_max != nullptr) {
    mm[0] = min_max[0], mm[1] = min_max[1];
  } else {
    rminmax(n, x, mm);
  }
  const float max = mm[1];
  if (n == 0 || !(t > 0.0f) || classify(max, t) != Case::kNormal) return p;
  p.max = max;
  p.t = t;
  // The choices of softmax_slice and fast_softmax, in the same order.
  if (t == 1.0f && n >= kFastPathMin && max >= -1024.0f && max <= 1024.0f) {
    p.fast = true;
    p.nc = kernels::exp_shift_for(max);
    p.mask = !(mm[0] >= max - 80.0f);
    p.sum = dot != nullptr ? dispatch::raddstoreexpdot(
                                 n, x, max, 1.0f, p.nc,
                                 p.mask ? kernels::kExpShiftMasked : kernels::kExpShift, y, dot)
                           : raddstoreexpminusc(n, x, p.nc, p.mask, y);
    const float g = kernels::exp_minus_shift(max, p.nc);
    if (!(p.sum > static_cast<double>(g) * (1.0 + 0x1p-24))) return p;  // the one-hot rounding
  } else if (tempered_applies(n, max, t)) {
    p.tempered = true;
    p.mask = tempered_mask(mm[0], max, t);
    p.sum = dot != nullptr
                ? dispatch::raddstoreexpdot(
                      n, x, max, t, NAN,
                      p.mask ? kernels::kExpTemperedMasked : kernels::kExpTempered, y, dot)
                : raddstoreexptempered(n, x, max, t, p.mask, y);
  } else {
    p.sum = dot != nullptr
                ? dispatch::raddstoreexpdot(n, x, max, t, NAN, kernels::kExpExact, y, dot)
                : raddstoreexpminusmax(n, x, max, t, y);
  }
  p.inv = static_cast<float>(1.0 / p.sum);
  p.kind = SoftmaxParts::Kind::kScaled;
  return p;
}

float sigmoid(float z) {
  const float x[2] = {z, 0.0f};
  float y[2];
  softmax_slice(x, y, 2, Options{}, false);
  return y[0];
}

size_t argmax(const float* x, size_t n) {
  const float max = rmax(n, x);
  for (size_t i = 0; i < n; ++i)
    if (x[i] == max || (max != max && x[i] != x[i])) return i;
  return 0;
}

}  // namespace smx
