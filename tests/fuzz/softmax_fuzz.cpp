// libFuzzer target of the softmax family: bytes -> shape, axis,
// temperature, masked policy and a float payload rich in NaN, +-Infinity,
// denormals and +-FLT_MAX. Calls make_layout, softmax, log_softmax,
// log_sum_exp, softmax_naive and softmax_steps and checks invariants, not just
// "no crash":
//   - make_layout returns the status an independent computation expects;
//   - every function returns the expected status (bad temperature, masked 'throw');
//   - softmax: outputs in [0, 1]; -Infinity entries exactly 0; a slice with NaN is
//     all NaN; an all -Infinity slice follows the masked policy; other slices sum to
//     1 within 1e-6, keep the order of the scores and match a double reference;
//   - log_softmax <= 0, agrees with log(softmax) where softmax is a normal float;
//   - log_sum_exp lies in [max/T, max/T + log n] (and the limits at T = 0, +Inf);
//   - softmax_naive: each output in [0, 1] or NaN;
//   - softmax_steps: probs equal softmax bitwise, shifted <= 0, exps in [0, 1];
//   - determinism (same input twice -> same bits) and in place == out of place.
// Build: CXX=clang++ cmake -S . -B build-fuzz -DSMX_FUZZ=ON; run: tests/fuzz/run.sh.
//
// Input layout (every field optional; missing bytes read as 0):
//   [0] ndim (b % 5; 0 = a 1-D vector of the payload)
//   [1..ndim] dims: b < 240 -> b % 9; else a hostile value (-1, 2^31-1, 65536, ...)
//   [.] flags: bit 0 -> length = product + delta (a shape mismatch)
//   [.] axis (int8, clamped to [-6, 6])
//   [.] temperature: tag b % 16 picks a special value or reads 4 raw bytes
//   [.] masked policy (b % 4)
//   [..] payload: per element a tag byte (special value, small integer, or 4 raw bytes)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <vector>

#include "fuzz_reader.h"
#include "smx/softmax.h"

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kMax = std::numeric_limits<float>::max();
constexpr float kDenormMin = std::numeric_limits<float>::denorm_min();
constexpr size_t kMaxElements = 4096;

float special(uint8_t tag, Reader& r) {
  switch (tag % 16) {
    case 0:
      return kNaN;
    case 1:
      return kInf;
    case 2:
      return -kInf;
    case 3:
      return kDenormMin;
    case 4:
      return -kDenormMin;
    case 5:
      return kMax;
    case 6:
      return -kMax;
    case 7:
      return 0.0f;
    case 8:
      return -0.0f;
    case 9:
      return std::numeric_limits<float>::min();  // smallest normal
    case 10:
      return 88.0f;
    case 11:
      return -104.0f;
    case 12:
    case 13:
      return static_cast<float>(static_cast<int>(r.byte()) - 128) / 8.0f;
    default:
      return r.raw();
  }
}

float temperature(Reader& r) {
  switch (r.byte() % 16) {
    case 0:
    case 1:
      return 1.0f;
    case 2:
      return 0.0f;
    case 3:
      return kInf;
    case 4:
      return 0.5f;
    case 5:
      return 2.0f;
    case 6:
      return kNaN;
    case 7:
      return -1.0f;
    case 8:
      return kDenormMin;
    case 9:
      return kMax;
    case 10:
      return 1e-30f;
    case 11:
      return -0.0f;
    case 12:
      return 0.7f;
    default:
      return r.raw();
  }
}

[[noreturn]] void fail(const char* what, size_t i, double got, double expected) {
  std::fprintf(stderr, "INVARIANT BROKEN: %s at %zu: got %.9g, expected %.9g\n", what, i, got,
               expected);
  std::abort();
}
#define CHECK(cond, what, i, got, expected)    \
  do {                                         \
    if (!(cond)) fail(what, i, got, expected); \
  } while (0)

bool same_bits(const void* a, const void* b, size_t bytes) {
  return bytes == 0 || std::memcmp(a, b, bytes) == 0;
}

