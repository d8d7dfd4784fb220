// Native figures for every softmax micro-kernel listed in
// cpp/src/kernels/kernels.inc (Google Benchmark), in elements per second, at
// N = 1000, 32000 and 262144. The SIMD128 kernels run here through SIMDe's
// implementation of wasm_simd128.h (on x86: SSE), so these are native numbers,
// not wasm ones: they show the kernels' relative cost and the headroom the wasm
// engine leaves. Built as the optional CMake target `kernels_bench` (only when
// find_package(benchmark) succeeds); `npm run bench` builds and runs it.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/kernels.h"
#include "scores.h"

namespace {

namespace k = smx::kernels;

const int64_t kSizes[] = {1000, 32000, 262144};

std::vector<float> Scores(size_t n) { return NormalScores(n, 0x9E3779B97F4A7C15ull); }

float Max(const std::vector<float>& x) {
  float m = x[0];
  for (float v : x) m = v > m ? v : m;
  return m;
}

void Done(benchmark::State& state, size_t n) {
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(n));
}

benchmark::internal::Benchmark* Register(const char* name, k::rmax_ukernel* fn) {
  return benchmark::RegisterBenchmark(name, [fn](benchmark::State& state) {
    const auto x = Scores(state.range(0));
    for (auto _ : state) benchmark::DoNotOptimize(fn(x.size(), x.data()));
    Done(state, x.size());
  });
}

benchmark::internal::Benchmark* Register(const char* name, k::rminmax_ukernel* fn) {
  return benchmark::RegisterBenchmark(name, [fn](benchmark::State& state) {
    const auto x = Scores(state.range(0));
    float mm[2];
    for (auto _ : state) {
      fn(x.size(), x.data(), mm);
      benchmark::DoNotOptimize(mm);
    }
    Done(state, x.size());
  });
}

// The softmax fast path at T = 1: nc = round(max log2 e), lanes masked as
// softmax does for these inputs (min < max - 80 is false for normal(0, 3)).
benchmark::internal::Benchmark* Register(const char* name, k::raddstoreexpminusc_ukernel* fn) {
  return benchmark::RegisterBenchmark(name, [fn](benchmark::State& state) {
    const auto x = Scores(state.range(0));
    std::vector<float> y(x.size());
    const float nc = std::nearbyint(Max(x) * 0x1.715476p+0f);
    for (auto _ : state) {
      benchmark::DoNotOptimize(fn(x.size(), x.data(), nc, false, y.data()));
      benchmark::ClobberMemory();
    }
    Done(state, x.size());
  });
}

benchmark::internal::Benchmark* Register(const char* name, k::raddstoreexpminusmax_ukernel* fn) {
  return benchmark::RegisterBenchmark(name, [fn](benchmark::State& state) {
    const auto x = Scores(state.range(0));
    std::vector<float> y(x.size());
    const float m = Max(x);
    for (auto _ : state) {
      benchmark::DoNotOptimize(fn(x.size(), x.data(), m, 1.0f, y.data()));
      benchmark::ClobberMemory();
    }
    Done(state, x.size());
  });
}

// The tempered path at T = 0.7, unmasked as softmax runs it for normal(0, 3).
benchmark::internal::Benchmark* Register(const char* name, k::raddstoreexptempered_ukernel* fn) {
  return benchmark::RegisterBenchmark(name, [fn](benchmark::State& state) {
    const auto x = Scores(state.range(0));
    std::vector<float> y(x.size());
    const float m = Max(x);
    for (auto _ : state) {
      benchmark::DoNotOptimize(fn(x.size(), x.data(), m, 0.7f, false, y.data()));
      benchmark::ClobberMemory();
    }
    Done(state, x.size());
  });
}

// The fused pass of the entropy steps: softmax's fast path plus the dot.
benchmark::internal::Benchmark* Register(const char* name, k::raddstoreexpdot_ukernel* fn) {
  return benchmark::RegisterBenchmark(name, [fn](benchmark::State& state) {
    const auto x = Scores(state.range(0));
    std::vector<float> y(x.size());
    const float m = Max(x);
    const float nc = std::nearbyint(m * 0x1.715476p+0f);
    double dot = 0;
    for (auto _ : state) {
      benchmark::DoNotOptimize(fn(x.size(), x.data(), m, 1.0f, nc, k::kExpShift, y.data(), &dot));
      benchmark::ClobberMemory();
    }
    Done(state, x.size());
  });
}

benchmark::internal::Benchmark* Register(const char* name, k::vscale_ukernel* fn) {
  return benchmark::RegisterBenchmark(name, [fn](benchmark::State& state) {
    const auto x = Scores(state.range(0));
    std::vector<float> y(x.size());
    for (auto _ : state) {
      fn(x.size(), x.data(), 0.5f, y.data());
      benchmark::ClobberMemory();
    }
    Done(state, x.size());
  });
}

