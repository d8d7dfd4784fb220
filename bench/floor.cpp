// The floor of a wasm softmax: one SIMD128 pass over the data, y = x * c, with
// no exp, no reduction. The benchmark copies its input into this module's
// memory, calls floor_scale, and copies the result out, so the "floor" row is
// what any wasm softmax must at least pay: copy in + one pass + copy out.
// Built by bench/softmax.bench.mjs with `em++ -O3 -msimd128` (standalone wasm,
// no glue, no imports).
#include <wasm_simd128.h>

#include <cstddef>

namespace {
constexpr size_t kCapacity = size_t(1) << 22;  // floats: 16 MiB, enough for N up to 2^22
alignas(16) float buffer[kCapacity];
}  // namespace

extern "C" {

__attribute__((export_name("floor_buffer"))) float* floor_buffer() { return buffer; }

__attribute__((export_name("floor_capacity"))) size_t floor_capacity() { return kCapacity; }

// buffer[i] *= c for i < n: 16 floats per iteration, then 4, then a scalar tail.
__attribute__((export_name("floor_scale"))) void floor_scale(size_t n, float c) {
  float* x = buffer;
  const v128_t vc = wasm_f32x4_splat(c);
  for (; n >= 16; n -= 16, x += 16) {
    v128_t a = wasm_v128_load(x);
    v128_t b = wasm_v128_load(x + 4);
    v128_t d = wasm_v128_load(x + 8);
    v128_t e = wasm_v128_load(x + 12);
    wasm_v128_store(x, wasm_f32x4_mul(a, vc));
    wasm_v128_store(x + 4, wasm_f32x4_mul(b, vc));
    wasm_v128_store(x + 8, wasm_f32x4_mul(d, vc));
    wasm_v128_store(x + 12, wasm_f32x4_mul(e, vc));
  }
  for (; n >= 4; n -= 4, x += 4) wasm_v128_store(x, wasm_f32x4_mul(wasm_v128_load(x), vc));
  for (; n > 0; n--, x++) *x *= c;
}
}
