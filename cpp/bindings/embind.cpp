// The only file that sees Embind: thin functions over wasm memory. Pointers
// arrive as byte offsets into the heap; validation and the JavaScript idioms
// live in web/src/index.js, the semantics in the core.
#include <emscripten/bind.h>

#include <cstdint>

#include "smx/softmax.h"

namespace {

using Ptr = uintptr_t;

template <typename T>
T* at(Ptr p) {
  return reinterpret_cast<T*>(p);
}

smx::Options options(double temperature, int32_t masked) {
  smx::Options o;
  o.temperature = static_cast<float>(temperature);
  o.masked = static_cast<smx::Masked>(masked);
  return o;
}

using Map = smx::Status (*)(const float*, float*, const smx::Layout&, const smx::Options&);

// Returns a Status; the layout comes from (length, shape[0..ndim), axis).
template <Map kFn>
int32_t map(Ptr x, Ptr y, uint32_t length, Ptr shape, uint32_t ndim, int32_t axis,
            double temperature, int32_t masked) {
  smx::Layout l;
  smx::Status s = smx::make_layout(length, at<const int32_t>(shape), ndim, axis, &l);
  if (s == smx::Status::kOk) s = kFn(at<const float>(x), at<float>(y), l, options(temperature, masked));
  return static_cast<int32_t>(s);
}

int32_t log_sum_exp(Ptr x, Ptr y, uint32_t length, Ptr shape, uint32_t ndim, int32_t axis,
                    double temperature) {
  smx::Layout l;
  smx::Status s = smx::make_layout(length, at<const int32_t>(shape), ndim, axis, &l);
  if (s == smx::Status::kOk) s = smx::log_sum_exp(at<const float>(x), at<double>(y), l, options(temperature, 0));
  return static_cast<int32_t>(s);
}

// arrays: 5 float arrays of n (scaled, shifted, exps, probs, raw_exps);
// out: max, sum, raw_sum (doubles).
int32_t softmax_steps(Ptr x, uint32_t n, double temperature, int32_t masked, Ptr arrays, Ptr out) {
  float* a = at<float>(arrays);
  smx::Steps st{a, a + n, a + 2 * n, a + 3 * n, a + 4 * n, 0, 0, 0};
  const smx::Status s = smx::softmax_steps(at<const float>(x), n, options(temperature, masked), &st);
  at<double>(out)[0] = st.max;
  at<double>(out)[1] = st.sum;
  at<double>(out)[2] = st.raw_sum;
  return static_cast<int32_t>(s);
}

double sigmoid(double z) { return smx::sigmoid(static_cast<float>(z)); }
uint32_t argmax(Ptr x, uint32_t n) { return static_cast<uint32_t>(smx::argmax(at<const float>(x), n)); }

}  // namespace

EMSCRIPTEN_BINDINGS(softmax_wasm) {
  emscripten::function("softmax", &map<smx::softmax>);
  emscripten::function("logSoftmax", &map<smx::log_softmax>);
  emscripten::function("softmaxNaive", &map<smx::softmax_naive>);
  emscripten::function("logSumExp", &log_sum_exp);
  emscripten::function("softmaxSteps", &softmax_steps);
  emscripten::function("sigmoid", &sigmoid);
  emscripten::function("argmax", &argmax);
}
