// The Embind bindings of the core: the only file that sees Emscripten.
//
// Arrays cross as byte offsets into wasm memory (uintptr_t), staged there by
// web/src/ (which validates every argument first and reads every input once);
// the core validates again and returns a status that the JavaScript layer
// turns into an error naming the argument. Nothing here allocates per call.
//
// Per-call cost. Under -sDYNAMIC_EXECUTION=0 (a page whose CSP forbids
// 'unsafe-eval') Embind 3.1.6 builds each invoker from one generic closure
// that loops over the argument types, reuses shared arrays and calls through
// Function.prototype.apply: ~110-300 ns per call in Node 20 (an 8-argument
// softmax), against ~8 ns for a direct call of a wasm export. The JS library
// cpp/bindings/fast_invoker.js replaces Embind's craftInvokerFunction with
// fixed-arity closures for the signatures whose types need no destructor (every
// per-call signature below: numbers, enums, this): no eval, no apply, no shared
// state, so a call through Embind costs about what a direct call costs
// (`npm run bench` prints both). Signatures that carry a value_object keep a
// generic path (configure, once per sampler).
//
// Size: Embind's runtime and the value_object support add ~12 KB gzip to
// the module; the package's budget (SIMD wasm + glue + JS API) is 56 KiB gzip.
#include <emscripten/bind.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "smx/sampler.h"
#include "smx/softmax.h"

namespace {

using Ptr = uintptr_t;

template <typename T>
T* at(Ptr p) {
  return reinterpret_cast<T*>(p);
}

int32_t code(smx::Status s) { return static_cast<int32_t>(s); }
int32_t code(smx::SampleStatus s) { return static_cast<int32_t>(s); }

using Map = smx::Status (*)(const float*, float*, const smx::Layout&, const smx::Options&);

// The softmax family over [length] floats at x seen through shape[0..ndim) and
// axis; y receives the result. Returns a smx::Status.
template <Map kFn>
int32_t map(Ptr x, Ptr y, uint32_t length, Ptr shape, uint32_t ndim, int32_t axis,
            float temperature, smx::Masked masked) {
  smx::Layout l;
  smx::Status s = smx::make_layout(length, at<const int32_t>(shape), ndim, axis, &l);
  if (s == smx::Status::kOk) s = kFn(at<const float>(x), at<float>(y), l, {temperature, masked});
  return code(s);
}

// y: one double per slice.
int32_t log_sum_exp(Ptr x, Ptr y, uint32_t length, Ptr shape, uint32_t ndim, int32_t axis,
                    float temperature) {
  smx::Layout l;
  smx::Status s = smx::make_layout(length, at<const int32_t>(shape), ndim, axis, &l);
  if (s == smx::Status::kOk)
    s = smx::log_sum_exp(at<const float>(x), at<double>(y), l, {temperature, smx::Masked::kNaN});
  return code(s);
}

// arrays: 5 float arrays of n (scaled, shifted, exps, probs, raw_exps);
// out: max, sum, raw_sum (doubles).
int32_t softmax_steps(Ptr x, uint32_t n, float temperature, smx::Masked masked, Ptr arrays,
                      Ptr out) {
  float* a = at<float>(arrays);
  smx::Steps st{a, a + n, a + 2 * n, a + 3 * n, a + 4 * n, 0, 0, 0};
  const smx::Status s = smx::softmax_steps(at<const float>(x), n, {temperature, masked}, &st);
  at<double>(out)[0] = st.max;
  at<double>(out)[1] = st.sum;
  at<double>(out)[2] = st.raw_sum;
  return code(s);
}

float sigmoid(float z) { return smx::sigmoid(z); }

uint32_t argmax(Ptr x, uint32_t n) {
  return static_cast<uint32_t>(smx::argmax(at<const float>(x), n));
}

// In place: x[i] = -Infinity where the token mask forbids i. Returns how many it allows.
uint32_t apply_token_bitmask(Ptr x, uint32_t n, Ptr mask) {
  return static_cast<uint32_t>(smx::apply_token_bitmask(at<float>(x), n, at<const uint32_t>(mask)));
}

int32_t live_samplers = 0;

// smx::Sampler as JavaScript sees it: arrays are offsets into wasm memory.
class Sampler {
 public:
  Sampler() { ++live_samplers; }
  ~Sampler() { --live_samplers; }
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // A new sampler, or null when wasm memory is exhausted (never an abort).
  static Sampler* create() { return new (std::nothrow) Sampler(); }