// The status make_layout must return, computed without it.
smx::Status expected_layout(size_t length, const std::vector<int32_t>& shape, int32_t axis) {
  const auto nd = static_cast<int64_t>(shape.size());
  if (nd == 0) return axis == 0 || axis == -1 ? smx::Status::kOk : smx::Status::kBadAxis;
  const int64_t a = axis < 0 ? axis + nd : axis;
  if (a < 0 || a >= nd) return smx::Status::kBadAxis;
  __int128 product = 1;
  for (int32_t d : shape) {
    if (d < 0) return smx::Status::kBadShape;
    product *= d;
    if (product > (__int128{1} << 70)) product = __int128{1} << 70;  // stays > any length
  }
  return product == static_cast<__int128>(length) ? smx::Status::kOk : smx::Status::kBadShape;
}

struct Slice {
  std::vector<size_t> idx;  // element indices of the slice
};

std::vector<Slice> slices_of(const smx::Layout& l) {
  if (l.outer == 0 || l.inner == 0) return {};  // no slice (and no loop over a huge outer)
  std::vector<Slice> s(l.outer * l.inner);
  for (size_t o = 0; o < l.outer; ++o)
    for (size_t in = 0; in < l.inner; ++in)
      for (size_t i = 0; i < l.n; ++i)
        s[o * l.inner + in].idx.push_back(o * l.n * l.inner + i * l.inner + in);
  return s;
}

struct SliceInfo {
  bool nan = false, all_masked = false;
  float max = -kInf;
  size_t kept = 0;  // entries that share the mass in the limit cases
};

SliceInfo info(const std::vector<float>& x, const Slice& s, float t) {
  SliceInfo f;
  for (size_t i : s.idx) {
    if (x[i] != x[i])
      f.nan = true;
    else if (x[i] > f.max)
      f.max = x[i];
  }
  f.all_masked = !f.nan && f.max == -kInf && !s.idx.empty();
  for (size_t i : s.idx) {
    if (t == kInf)
      f.kept += x[i] != -kInf;
    else if (f.max == kInf || t == 0.0f)
      f.kept += x[i] == f.max;
  }
  return f;
}

bool limit_case(const SliceInfo& f, float t) { return t == kInf || f.max == kInf || t == 0.0f; }
bool kept_in_limit(float x, const SliceInfo& f, float t) {
  return t == kInf ? x != -kInf : x == f.max;
}

