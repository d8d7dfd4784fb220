// Double-precision references for the native tests: written from the
// definitions, sharing no code with the library.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace ref {

inline std::vector<double> softmax(const float* x, size_t n, double t = 1.0) {
  double m = -INFINITY;
  for (size_t i = 0; i < n; ++i) m = std::max(m, static_cast<double>(x[i]));
  std::vector<double> y(n);
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += y[i] = std::exp((x[i] - m) / t);
  for (auto& v : y) v /= s;
  return y;
}

inline std::vector<double> log_softmax(const float* x, size_t n, double t = 1.0) {
  double m = -INFINITY;
  for (size_t i = 0; i < n; ++i) m = std::max(m, static_cast<double>(x[i]));
  double s = 0;
  for (size_t i = 0; i < n; ++i) s += std::exp((x[i] - m) / t);
  std::vector<double> y(n);
  for (size_t i = 0; i < n; ++i) y[i] = (x[i] - m) / t - std::log(s);
  return y;
}

inline uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

// Distance in units in the last place of the float32 nearest to r.
inline double ulps(float y, double r) {
  const float rf = static_cast<float>(r);
  const double ulp = std::nextafter(std::fabs(rf), INFINITY) - std::fabs(rf);
  return std::fabs(static_cast<double>(y) - r) / ulp;
}

inline std::vector<float> normal(size_t n, double sigma, uint32_t seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> d(0.0, sigma);
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(d(gen));
  return v;
}

// Values spread over [-scale, scale] (where a naive exp overflows for scale >= 89).
inline std::vector<float> spread(size_t n, double scale, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> d(-1.0, 1.0);
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(scale * d(gen));
  return v;
}

}  // namespace ref
