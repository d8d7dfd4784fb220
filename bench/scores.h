// The benchmarks' inputs: normal(0, sd) float32 scores from a fixed 64-bit
// state (xorshift64* uniforms, Box-Muller), as the JavaScript benchmark uses.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

inline std::vector<float> NormalScores(size_t n, uint64_t state, double sd = 3.0) {
  std::vector<float> x(n);
  uint64_t s = state;
  auto uniform = [&s] {
    s ^= s >> 12, s ^= s << 25, s ^= s >> 27;
    return ((s * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-53;
  };
  for (size_t i = 0; i < n; ++i) {
    const double u1 = 1.0 - uniform(), u2 = uniform();
    x[i] =
        static_cast<float>(sd * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2));
  }
  return x;
}