void check_softmax(const std::vector<float>& x, const std::vector<float>& y, const smx::Layout& l,
                   const smx::Options& o) {
  const float t = o.temperature;
  for (const Slice& s : slices_of(l)) {
    if (s.idx.empty()) continue;
    const SliceInfo f = info(x, s, t);
    const double n = static_cast<double>(s.idx.size());
    if (f.nan) {
      for (size_t i : s.idx) CHECK(y[i] != y[i], "softmax: NaN slice gives NaN", i, y[i], kNaN);
      continue;
    }
    if (f.all_masked) {
      for (size_t i : s.idx) {
        switch (o.masked) {
          case smx::Masked::kNaN:
            CHECK(y[i] != y[i], "softmax: masked nan", i, y[i], kNaN);
            break;
          case smx::Masked::kZeros:
            CHECK(y[i] == 0.0f, "softmax: masked zeros", i, y[i], 0);
            break;
          case smx::Masked::kUniform:
            CHECK(std::fabs(y[i] - 1.0 / n) <= 1e-6 / n, "softmax: masked uniform", i, y[i],
                  1.0 / n);
            break;
          case smx::Masked::kThrow:
            fail("softmax: masked throw returned kOk", i, y[i], 0);
        }
      }
      continue;
    }
    double sum = 0;
    for (size_t i : s.idx) {
      CHECK(y[i] >= 0.0f && y[i] <= 1.0f, "softmax: output in [0, 1]", i, y[i], 0.5);
      if (x[i] == -kInf) CHECK(y[i] == 0.0f, "softmax: -Infinity gets 0", i, y[i], 0);
      sum += y[i];
    }
    CHECK(std::fabs(sum - 1.0) <= 1e-6, "softmax: slice sums to 1", s.idx[0], sum, 1.0);
    if (limit_case(f, t)) {
      for (size_t i : s.idx) {
        const double want = kept_in_limit(x[i], f, t) ? 1.0 / static_cast<double>(f.kept) : 0.0;
        CHECK(std::fabs(y[i] - want) <= 1e-7 * want, "softmax: limit (T=0, T=Inf, +Inf entries)", i,
              y[i], want);
      }
      continue;
    }
    // A double reference: p_i = exp((x_i - max) / T) / sum.
    std::vector<double> p(s.idx.size());
    double rs = 0;
    for (size_t k = 0; k < s.idx.size(); ++k)
      rs += p[k] = std::exp((static_cast<double>(x[s.idx[k]]) - f.max) / static_cast<double>(t));
    for (size_t k = 0; k < s.idx.size(); ++k) {
      const double r = p[k] / rs;
      const double tol = std::max(2e-38, (2e-6 + std::fabs(std::log(r)) * 0x1p-22) * r);
      CHECK(std::fabs(y[s.idx[k]] - r) <= tol, "softmax: matches the double reference", s.idx[k],
            y[s.idx[k]], r);
    }
    // Order: x_i < x_j -> y_i <= y_j within the accuracy (1e-6 and one rounding of
    // (x - max) / T): scores closer than that may come out an ulp or two reversed.
    std::vector<size_t> ord = s.idx;
    std::sort(ord.begin(), ord.end(), [&](size_t a, size_t b) { return x[a] < x[b]; });
    for (size_t k = 1; k < ord.size(); ++k)
      if (x[ord[k - 1]] < x[ord[k]])
        CHECK(y[ord[k - 1]] <=
                  y[ord[k]] * (1 + 1e-6 +
                               (y[ord[k]] > 0 ? std::fabs(std::log(y[ord[k]])) * 0x1p-23 : 0)) +
                      1e-36,
              "softmax: keeps the order", ord[k - 1], y[ord[k - 1]], y[ord[k]]);
  }
}

void check_log_softmax(const std::vector<float>& x, const std::vector<float>& ly,
                       const std::vector<float>& y, const smx::Layout& l, const smx::Options& o) {
  const float t = o.temperature;
  for (const Slice& s : slices_of(l)) {
    if (s.idx.empty()) continue;
    const SliceInfo f = info(x, s, t);
    const double n = static_cast<double>(s.idx.size());
    for (size_t i : s.idx) {
      if (f.nan || (f.all_masked && o.masked == smx::Masked::kNaN)) {
        CHECK(ly[i] != ly[i], "log_softmax: NaN slice", i, ly[i], kNaN);
        continue;
      }
      if (f.all_masked && o.masked == smx::Masked::kUniform) {
        CHECK(std::fabs(ly[i] + std::log(n)) <= 1e-6 * std::max(1.0, std::log(n)),
              "log_softmax: masked uniform", i, ly[i], -std::log(n));
        continue;
      }
      CHECK(ly[i] <= 0.0f, "log_softmax <= 0", i, ly[i], 0);
      if (x[i] == -kInf || (f.all_masked && o.masked == smx::Masked::kZeros))
        CHECK(ly[i] == -kInf, "log_softmax: -Infinity / masked zeros", i, ly[i], -kInf);
      if (ly[i] == -kInf) CHECK(y[i] == 0.0f, "log_softmax -Inf -> softmax 0", i, y[i], 0);
      if (y[i] >= std::numeric_limits<float>::min()) {
        const double want = std::log(static_cast<double>(y[i]));
        CHECK(std::fabs(ly[i] - want) <= 4e-6 * std::max(1.0, std::fabs(want)),
              "log_softmax = log(softmax)", i, ly[i], want);
      }
    }
  }
}

