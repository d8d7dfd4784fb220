// The only file that sees Emscripten's binding layers: thin functions over wasm
// memory. Pointers arrive as byte offsets into the heap; validation and the
// JavaScript idioms live in web/src/api.js, the semantics in the core.
//
// The softmax family is exported as plain C functions (Module._smx_*), called
// straight from JS: under a CSP without 'unsafe-eval' (DYNAMIC_EXECUTION=0)
// Embind's generic invoker costs ~310 ns per 8-argument call (measured in
// Node 20), seven times the whole JavaScript softmax of 3 numbers, while a
// direct wasm export call costs tens of ns. Embind carries the classes, whose
// lifetimes it manages.
#include <emscripten/bind.h>
#include <emscripten/emscripten.h>

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
  if (s == smx::Status::kOk)
    s = kFn(at<const float>(x), at<float>(y), l, options(temperature, masked));
  return static_cast<int32_t>(s);
}

}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE int32_t smx_softmax(Ptr x, Ptr y, uint32_t length, Ptr shape, uint32_t ndim,
                                         int32_t axis, double temperature, int32_t masked) {
  return map<smx::softmax>(x, y, length, shape, ndim, axis, temperature, masked);
}

EMSCRIPTEN_KEEPALIVE int32_t smx_log_softmax(Ptr x, Ptr y, uint32_t length, Ptr shape,
                                             uint32_t ndim, int32_t axis, double temperature,
                                             int32_t masked) {
  return map<smx::log_softmax>(x, y, length, shape, ndim, axis, temperature, masked);
}

EMSCRIPTEN_KEEPALIVE int32_t smx_softmax_naive(Ptr x, Ptr y, uint32_t length, Ptr shape,
                                               uint32_t ndim, int32_t axis, double temperature,
                                               int32_t masked) {
  return map<smx::softmax_naive>(x, y, length, shape, ndim, axis, temperature, masked);
}

// y: one double per slice.
EMSCRIPTEN_KEEPALIVE int32_t smx_log_sum_exp(Ptr x, Ptr y, uint32_t length, Ptr shape,
                                             uint32_t ndim, int32_t axis, double temperature) {
  smx::Layout l;
  smx::Status s = smx::make_layout(length, at<const int32_t>(shape), ndim, axis, &l);
  if (s == smx::Status::kOk)
    s = smx::log_sum_exp(at<const float>(x), at<double>(y), l, options(temperature, 0));
  return static_cast<int32_t>(s);
}

// arrays: 5 float arrays of n (scaled, shifted, exps, probs, raw_exps);
// out: max, sum, raw_sum (doubles).
EMSCRIPTEN_KEEPALIVE int32_t smx_softmax_steps(Ptr x, uint32_t n, double temperature,
                                               int32_t masked, Ptr arrays, Ptr out) {
  float* a = at<float>(arrays);
  smx::Steps st{a, a + n, a + 2 * n, a + 3 * n, a + 4 * n, 0, 0, 0};
  const smx::Status s =
      smx::softmax_steps(at<const float>(x), n, options(temperature, masked), &st);
  at<double>(out)[0] = st.max;
  at<double>(out)[1] = st.sum;
  at<double>(out)[2] = st.raw_sum;
  return static_cast<int32_t>(s);
}

EMSCRIPTEN_KEEPALIVE double smx_sigmoid(double z) {
  return smx::sigmoid(static_cast<float>(z));
}

EMSCRIPTEN_KEEPALIVE uint32_t smx_argmax(Ptr x, uint32_t n) {
  return static_cast<uint32_t>(smx::argmax(at<const float>(x), n));
}

}  // extern "C"
