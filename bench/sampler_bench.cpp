// Native timing of smx::Sampler::sample() (a plain timing loop, no library):
// T 0.8 with top-k 40 + top-p 0.95 and with top-p 0.95 alone, at N = 32000,
// 128256 and 151936 normal(0, 3) logits, plus a few other filters. Best of
// several rounds of the median of timed batches (the machine is shared).
//
//   build-speed/sampler_bench [rounds]        timings (µs per call)
//   build-speed/sampler_bench --digest        one hash line per case over many
//                                             inputs, options and seeds: probs()
//                                             bits and sample_many() indices,
//                                             to compare two builds bit for bit
//
// Built as the CMake target `sampler_bench` (native, SIMD core via SIMDe).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "smx/sampler.h"

namespace {

// normal(0, sd) scores from a fixed seed (xorshift64* + Box-Muller).
std::vector<float> Scores(size_t n, uint64_t seed, double sd = 3.0) {
  std::vector<float> x(n);
  uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
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

struct Config {
  const char* label;
  float t;
  uint32_t k;
  double p, min_p, typ;
  bool llama = false;
};

smx::SamplerOptions Opts(const Config& c) {
  smx::SamplerOptions o;
  o.temperature = c.t;
  o.top_k = c.k;
  o.top_p = c.p;
  o.min_p = c.min_p;
  o.typical_p = c.typ;
  if (c.llama) std::memcpy(o.order, smx::kOrderLlamaCpp, sizeof(o.order));
  return o;
}

// Thread CPU time in µs: less sensitive to the other tenants of a shared machine.
double Now() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

int Bench(int rounds) {
  const Config configs[] = {
      {"T 0.8, top-k 40, top-p 0.95", 0.8f, 40, 0.95, 0, 1},
      {"T 0.8, top-p 0.95", 0.8f, 0, 0.95, 0, 1},
      {"T 0.8, top-k 1000", 0.8f, 1000, 1, 0, 1},
      {"T 0.8, min-p 0.05", 0.8f, 0, 1, 0.05, 1},
      {"T 0.8, typical 0.9", 0.8f, 0, 1, 0, 0.9},
      {"T 1, top-p 0.95 (llama.cpp order)", 1.0f, 0, 0.95, 0, 1, true},
  };
  const size_t sizes[] = {32000, 128256, 151936};
  std::printf("| case | 32000 | 128256 | 151936 |\n|---|---:|---:|---:|\n");
  for (const Config& c : configs) {
    std::printf("| %s |", c.label);
    for (size_t n : sizes) {
      const std::vector<float> x = Scores(n, n);
      smx::Sampler s;
      s.configure(Opts(c));
      s.seed(42);
      int32_t tok = 0;
      double best = 1e300;
      for (int r = 0; r < rounds; ++r) {
        std::vector<double> batch;
        for (int b = 0; b < 9; ++b) {
          int reps = 0;
          const double t0 = Now();
          double t1;
          do {
            s.sample(x.data(), n, &tok);
            ++reps;
          } while ((t1 = Now()) - t0 < 3000.0 && reps < 100000);
          batch.push_back((t1 - t0) / reps);
        }
        std::sort(batch.begin(), batch.end());
        best = std::min(best, batch[batch.size() / 2]);
      }
      std::printf(" %.1f |", best);
      std::fflush(stdout);
    }
    std::printf("\n");
  }
  return 0;
}

uint64_t Mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

int Digest() {
  const Config configs[] = {
      {"k40 p0.95", 0.8f, 40, 0.95, 0, 1},
      {"p0.95", 0.8f, 0, 0.95, 0, 1},
      {"p0.5", 1.0f, 0, 0.5, 0, 1},
      {"p0.999", 1.3f, 0, 0.999, 0, 1},
      {"p0.9999999", 1.0f, 0, 0.9999999, 0, 1},
      {"p1e-3", 1.0f, 0, 1e-3, 0, 1},
      {"k1", 1.0f, 1, 1, 0, 1},
      {"k5", 0.7f, 5, 1, 0, 1},
      {"k1000", 0.8f, 1000, 1, 0, 1},
      {"khalf", 1.0f, 20000, 1, 0, 1},
      {"minp0.05", 0.8f, 0, 1, 0.05, 1},
      {"minp0.5 k50", 1.0f, 50, 1, 0.5, 1},
      {"typ0.9", 0.8f, 0, 1, 0, 0.9},
      {"typ0.2 p0.9", 1.0f, 0, 0.9, 0, 0.2},
      {"all", 0.9f, 200, 0.9, 0.01, 0.95},
      {"llama p0.95", 1.0f, 0, 0.95, 0, 1, true},
      {"llama k40 p0.9 T0.5", 0.5f, 40, 0.9, 0.02, 0.97, true},
      {"T0 p0.9", 0.0f, 0, 0.9, 0, 1},
      {"Tinf p0.9", INFINITY, 100, 0.9, 0, 1},
  };
  // Inputs: normal with several spreads, heavy ties (integers), masked entries,
  // tiny n; sizes that exercise every path.
  const size_t sizes[] = {1, 2, 3, 17, 100, 1000, 5000, 32000, 151936};
  const double sds[] = {0.01, 1.0, 3.0, 10.0};
  for (const Config& c : configs) {
    uint64_t h = 0;
    for (size_t n : sizes) {
      for (int variant = 0; variant < 6; ++variant) {
        std::vector<float> x = Scores(n, n * 7 + variant, sds[variant % 4]);
        if (variant == 4)
          for (float& v : x) v = std::floor(v);  // ties
        if (variant == 5)
          for (size_t i = 0; i < n; ++i)
            if (i % 3 == 1 && i + 1 < n) x[i] = -INFINITY;  // masked
        smx::Sampler s;
        smx::SamplerOptions o = Opts(c);
        if (variant == 3) o.min_keep = 7;
        if (s.configure(o) != smx::SampleStatus::kOk) {
          std::printf("bad options %s\n", c.label);
          return 1;
        }
        s.seed(n + variant);
        std::vector<float> p(n);
        h = Mix(h, static_cast<uint64_t>(s.probs(x.data(), n, p.data())));
        for (size_t i = 0; i < n; ++i) {
          uint32_t b;
          std::memcpy(&b, &p[i], 4);
          h = Mix(h, b);
        }
        std::vector<int32_t> t(64);
        h = Mix(h, static_cast<uint64_t>(s.sample_many(x.data(), n, t.size(), t.data())));
        for (int32_t v : t) h = Mix(h, static_cast<uint32_t>(v));
        for (int i = 0; i < 4; ++i) {
          int32_t v = -1;
          s.sample(x.data(), n, &v);
          h = Mix(h, static_cast<uint32_t>(v));
        }
        const size_t kk = std::min<size_t>(n, 8);
        std::vector<int32_t> idx(kk);
        std::vector<float> before(kk), after(kk);
        h = Mix(h, static_cast<uint64_t>(
                       s.logprobs(x.data(), n, kk, idx.data(), before.data(), after.data())));
        for (size_t i = 0; i < kk; ++i) {
          uint32_t a, b;
          std::memcpy(&a, &before[i], 4);
          std::memcpy(&b, &after[i], 4);
          h = Mix(Mix(Mix(h, static_cast<uint32_t>(idx[i])), a), b);
        }
      }
    }
    std::printf("%-22s %016llx\n", c.label, static_cast<unsigned long long>(h));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--digest") == 0) return Digest();
  return Bench(argc > 1 ? std::atoi(argv[1]) : 3);
}