void check_log_sum_exp(const std::vector<float>& x, const std::vector<double>& lse,
                       const smx::Layout& l, const smx::Options& o) {
  const float t = o.temperature;
  const auto sl = slices_of(l);
  for (size_t k = 0; k < sl.size(); ++k) {
    const Slice& s = sl[k];
    const double v = lse[k];
    if (s.idx.empty()) {
      CHECK(v == -HUGE_VAL, "log_sum_exp of an empty slice is -Infinity", k, v, -HUGE_VAL);
      continue;
    }
    const SliceInfo f = info(x, s, t);
    if (f.nan) {
      CHECK(v != v, "log_sum_exp: NaN slice", k, v, kNaN);
      continue;
    }
    if (f.all_masked) {
      CHECK(v == -HUGE_VAL, "log_sum_exp: all masked", k, v, -HUGE_VAL);
      continue;
    }
    if (t == kInf) {
      CHECK(std::fabs(v - std::log(static_cast<double>(f.kept))) <= 1e-12 * (1 + v),
            "log_sum_exp at T=Inf is log(#not masked)", k, v,
            std::log(static_cast<double>(f.kept)));
      continue;
    }
    if (f.max == kInf) {
      CHECK(v == HUGE_VAL, "log_sum_exp with +Inf", k, v, HUGE_VAL);
      continue;
    }
    if (t == 0.0f) {
      const double want = f.max > 0   ? HUGE_VAL
                          : f.max < 0 ? -HUGE_VAL
                                      : std::log(static_cast<double>(f.kept));
      CHECK(v == want || std::fabs(v - want) <= 1e-12 * (1 + std::fabs(want)), "log_sum_exp at T=0",
            k, v, want);
      continue;
    }
    const double lo = static_cast<double>(f.max) / static_cast<double>(t);
    const double hi = lo + std::log(static_cast<double>(s.idx.size()));
    const double eps = 1e-6 * std::max(1.0, std::fabs(hi));
    CHECK(v >= lo - eps && v <= hi + eps, "log_sum_exp in [max/T, max/T + log n]", k, v, lo);
  }
}

void check_naive(const std::vector<float>& y, smx::Status st) {
  CHECK(st == smx::Status::kOk, "softmax_naive status", 0, static_cast<int>(st), 0);
  for (size_t i = 0; i < y.size(); ++i)
    CHECK(y[i] != y[i] || (y[i] >= 0.0f && y[i] <= 1.0f), "softmax_naive: output in [0, 1] or NaN",
          i, y[i], 0.5);
}