  // The options as converted by the value_object (each number already the
  // member's type), checked by the one validate(); kOk when they were taken.
  smx::OptionCheck configure(const smx::SamplerOptions& o) {
    const smx::OptionCheck c = smx::validate(o);
    if (c.ok()) s_.configure(o);
    return c;
  }
  int32_t setLogitBias(Ptr index, Ptr bias, uint32_t count) {
    return code(s_.set_logit_bias(at<const uint32_t>(index), at<const float>(bias), count));
  }
  int32_t setDryBreakers(Ptr tokens, uint32_t count) {
    return code(s_.set_dry_breakers(at<const int32_t>(tokens), count));
  }
  // The 64-bit seed as two uint32 halves.
  void seed(uint32_t lo, uint32_t hi) { s_.seed((static_cast<uint64_t>(hi) << 32) | lo); }
  // seed, clear the history, mirostat's mu = 2 tau.
  void reset(uint32_t lo, uint32_t hi) { s_.reset((static_cast<uint64_t>(hi) << 32) | lo); }
  double mirostatMu() const { return s_.mirostat_mu(); }
  int32_t accept(Ptr tokens, uint32_t count) {
    return code(s_.accept(at<const int32_t>(tokens), count));
  }
  void clearHistory() { s_.clear_history(); }
  // mask: a token mask (0: none). The index (>= 0), or -SampleStatus.
  int32_t sample(Ptr x, uint32_t n, Ptr mask) {
    int32_t t = 0;
    const smx::SampleStatus st = s_.sample(at<const float>(x), n, &t, at<const uint32_t>(mask));
    return st == smx::SampleStatus::kOk ? t : -code(st);
  }
  int32_t sampleMany(Ptr x, uint32_t n, uint32_t count, Ptr out, Ptr mask) {
    return code(
        s_.sample_many(at<const float>(x), n, count, at<int32_t>(out), at<const uint32_t>(mask)));
  }
  int32_t sampleBatch(Ptr x, uint32_t rows, uint32_t n, Ptr out, Ptr mask) {
    return code(
        s_.sample_batch(at<const float>(x), rows, n, at<int32_t>(out), at<const uint32_t>(mask)));
  }
  int32_t probs(Ptr x, uint32_t n, Ptr out, Ptr mask) {
    return code(s_.probs(at<const float>(x), n, at<float>(out), at<const uint32_t>(mask)));
  }
  int32_t logprobs(Ptr x, uint32_t n, uint32_t k, Ptr index, Ptr before, Ptr after, Ptr mask) {
    return code(s_.logprobs(at<const float>(x), n, k, at<int32_t>(index), at<float>(before),
                            at<float>(after), at<const uint32_t>(mask)));
  }
  // out[0] = the accepted count a, out[1 .. a + 2) the tokens.
  int32_t verifyDraft(Ptr draft, Ptr draft_probs, uint32_t k, Ptr target, uint32_t n, Ptr mask,
                      Ptr out) {
    int32_t* o = at<int32_t>(out);
    size_t accepted = 0;
    const smx::SampleStatus st =
        s_.verify_draft(at<const int32_t>(draft), at<const float>(draft_probs), k,
                        at<const float>(target), n, o + 1, &accepted, at<const uint32_t>(mask));
    o[0] = static_cast<int32_t>(accepted);
    return code(st);
  }
  double errorIndex() const { return static_cast<double>(s_.error_index()); }

