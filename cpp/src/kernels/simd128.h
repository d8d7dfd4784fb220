// The one place that picks the WebAssembly SIMD intrinsics header: the real one
// under Emscripten, SIMDe's bit-exact implementation of the same API natively.
#pragma once
#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#else
#define SIMDE_ENABLE_NATIVE_ALIASES
#include <simde/wasm/simd128.h>
#endif