// softmax_steps over the 1-D vector x (the whole payload).
void check_steps(const std::vector<float>& x, const smx::Options& o, bool temperature_ok) {
  const size_t n = x.size();
  std::vector<float> a(5 * n + 1), b(5 * n + 1);
  auto steps_of = [n](std::vector<float>& v) {
    return smx::Steps{
        v.data(), v.data() + n, v.data() + 2 * n, v.data() + 3 * n, v.data() + 4 * n, 0, 0, 0};
  };
  smx::Steps s1 = steps_of(a), s2 = steps_of(b);
  const smx::Status st1 = smx::softmax_steps(x.data(), n, o, &s1);
  const smx::Status st2 = smx::softmax_steps(x.data(), n, o, &s2);
  CHECK(st1 == st2 && same_bits(a.data(), b.data(), a.size() * 4) &&
            same_bits(&s1.max, &s2.max, 4) && same_bits(&s1.sum, &s2.sum, 8) &&
            same_bits(&s1.raw_sum, &s2.raw_sum, 8),
        "softmax_steps is deterministic", 0, 0, 0);
  if (!temperature_ok) {
    CHECK(st1 == smx::Status::kBadTemperature, "softmax_steps: bad temperature", 0,
          static_cast<int>(st1), 4);
    return;
  }
  const smx::Layout l{1, n, 1};
  std::vector<float> y(n);
  const smx::Status sst = smx::softmax(x.data(), y.data(), l, o);
  CHECK(st1 == sst, "softmax_steps status == softmax status", 0, static_cast<int>(st1),
        static_cast<int>(sst));
  if (st1 != smx::Status::kOk || n == 0) return;
  const float* probs = s1.probs;
  for (size_t i = 0; i < n; ++i) {
    if (y[i] != y[i]) {
      CHECK(probs[i] != probs[i], "softmax_steps: probs NaN where softmax is", i, probs[i], y[i]);
      continue;
    }
    CHECK(same_bits(&probs[i], &y[i], 4), "softmax_steps: probs == softmax bitwise", i, probs[i],
          y[i]);
    if (s1.shifted[i] == s1.shifted[i])
      CHECK(s1.shifted[i] <= 0.0f, "softmax_steps: shifted <= 0", i, s1.shifted[i], 0);
    CHECK(s1.exps[i] >= 0.0f && s1.exps[i] <= 1.0f, "softmax_steps: exps in [0, 1]", i, s1.exps[i],
          1);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader r{data, size};
  const size_t ndim = r.byte() % 5;
  std::vector<int32_t> shape(ndim);
  bool hostile = false;
  size_t product = 1;
  for (auto& d : shape) {
    const uint8_t b = r.byte();
    if (b < 240) {
      d = b % 9;
    } else {
      static const int32_t kHostile[] = {-1,      INT32_MAX, 65536,   1 << 30, INT32_MIN, -7,
                                         46341,   3,         1 << 16, 2,       0,         1,
                                         1 << 20, 4096,      5,       7};
      d = kHostile[b - 240];
      hostile = true;
    }
    if (!hostile) product *= static_cast<size_t>(d);
  }
  const uint8_t flags = r.byte();
  const auto axis = static_cast<int32_t>(
      std::max(-6, std::min(6, static_cast<int>(static_cast<int8_t>(r.byte())))));
  smx::Options o;
  o.temperature = temperature(r);
  o.masked = static_cast<smx::Masked>(r.byte() % 4);

  std::vector<float> payload;
  while (r.n > 0 && payload.size() < kMaxElements) payload.push_back(special(r.byte(), r));

  size_t length;
  if (ndim == 0 || hostile)
    length = payload.size();
  else if (!(flags & 1))
    length = product;
  else
    length = (flags >> 1) % 3 == 0 && product > 0 ? product - 1 : product + 1 + (flags >> 1) % 3;
  if (length > kMaxElements) return 0;
  std::vector<float> x(length);
  for (size_t i = 0; i < length; ++i) x[i] = payload.empty() ? 0.0f : payload[i % payload.size()];

  // make_layout: the expected status, twice the same layout.
  smx::Layout l, l2;
  const smx::Status ls = smx::make_layout(length, shape.data(), ndim, axis, &l);
  const smx::Status want = expected_layout(length, shape, axis);
  CHECK(ls == want, "make_layout status", 0, static_cast<int>(ls), static_cast<int>(want));
  const bool temperature_ok = o.temperature >= 0.0f;
  check_steps(payload.size() <= 1024 ? payload
                                     : std::vector<float>(payload.begin(), payload.begin() + 1024),
              o, temperature_ok);
  if (ls != smx::Status::kOk) return 0;
  CHECK(l.outer * l.n * l.inner == length, "layout covers the tensor", 0,
        static_cast<double>(l.outer * l.n * l.inner), static_cast<double>(length));
  // An empty tensor can still have very many slices ([0, 2^30, 6] along axis 0:
  // log_sum_exp gives one -Infinity per slice); the harness does not enumerate them.
  if (l.outer * l.inner > 4 * kMaxElements) return 0;
  smx::make_layout(length, shape.data(), ndim, axis, &l2);
  CHECK(l.outer == l2.outer && l.n == l2.n && l.inner == l2.inner, "make_layout deterministic", 0,
        0, 0);

  // Which status softmax must return.
  bool some_masked = false;
  if (l.n > 0)
    for (const Slice& s : slices_of(l))
      some_masked = some_masked || info(x, s, o.temperature).all_masked;
  const smx::Status expect = !temperature_ok ? smx::Status::kBadTemperature
                             : (some_masked && o.masked == smx::Masked::kThrow)
                                 ? smx::Status::kAllMasked
                                 : smx::Status::kOk;

  // softmax: twice out of place, once in place.
  std::vector<float> y1(length), y2(length), yin = x;
  const smx::Status s1 = smx::softmax(x.data(), y1.data(), l, o);
  const smx::Status s2 = smx::softmax(x.data(), y2.data(), l, o);
  const smx::Status s3 = smx::softmax(yin.data(), yin.data(), l, o);
  CHECK(s1 == expect, "softmax status", 0, static_cast<int>(s1), static_cast<int>(expect));
  CHECK(s1 == s2 && s1 == s3, "softmax status deterministic / in place", 0, static_cast<int>(s2),
        static_cast<int>(s3));
  if (s1 == smx::Status::kOk) {
    CHECK(same_bits(y1.data(), y2.data(), length * 4), "softmax deterministic", 0, 0, 0);
    CHECK(same_bits(y1.data(), yin.data(), length * 4), "softmax in place == out of place", 0, 0,
          0);
    check_softmax(x, y1, l, o);
  }

  // log_softmax.
  std::vector<float> ly1(length), ly2(length), lyin = x;
  const smx::Status t1 = smx::log_softmax(x.data(), ly1.data(), l, o);
  const smx::Status t2 = smx::log_softmax(x.data(), ly2.data(), l, o);
  const smx::Status t3 = smx::log_softmax(lyin.data(), lyin.data(), l, o);
  CHECK(t1 == expect && t2 == expect && t3 == expect, "log_softmax status", 0, static_cast<int>(t1),
        static_cast<int>(expect));
  if (t1 == smx::Status::kOk) {
    CHECK(same_bits(ly1.data(), ly2.data(), length * 4), "log_softmax deterministic", 0, 0, 0);
    CHECK(same_bits(ly1.data(), lyin.data(), length * 4), "log_softmax in place == out of place", 0,
          0, 0);
    check_log_softmax(x, ly1, y1, l, o);
  }

  // log_sum_exp: one value per slice; the masked policy does not apply.
  const size_t nslices = l.outer * l.inner;
  std::vector<double> lse1(nslices), lse2(nslices);
  const smx::Status u1 = smx::log_sum_exp(x.data(), lse1.data(), l, o);
  const smx::Status u2 = smx::log_sum_exp(x.data(), lse2.data(), l, o);
  const smx::Status ue = temperature_ok ? smx::Status::kOk : smx::Status::kBadTemperature;
  CHECK(u1 == ue && u2 == ue, "log_sum_exp status", 0, static_cast<int>(u1), static_cast<int>(ue));
  if (u1 == smx::Status::kOk) {
    CHECK(same_bits(lse1.data(), lse2.data(), nslices * 8), "log_sum_exp deterministic", 0, 0, 0);
    check_log_sum_exp(x, lse1, l, o);
  }

  // softmax_naive: no max trick, overflows to NaN, but never outside [0, 1].
  std::vector<float> ny1(length), ny2(length), nyin = x;
  const smx::Status v1 = smx::softmax_naive(x.data(), ny1.data(), l, o);
  const smx::Status v2 = smx::softmax_naive(x.data(), ny2.data(), l, o);
  const smx::Status v3 = smx::softmax_naive(nyin.data(), nyin.data(), l, o);
  CHECK(v1 == v2 && v1 == v3, "softmax_naive status deterministic", 0, static_cast<int>(v1),
        static_cast<int>(v2));
  if (!temperature_ok) {
    CHECK(v1 == smx::Status::kBadTemperature, "softmax_naive: bad temperature", 0,
          static_cast<int>(v1), 4);
  } else {
    CHECK(same_bits(ny1.data(), ny2.data(), length * 4), "softmax_naive deterministic", 0, 0, 0);
    CHECK(same_bits(ny1.data(), nyin.data(), length * 4), "softmax_naive in place == out of place",
          0, 0, 0);
    check_naive(ny1, v1);
  }
  return 0;
}