 private:
  smx::Sampler s_;
};

int32_t liveSamplers() { return live_samplers; }

// Whether this module was compiled for SIMD128 (what runs, whichever .wasm was asked for).
bool simdBuild() {
#ifdef __wasm_simd128__
  return true;
#else
  return false;
#endif
}

// The option table, the step names and the presets, read once at load time by
// web/src/sampler.js (its unknown-option check, its range checks and messages,
// the docs test). The table crosses as constant data in wasm memory rather than
// as an emscripten::val, whose runtime would add ~1.1 KB gzip to the package
// for this one call. optionTable() returns the address of an OptionTable:
//   numbers  doubles: per numeric option its type (0 float32, 1 float64,
//            2 uint32, 3 int32), lo, hi, lo_open, hi_open, default and step
//            (-1: none); then per list option its step; then the two presets
//            (Hugging Face, llama.cpp) as step indices;
//   names    the numeric options' names, the list options' names, then their
//            kinds, each ended by a NUL; steps: the step names, the same way;
//   and the byte counts of the two texts and the counts of options and steps.
constexpr double type_code(const float*) { return 0; }
constexpr double type_code(const double*) { return 1; }
constexpr double type_code(const uint32_t*) { return 2; }
constexpr double type_code(const int32_t*) { return 3; }
constexpr double step_code(smx::Step step) { return static_cast<int32_t>(step); }

using namespace smx::option_limits;  // the names the table uses: kInf, the integer limits,
using smx::kNoStep;                  // Step and kNoStep
using smx::Step;
constexpr double kTableNumbers[] = {
#define SMX_ROW(js, member, type, lo, lo_open, hi, hi_open, def, step, doc) \
  type_code(static_cast<type*>(nullptr)), lo, hi, lo_open, hi_open, def, step_code(step),
    SMX_SAMPLER_NUMBERS(SMX_ROW)
#undef SMX_ROW
#define SMX_ROW(js, kind, step, doc) step_code(step),
        SMX_SAMPLER_LISTS(SMX_ROW)
#undef SMX_ROW
};
struct Presets {
  double order[2][smx::kNumSteps];
};
constexpr Presets make_presets() {
  Presets p{};
  for (int i = 0; i < smx::kNumSteps; ++i) {
    p.order[0][i] = step_code(smx::kOrderHf[i]);
    p.order[1][i] = step_code(smx::kOrderLlamaCpp[i]);
  }
  return p;
}
struct TableNumbers {
  double numbers[sizeof kTableNumbers / sizeof(double)];
  Presets presets;
};
constexpr TableNumbers make_numbers() {
  TableNumbers t{};
  for (size_t i = 0; i < sizeof kTableNumbers / sizeof(double); ++i)
    t.numbers[i] = kTableNumbers[i];
  t.presets = make_presets();
  return t;
}
constexpr TableNumbers kNumbers = make_numbers();

#define SMX_NAME(js, ...) #js "\0"
#define SMX_KIND(js, kind, ...) kind "\0"
constexpr char kNames[] =
    SMX_SAMPLER_NUMBERS(SMX_NAME) SMX_SAMPLER_LISTS(SMX_NAME) SMX_SAMPLER_LISTS(SMX_KIND);
#undef SMX_NAME
#undef SMX_KIND

constexpr size_t step_text_bytes() {
  size_t n = 0;
  for (const char* s : smx::kStepNames) {
    for (; *s; ++s) ++n;
    ++n;  // the NUL
  }
  return n;
}
struct StepText {
  char c[step_text_bytes()];
};
constexpr StepText make_step_text() {
  StepText t{};
  size_t k = 0;
  for (const char* s : smx::kStepNames) {
    for (; *s; ++s) t.c[k++] = *s;
    t.c[k++] = '\0';
  }
  return t;
}
constexpr StepText kStepText = make_step_text();

struct OptionTable {
  const TableNumbers* numbers;
  const char* names;
  uint32_t names_bytes;
  const char* steps;
  uint32_t steps_bytes, num_options, num_lists, num_steps;
};
constexpr OptionTable kOptionTable = {
    &kNumbers,          kNames,           sizeof kNames - 1,    kStepText.c,
    sizeof kStepText.c, smx::kNumOptions, smx::kNumListOptions, smx::kNumSteps};

uintptr_t optionTable() { return reinterpret_cast<uintptr_t>(&kOptionTable); }

}  // namespace

