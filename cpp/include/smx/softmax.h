// softmax-wasm core: the softmax family over N-D float32 tensors.
//
// Plain C++17. No function throws or aborts: each returns a Status. Every
// function accepts x == y (in place).
#pragma once
#include <cstddef>
#include <cstdint>

namespace smx {

enum class Status : int32_t {
  kOk = 0,
  kAllMasked = 1,       // a slice was all -Infinity and the policy is Masked::kThrow
  kBadShape = 2,        // shape product differs from the length, or a dimension < 0
  kBadAxis = 3,         // axis outside [-ndim, ndim)
  kBadTemperature = 4,  // temperature < 0 or NaN
  kNoMemory = 5,        // a scratch buffer could not be allocated
};

// What a slice of only -Infinity entries becomes.
enum class Masked : int32_t { kNaN = 0, kZeros = 1, kUniform = 2, kThrow = 3 };

// A tensor seen as [outer, n, inner]: the reduction runs over n, stride inner.
struct Layout {
  size_t outer = 1, n = 0, inner = 1;
};

// Layout of a tensor with `length` elements and dimensions shape[0..ndim)
// (ndim == 0: a 1-D vector of `length`), reduced along `axis` (negative counts
// from the end, as PyTorch's dim).
Status make_layout(size_t length, const int32_t* shape, size_t ndim, int32_t axis, Layout* out);

struct Options {
  float temperature = 1.0f;  // >= 0; 0 and +Infinity are the limits
  Masked masked = Masked::kNaN;
};

Status softmax(const float* x, float* y, const Layout& layout, const Options& opts);
Status log_softmax(const float* x, float* y, const Layout& layout, const Options& opts);
// One value per slice (outer * inner of them), in double: log sum_i exp(x_i / T).
Status log_sum_exp(const float* x, double* y, const Layout& layout, const Options& opts);
// The textbook formula in float32, no max trick: exp(x/T) / sum exp(x/T).
// Overflows like the course shows: [1000, 1001, 1002] -> NaN.
Status softmax_naive(const float* x, float* y, const Layout& layout, const Options& opts);

// The stable softmax of one vector, step by step, for lessons. Each array has
// n elements: scaled = x / T, shifted = scaled - max, exps = exp(shifted),
// probs = exps / sum (the bits of softmax(), which for 256+ entries shifts by a
// multiple of ln 2 at T = 1, within 2.5 ulp of exps / sum, and takes the tempered
// path at T != 1, which rounds (x - max) / T its own way: within |shifted| 2^-23
// relative plus 3 ulp). At T = 0, T = Infinity
// and with +Infinity entries the arrays hold the limit (shifted 0 for the entries that share the
// mass, -Infinity for the others). raw_exps = exp(scaled) without the max trick and raw_sum their
// sum: the textbook numbers (e^0.707 ~ 2.028, sum ~ 5.056), which overflow to +Infinity where the
// stable path does not.
struct Steps {
  float* scaled;
  float* shifted;
  float* exps;
  float* probs;
  float* raw_exps;
  float max;
  double sum;
  double raw_sum;
};
Status softmax_steps(const float* x, size_t n, const Options& opts, Steps* steps);

// softmax([z, 0])[0], computed by softmax itself.
float sigmoid(float z);
// First index of the maximum; NaN counts as the maximum. n >= 1.
size_t argmax(const float* x, size_t n);

}  // namespace smx
