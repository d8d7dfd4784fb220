// smx::Pcg32: the PCG32 generator (PCG-XSH-RR 64/32, M. E. O'Neill, "PCG: A
// Family of Simple Fast Space-Efficient Statistically Good Algorithms for
// Random Number Generation", 2014), exactly as pcg-c-basic's pcg32_random_r,
// pcg32_srandom_r and pcg32_boundedrand_r. Integer arithmetic only, so every
// platform (native, wasm with or without SIMD) produces the same stream.
//
// Reference: Pcg32(42, 54) yields 0xa15c02b7 0x7b47f409 0xba1d3330 0x83d2f293
// 0xbfa4784b 0xcbed606e (pcg32-demo, pcg-random.org); tests/native/rng_test.cpp
// checks it.
#pragma once
#include <cstdint>

namespace smx {

class Pcg32 {
 public:
  static constexpr uint64_t kMultiplier = 6364136223846793005ULL;
  // The stream a sampler uses: the sequence constant of pcg32-demo.
  static constexpr uint64_t kDefaultStream = 54;

  explicit Pcg32(uint64_t initstate = 0, uint64_t initseq = kDefaultStream) {
    seed(initstate, initseq);
  }

  // pcg32_srandom_r(initstate, initseq): initseq selects one of 2^63 streams.
  void seed(uint64_t initstate, uint64_t initseq = kDefaultStream) {
    state_ = 0;
    inc_ = (initseq << 1) | 1u;
    next();
    state_ += initstate;
    next();
  }

  // pcg32_random_r: the next 32 uniformly distributed bits.
  uint32_t next() {
    const uint64_t old = state_;
    state_ = old * kMultiplier + inc_;
    const auto xorshifted = static_cast<uint32_t>(((old >> 18) ^ old) >> 27);
    const auto rot = static_cast<uint32_t>(old >> 59);
    return (xorshifted >> rot) | (xorshifted << ((32u - rot) & 31u));
  }

  // pcg32_boundedrand_r: uniform in [0, bound) without modulo bias; bound >= 1.
  uint32_t bounded(uint32_t bound) {
    const uint32_t threshold = (0u - bound) % bound;
    for (;;) {
      const uint32_t r = next();
      if (r >= threshold) return r % bound;
    }
  }

  // Bits-to-uniform conversion: a double in [0, 1) on the grid k / 2^53, from
  // two outputs a, b (in that order): ((a >> 5) * 2^26 + (b >> 6)) / 2^53, as
  // genrand_res53 of the Mersenne Twister reference code. Exact, no rounding.
  double next_double() {
    const uint32_t a = next() >> 5;  // 27 bits
    const uint32_t b = next() >> 6;  // 26 bits
    return (static_cast<double>(a) * 67108864.0 + static_cast<double>(b)) *
           (1.0 / 9007199254740992.0);
  }

 private:
  uint64_t state_ = 0;
  uint64_t inc_ = 1;
};

}  // namespace smx