EMSCRIPTEN_BINDINGS(softmax_wasm) {
  using namespace emscripten;

  enum_<smx::Masked>("Masked")
      .value("nan", smx::Masked::kNaN)
      .value("zeros", smx::Masked::kZeros)
      .value("uniform", smx::Masked::kUniform)
      .value("throw", smx::Masked::kThrow);
  enum_<smx::Status>("Status")
      .value("ok", smx::Status::kOk)
      .value("allMasked", smx::Status::kAllMasked)
      .value("badShape", smx::Status::kBadShape)
      .value("badAxis", smx::Status::kBadAxis)
      .value("badTemperature", smx::Status::kBadTemperature)
      .value("noMemory", smx::Status::kNoMemory);
  enum_<smx::SampleStatus>("SampleStatus")
      .value("ok", smx::SampleStatus::kOk)
      .value("empty", smx::SampleStatus::kEmpty)
      .value("allMasked", smx::SampleStatus::kAllMasked)
      .value("nanScore", smx::SampleStatus::kNaNScore)
      .value("badOption", smx::SampleStatus::kBadOption)
      .value("badToken", smx::SampleStatus::kBadToken)
      .value("noMemory", smx::SampleStatus::kNoMemory)
      .value("emptyMask", smx::SampleStatus::kEmptyMask)
      .value("badDraft", smx::SampleStatus::kBadDraft)
      .value("draftSum", smx::SampleStatus::kDraftSum);
  enum_<smx::Step> steps("Step");
  for (int i = 0; i < smx::kNumSteps; ++i)
    steps.value(smx::kStepNames[i], static_cast<smx::Step>(i));

  function("softmax", &map<smx::softmax>);
  function("logSoftmax", &map<smx::log_softmax>);
  function("softmaxNaive", &map<smx::softmax_naive>);
  function("logSumExp", &log_sum_exp);
  function("softmaxSteps", &softmax_steps);
  function("sigmoid", &sigmoid);
  function("argmax", &argmax);
  function("applyTokenBitmask", &apply_token_bitmask);

  value_array<std::array<smx::Step, smx::kNumSteps>> order("StepOrder");
  order.element(emscripten::index<0>()).element(emscripten::index<1>());
  order.element(emscripten::index<2>()).element(emscripten::index<3>());
  order.element(emscripten::index<4>()).element(emscripten::index<5>());
  order.element(emscripten::index<6>()).element(emscripten::index<7>());
  order.element(emscripten::index<8>()).element(emscripten::index<9>());
  order.element(emscripten::index<10>()).element(emscripten::index<11>());
  order.element(emscripten::index<12>());
  static_assert(smx::kNumSteps == 13, "StepOrder lists every step");

  value_object<smx::SamplerOptions> options("SamplerOptions");
#define SMX_FIELD(js, member, ...) options.field(#js, &smx::SamplerOptions::member);
  SMX_SAMPLER_NUMBERS(SMX_FIELD)
#undef SMX_FIELD
  options.field("order", &smx::SamplerOptions::order);
  options.field("orderLength", &smx::SamplerOptions::order_len);

  value_object<smx::OptionCheck>("OptionCheck")
      .field("kind", &smx::OptionCheck::kind)
      .field("option", &smx::OptionCheck::option)
      .field("step", &smx::OptionCheck::step);
  enum_<smx::OptionCheck::Kind>("OptionCheckKind")
      .value("ok", smx::OptionCheck::kOk)
      .value("outOfRange", smx::OptionCheck::kOutOfRange)
      .value("badOrder", smx::OptionCheck::kBadOrder)
      .value("missingStep", smx::OptionCheck::kMissingStep)
      .value("needsFiniteTemperature", smx::OptionCheck::kNeedsFiniteT);

  class_<Sampler>("Sampler")
      .class_function("create", &Sampler::create, allow_raw_pointers())
      .function("configure", &Sampler::configure)
      .function("setLogitBias", &Sampler::setLogitBias)
      .function("setDryBreakers", &Sampler::setDryBreakers)
      .function("seed", &Sampler::seed)
      .function("reset", &Sampler::reset)
      .function("accept", &Sampler::accept)
      .function("clearHistory", &Sampler::clearHistory)
      .function("sample", &Sampler::sample)
      .function("sampleMany", &Sampler::sampleMany)
      .function("sampleBatch", &Sampler::sampleBatch)
      .function("probs", &Sampler::probs)
      .function("logprobs", &Sampler::logprobs)
      .function("verifyDraft", &Sampler::verifyDraft)
      .property("mirostatMu", &Sampler::mirostatMu)
      .property("errorIndex", &Sampler::errorIndex);

  function("liveSamplers", &liveSamplers);
  function("simdBuild", &simdBuild);
  function("optionTable", &optionTable);
}
