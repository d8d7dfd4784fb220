// Native timing of smx::Sampler::sample() (a plain timing loop, no library),
// and a bit-for-bit digest of the sampler.
//
//   build/sampler_bench [rounds]      per configuration at N = 151936 normal(0, 3)
//                                     logits: µs per sample() and the ratio to one
//                                     smx::softmax of the same logits (greedy: to
//                                     smx::argmax); then the basic chains at
//                                     N = 32000, 128256 and 151936. Best of several
//                                     rounds of the median of timed batches (the
//                                     machine is shared).
//   build/sampler_bench --digest      one hash line per configuration over many
//                                     inputs, options and seeds: probs() bits,
//                                     sample_many() and sample() indices and
//                                     logprobs(); to compare two builds bit for bit
//   build/sampler_bench --one LABEL [calls]
//                                     calls (default 200) sample() calls of one
//                                     configuration: a target for callgrind
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

#include "scores.h"
#include "smx/sampler.h"
#include "smx/softmax.h"

namespace {

// normal(0, sd) scores, one input per seed.
std::vector<float> Scores(size_t n, uint64_t seed, double sd = 3.0) {
  return NormalScores(n, seed * 0x9E3779B97F4A7C15ull + 1, sd);
}

using Edit = void (*)(smx::SamplerOptions&);

struct Config {
  const char* label;
  Edit edit;
  size_t history = 0;  // tokens of history (penalties, DRY, no-repeat n-gram)
  bool bias = false;   // a logit bias on a few tokens (one banned)
};

void Llama(smx::SamplerOptions& o) {
  std::memcpy(o.order, smx::kOrderLlamaCpp, sizeof(o.order));
  o.order_len = smx::kNumSteps;
}

// Every step on (the digest's: top-k 200; the speed table's, as npm run bench: top-k 40).
void EveryStep(smx::SamplerOptions& o) {
  o.temperature = 0.8f, o.top_k = 200, o.top_p = 0.95, o.min_p = 0.02, o.typical_p = 0.97;
  o.repetition_penalty = 1.1f, o.frequency_penalty = 0.1f, o.presence_penalty = 0.1f;
  o.top_n_sigma = 3, o.xtc_probability = 0.5, o.xtc_threshold = 0.1, o.mirostat = 2;
  o.dynatemp_range = 0.3, o.epsilon_cutoff = 1e-4, o.eta_cutoff = 1e-4, o.dry_multiplier = 0.8f;
  o.no_repeat_ngram_size = 3;
}

// The configurations of the speed table (the sampler section of BENCHMARKS.md).
const Config kSpeed[] = {
    {"no filters (T = 1)", [](smx::SamplerOptions&) {}},
    {"topP 0.9", [](smx::SamplerOptions& o) { o.top_p = 0.9; }},
    {"minP 0.05", [](smx::SamplerOptions& o) { o.min_p = 0.05; }},
    {"typicalP 0.9", [](smx::SamplerOptions& o) { o.typical_p = 0.9; }},
    {"topNSigma 1", [](smx::SamplerOptions& o) { o.top_n_sigma = 1; }},
    {"epsilonCutoff 3e-4", [](smx::SamplerOptions& o) { o.epsilon_cutoff = 3e-4; }},
    {"etaCutoff 3e-4", [](smx::SamplerOptions& o) { o.eta_cutoff = 3e-4; }},
    {"mirostat 2", [](smx::SamplerOptions& o) { o.mirostat = 2; }},
    {"dynatempRange 0.5", [](smx::SamplerOptions& o) { o.dynatemp_range = 0.5; }},
    {"XTC 0.5 / 0.1",
     [](smx::SamplerOptions& o) { o.xtc_probability = 0.5, o.xtc_threshold = 0.1; }},
    {"penalties + topK 40",
     [](smx::SamplerOptions& o) {
       o.repetition_penalty = 1.1f, o.frequency_penalty = 0.1f, o.presence_penalty = 0.1f;
       o.top_k = 40;
     },
     64},
    {"T 0.7, topP 0.9, minP 0.05",
     [](smx::SamplerOptions& o) { o.temperature = 0.7f, o.top_p = 0.9, o.min_p = 0.05; }},
    {"every step on, llama.cpp order",
     [](smx::SamplerOptions& o) { EveryStep(o), o.top_k = 40, Llama(o); }, 256},
    {"T 0.8, topK 40, topP 0.95",
     [](smx::SamplerOptions& o) { o.temperature = 0.8f, o.top_k = 40, o.top_p = 0.95; }},
    {"greedy (T = 0)", [](smx::SamplerOptions& o) { o.temperature = 0.0f; }},
};

// len tokens below vocab (the JavaScript benchmark's history: vocab 1000).
std::vector<int32_t> History(size_t vocab, size_t len) {
  std::vector<int32_t> h(len);
  for (size_t i = 0; i < h.size(); ++i)
    h[i] = static_cast<int32_t>((i * 7919 + (i % 3) * 13) % vocab);
  return h;
}

void Prepare(smx::Sampler& s, const Config& c, size_t n) {
  smx::SamplerOptions o;
  c.edit(o);
  if (s.configure(o) != smx::SampleStatus::kOk) {
    std::fprintf(stderr, "bad options: %s\n", c.label);
    std::exit(1);
  }
  if (c.history > 0) {
    const auto h = History(std::min<size_t>(n, 1000), c.history);
    s.accept(h.data(), h.size());
  }
  if (c.bias) {
    const uint32_t idx[3] = {0, static_cast<uint32_t>(n / 2), static_cast<uint32_t>(n - 1)};
    const float val[3] = {1.5f, -INFINITY, -2.0f};
    s.set_logit_bias(idx, val, n >= 3 ? 3 : 0);
  }
}

// Thread CPU time in µs: less sensitive to the other tenants of a shared machine.
double Now() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

// Best of `rounds` medians of 9 batches of ~3 ms: µs per call of f.
template <class F>
double Time(int rounds, F f) {
  double best = 1e300;
  for (int r = 0; r < rounds; ++r) {
    std::vector<double> batch;
    for (int b = 0; b < 9; ++b) {
      int reps = 0;
      const double t0 = Now();
      double t1;
      do {
        f();
        ++reps;
      } while ((t1 = Now()) - t0 < 3000.0 && reps < 100000);
      batch.push_back((t1 - t0) / reps);
    }
    std::sort(batch.begin(), batch.end());
    best = std::min(best, batch[batch.size() / 2]);
  }
  return best;
}

int Bench(int rounds) {
  const size_t n = 151936;
  const std::vector<float> x = Scores(n, n);
  std::vector<float> y(n);
  volatile size_t sink = 0;
  const double softmax_us = Time(rounds, [&] {
    smx::softmax(x.data(), y.data(), smx::Layout{1, n, 1}, smx::Options{});
    sink = sink + (y[0] > 0.0f);
  });
  const double argmax_us = Time(rounds, [&] { sink = sink + smx::argmax(x.data(), n); });
  std::printf("N = %zu: one softmax %.1f µs, argmax %.1f µs\n\n", n, softmax_us, argmax_us);
  std::printf("| configuration | µs | x one softmax |\n|---|---:|---:|\n");
  for (const Config& c : kSpeed) {
    smx::Sampler s;
    Prepare(s, c, n);
    s.seed(42);
    int32_t tok = 0;
    const double us = Time(rounds, [&] { s.sample(x.data(), n, &tok); });
    const bool greedy = std::strncmp(c.label, "greedy", 6) == 0;
    std::printf("| %s | %.1f | %.2f%s |\n", c.label, us, us / (greedy ? argmax_us : softmax_us),
                greedy ? " x argmax" : "");
    std::fflush(stdout);
  }
  return 0;
}

int One(const char* label, int calls) {
  const size_t n = 151936;
  const std::vector<float> x = Scores(n, n);
  for (const Config& c : kSpeed) {
    if (std::strcmp(c.label, label) != 0) continue;
    smx::Sampler s;
    Prepare(s, c, n);
    s.seed(42);
    int32_t tok = 0;
    uint64_t sum = 0;
    for (int i = 0; i < calls; ++i) {
      s.sample(x.data(), n, &tok);
      sum += static_cast<uint32_t>(tok);
    }
    std::printf("%s: %d calls, token sum %llu\n", label, calls,
                static_cast<unsigned long long>(sum));
    return 0;
  }
  std::fprintf(stderr, "no configuration named '%s'\n", label);
  return 1;
}

uint64_t Mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

template <class T>
uint64_t MixBits(uint64_t h, const T& v) {
  uint32_t b;
  std::memcpy(&b, &v, 4);
  return Mix(h, b);
}

// The digest's configurations: the filters of every step, alone and chained.
const Config kDigest[] = {
    {"k40 p0.95",
     [](smx::SamplerOptions& o) { o.temperature = 0.8f, o.top_k = 40, o.top_p = 0.95; }},
    {"p0.95", [](smx::SamplerOptions& o) { o.temperature = 0.8f, o.top_p = 0.95; }},
    {"p0.5", [](smx::SamplerOptions& o) { o.top_p = 0.5; }},
    {"p0.999", [](smx::SamplerOptions& o) { o.temperature = 1.3f, o.top_p = 0.999; }},
    {"p0.9999999", [](smx::SamplerOptions& o) { o.top_p = 0.9999999; }},
    {"p1e-3", [](smx::SamplerOptions& o) { o.top_p = 1e-3; }},
    {"k1", [](smx::SamplerOptions& o) { o.top_k = 1; }},
    {"k5", [](smx::SamplerOptions& o) { o.temperature = 0.7f, o.top_k = 5; }},
    {"k1000", [](smx::SamplerOptions& o) { o.temperature = 0.8f, o.top_k = 1000; }},
    {"khalf", [](smx::SamplerOptions& o) { o.top_k = 20000; }},
    {"minp0.05", [](smx::SamplerOptions& o) { o.temperature = 0.8f, o.min_p = 0.05; }},
    {"minp0.5 k50", [](smx::SamplerOptions& o) { o.top_k = 50, o.min_p = 0.5; }},
    {"typ0.9", [](smx::SamplerOptions& o) { o.temperature = 0.8f, o.typical_p = 0.9; }},
    {"typ0.2 p0.9", [](smx::SamplerOptions& o) { o.top_p = 0.9, o.typical_p = 0.2; }},
    {"all",
     [](smx::SamplerOptions& o) {
       o.temperature = 0.9f, o.top_k = 200, o.top_p = 0.9, o.min_p = 0.01, o.typical_p = 0.95;
     }},
    {"llama p0.95", [](smx::SamplerOptions& o) { o.top_p = 0.95, Llama(o); }},
    {"llama k40 p0.9 T0.5",
     [](smx::SamplerOptions& o) {
       o.temperature = 0.5f, o.top_k = 40, o.top_p = 0.9, o.min_p = 0.02, o.typical_p = 0.97;
       Llama(o);
     }},
    {"T0 p0.9", [](smx::SamplerOptions& o) { o.temperature = 0.0f, o.top_p = 0.9; }},
    {"Tinf p0.9",
     [](smx::SamplerOptions& o) { o.temperature = INFINITY, o.top_k = 100, o.top_p = 0.9; }},
    {"T1", [](smx::SamplerOptions&) {}},
    {"T0", [](smx::SamplerOptions& o) { o.temperature = 0.0f; }},
    {"T0.7", [](smx::SamplerOptions& o) { o.temperature = 0.7f; }},
    {"nsigma1", [](smx::SamplerOptions& o) { o.top_n_sigma = 1; }},
    {"nsigma2.5 T1.2 llama",
     [](smx::SamplerOptions& o) { o.top_n_sigma = 2.5, o.temperature = 1.2f, Llama(o); }},
    {"eps3e-4", [](smx::SamplerOptions& o) { o.epsilon_cutoff = 3e-4; }},
    {"eps0.02 T0.8", [](smx::SamplerOptions& o) { o.epsilon_cutoff = 0.02, o.temperature = 0.8f; }},
    {"eta3e-4", [](smx::SamplerOptions& o) { o.eta_cutoff = 3e-4; }},
    {"eta0.05 T1.3", [](smx::SamplerOptions& o) { o.eta_cutoff = 0.05, o.temperature = 1.3f; }},
    {"mirostat1", [](smx::SamplerOptions& o) { o.mirostat = 1; }},
    {"mirostat2", [](smx::SamplerOptions& o) { o.mirostat = 2; }},
    {"mirostat2 tau3 T0.8 llama",
     [](smx::SamplerOptions& o) {
       o.mirostat = 2, o.mirostat_tau = 3, o.mirostat_eta = 0.3, o.temperature = 0.8f, Llama(o);
     }},
    {"dynatemp0.5", [](smx::SamplerOptions& o) { o.dynatemp_range = 0.5; }},
    {"dynatemp1 exp2 T0.8",
     [](smx::SamplerOptions& o) {
       o.dynatemp_range = 1, o.dynatemp_exponent = 2, o.temperature = 0.8f;
     }},
    {"xtc0.5/0.1", [](smx::SamplerOptions& o) { o.xtc_probability = 0.5, o.xtc_threshold = 0.1; }},
    {"xtc1/0.01 k50",
     [](smx::SamplerOptions& o) { o.xtc_probability = 1, o.xtc_threshold = 0.01, o.top_k = 50; }},
    {"penalties k40",
     [](smx::SamplerOptions& o) {
       o.repetition_penalty = 1.1f, o.frequency_penalty = 0.1f, o.presence_penalty = 0.1f;
       o.top_k = 40;
     },
     64},
    {"penalties p0.9",
     [](smx::SamplerOptions& o) {
       o.repetition_penalty = 1.3f, o.frequency_penalty = 0.5f, o.penalty_last_n = 16;
       o.top_p = 0.9;
     },
     64},
    {"bias k40", [](smx::SamplerOptions& o) { o.top_k = 40; }, 0, true},
    {"bias minp", [](smx::SamplerOptions& o) { o.min_p = 0.1; }, 0, true},
    {"dry", [](smx::SamplerOptions& o) { o.dry_multiplier = 0.8f, o.dry_allowed_length = 1; }, 64},
    {"ngram2", [](smx::SamplerOptions& o) { o.no_repeat_ngram_size = 2; }, 64},
    {"T0.7 p0.9 minp0.05",
     [](smx::SamplerOptions& o) { o.temperature = 0.7f, o.top_p = 0.9, o.min_p = 0.05; }},
    {"every step hf", EveryStep, 64, true},
    {"every step llama", [](smx::SamplerOptions& o) { EveryStep(o), Llama(o); }, 64, true},
};

int Digest() {
  // Inputs: normal with several spreads, heavy ties (integers), masked entries,
  // tiny n; sizes that exercise every path.
  const size_t sizes[] = {1, 2, 3, 17, 100, 1000, 5000, 32000, 151936};
  const double sds[] = {0.01, 1.0, 3.0, 10.0};
  for (const Config& c : kDigest) {
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
        smx::SamplerOptions o;
        c.edit(o);
        if (variant == 3) o.min_keep = 7;
        if (s.configure(o) != smx::SampleStatus::kOk) {
          std::printf("bad options %s\n", c.label);
          return 1;
        }
        if (c.history) {
          const auto hist = History(n, c.history);
          s.accept(hist.data(), hist.size());
        }
        if (c.bias && n >= 3) {
          const uint32_t idx[3] = {0, static_cast<uint32_t>(n / 2), static_cast<uint32_t>(n - 1)};
          const float val[3] = {1.5f, -INFINITY, -2.0f};
          s.set_logit_bias(idx, val, 3);
        }
        s.seed(n + variant);
        std::vector<float> p(n);
        h = Mix(h, static_cast<uint64_t>(s.probs(x.data(), n, p.data())));
        for (size_t i = 0; i < n; ++i) h = MixBits(h, p[i]);
        std::vector<int32_t> t(64);
        h = Mix(h, static_cast<uint64_t>(s.sample_many(x.data(), n, t.size(), t.data())));
        for (int32_t v : t) h = Mix(h, static_cast<uint32_t>(v));
        for (int i = 0; i < 4; ++i) {
          int32_t v = -1;
          h = Mix(h, static_cast<uint64_t>(s.sample(x.data(), n, &v)));
          h = Mix(h, static_cast<uint32_t>(v));
          if (c.history && v >= 0) s.accept(&v, 1);
        }
        const size_t kk = std::min<size_t>(n, 8);
        std::vector<int32_t> idx(kk);
        std::vector<float> before(kk), after(kk);
        h = Mix(h, static_cast<uint64_t>(
                       s.logprobs(x.data(), n, kk, idx.data(), before.data(), after.data())));
        for (size_t i = 0; i < kk; ++i)
          h = MixBits(MixBits(Mix(h, static_cast<uint32_t>(idx[i])), before[i]), after[i]);
        h = Mix(h, static_cast<uint64_t>(s.mirostat_mu() * 1e12));
      }
    }
    std::printf("%-26s %016llx\n", c.label, static_cast<unsigned long long>(h));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--digest") == 0) return Digest();
  if (argc > 2 && std::strcmp(argv[1], "--one") == 0)
    return One(argv[2], argc > 3 ? std::atoi(argv[3]) : 200);
  return Bench(argc > 1 ? std::atoi(argv[1]) : 3);
}
