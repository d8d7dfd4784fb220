// The kernels the core calls: for each op of kernels.inc, smx::dispatch::op is
// the wasmsimd variant in a build with SMX_USE_SIMD=1 and the scalar variant
// otherwise (a constant, so the calls are direct). An op without a variant for
// the build's isa fails to compile here.
#pragma once
#include "kernels.h"

namespace smx::dispatch {

#if SMX_USE_SIMD
#define SMX_KERNEL_FOR_wasmsimd(op, name) inline kernels::op##_ukernel* const op = kernels::name;
#define SMX_KERNEL_FOR_scalar(op, name)
#else
#define SMX_KERNEL_FOR_wasmsimd(op, name)
#define SMX_KERNEL_FOR_scalar(op, name) inline kernels::op##_ukernel* const op = kernels::name;
#endif
#define SMX_KERNEL(op, name, isa) SMX_KERNEL_FOR_##isa(op, name)
#include "kernels.inc"
#undef SMX_KERNEL
#undef SMX_KERNEL_FOR_wasmsimd
#undef SMX_KERNEL_FOR_scalar

}  // namespace smx::dispatch