benchmark::internal::Benchmark* Register(const char* name, k::vlogsoftmax_ukernel* fn) {
  return benchmark::RegisterBenchmark(name, [fn](benchmark::State& state) {
    const auto x = Scores(state.range(0));
    std::vector<float> y(x.size());
    const float m = Max(x);
    for (auto _ : state) {
      fn(x.size(), x.data(), m, 1.0f, 10.0f, y.data());
      benchmark::ClobberMemory();
    }
    Done(state, x.size());
  });
}

// A threshold scan with nothing above the threshold: every block is read.
benchmark::internal::Benchmark* Register(const char* name, k::findabove_ukernel* fn) {
  return benchmark::RegisterBenchmark(name, [fn](benchmark::State& state) {
    const auto x = Scores(state.range(0));
    const float m = Max(x);
    for (auto _ : state) benchmark::DoNotOptimize(fn(x.size(), x.data(), m));
    Done(state, x.size());
  });
}

benchmark::internal::Benchmark* Register(const char* name, k::raddstorescale_ukernel* fn) {
  return benchmark::RegisterBenchmark(name, [fn](benchmark::State& state) {
    const auto x = Scores(state.range(0));
    std::vector<float> y(x.size());
    for (auto _ : state) {
      benchmark::DoNotOptimize(fn(x.size(), x.data(), 0.5f, y.data()));
      benchmark::ClobberMemory();
    }
    Done(state, x.size());
  });
}

benchmark::internal::Benchmark* Register(const char* name, k::rsumsqdiff_ukernel* fn) {
  return benchmark::RegisterBenchmark(name, [fn](benchmark::State& state) {
    const auto x = Scores(state.range(0));
    double out[2];
    for (auto _ : state) {
      fn(x.size(), x.data(), 0.5, out);
      benchmark::DoNotOptimize(out);
    }
    Done(state, x.size());
  });
}

// Positions at or above the 95th percentile of normal(0, 3) (about 5%).
benchmark::internal::Benchmark* Register(const char* name, k::indexge_ukernel* fn) {
  return benchmark::RegisterBenchmark(name, [fn](benchmark::State& state) {
    const auto x = Scores(state.range(0));
    std::vector<uint32_t> out(x.size());
    for (auto _ : state) benchmark::DoNotOptimize(fn(x.size(), x.data(), 4.935f, out.data()));
    Done(state, x.size());
  });
}

// The scaled sum, and the positions at or above the 95th percentile.
benchmark::internal::Benchmark* Register(const char* name, k::raddscaleindexge_ukernel* fn) {
  return benchmark::RegisterBenchmark(name, [fn](benchmark::State& state) {
    const auto x = Scores(state.range(0));
    std::vector<uint32_t> out(x.size());
    size_t count = 0;
    for (auto _ : state) {
      benchmark::DoNotOptimize(fn(x.size(), x.data(), 0.5f, x.data(), 4.935f, out.data(), &count));
      benchmark::DoNotOptimize(count);
    }
    Done(state, x.size());
  });
}

// A grammar-like mask: words all clear, all set and mixed, in turn.
benchmark::internal::Benchmark* Register(const char* name, k::vbitmask_ukernel* fn) {
  return benchmark::RegisterBenchmark(name, [fn](benchmark::State& state) {
    const auto x = Scores(state.range(0));
    std::vector<uint32_t> mask((x.size() + 31) / 32);
    for (size_t w = 0; w < mask.size(); ++w)
      mask[w] = w % 3 == 0 ? 0u : w % 3 == 1 ? 0xFFFFFFFFu : 0x9E3779B9u * static_cast<uint32_t>(w);
    std::vector<float> y(x.size());
    for (auto _ : state) {
      benchmark::DoNotOptimize(fn(x.size(), x.data(), mask.data(), y.data()));
      benchmark::ClobberMemory();
    }
    Done(state, x.size());
  });
}

// The threshold scan of a masked top-k: half the tokens allowed, nothing allowed above the max.
benchmark::internal::Benchmark* Register(const char* name, k::findabovemasked_ukernel* fn) {
  return benchmark::RegisterBenchmark(name, [fn](benchmark::State& state) {
    const auto x = Scores(state.range(0));
    std::vector<uint32_t> mask((x.size() + 31) / 32);
    for (size_t w = 0; w < mask.size(); ++w) mask[w] = 0x9E3779B9u * static_cast<uint32_t>(w + 1);
    const float m = Max(x);
    for (auto _ : state) benchmark::DoNotOptimize(fn(x.size(), x.data(), m, mask.data(), 0));
    Done(state, x.size());
  });
}

}  // namespace

int main(int argc, char** argv) {
  // One benchmark per kernel of kernels.inc, each at every size.
#define SMX_KERNEL(op, name, isa)                                       \
  {                                                                     \
    auto* b = Register(#name, static_cast<k::op##_ukernel*>(&k::name)); \
    for (const int64_t n : kSizes) b->Arg(n);                           \
  }
#include "kernels/kernels.inc"
#undef SMX_KERNEL
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
