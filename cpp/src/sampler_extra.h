// Internal to the core: the option checks of the sampler steps of issue 8
// (top-n-sigma, XTC, mirostat, dynatemp, epsilon, eta, DRY, no-repeat n-gram),
// defined in sampler_extra.cpp and used by validate() in sampler.cpp.
#pragma once
#include "smx/sampler.h"

namespace smx {

// Every option of those steps in range (see SamplerOptions).
bool extra_options_valid(const SamplerOptions& o);

}  // namespace smx
